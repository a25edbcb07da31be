// Applications (docs/api-contract.md §22): a source's money (a payment, a credit note) held by invoices. Applying
// is all or nothing; each invoice changed is settled (amount_paid, amount_credited, paid ↔ sent) with its row
// locked, and the caller posts the entries this answers after updating its source.
import { newId } from '../../core/deps.js';
import { fieldError, invalidState, validationError, type ErrorDetail } from '../../core/errors.js';
import type { ApplicationRow, InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { localToday } from '../documents/index.js';
import { recordChange } from '../events/index.js';
import type { EntryDraft } from '../ledger/index.js';
import * as repository from './applications.repository.js';
import { INVOICE_LIFECYCLE, invoiceBalanceColumns } from './invoices.lifecycle.js';
import { getInvoiceRecord, presentInvoice } from './invoices.presenter.js';
import { findInvoice, updateInvoice } from './invoices.repository.js';
import type { Invoice } from './invoices.schemas.js';

/** The invoice as GET shows it now, to compare with after a change of its balance. */
export async function invoiceBefore(tx: Context, invoice: InvoiceRow): Promise<Invoice> {
  return presentInvoice(await getInvoiceRecord(tx.db, tx.accountId, invoice.id), tx.clock.now());
}

/**
 * The events a change of balance records: `invoice.paid` on becoming paid; going back to sent sends nothing,
 * so it is `invoice.updated`, never the lifecycle's `invoice.sent`.
 */
const BALANCE_EVENTS = { paid: INVOICE_LIFECYCLE.events.paid };

/**
 * Recomputes the invoice's amount_paid, amount_credited and status from its live applications (the caller holds
 * its row lock) and records its event against `before`. A void invoice keeps its figures as when voided.
 */
export async function settleInvoice(tx: Context, invoice: InvoiceRow, before: Invoice): Promise<void> {
  const held = await repository.heldOnInvoice(tx.db, tx.accountId, invoice.id);
  const now = tx.clock.now();
  await updateInvoice(tx.db, tx.accountId, invoice.id, {
    ...invoiceBalanceColumns(invoice, held.paid, held.credited, now),
    updated_at: now.toISOString(),
  });
  const after = presentInvoice(await getInvoiceRecord(tx.db, tx.accountId, invoice.id), now);
  await recordChange(tx, { resource: 'invoice', before, after, statusEvents: BALANCE_EVENTS });
}

/** Where an application's money comes from. `dated` is its local date: nothing is applied before it. */
export interface ApplicationSource {
  type: 'payment' | 'credit_note';
  id: string;
  client_id: string;
  currency: string;
  /** What the source has left to apply, read (and its row locked) after the invoices are locked. */
  remaining: () => Promise<number>;
  dated: string;
}

export interface ApplicationRequest {
  invoice_id: string;
  amount: number;
}

/** The later of two dates: an application counts from when both its source and its invoice exist. */
export const laterDate = (a: string, b: string | null): string => (b !== null && b > a ? b : a);

/** Locks invoices in id order, so that two transactions locking the same ones cannot deadlock. */
export async function lockInvoices(tx: Context, ids: readonly string[]): Promise<Map<string, InvoiceRow>> {
  const locked = new Map<string, InvoiceRow>();
  for (const id of [...new Set(ids)].sort()) {
    const row = await findInvoice(tx.db, tx.accountId, id, true);
    if (row) locked.set(id, row);
  }
  return locked;
}

/**
 * Applies the source's money to invoices, all or nothing (docs/api-contract.md §22, "Apply"): each invoice of
 * the source's client and currency, sent, named once; each amount 1 … its amount_due; their sum within what
 * the source has left; `applied_on` neither in the future nor before the source's or an invoice's date. Answers
 * the applications made and their entries; the caller updates its source, then posts them.
 */
export async function applyToInvoices(
  tx: Context,
  source: ApplicationSource,
  requests: readonly ApplicationRequest[],
  appliedOn: string | undefined,
): Promise<{ applications: ApplicationRow[]; entries: EntryDraft[] }> {
  const invoices = await lockInvoices(
    tx,
    requests.map((request) => request.invoice_id),
  );
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const [index, request] of requests.entries()) {
    const invoice = invoices.get(request.invoice_id);
    const field = `applications[${index}].invoice_id`;
    if (!invoice)
      problems.push({ field, message: `no invoice with id '${request.invoice_id}' exists in this account` });
    else if (invoice.client_id !== source.client_id) problems.push({ field, message: 'belongs to another client' });
    else if (invoice.currency !== source.currency)
      problems.push({ field, message: `is in ${invoice.currency}, not ${source.currency}` });
    else if (seen.has(invoice.id)) problems.push({ field, message: 'is named more than once' });
    seen.add(request.invoice_id);
  }
  if (problems.length > 0) throw validationError(problems);
  for (const request of requests) {
    const status = invoices.get(request.invoice_id)!.status;
    if (status !== 'sent')
      throw invalidState(`Invoice ${request.invoice_id} is '${status}'; money is applied only to a sent invoice.`);
  }
  const timezone = await findAccountTimezone(tx.db, tx.accountId);
  const today = localToday(tx.clock.now(), timezone);
  for (const [index, request] of requests.entries()) {
    const invoice = invoices.get(request.invoice_id)!;
    const due = Number(invoice.total_amount) - Number(invoice.amount_paid) - Number(invoice.amount_credited);
    if (request.amount < 1 || request.amount > due)
      problems.push({
        field: `applications[${index}].amount`,
        message: `must be between 1 and the invoice's amount_due (${due})`,
      });
  }
  if (problems.length > 0) throw validationError(problems);
  const total = requests.reduce((sum, request) => sum + request.amount, 0);
  const remaining = await source.remaining();
  if (total > remaining)
    throw fieldError('applications', `the amounts sum to ${total}, more than the ${remaining} left to apply`);
  if (appliedOn !== undefined) {
    if (appliedOn > today) throw fieldError('applied_on', 'must not be in the future');
    const earliest = requests.reduce(
      (date, request) => laterDate(date, invoices.get(request.invoice_id)!.issue_date),
      source.dated,
    );
    if (appliedOn < earliest)
      throw fieldError('applied_on', `must not be before ${earliest}, when the source and every invoice are dated`);
  }
  const now = tx.clock.now().toISOString();
  const applications: ApplicationRow[] = [];
  const entries: EntryDraft[] = [];
  for (const request of requests) {
    const invoice = invoices.get(request.invoice_id)!;
    const before = await invoiceBefore(tx, invoice);
    const row: ApplicationRow = {
      id: newId(),
      account_id: tx.accountId,
      client_id: source.client_id,
      currency: source.currency,
      source_type: source.type,
      payment_id: source.type === 'payment' ? source.id : null,
      credit_note_id: source.type === 'credit_note' ? source.id : null,
      invoice_id: invoice.id,
      amount: request.amount,
      applied_on: appliedOn ?? laterDate(laterDate(today, source.dated), invoice.issue_date),
      released_at: null,
      created_at: now,
      updated_at: now,
    };
    await repository.insertApplications(tx.db, [row]);
    await settleInvoice(tx, invoice, before);
    applications.push(row);
    entries.push(applicationEntry(row, 'applied', row.amount, row.applied_on));
  }
  return { applications, entries };
}

/** The `applied` or `unapplied` entry of an application: amount 0, the money moved in applied_amount. */
export function applicationEntry(
  row: ApplicationRow,
  type: 'applied' | 'unapplied',
  amount: number,
  effectiveDate: string,
): EntryDraft {
  return {
    type,
    client_id: row.client_id,
    currency: row.currency,
    effective_date: effectiveDate,
    applied_amount: type === 'applied' ? amount : -amount,
    invoice_id: row.invoice_id,
    payment_id: row.payment_id,
    credit_note_id: row.credit_note_id,
    application_id: row.id,
  };
}

/**
 * Takes `amount` back from a live application (all of it for an unapply or a void), settling its invoice unless
 * the caller settles it (a void). Answers the `unapplied` entry.
 */
export async function takeBack(
  tx: Context,
  application: ApplicationRow,
  amount: number,
  effectiveDate: string,
  settle = true,
): Promise<EntryDraft> {
  const now = tx.clock.now().toISOString();
  const invoice = settle ? await findInvoice(tx.db, tx.accountId, application.invoice_id, true) : undefined;
  const before = invoice && (await invoiceBefore(tx, invoice));
  await repository.setApplicationAmount(tx.db, tx.accountId, application.id, Number(application.amount) - amount, now);
  if (invoice && before) await settleInvoice(tx, invoice, before);
  return applicationEntry(application, 'unapplied', amount, effectiveDate);
}

export { findApplication, liveApplications, listRecentApplications } from './applications.repository.js';
