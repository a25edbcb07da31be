// The ledger cash day totals' migration on a database with entries already posted, on both engines: a payment
// applied to an invoice with 7.5 % VAT is split over its net and tax by largest remainder (5,000 of 10,750: 4,651
// net, 349 tax), the money received and applied leaves nothing unapplied, other currencies get their own rows;
// down drops the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase, oldLedger } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a13';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b13';
const INVOICE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c14';
const PAYMENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d14';
const DEPOSIT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d15';
const MIGRATION = '20261129220100_ledger_cash_day_totals';

test('existing cash entries become cash day totals, split cumulatively per currency, day and rate', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as import('kysely').Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    const entry = await oldLedger(db, ACCOUNT, CLIENT, now, 20);
    const vat = JSON.stringify([
      { tax_rate_id: null, name: 'VAT', percentage: 7.5, taxable_amount: 10_000, tax_amount: 750 },
    ]);
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
          taxes: vat,
        }),
        entry(2, {
          type: 'payment_received',
          effective_date: '2026-11-05',
          amount: -5_000,
          payment_id: PAYMENT,
          invoice_id: INVOICE,
        }),
        entry(3, {
          type: 'applied',
          effective_date: '2026-11-05',
          applied_amount: 5_000,
          payment_id: PAYMENT,
          invoice_id: INVOICE,
        }),
        entry(4, {
          type: 'payment_received',
          currency: 'EUR',
          effective_date: '2026-11-07',
          amount: -2_500,
          payment_id: DEPOSIT,
        }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    const rows = await db
      .selectFrom('ledger_cash_day_totals')
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
          'unapplied_amount',
          'last_sequence',
        ].map((column) => Number(row[column])),
      ]),
      [
        ['EUR', '2026-11-07', '', null, null, 1, 0, 0, 0, 0, 0, 0, 2_500, 4],
        ['USD', '2026-11-05', '', null, null, 2, 4_651, 0, 0, 349, 0, 0, 0, 3],
        ['USD', '2026-11-05', 'v1:VAT 7.5', 'VAT', '7.5', 1, 0, 0, 4_651, 349, 349, 0, 0, 3],
      ],
    );

    await database.migrateTo(database.before(MIGRATION));
    const left = await sql<{ count: number }>`select count(*) as count from ledger_entries`.execute(db);
    assert.equal(Number(left.rows[0]!.count), 4);
  } finally {
    await database.close();
  }
});
