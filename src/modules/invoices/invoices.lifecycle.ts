// An invoice's life in one place (contract sections 6 and 7): its statuses, the moves PUT may make, the
// statuses in which its fields may change, it may be sent or deleted, and what sending and paying set.
import { invalidState } from '../../core/errors.js';
import type { Clock } from '../../core/deps.js';
import type { Executor } from '../../db/database.js';
import type { ClientRow, InvoiceRow } from '../../db/types.js';
import { numberOnSend } from '../documents/numbering.js';
import { addDays, todayUtc } from '../documents/priced.js';
import { assertSendable } from '../documents/sending.js';
import type { TransitionTable } from '../documents/state-machine.js';

export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const INVOICE_TRANSITIONS: TransitionTable<InvoiceStatus> = {
  draft: ['sent'],
  sent: ['paid', 'void'],
  paid: [],
  void: [],
};

/** Statuses in which the invoice's fields may change; paid and void are final. */
export const INVOICE_EDITABLE: readonly InvoiceStatus[] = ['draft', 'sent'];
/** Statuses an invoice may be sent (or re-sent) from. */
export const INVOICE_SENDABLE: readonly InvoiceStatus[] = ['draft', 'sent'];
export const DEFAULT_PAYMENT_TERMS_DAYS = 30;

export function assertInvoiceEditable(status: InvoiceStatus): void {
  if (!INVOICE_EDITABLE.includes(status)) throw invalidState(`This invoice is '${status}', which is final: nothing about it can change.`);
}

export function assertInvoiceDeletable(status: InvoiceStatus): void {
  if (status !== 'draft') throw invalidState(`This invoice is '${status}'; only draft invoices can be deleted. Void a sent invoice instead.`);
}

/** The default due date: the issue date plus the payment terms. */
export function defaultDueDate(issueDate: string): string {
  return addDays(issueDate, DEFAULT_PAYMENT_TERMS_DAYS);
}

/**
 * The columns that mark an invoice sent, by the send operation or `PUT {status: "sent"}`: a number on
 * first send, issue_date today when empty, due_date from the payment terms when empty, sent_at now.
 * `client` is given when the invoice is e-mailed.
 */
export async function invoiceSentColumns(trx: Executor, clock: Clock, accountId: string, invoice: InvoiceRow, client?: ClientRow) {
  assertSendable('invoice', INVOICE_SENDABLE, invoice, client);
  const now = clock.now();
  const issueDate = invoice.issue_date ?? todayUtc(now);
  return {
    status: 'sent',
    ...(await numberOnSend(trx, accountId, 'invoice', invoice)),
    issue_date: issueDate,
    due_date: invoice.due_date ?? defaultDueDate(issueDate),
    sent_at: now.toISOString(),
  };
}

/** The columns that mark an invoice paid in full. */
export function invoicePaidColumns(invoice: Pick<InvoiceRow, 'total_amount'>, now: Date) {
  return { status: 'paid', paid_at: now.toISOString(), amount_paid: Number(invoice.total_amount) };
}
