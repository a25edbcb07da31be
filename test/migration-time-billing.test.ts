// The time-billing migration on a database that already holds time entries, on both engines: an entry recorded
// before answers its figures as before (unbilled, billed hours following the increment), and the migration goes
// down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { insertOldMember, migratableDatabase } from './helpers/migration.js';

const NAME = '20261129150000_time_billing';

test('entries recorded before the migration keep their figures, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before billing' });
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const memberId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    const entryId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
    await insertOldMember(database.db, account.id, memberId, now);
    // An entry as the version before wrote it: no billed_hundredths column yet.
    const { billed_hundredths: _billed, ...before } = {
      id: entryId,
      account_id: account.id,
      team_member_id: memberId,
      job_id: null,
      visit_id: null,
      started_at: '2026-11-02T08:00:00.000Z',
      ended_at: '2026-11-02T10:20:00.000Z',
      break_minutes: 5,
      source: 'manual',
      billable: 1,
      hourly_cost_amount: 4500,
      hourly_rate_amount: 9000,
      currency: 'USD',
      notes: null,
      approved_at: null,
      approved_by: null,
      invoice_id: null,
      billed_hundredths: null,
      external_id: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    };
    await database.db.insertInto('time_entries').values(before).execute();
    assert.ok((await database.migrateToLatest()).includes(NAME));
    const ctx = {
      db: database.db,
      clock: systemClock,
      links: { publicBaseUrl: 'http://127.0.0.1:3000' },
      accountId: account.id,
      actor: SYSTEM_ACTOR,
    };
    const { getTimeEntry } = await import('../src/modules/time-entries/index.js');
    const entry = await getTimeEntry(ctx, entryId);
    assert.deepEqual(
      [entry.duration_seconds, entry.cost_amount, entry.billed_hours, entry.billable_amount, entry.invoice_id],
      [8100, 10125, 2.25, 20250, null],
    );
    await database.migrateTo(database.before(NAME));
    assert.ok((await database.migrateToLatest()).includes(NAME));
    assert.equal((await getTimeEntry(ctx, entryId)).billed_hours, 2.25);
  } finally {
    await database.close();
  }
});
