// The ledger invoice figures' migration on a database with entries already posted, on both engines: per invoice its
// issue date, client, currency, void or not, net, its credit notes' nets, cost, product lines without a cost, the
// count of its document entries and the last sequence naming it; down drops the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase, oldLedger } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a14';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b14';
const INVOICE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c15';
const VOIDED = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c16';
const NOTE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9e15';
const MIGRATION = '20261129220200_ledger_invoice_figures';

test("existing invoices' entries become their kept figures", async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as import('kysely').Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    const oldEntry = await oldLedger(db, ACCOUNT, CLIENT, now, 40);
    const entry = (sequence: number, fields: Record<string, unknown>) =>
      oldEntry(sequence, { lines_without_cost: null, ...fields });
    await db
      .insertInto('ledger_entries')
      .values([
        entry(1, {
          type: 'invoice_issued',
          effective_date: '2026-11-02',
          amount: 10_750,
          invoice_id: INVOICE,
          net_amount: 10_000,
          tax_amount: 750,
          cost_amount: 4_000,
          lines_without_cost: 1,
        }),
        entry(2, {
          type: 'credit_note_issued',
          effective_date: '2026-11-04',
          amount: -1_075,
          invoice_id: INVOICE,
          credit_note_id: NOTE,
          net_amount: -1_000,
          tax_amount: -75,
        }),
        entry(3, {
          type: 'invoice_issued',
          effective_date: '2026-11-03',
          amount: 500,
          invoice_id: VOIDED,
          net_amount: 500,
          tax_amount: 0,
        }),
        entry(4, {
          type: 'invoice_voided',
          effective_date: '2026-11-05',
          amount: -500,
          invoice_id: VOIDED,
          net_amount: -500,
          tax_amount: 0,
        }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    const rows = await db
      .selectFrom('ledger_invoice_figures')
      .selectAll()
      .where('account_id', '=', ACCOUNT)
      .orderBy('invoice_id')
      .execute();
    assert.deepEqual(
      rows.map((row: Record<string, unknown>) => [
        row.invoice_id,
        row.job_id,
        row.currency,
        String(row.issue_date).slice(0, 10),
        ...[
          'voided',
          'net_amount',
          'credited_amount',
          'cost_amount',
          'lines_without_cost',
          'entry_count',
          'last_sequence',
        ].map((column) => Number(row[column])),
      ]),
      [
        [INVOICE, null, 'USD', '2026-11-02', 0, 10_000, -1_000, 4_000, 1, 1, 2],
        [VOIDED, null, 'USD', '2026-11-03', 1, 0, 0, 0, 0, 2, 4],
      ],
    );

    await database.migrateTo(database.before(MIGRATION));
    const left = await sql<{ count: number }>`select count(*) as count from ledger_entries`.execute(db);
    assert.equal(Number(left.rows[0]!.count), 4);
  } finally {
    await database.close();
  }
});
