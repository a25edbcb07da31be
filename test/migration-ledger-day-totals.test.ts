// The ledger day totals' migration on a database with entries already posted, on both engines: the document
// entries are summed per currency, local day and rate (the day's row and one per rate), payments are not, and
// each row keeps the last sequence summed in; down drops the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase, oldLedger } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a11';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b11';
const MIGRATION = '20261129100000_ledger_day_totals';

test('existing document entries become day totals per currency, day and rate', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as import('kysely').Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    const vat = (taxable: number, tax: number) =>
      JSON.stringify([{ tax_rate_id: null, name: 'VAT', percentage: 7.5, taxable_amount: taxable, tax_amount: tax }]);
    const oldEntry = await oldLedger(db, ACCOUNT, CLIENT, now);
    const entry = (sequence: number, fields: Record<string, unknown>) =>
      oldEntry(sequence, { effective_date: '2026-11-02', ...fields });
    await db
      .insertInto('ledger_entries')
      .values([
        entry(1, {
          type: 'invoice_issued',
          amount: 10_750,
          net_amount: 10_000,
          tax_amount: 750,
          taxes: vat(10_000, 750),
        }),
        entry(2, { type: 'payment_received', amount: -5_000 }),
        entry(3, {
          type: 'credit_note_issued',
          amount: -1_075,
          net_amount: -1_000,
          tax_amount: -75,
          taxes: vat(-1_000, -75),
        }),
        entry(4, {
          type: 'invoice_issued',
          currency: 'EUR',
          effective_date: '2026-11-03',
          amount: 500,
          net_amount: 500,
          tax_amount: 0,
          taxes: '[]',
        }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    const rows = await db
      .selectFrom('ledger_day_totals')
      .selectAll()
      .where('account_id', '=', ACCOUNT)
      .orderBy('currency')
      .orderBy('rate_key')
      .execute();
    assert.deepEqual(
      rows.map((row: Record<string, unknown>) => [
        row.currency,
        String(row.effective_date).slice(0, 10),
        row.rate_key,
        row.name,
        row.percentage,
        ...[
          'entry_count',
          'net_amount',
          'no_tax_amount',
          'taxable_amount',
          'tax_amount',
          'invoices_tax_amount',
          'credit_notes_tax_amount',
          'last_sequence',
        ].map((column) => Number(row[column])),
      ]),
      [
        ['EUR', '2026-11-03', '', null, null, 1, 500, 500, 0, 0, 0, 0, 4],
        ['USD', '2026-11-02', '', null, null, 2, 9_000, 0, 0, 675, 0, 0, 3],
        ['USD', '2026-11-02', 'v1:VAT 7.5', 'VAT', '7.5', 2, 0, 0, 9_000, 675, 750, -75, 3],
      ],
    );

    await database.migrateTo(database.before(MIGRATION));
    assert.equal(
      (await sql<{ count: number }>`select count(*) as count from ledger_entries`.execute(db)).rows[0]!.count > 0,
      true,
    );
  } finally {
    await database.close();
  }
});
