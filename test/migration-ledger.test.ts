// The ledger migration on a database the previous release made, on both engines: its sent, paid and void
// invoices, payments and refunds become entries in the order they happened (issued, received and applied,
// refunds taken back from the application, a void releasing what the invoice held as the client's credit),
// numbered 1… per account, with the running balance equal to the balance the documents give; and the API's
// writes go on from there with every rule holding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../src/core/deps.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { createPayment, refundPayment } from '../src/modules/invoices/index.js';
import { getClientBalance } from '../src/modules/ledger/index.js';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a01';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b01';
const SENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c01';
const PAID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c02';
const VOID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c03';
const DRAFT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c04';
const PAYMENT_SENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d01';
const PAYMENT_PAID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d02';
const PAYMENT_VOID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d03';
const REFUND = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9e01';

function invoiceRow(id: string, status: string, total: number, paid: number, sentAt: string | null, extra = {}) {
  return {
    id,
    account_id: ACCOUNT,
    external_id: null,
    client_id: CLIENT,
    property_id: null,
    job_id: null,
    quote_id: null,
    number: sentAt ? `INV-${id.slice(-6)}` : null,
    number_seq: sentAt ? Number.parseInt(id.slice(-2), 10) : null,
    currency: 'USD',
    line_items: JSON.stringify([
      { id, description: 'Work', quantity: 1, unit_amount: total, tax_rate: 0, amount: total },
    ]),
    subtotal_amount: total,
    tax_amount: 0,
    total_amount: total,
    prices_include_tax: 0,
    rounding: 'per_line',
    discount: null,
    discount_amount: 0,
    tax_breakdown: null,
    amount_paid: paid,
    notes: null,
    issue_date: sentAt ? sentAt.slice(0, 10) : null,
    due_date: sentAt ? '2026-12-31' : null,
    status,
    sent_at: sentAt,
    paid_at: null,
    voided_at: null,
    delivery_id: null,
    delivery_status: null,
    hosted_token: null,
    hosted_url: null,
    hosted_recipient: null,
    metadata: '{}',
    created_at: '2026-11-01T09:00:00.000Z',
    updated_at: '2026-11-01T09:00:00.000Z',
    ...extra,
  };
}

function paymentRow(id: string, invoiceId: string, amount: number, refunded: number, at: string) {
  return {
    id,
    account_id: ACCOUNT,
    invoice_id: invoiceId,
    client_id: CLIENT,
    amount,
    amount_refunded: refunded,
    currency: 'USD',
    method: 'cash',
    reference: null,
    paid_at: at,
    notes: null,
    metadata: '{}',
    created_at: at,
    updated_at: at,
  };
}

test('invoices, payments and refunds of the previous release become entries, in order, with the balance right', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before('20261129000000_ledger'));
    const db = database.db as never as import('kysely').Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Old books'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
    await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${CLIENT}, ${ACCOUNT}, ${'Ada'}, ${'ada'}, ${'{}'}, ${now}, ${now})`.execute(db);
    // Sent 10,000 with 3,000 paid then 1,000 refunded; paid 2,500 in full; void 4,000 that had 1,500 paid; a draft.
    await db
      .insertInto('invoices')
      .values([
        invoiceRow(SENT, 'sent', 10_000, 2_000, '2026-11-02T10:00:00.000Z'),
        invoiceRow(PAID, 'paid', 2_500, 2_500, '2026-11-03T10:00:00.000Z', { paid_at: '2026-11-04T10:00:00.000Z' }),
        invoiceRow(VOID, 'void', 4_000, 1_500, '2026-11-05T10:00:00.000Z', { voided_at: '2026-11-07T10:00:00.000Z' }),
        invoiceRow(DRAFT, 'draft', 700, 0, null),
      ])
      .execute();
    await db
      .insertInto('payments')
      .values([
        paymentRow(PAYMENT_SENT, SENT, 3_000, 1_000, '2026-11-02T11:00:00.000Z'),
        paymentRow(PAYMENT_PAID, PAID, 2_500, 0, '2026-11-04T10:00:00.000Z'),
        paymentRow(PAYMENT_VOID, VOID, 1_500, 0, '2026-11-06T10:00:00.000Z'),
      ])
      .execute();
    await db
      .insertInto('payment_refunds')
      .values({
        id: REFUND,
        account_id: ACCOUNT,
        payment_id: PAYMENT_SENT,
        amount: 1_000,
        reason: null,
        created_at: '2026-11-08T10:00:00.000Z',
      })
      .execute();

    assert.ok((await database.migrateToLatest()).includes('20261129000000_ledger'));

    const entries = await db
      .selectFrom('ledger_entries')
      .select(['sequence', 'type', 'amount', 'applied_amount', 'balance_amount', 'invoice_id', 'effective_date'])
      .where('account_id', '=', ACCOUNT)
      .orderBy('sequence')
      .execute();
    assert.deepEqual(
      entries.map((entry) => [
        Number(entry.sequence),
        entry.type,
        Number(entry.amount),
        Number(entry.applied_amount),
        Number(entry.balance_amount),
      ]),
      [
        [1, 'invoice_issued', 10_000, 0, 10_000],
        [2, 'payment_received', -3_000, 0, 7_000],
        [3, 'applied', 0, 3_000, 7_000],
        [4, 'invoice_issued', 2_500, 0, 9_500],
        [5, 'payment_received', -2_500, 0, 7_000],
        [6, 'applied', 0, 2_500, 7_000],
        [7, 'invoice_issued', 4_000, 0, 11_000],
        [8, 'payment_received', -1_500, 0, 9_500],
        [9, 'applied', 0, 1_500, 9_500],
        [10, 'invoice_voided', -4_000, 0, 5_500],
        [11, 'unapplied', 0, -1_500, 5_500],
        [12, 'unapplied', 0, -1_000, 5_500],
        [13, 'payment_refunded', 1_000, 0, 6_500],
      ],
    );
    assert.equal(entries[0]!.effective_date, '2026-11-02');
    // The void invoice's 1,500 is the client's credit now: receivable 8,000 (the sent invoice), credit 1,500.
    const ctx = {
      db: database.db,
      clock: systemClock,
      accountId: ACCOUNT,
      actor: SYSTEM_ACTOR,
      links: { publicBaseUrl: 'http://127.0.0.1:3000' },
    };
    assert.deepEqual(await getClientBalance(ctx, CLIENT), {
      object: 'client_balance',
      client_id: CLIENT,
      ledger_sequence: 13,
      balances: [{ currency: 'USD', receivable_amount: 8_000, credit_amount: 1_500, balance_amount: 6_500 }],
    });
    const payments = await db
      .selectFrom('payments')
      .select(['id', 'amount_applied', 'overpayment'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      payments.map((row) => [row.id, Number(row.amount_applied), row.overpayment]),
      [
        [PAYMENT_SENT, 2_000, 'reject'],
        [PAYMENT_PAID, 2_500, 'reject'],
        [PAYMENT_VOID, 0, 'reject'],
      ],
    );
    const amounts = await db
      .selectFrom('invoices')
      .select(['id', 'amount_paid', 'amount_credited'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      amounts.map((row) => [row.id, Number(row.amount_paid), Number(row.amount_credited)]),
      [
        [SENT, 2_000, 0],
        [PAID, 2_500, 0],
        [VOID, 1_500, 0],
        [DRAFT, 0, 0],
      ],
    );

    // The API goes on from the backfill: a payment and a refund of the void invoice's money keep every rule.
    const paid = await createPayment(ctx, { invoice_id: SENT, amount: 500, method: 'cash' });
    assert.equal(paid.amount_applied, 500);
    const refunded = await refundPayment(ctx, PAYMENT_VOID, undefined);
    assert.deepEqual([refunded.amount_refunded, refunded.amount_unapplied], [1_500, 0]);
    assert.deepEqual((await getClientBalance(ctx, CLIENT)).balances, [
      { currency: 'USD', receivable_amount: 7_500, credit_amount: 0, balance_amount: 7_500 },
    ]);
    const last = await db
      .selectFrom('ledger_entries')
      .select(['sequence', 'balance_amount'])
      .orderBy('sequence', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(last.sequence), Number(last.balance_amount)], [16, 7_500]);

    // And back down: the tables and columns go, the invoices and payments stay.
    await database.migrateTo(database.before('20261129000000_ledger'));
    assert.equal((await db.selectFrom('payments').select('id').execute()).length, 4);
  } finally {
    await database.close();
  }
});
