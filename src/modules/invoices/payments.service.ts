// Payment rules (docs/api-contract.md §11): recorded against a sent invoice, at most what is due, a reference
// unique per account, never edited (but notes and metadata) nor deleted, only refunded. The invoice's
// balance and status are recomputed from its payments in the same transaction, with its row locked, so
// concurrent payments can never overpay.
import { newId } from '../../core/deps.js';
import { conflict, fieldError, type Precondition } from '../../core/errors.js';
import { type Executor, fromJson, normalizeInstant, type Page, pageRequest, toPage } from '../../db/index.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { InvoiceRow, PaymentRefundRow, PaymentRow } from '../../db/types.js';
import { previousAttributes, recordChange, recordEvent } from '../events/index.js';
import {
  assertInvoicePayable,
  INVOICE_LIFECYCLE,
  invoiceBalanceColumns,
  type InvoiceStatus,
} from './invoices.lifecycle.js';
import { getInvoiceRecord, presentInvoice } from './invoices.presenter.js';
import type { Invoice } from './invoices.schemas.js';
import { findInvoice, updateInvoice } from './invoices.repository.js';
import { requireReference, requireRow } from '../shared/index.js';
import * as repository from './payments.repository.js';
import type {
  CreatePaymentInput,
  ListPaymentsInput,
  Payment,
  PaymentMethod,
  RefundPaymentInput,
  UpdatePaymentInput,
} from './payments.schemas.js';

/** A payment row with its 20 most recent refunds and how many it has (docs/api-contract.md §21). */
export type PaymentRecord = PaymentRow & { refunds: PaymentRefundRow[]; refunds_count: number };

export function presentPayment(row: PaymentRecord): Payment {
  return {
    id: row.id,
    object: 'payment',
    invoice_id: row.invoice_id,
    client_id: row.client_id,
    amount: Number(row.amount),
    amount_refunded: Number(row.amount_refunded),
    currency: row.currency,
    method: row.method as PaymentMethod,
    reference: row.reference,
    paid_at: row.paid_at,
    notes: row.notes,
    refunds: row.refunds.map((refund) => ({
      id: refund.id,
      amount: Number(refund.amount),
      reason: refund.reason,
      created_at: refund.created_at,
    })),
    refunds_count: row.refunds_count,
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Payments with their most recent refunds, in one query for all of them. */
async function withRefunds(db: Executor, accountId: string, rows: PaymentRow[]): Promise<PaymentRecord[]> {
  const { refunds, counts } = await repository.listRecentRefundsOfPayments(
    db,
    accountId,
    rows.map((row) => row.id),
  );
  return rows.map((row) =>
    paymentRecord(
      row,
      refunds.filter((refund) => refund.payment_id === row.id),
      counts.get(row.id) ?? 0,
    ),
  );
}

/** The row made into its record in place, not copied with a spread (slow on Node 20: see invoiceRecord). */
function paymentRecord(row: PaymentRow, refunds: PaymentRefundRow[], refundsCount: number): PaymentRecord {
  const record = row as PaymentRecord;
  record.refunds = refunds;
  record.refunds_count = refundsCount;
  return record;
}

async function getRecord(db: Executor, accountId: string, id: string, lock = false): Promise<PaymentRecord> {
  const row = await requireRow('payment', id, (found) => repository.findPayment(db, accountId, found, lock));
  return (await withRefunds(db, accountId, [row]))[0]!;
}

/** The invoice as GET shows it now, to compare with after a payment or refund. */
async function invoiceBefore(tx: Context, invoice: InvoiceRow): Promise<Invoice> {
  return presentInvoice(await getInvoiceRecord(tx.db, tx.accountId, invoice.id), tx.clock.now());
}

/**
 * Recomputes the invoice's amount_paid and status from its payments (the caller holds its row lock) and
 * records the invoice's event (invoice.paid when it became paid, else invoice.updated) against `before`.
 */
export async function settleInvoice(tx: Context, invoice: InvoiceRow, before: Invoice): Promise<void> {
  const paid = await repository.netPaidOfInvoice(tx.db, tx.accountId, invoice.id);
  const now = tx.clock.now();
  await updateInvoice(tx.db, tx.accountId, invoice.id, {
    ...invoiceBalanceColumns(invoice, paid, now),
    updated_at: now.toISOString(),
  });
  const after = presentInvoice(await getInvoiceRecord(tx.db, tx.accountId, invoice.id), now);
  await recordChange(tx, { resource: 'invoice', before, after, statusEvents: BALANCE_EVENTS });
}

/**
 * The events a change of balance records: `invoice.paid` on becoming paid; a refund that takes a paid invoice
 * back to sent sends nothing, so it is `invoice.updated`, never the lifecycle's `invoice.sent`.
 */
const BALANCE_EVENTS = { paid: INVOICE_LIFECYCLE.events.paid };

/**
 * Records a payment on a locked, sent invoice and settles its balance. Shared by POST /v1/payments and
 * `PUT /v1/invoices/:id {status: "paid"}` (which pays what is due, with method `other`).
 */
export async function recordPayment(
  tx: Context,
  invoice: InvoiceRow,
  input: Pick<CreatePaymentInput, 'amount' | 'method'> &
    Partial<Pick<CreatePaymentInput, 'reference' | 'paid_at' | 'notes' | 'metadata'>>,
): Promise<PaymentRecord> {
  assertInvoicePayable(invoice.status as InvoiceStatus);
  const due = Number(invoice.total_amount) - Number(invoice.amount_paid);
  if (input.amount > due) throw fieldError('amount', `must not exceed the invoice's amount_due (${due})`);
  const now = tx.clock.now();
  const paidAt = input.paid_at === undefined ? now.toISOString() : normalizeInstant(input.paid_at);
  if (paidAt > now.toISOString()) throw fieldError('paid_at', 'must not be in the future');
  const reference = input.reference ?? null;
  if (reference !== null && (await repository.findPaymentByReference(tx.db, tx.accountId, reference))) {
    throw conflict(`A payment with reference '${reference}' is already recorded in this account.`);
  }
  const before = await invoiceBefore(tx, invoice);
  const row: PaymentRow = {
    id: newId(),
    account_id: invoice.account_id,
    invoice_id: invoice.id,
    client_id: invoice.client_id,
    amount: input.amount,
    amount_refunded: 0,
    currency: invoice.currency,
    method: input.method,
    reference,
    paid_at: paidAt,
    notes: input.notes ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await repository.insertPayment(tx.db, row);
  const record = paymentRecord(row, [], 0);
  await recordEvent(tx, 'payment.created', presentPayment(record));
  await settleInvoice(tx, invoice, before);
  return record;
}

/** The invoice a payment is for, locked until the transaction ends: every balance change holds it. */
function lockInvoice(tx: Context, invoiceId: string, field: string): Promise<InvoiceRow> {
  return requireReference(field, 'invoice', invoiceId, (id) => findInvoice(tx.db, tx.accountId, id, true));
}

export async function createPayment(ctx: Context, input: CreatePaymentInput): Promise<Payment> {
  return inTransaction(ctx, async (tx) =>
    presentPayment(await recordPayment(tx, await lockInvoice(tx, input.invoice_id, 'invoice_id'), input)),
  );
}

export async function getPayment(ctx: Context, id: string): Promise<Payment> {
  return presentPayment(await getRecord(ctx.db, ctx.accountId, id));
}

export async function updatePayment(
  ctx: Context,
  id: string,
  input: UpdatePaymentInput,
  precondition?: Precondition,
): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRecord(tx.db, tx.accountId, id, true);
    precondition?.(presentPayment(current));
    if (Object.keys(input).length === 0) return presentPayment(current);
    const updated = await repository.updatePayment(tx.db, tx.accountId, current.id, {
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
      updated_at: tx.clock.now().toISOString(),
    });
    return presentPayment({ ...(updated ?? current), refunds: current.refunds, refunds_count: current.refunds_count });
  });
}

/**
 * Refunds part or all of what is left of a payment. The invoice's amount_paid drops with it, and a paid
 * invoice with money due again returns to sent. Refunds are allowed on a void invoice too: money received
 * against it may have to go back.
 */
export async function refundPayment(ctx: Context, id: string, input: RefundPaymentInput): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const { db, accountId } = tx;
    const found = await requireRow('payment', id, (paymentId) => repository.findPayment(db, accountId, paymentId));
    // The invoice first, then the payment: the same lock order as a new payment, so the two cannot deadlock.
    const invoice = await lockInvoice(tx, found.invoice_id, 'invoice_id');
    const payment = await getRecord(db, accountId, found.id, true);
    const left = Number(payment.amount) - Number(payment.amount_refunded);
    if (left === 0) throw fieldError('amount', 'nothing is left to refund on this payment');
    const amount = input?.amount ?? left;
    if (amount > left) throw fieldError('amount', `must not exceed what is left to refund (${left})`);
    const before = await invoiceBefore(tx, invoice);
    const now = tx.clock.now().toISOString();
    const refund: PaymentRefundRow = {
      id: newId(),
      account_id: accountId,
      payment_id: payment.id,
      amount,
      reason: input?.reason ?? null,
      created_at: now,
    };
    await repository.insertRefund(db, refund);
    const updated = await repository.updatePayment(db, accountId, payment.id, {
      amount_refunded: Number(payment.amount_refunded) + amount,
      updated_at: now,
    });
    const refunded = presentPayment({
      ...(updated ?? payment),
      refunds: [...payment.refunds, refund].slice(-repository.LISTED_REFUNDS),
      refunds_count: payment.refunds_count + 1,
    });
    await recordEvent(tx, 'payment.refunded', refunded, {
      previous_attributes: previousAttributes(presentPayment(payment), refunded),
    });
    await settleInvoice(tx, invoice, before);
    return refunded;
  });
}

export async function listPayments(ctx: Context, query: ListPaymentsInput): Promise<Page<PaymentRecord>> {
  const { db, accountId } = ctx;
  const page = pageRequest(query, repository.PAYMENT_SORTS);
  const { rows, resumeAfter } = await repository.listPayments(db, accountId, query, page);
  return toPage<PaymentRecord>(await withRefunds(db, accountId, rows), page, resumeAfter);
}
