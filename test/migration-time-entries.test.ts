// The time-entries migration on a database that already holds accounts and team members, on both engines: every
// account answers the default billing increment (3) and nothing locked, a member made before can record time, and
// the migration goes down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { createAccount, getAccount } from '../src/modules/accounts/index.js';
import { insertOldMember, migratableDatabase } from './helpers/migration.js';

const NAME = '20261129030000_time_entries';

test('accounts and members made before the migration keep working, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before time entries' });
    await database.migrateTo(database.before(NAME));
    // A member as the version before wrote it.
    const now = new Date().toISOString();
    const memberId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    await insertOldMember(database.db, account.id, memberId, now);
    assert.ok((await database.migrateToLatest()).includes(NAME));
    const ctx = {
      db: database.db,
      clock: systemClock,
      links: { publicBaseUrl: 'http://127.0.0.1:3000' },
      accountId: account.id,
      actor: SYSTEM_ACTOR,
    };
    const read = await getAccount(database.db, account.id);
    assert.equal(read.time_billing_increment_minutes, 3);
    assert.equal(read.time_locked_through, null);
    const { createTimeEntry } = await import('../src/modules/time-entries/time-entries.service.js');
    const entry = await createTimeEntry(ctx, {
      team_member_id: memberId,
      started_at: '2026-11-02T08:00:00Z',
      ended_at: '2026-11-02T09:00:00Z',
    });
    assert.equal(entry.billed_hours, 1);
    assert.equal(entry.cost_amount, 0);
  } finally {
    await database.close();
  }
});
