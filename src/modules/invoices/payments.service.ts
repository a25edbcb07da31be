// Payment rules (docs/api-contract.md §11): recorded against a sent invoice, at most what is due, a reference
// unique per account, never edited (but notes and metadata) nor deleted, only refunded. The invoice's
// balance and status are recomputed from its payments in the same transaction, with its row locked, so
// concurrent payments can never overpay.
import { newId } from '../../core/deps.js';
import { fieldError, invalidState, type Precondition } from '../../core/errors.js';
import { type Page, pageRequest, toPage } from '../../db/index.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { ApplicationRow, InvoiceRow, PaymentRefundRow, PaymentRow } from '../../db/types.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { effectiveDateOf, type EntryDraft, postEntries } from '../ledger/index.js';
import { assertInvoicePayable, type InvoiceStatus } from './invoices.lifecycle.js';
import { findInvoice } from './invoices.repository.js';
import { changeQuoteDepositPaid, findQuote } from '../quotes/index.js';
import { recordDeposit } from './deposits.service.js';
import { checkPaidAtAndReference } from './payments.checks.js';
import { requireReference, requireRow } from '../shared/index.js';
import * as applicationsRepository from './applications.repository.js';
import {
  applicationEntry,
  applyToInvoices,
  invoiceBefore,
  laterDate,
  lockInvoices,
  settleInvoice,
  takeBack,
} from './applications.service.js';
import * as repository from './payments.repository.js';
import { getRecord, type PaymentRecord, paymentRecord, presentPayment, withRefunds } from './payments.presenter.js';
import type {
  ApplyInput,
  UnapplyInput,
  CreatePaymentInput,
  ListPaymentsInput,
  Payment,
  RefundPaymentInput,
  UpdatePaymentInput,
} from './payments.schemas.js';

export { presentPayment, type PaymentRecord } from './payments.presenter.js';
export { settleInvoice };

/**
 * Records a payment on a locked, sent invoice and settles its balance. Shared by POST /v1/payments and
 * `PUT /v1/invoices/:id {status: "paid"}` (which pays what is due, with method `other`).
 */
export async function recordPayment(
  tx: Context,
  invoice: InvoiceRow,
  input: Pick<CreatePaymentInput, 'amount' | 'method'> &
    Partial<Pick<CreatePaymentInput, 'reference' | 'paid_at' | 'notes' | 'metadata' | 'overpayment'>>,
): Promise<PaymentRecord> {
  assertInvoicePayable(invoice.status as InvoiceStatus);
  const due = Number(invoice.total_amount) - Number(invoice.amount_paid) - Number(invoice.amount_credited);
  const overpayment = input.overpayment ?? 'reject';
  if (input.amount > due && overpayment === 'reject')
    throw fieldError(
      'amount',
      `must not exceed the invoice's amount_due (${due}); with overpayment "credit" the rest stays as credit`,
    );
  const now = tx.clock.now();
  const { paidAt, reference } = await checkPaidAtAndReference(tx, input);
  const before = await invoiceBefore(tx, invoice);
  const applied = Math.min(input.amount, due);
  const row: PaymentRow = {
    id: newId(),
    account_id: invoice.account_id,
    invoice_id: invoice.id,
    quote_id: null,
    client_id: invoice.client_id,
    amount: input.amount,
    amount_refunded: 0,
    amount_applied: applied,
    overpayment,
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
  const paidOn = await effectiveDateOf(tx, paidAt);
  // The payment is applied to its own invoice at once, dated the later of its date and the invoice's.
  const application: ApplicationRow = {
    id: newId(),
    account_id: invoice.account_id,
    client_id: invoice.client_id,
    currency: invoice.currency,
    source_type: 'payment',
    payment_id: row.id,
    credit_note_id: null,
    invoice_id: invoice.id,
    amount: applied,
    applied_on: laterDate(paidOn, invoice.issue_date),
    released_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  if (applied > 0) await applicationsRepository.insertApplications(tx.db, [application]);
  const record = paymentRecord(row, [], 0);
  record.applications = applied > 0 ? [application] : [];
  record.applications_count = applied > 0 ? 1 : 0;
  await recordEvent(tx, 'payment.created', presentPayment(record));
  await settleInvoice(tx, invoice, before);
  const entries: EntryDraft[] = [
    {
      type: 'payment_received',
      client_id: row.client_id,
      currency: row.currency,
      effective_date: paidOn,
      amount: -row.amount,
      payment_id: row.id,
      invoice_id: invoice.id,
    },
  ];
  if (applied > 0) entries.push(applicationEntry(application, 'applied', applied, application.applied_on));
  await postEntries(tx, entries);
  return record;
}

/** The invoice a payment is for, locked until the transaction ends: every balance change holds it. */
function lockInvoice(tx: Context, invoiceId: string, field: string): Promise<InvoiceRow> {
  return requireReference(field, 'invoice', invoiceId, (id) => findInvoice(tx.db, tx.accountId, id, true));
}

/** A payment on an invoice, or a deposit on a quote (docs/api-contract.md §23): exactly one of the two. */
export async function createPayment(ctx: Context, input: CreatePaymentInput): Promise<Payment> {
  if ((input.invoice_id === undefined) === (input.quote_id === undefined))
    throw fieldError(
      input.invoice_id === undefined ? 'invoice_id' : 'quote_id',
      'exactly one of invoice_id and quote_id is required',
    );
  if (input.quote_id !== undefined) {
    if (input.overpayment !== undefined)
      throw fieldError('overpayment', 'applies to a payment on an invoice; a deposit is credit until deducted');
    return recordDeposit(ctx, input.quote_id, input);
  }
  const invoiceId = input.invoice_id!;
  return inTransaction(ctx, async (tx) =>
    presentPayment(await recordPayment(tx, await lockInvoice(tx, invoiceId, 'invoice_id'), input)),
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
    // The invoices first (in id order), then the payment: the lock order of every balance change.
    const held = await applicationsRepository.liveApplications(db, accountId, 'payment_id', found.id);
    const invoiceIds = held.map((application) => application.invoice_id);
    await lockInvoices(tx, found.invoice_id === null ? invoiceIds : [found.invoice_id, ...invoiceIds]);
    const payment = await getRecord(db, accountId, found.id, true);
    // A deposit's quote after its payment: what the deposit holds falls with the refund (contract §23).
    const quote = payment.quote_id === null ? undefined : await findQuote(db, accountId, payment.quote_id, true);
    const left = Number(payment.amount) - Number(payment.amount_refunded);
    if (left === 0) throw fieldError('amount', 'nothing is left to refund on this payment');
    const amount = input?.amount ?? left;
    if (amount > left) throw fieldError('amount', `must not exceed what is left to refund (${left})`);
    const now = tx.clock.now().toISOString();
    const today = await effectiveDateOf(tx, now);
    // Unapplied money goes first, then the applications, newest first.
    let toTake = amount - (left - Number(payment.amount_applied));
    const entries: EntryDraft[] = [];
    for (const application of await applicationsRepository.liveApplications(db, accountId, 'payment_id', payment.id)) {
      if (toTake <= 0) break;
      const taken = Math.min(toTake, Number(application.amount));
      entries.push(await takeBack(tx, application, taken, today));
      toTake -= taken;
    }
    const refund: PaymentRefundRow = {
      id: newId(),
      account_id: accountId,
      payment_id: payment.id,
      amount,
      reason: input?.reason ?? null,
      created_at: now,
    };
    await repository.insertRefund(db, refund);
    const takenBack = entries.reduce((sum, entry) => sum - (entry.applied_amount ?? 0), 0);
    await repository.updatePayment(db, accountId, payment.id, {
      amount_refunded: Number(payment.amount_refunded) + amount,
      amount_applied: Number(payment.amount_applied) - takenBack,
      updated_at: now,
    });
    const refunded = presentPayment(await getRecord(db, accountId, payment.id));
    await recordEvent(tx, 'payment.refunded', refunded, {
      previous_attributes: previousAttributes(presentPayment(payment), refunded),
    });
    if (quote) await changeQuoteDepositPaid(tx, quote, -amount);
    entries.push({
      type: 'payment_refunded',
      client_id: payment.client_id,
      currency: payment.currency,
      effective_date: today,
      amount,
      payment_id: payment.id,
      refund_id: refund.id,
      invoice_id: payment.invoice_id,
    });
    await postEntries(tx, entries);
    return refunded;
  });
}

/**
 * Applies a payment's unapplied money to invoices of its client and currency, all or nothing
 * (docs/api-contract.md §22, "Apply"), and answers the payment.
 */
export async function applyPayment(ctx: Context, id: string, input: ApplyInput): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const { db, accountId } = tx;
    const found = await requireRow('payment', id, (paymentId) => repository.findPayment(db, accountId, paymentId));
    const before = presentPayment(await getRecord(db, accountId, found.id));
    const { applications, entries } = await applyToInvoices(
      tx,
      {
        type: 'payment',
        id: found.id,
        client_id: found.client_id,
        currency: found.currency,
        // Read under lock once the invoices are locked: the lock order of every balance change.
        remaining: async () => {
          const payment = (await repository.findPayment(db, accountId, found.id, true))!;
          return Number(payment.amount) - Number(payment.amount_refunded) - Number(payment.amount_applied);
        },
        dated: await effectiveDateOf(tx, found.paid_at),
      },
      input.applications,
      input.applied_on,
    );
    const payment = (await repository.findPayment(db, accountId, found.id))!;
    const total = applications.reduce((sum, application) => sum + Number(application.amount), 0);
    await repository.updatePayment(db, accountId, payment.id, {
      amount_applied: Number(payment.amount_applied) + total,
      updated_at: tx.clock.now().toISOString(),
    });
    const after = presentPayment(await getRecord(db, accountId, payment.id));
    await recordEvent(tx, 'payment.applied', after, { previous_attributes: previousAttributes(before, after) });
    await postEntries(tx, entries);
    return after;
  });
}

/**
 * A payment's application released by its invoice's void (invoices.ledger.ts posts the entries): its money is
 * unapplied again, and the payment records `payment.unapplied` as an unapply does.
 */
export async function releasedFromPayment(tx: Context, paymentId: string, amount: number): Promise<void> {
  const { db, accountId } = tx;
  const found = await repository.findPayment(db, accountId, paymentId, true);
  if (!found) return;
  const before = presentPayment(await getRecord(db, accountId, paymentId, true));
  await repository.updatePayment(db, accountId, paymentId, {
    amount_applied: before.amount_applied - amount,
    updated_at: tx.clock.now().toISOString(),
  });
  const after = presentPayment(await getRecord(db, accountId, paymentId));
  await recordEvent(tx, 'payment.unapplied', after, { previous_attributes: previousAttributes(before, after) });
}

/** Reverses one live application of a payment: the money is the client's credit again. */
export async function unapplyPayment(ctx: Context, id: string, input: UnapplyInput): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const { db, accountId } = tx;
    const found = await requireRow('payment', id, (paymentId) => repository.findPayment(db, accountId, paymentId));
    const application = await requireReference('application_id', 'application', input.application_id, (applicationId) =>
      applicationsRepository.findApplication(db, accountId, applicationId),
    );
    if (application.payment_id !== found.id)
      throw fieldError('application_id', 'is not an application of this payment');
    await lockInvoices(tx, [application.invoice_id]);
    const current = (await applicationsRepository.findApplication(db, accountId, application.id, true))!;
    if (current.released_at !== null) throw invalidState('This application was already released.');
    const before = presentPayment(await getRecord(db, accountId, found.id, true));
    const amount = Number(current.amount);
    const entry = await takeBack(tx, current, amount, await effectiveDateOf(tx, tx.clock.now()));
    await repository.updatePayment(db, accountId, found.id, {
      amount_applied: before.amount_applied - amount,
      updated_at: tx.clock.now().toISOString(),
    });
    const after = presentPayment(await getRecord(db, accountId, found.id));
    await recordEvent(tx, 'payment.unapplied', after, { previous_attributes: previousAttributes(before, after) });
    await postEntries(tx, [entry]);
    return after;
  });
}

export async function listPayments(ctx: Context, query: ListPaymentsInput): Promise<Page<PaymentRecord>> {
  const { db, accountId } = ctx;
  const page = pageRequest(query, repository.PAYMENT_SORTS);
  const { rows, resumeAfter } = await repository.listPayments(db, accountId, query, page);
  return toPage<PaymentRecord>(await withRefunds(db, accountId, rows), page, resumeAfter);
}
