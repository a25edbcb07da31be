// The migration that keeps each time entry's worked seconds (for a job's costing), on a database that already holds
// entries, on both engines: a stopped entry gets ended − started rounded to the second, less its break; a running one
// null; and the migration goes down and up again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { insertOldMember, migratableDatabase } from './helpers/migration.js';

const NAME = '20261129180000_time_entry_seconds';

test('entries recorded before the migration get their worked seconds; running ones none', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before seconds' });
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const memberId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    await insertOldMember(database.db, account.id, memberId, now);
    const entry = (id: string, started_at: string, ended_at: string | null, break_minutes: number) => ({
      id,
      account_id: account.id,
      team_member_id: memberId,
      job_id: null,
      visit_id: null,
      started_at,
      ended_at,
      break_minutes,
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
    });
    await database.db
      .insertInto('time_entries')
      .values([
        // 2 h 20 min less a 5-minute break: 8,100 s.
        entry('019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02', '2026-11-02T08:00:00.000Z', '2026-11-02T10:20:00.000Z', 5),
        // 10.5 s rounds to 11.
        entry('019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03', '2026-11-03T08:00:00.000Z', '2026-11-03T08:00:10.500Z', 0),
        // A break longer than the span: 0, never negative.
        entry('019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f04', '2026-11-04T08:00:00.000Z', '2026-11-04T08:10:00.000Z', 15),
        // Running.
        entry('019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f05', '2026-11-05T08:00:00.000Z', null, 0),
      ] as never)
      .execute();
    const seconds = async () =>
      (
        await (database.db as any).selectFrom('time_entries').select(['id', 'duration_seconds']).orderBy('id').execute()
      ).map((row: { duration_seconds: number | null }) =>
        row.duration_seconds === null ? null : Number(row.duration_seconds),
      );
    assert.ok((await database.migrateToLatest()).includes(NAME));
    assert.deepEqual(await seconds(), [8100, 11, 0, null]);
    await database.migrateTo(database.before(NAME));
    assert.equal((await database.db.selectFrom('time_entries').select('id').execute()).length, 4);
    await database.migrateToLatest();
    assert.deepEqual(await seconds(), [8100, 11, 0, null]);
  } finally {
    await database.close();
  }
});
