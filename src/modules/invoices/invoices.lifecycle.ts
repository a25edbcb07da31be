// An invoice's life in one place (contract sections 6 and 7): its statuses, the moves PUT may make, the
// statuses in which its fields may change, it may be sent or deleted, and what sending and paying set.
import { invalidState } from '../../core/errors.js';
import type { Clock } from '../../core/deps.js';
import type { Executor } from '../../db/database.js';
import type { ClientRow, InvoiceRow } from '../../db/types.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { DEFAULT_PAYMENT_TERMS_DAYS } from '../accounts/accounts.schemas.js';
import { numberOnSend } from '../documents/numbering.js';
import { addDays, todayUtc } from '../documents/priced.js';
import { assertSendable } from '../documents/sending.js';
import type { TransitionTable } from '../documents/state-machine.js';
import type { EventType } from '../../kernel/event-types.js';
import { hostedLinkOnSend, type HostedLinks } from '../documents/hosted-links.js';

export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const INVOICE_TRANSITIONS: TransitionTable<InvoiceStatus> = {
  draft: ['sent'],
  sent: ['paid', 'void'],
  paid: [],
  void: [],
};

/** The event a move to each status records (others record invoice.updated). */
export const INVOICE_STATUS_EVENTS: Partial<Record<InvoiceStatus, EventType>> = { sent: 'invoice.sent', paid: 'invoice.paid', void: 'invoice.voided' };

/** Statuses in which the invoice's fields may change; paid and void are final. */
export const INVOICE_EDITABLE: readonly InvoiceStatus[] = ['draft', 'sent'];
/** Statuses an invoice may be sent (or re-sent) from. */
export const INVOICE_SENDABLE: readonly InvoiceStatus[] = ['draft', 'sent'];

export function assertInvoiceEditable(status: InvoiceStatus): void {
  if (!INVOICE_EDITABLE.includes(status)) throw invalidState(`This invoice is '${status}', which is final: nothing about it can change.`);
}

export function assertInvoiceDeletable(status: InvoiceStatus): void {
  if (status !== 'draft') throw invalidState(`This invoice is '${status}'; only draft invoices can be deleted. Void a sent invoice instead.`);
}

/** The default due date: the issue date plus the account's payment terms (contract section 10). */
export async function defaultDueDate(trx: Executor, accountId: string, issueDate: string): Promise<string> {
  return addDays(issueDate, (await findAccount(trx, accountId))?.payment_terms_days ?? DEFAULT_PAYMENT_TERMS_DAYS);
}

/**
 * The columns that mark an invoice sent, by the send operation or `PUT {status: "sent"}`: a number on
 * first send, a hosted link on first send, issue_date today when empty, due_date from the payment terms when empty, sent_at now.
 * `client` is given when the invoice is e-mailed.
 */
export async function invoiceSentColumns(trx: Executor, clock: Clock, links: HostedLinks, accountId: string, invoice: InvoiceRow, client?: ClientRow) {
  assertSendable('invoice', INVOICE_SENDABLE, invoice, client);
  const now = clock.now();
  const issueDate = invoice.issue_date ?? todayUtc(now);
  return {
    status: 'sent',
    ...(await numberOnSend(trx, accountId, 'invoice', invoice)),
    ...hostedLinkOnSend(invoice, links),
    issue_date: issueDate,
    due_date: invoice.due_date ?? (await defaultDueDate(trx, accountId, issueDate)),
    sent_at: now.toISOString(),
  };
}

/** Payments are recorded only against a sent invoice (contract section 11). */
export function assertInvoicePayable(status: InvoiceStatus): void {
  if (status === 'sent') return;
  const why = status === 'draft' ? 'send it (or mark it sent) first' : status === 'paid' ? 'nothing is due on it' : 'it is void';
  throw invalidState(`This invoice is '${status}'; payments are recorded only against a sent invoice: ${why}.`);
}

/**
 * The balance of an invoice that has received `amountPaid` (its payments less their refunds): a sent
 * invoice with nothing left due becomes paid; a paid one with money due again (after a refund) returns
 * to sent. A void invoice stays void.
 */
export function invoiceBalanceColumns(invoice: Pick<InvoiceRow, 'status' | 'total_amount'>, amountPaid: number, now: Date) {
  const due = Number(invoice.total_amount) - amountPaid;
  if (invoice.status === 'sent' && due <= 0) return { amount_paid: amountPaid, status: 'paid', paid_at: now.toISOString() };
  if (invoice.status === 'paid' && due > 0) return { amount_paid: amountPaid, status: 'sent', paid_at: null };
  return { amount_paid: amountPaid };
}
