// Deposits (docs/api-contract.md §23): a payment naming a quote, credit earmarked for it. Recorded on an approved
// or converted quote up to what its total leaves; applied at once to the oldest sent, unpaid invoice of the quote
// if one exists, else deducted when an invoice of the quote is first sent (`deductDeposits`, in that send's
// transaction): oldest deposit first, up to the invoice's amount_due. What is left stays the client's credit.
import { newId } from '../../core/deps.js';
import { fieldError } from '../../core/errors.js';
import type { ApplicationRow, InvoiceRow, PaymentRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { effectiveDateOf, type EntryDraft, postEntries } from '../ledger/index.js';
import { changeQuoteDepositPaid, lockDepositQuote } from '../quotes/index.js';
import * as applicationsRepository from './applications.repository.js';
import { applicationEntry, invoiceBefore, laterDate, lockInvoices, settleInvoice } from './applications.service.js';
import { findUnpaidInvoicesOfQuote } from './invoices.repository.js';
import { checkPaidAtAndReference } from './payments.checks.js';
import { getRecord, paymentRecord, presentPayment } from './payments.presenter.js';
import * as repository from './payments.repository.js';
import type { CreatePaymentInput, Payment } from './payments.schemas.js';

const dueOf = (invoice: InvoiceRow) =>
  Number(invoice.total_amount) - Number(invoice.amount_paid) - Number(invoice.amount_credited);

/** Records a deposit on the quote: `payment.created`, `quote.updated` (and `quote.deposit_paid` at 0 due). */
export async function recordDeposit(ctx: Context, quoteId: string, input: CreatePaymentInput): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    // The lock order of every balance change: the invoices first (in id order), then the quote, then the payment.
    const invoices = [
      ...(await lockInvoices(tx, await findUnpaidInvoicesOfQuote(tx.db, tx.accountId, quoteId))).values(),
    ];
    const quote = await lockDepositQuote(tx, quoteId);
    const room = Number(quote.total_amount) - Number(quote.deposit_paid_amount);
    if (input.amount > room)
      throw fieldError(
        'amount',
        `must not exceed the quote's total_amount less its deposit_paid_amount (${Math.max(0, room)})`,
      );
    const { paidAt, reference } = await checkPaidAtAndReference(tx, input);
    const now = tx.clock.now().toISOString();
    const row: PaymentRow = {
      id: newId(),
      account_id: tx.accountId,
      invoice_id: null,
      quote_id: quote.id,
      client_id: quote.client_id,
      amount: input.amount,
      amount_refunded: 0,
      amount_applied: 0,
      overpayment: 'reject',
      currency: quote.currency,
      method: input.method,
      reference,
      paid_at: paidAt,
      notes: input.notes ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await repository.insertPayment(tx.db, row);
    const paidOn = await effectiveDateOf(tx, paidAt);
    const entries: EntryDraft[] = [
      {
        type: 'payment_received',
        client_id: row.client_id,
        currency: row.currency,
        effective_date: paidOn,
        amount: -row.amount,
        payment_id: row.id,
      },
    ];
    // Paid while an invoice of the quote is sent and unpaid: it goes to the oldest at once.
    const oldest = invoices
      .filter((invoice) => invoice.status === 'sent' && invoice.currency === row.currency && dueOf(invoice) > 0)
      .sort((a, b) => Number(a.number_seq) - Number(b.number_seq))[0];
    const record = paymentRecord(row, [], 0);
    record.applications = [];
    record.applications_count = 0;
    if (oldest) {
      const application = await applyDeposit(tx, row, oldest, Math.min(row.amount, dueOf(oldest)), paidOn, entries);
      row.amount_applied = Number(application.amount);
      record.applications = [application];
      record.applications_count = 1;
    }
    const payment = presentPayment(record);
    await recordEvent(tx, 'payment.created', payment);
    await changeQuoteDepositPaid(tx, quote, row.amount);
    await postEntries(tx, entries);
    return payment;
  });
}

/** One application of a deposit to a locked invoice, its payment's amount_applied and its entry; settles the invoice. */
async function applyDeposit(
  tx: Context,
  payment: PaymentRow,
  invoice: InvoiceRow,
  amount: number,
  paidOn: string,
  entries: EntryDraft[],
): Promise<ApplicationRow> {
  const before = await invoiceBefore(tx, invoice);
  const now = tx.clock.now().toISOString();
  const application: ApplicationRow = {
    id: newId(),
    account_id: tx.accountId,
    client_id: payment.client_id,
    currency: payment.currency,
    source_type: 'payment',
    payment_id: payment.id,
    credit_note_id: null,
    invoice_id: invoice.id,
    amount,
    applied_on: laterDate(paidOn, invoice.issue_date),
    released_at: null,
    created_at: now,
    updated_at: now,
  };
  await applicationsRepository.insertApplications(tx.db, [application]);
  await repository.updatePayment(tx.db, tx.accountId, payment.id, {
    amount_applied: Number(payment.amount_applied) + amount,
    updated_at: now,
  });
  await settleInvoice(tx, invoice, before);
  entries.push(applicationEntry(application, 'applied', amount, application.applied_on));
  return application;
}

/**
 * At an invoice's first send (its row locked, already sent): the unapplied money of its quote's deposits is
 * applied to it, oldest deposit first, up to its amount_due; each deposit applied records `payment.applied`.
 * Answers whether anything was applied (the caller then reads the invoice again).
 */
export async function deductDeposits(tx: Context, invoice: InvoiceRow): Promise<boolean> {
  if (invoice.quote_id === null || invoice.status !== 'sent') return false;
  const deposits = await repository.unappliedDepositsOfQuote(tx.db, tx.accountId, invoice.quote_id);
  let due = dueOf(invoice);
  const entries: EntryDraft[] = [];
  for (const found of deposits) {
    if (due <= 0) break;
    if (found.client_id !== invoice.client_id || found.currency !== invoice.currency) continue;
    const locked = (await repository.findPayment(tx.db, tx.accountId, found.id, true))!;
    const unapplied = Number(locked.amount) - Number(locked.amount_refunded) - Number(locked.amount_applied);
    if (unapplied <= 0) continue;
    const before = presentPayment(await getRecord(tx.db, tx.accountId, locked.id));
    const current = (await lockInvoices(tx, [invoice.id])).get(invoice.id)!;
    const amount = Math.min(unapplied, due);
    await applyDeposit(tx, locked, current, amount, await effectiveDateOf(tx, locked.paid_at), entries);
    due -= amount;
    const after = presentPayment(await getRecord(tx.db, tx.accountId, locked.id));
    await recordEvent(tx, 'payment.applied', after, { previous_attributes: previousAttributes(before, after) });
  }
  await postEntries(tx, entries);
  return entries.length > 0;
}
