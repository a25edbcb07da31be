// A quote's life (docs/api-contract.md §6, §7, §12): its statuses, the moves PUT may make, what entering a
// status stamps, what holds while sent, where it may be edited, sent or deleted, the event of each move,
// and when an answer comes too late. The API and the client hub both apply it.
import { invalidState } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import type { ClientRow, QuoteRow } from '../../db/types.js';
import {
  assertSendable,
  breaks,
  hostedLinkOnSend,
  lineItemsOf,
  numberOnSend,
  localToday,
  type Lifecycle,
} from '../documents/index.js';

export const QUOTE_STATUSES = ['draft', 'sent', 'approved', 'declined', 'converted'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

export const QUOTE_LIFECYCLE: Lifecycle<QuoteStatus, QuoteRow> = {
  kind: 'quote',
  statuses: QUOTE_STATUSES,
  // `approved -> converted` happens only by making a job or invoice from the quote.
  moves: {
    draft: ['sent'],
    sent: ['approved', 'declined', 'draft'],
    declined: ['draft'],
    // Revised after approval (docs/api-contract.md §30): its signature is invalidated (quotes.service.ts).
    approved: ['draft'],
    converted: [],
  },
  events: { sent: 'quote.sent', approved: 'quote.approved', declined: 'quote.declined', converted: 'quote.converted' },
  // Entering `sent` is the send's own work (quoteSentColumns): a number, a hosted link, sent_at.
  stamps: {
    // Back to draft: the approval is undone (from sent or declined these are null already).
    draft: () => ({ approved_at: null, approved_by: null }),
    approved: (now) => ({ approved_at: now }),
    declined: (now) => ({ declined_at: now }),
    converted: (now) => ({ converted_at: now }),
  },
  holds: {
    sent: (change) =>
      change.line_items !== undefined && lineItemsOf({ line_items: change.line_items }).length === 0
        ? breaks('line_items', 'a sent quote keeps at least one line item; move it back to draft first')
        : undefined,
  },
  editable: ['draft', 'sent'],
  sendable: ['draft', 'sent'],
  deletable: ['draft', 'sent', 'approved', 'declined'],
  refusals: {
    edit: (status) =>
      `This quote is '${status}': only its status can change (fields are editable while draft or sent).`,
    delete: (status) => `This quote is '${status}': a job or invoice was made from it, so it cannot be deleted.`,
  },
};

/**
 * A sent quote whose valid_until has passed on the account's local day (docs/api-contract.md §14): it can
 * no longer be approved on the hub.
 */
export function isQuoteExpired(
  quote: { status: string; valid_until: string | null },
  now: Date,
  timezone: string,
): boolean {
  return quote.status === 'sent' && quote.valid_until !== null && quote.valid_until < localToday(now, timezone);
}

/** A job or invoice may be made only from an approved quote (which then becomes converted). */
export function assertQuoteConvertible(status: QuoteStatus): void {
  if (status !== 'approved')
    throw invalidState(`This quote is '${status}'; only an approved quote can become a job or invoice.`);
}

/**
 * The columns that mark a quote sent, by the send operation or `PUT {status: "sent"}`: a number and a
 * hosted link on first send (never changed after, but for a rotation), sent_at now. `client` is given
 * when the quote is e-mailed.
 */
export async function quoteSentColumns(ctx: Context, quote: QuoteRow, client?: ClientRow) {
  assertSendable('quote', QUOTE_LIFECYCLE.sendable, quote, client);
  return {
    status: 'sent',
    ...(await numberOnSend(ctx.db, ctx.accountId, 'quote', quote)),
    ...hostedLinkOnSend(quote, ctx.links, quote.client_id, client?.email),
    sent_at: ctx.clock.now().toISOString(),
  };
}
