// An invoice's life (docs/api-contract.md §6, §7, §10, §11, §12): its statuses, the moves PUT may make, what
// entering a status stamps (voiding ends the hosted link), what holds while sent, where it may be edited,
// sent, paid or deleted, and the event of each move. Payments move it between sent and paid.
import { invalidState } from '../../core/errors.js';
import type { ClientRow, InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { DEFAULT_PAYMENT_TERMS_DAYS, findAccount } from '../accounts/index.js';
import {
  addDays,
  assertSendable,
  breaks,
  enter,
  hostedLinkOnSend,
  lineItemsOf,
  numberOnSend,
  localToday,
  type Lifecycle,
} from '../documents/index.js';

export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const INVOICE_LIFECYCLE: Lifecycle<InvoiceStatus, InvoiceRow> = {
  kind: 'invoice',
  statuses: INVOICE_STATUSES,
  // sent <-> paid also moves by payments and refunds (invoiceBalanceColumns).
  moves: {
    draft: ['sent'],
    sent: ['paid', 'void'],
    paid: [],
    void: [],
  },
  events: { sent: 'invoice.sent', paid: 'invoice.paid', void: 'invoice.voided' },
  // Entering `sent` from draft is the send's own work (invoiceSentColumns); back from paid, after a refund,
  // it is no longer paid. A void invoice's hosted page stops working.
  stamps: {
    sent: (now, from) => (from === 'paid' ? { paid_at: null } : { sent_at: now }),
    paid: (now) => ({ paid_at: now }),
    void: (now) => ({ voided_at: now, hosted_token: null, hosted_url: null, hosted_recipient: null }),
  },
  // What sending required stays true while sent: a line, an issue date and a due date.
  holds: {
    sent: (change, from) => {
      if (change.line_items !== undefined && lineItemsOf({ line_items: change.line_items }).length === 0)
        return breaks('line_items', 'a sent invoice keeps at least one line item; void it instead');
      for (const field of ['issue_date', 'due_date'] as const)
        if (change[field] === null && from === 'sent')
          return breaks(field, 'a sent invoice keeps its issue and due dates');
      return undefined;
    },
  },
  // paid and void are final.
  editable: ['draft', 'sent'],
  sendable: ['draft', 'sent'],
  deletable: ['draft'],
  refusals: {
    edit: (status) => `This invoice is '${status}', which is final: nothing about it can change.`,
    delete: (status) => `This invoice is '${status}'; only draft invoices can be deleted. Void a sent invoice instead.`,
  },
};

/** The default due date: the issue date plus the account's payment terms (docs/api-contract.md §10). */
export async function defaultDueDate(tx: Context, issueDate: string): Promise<string> {
  return addDays(issueDate, (await findAccount(tx.db, tx.accountId))?.payment_terms_days ?? DEFAULT_PAYMENT_TERMS_DAYS);
}

/**
 * The columns that mark an invoice sent, by the send operation or `PUT {status: "sent"}`: a number on first
 * send, a hosted link on first send, issue_date today (the account's local day) when empty, due_date from
 * the payment terms when empty, sent_at now. `client` is given when the invoice is e-mailed.
 */
export async function invoiceSentColumns(tx: Context, invoice: InvoiceRow & { timezone: string }, client?: ClientRow) {
  assertSendable('invoice', INVOICE_LIFECYCLE.sendable, invoice, client);
  const now = tx.clock.now();
  const issueDate = invoice.issue_date ?? localToday(now, invoice.timezone);
  return {
    status: 'sent',
    ...(await numberOnSend(tx.db, tx.accountId, 'invoice', invoice)),
    ...hostedLinkOnSend(invoice, tx.links, invoice.client_id, client?.email),
    issue_date: issueDate,
    due_date: invoice.due_date ?? (await defaultDueDate(tx, issueDate)),
    sent_at: now.toISOString(),
  };
}

/** Payments are recorded only against a sent invoice (docs/api-contract.md §11). */
export function assertInvoicePayable(status: InvoiceStatus): void {
  if (status === 'sent') return;
  const why =
    status === 'draft' ? 'send it (or mark it sent) first' : status === 'paid' ? 'nothing is due on it' : 'it is void';
  throw invalidState(`This invoice is '${status}'; payments are recorded only against a sent invoice: ${why}.`);
}

/**
 * The balance of an invoice whose live applications hold `amountPaid` from payments and `amountCredited` from
 * credit notes (docs/api-contract.md §22): a sent invoice with nothing left due becomes paid; a paid one with
 * money due again returns to sent. A void invoice keeps its figures as when voided (§32).
 */
export function invoiceBalanceColumns(
  invoice: Pick<InvoiceRow, 'status' | 'total_amount'>,
  amountPaid: number,
  amountCredited: number,
  now: Date,
) {
  const from = invoice.status as InvoiceStatus;
  if (from === 'void') return {};
  const due = Number(invoice.total_amount) - amountPaid - amountCredited;
  const amounts = { amount_paid: amountPaid, amount_credited: amountCredited };
  if (from === 'sent' && due <= 0) return { ...amounts, ...enter(INVOICE_LIFECYCLE, from, 'paid', now.toISOString()) };
  if (from === 'paid' && due > 0) return { ...amounts, ...enter(INVOICE_LIFECYCLE, from, 'sent', now.toISOString()) };
  return amounts;
}
