// The ledger entry days' migration on a database with entries already posted, on both engines: per account and
// local day, the last sequence of an entry dated that day (a back-dated entry raises an earlier day's); down drops
// the table and keeps the entries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase, oldLedger } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a13';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b13';
const INVOICE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c14';
const PAYMENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d14';
const MIGRATION = '20261130120100_ledger_entry_days';

test('existing entries give each day the last sequence of an entry dated on it', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as import('kysely').Kysely<any>;
    const entry = await oldLedger(db, ACCOUNT, CLIENT, '2026-11-01T08:00:00.000Z');
    await db
      .insertInto('ledger_entries')
      .values([
        entry(1, { type: 'invoice_issued', effective_date: '2026-11-02', amount: 10_000, invoice_id: INVOICE }),
        entry(2, { type: 'payment_received', effective_date: '2026-11-05', amount: -4_000, payment_id: PAYMENT }),
        entry(3, {
          type: 'applied',
          effective_date: '2026-11-05',
          applied_amount: 4_000,
          payment_id: PAYMENT,
          invoice_id: INVOICE,
        }),
        // Back-dated: posted after the payment, dated the invoice's day.
        entry(4, { type: 'invoice_adjusted', effective_date: '2026-11-02', amount: 500, invoice_id: INVOICE }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    const rows = await db
      .selectFrom('ledger_entry_days')
      .selectAll()
      .where('account_id', '=', ACCOUNT)
      .orderBy('effective_date')
      .execute();
    assert.deepEqual(
      rows.map((row: Record<string, unknown>) => [String(row.effective_date).slice(0, 10), Number(row.last_sequence)]),
      [
        ['2026-11-02', 4],
        ['2026-11-05', 3],
      ],
    );

    await database.migrateTo(database.before(MIGRATION));
    const entries = await sql<{ count: number }>`select count(*) as count from ledger_entries`.execute(db);
    assert.equal(Number(entries.rows[0]!.count), 4);
  } finally {
    await database.close();
  }
});
