// The ledger open items' migration on a database with entries already posted, on both engines: per invoice, payment
// and credit note (and client and currency), the span of days its amount is not 0, the day of its latest entry, an
// invoice's due date, its class and its amount now; an item never open has no row; down drops the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase, oldLedger } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a12';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b12';
const INVOICE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c12';
const VOIDED = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c13';
const PAYMENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d12';
const NOTE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9e12';
const MIGRATION = '20261129220000_ledger_open_items';

test('existing entries become open items: the span each invoice, payment and credit note was open', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as import('kysely').Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    const entry = await oldLedger(db, ACCOUNT, CLIENT, now);
    await db
      .insertInto('ledger_entries')
      .values([
        entry(1, {
          type: 'invoice_issued',
          effective_date: '2026-11-02',
          amount: 10_750,
          invoice_id: INVOICE,
          due_date: '2026-12-02',
        }),
        entry(2, { type: 'payment_received', effective_date: '2026-11-05', amount: -5_000, payment_id: PAYMENT }),
        entry(3, {
          type: 'credit_note_issued',
          effective_date: '2026-11-06',
          amount: -1_075,
          credit_note_id: NOTE,
          invoice_id: INVOICE,
        }),
        entry(4, {
          type: 'applied',
          effective_date: '2026-11-09',
          applied_amount: 5_000,
          payment_id: PAYMENT,
          invoice_id: INVOICE,
        }),
        entry(5, {
          type: 'invoice_issued',
          currency: 'EUR',
          effective_date: '2026-11-03',
          amount: 500,
          invoice_id: VOIDED,
        }),
        entry(6, {
          type: 'invoice_voided',
          currency: 'EUR',
          effective_date: '2026-11-03',
          amount: -500,
          invoice_id: VOIDED,
        }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    const rows = await db
      .selectFrom('ledger_open_items')
      .selectAll()
      .where('account_id', '=', ACCOUNT)
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      rows.map((row: Record<string, unknown>) => [
        row.kind,
        row.item_id,
        row.currency,
        String(row.opened_on).slice(0, 10),
        String(row.closed_on).slice(0, 10),
        String(row.last_entry_on).slice(0, 10),
        row.due_date === null ? null : String(row.due_date).slice(0, 10),
        Number(row.span_class),
        Number(row.amount),
        Number(row.last_sequence),
      ]),
      [
        ['credit_note', NOTE, 'USD', '2026-11-06', '9999-12-31', '2026-11-06', null, 99, 1_075, 3],
        ['invoice', INVOICE, 'USD', '2026-11-02', '9999-12-31', '2026-11-09', '2026-12-02', 99, 5_750, 4],
        ['payment', PAYMENT, 'USD', '2026-11-05', '2026-11-09', '2026-11-09', null, 1, 0, 4],
      ],
    );

    await database.migrateTo(database.before(MIGRATION));
    const tables = await sql<{ count: number }>`select count(*) as count from ledger_entries`.execute(db);
    assert.equal(Number(tables.rows[0]!.count), 6);
  } finally {
    await database.close();
  }
});
