// A quote's life in one place (contract sections 6 and 7): its statuses, the moves PUT may make, the
// statuses in which its fields may change, it may be sent or deleted, and what sending sets.
import { invalidState } from '../../core/errors.js';
import type { Clock } from '../../core/deps.js';
import type { Executor } from '../../db/database.js';
import type { ClientRow, QuoteRow } from '../../db/types.js';
import { numberOnSend } from '../documents/numbering.js';
import { assertSendable } from '../documents/sending.js';
import type { TransitionTable } from '../documents/state-machine.js';
import type { EventType } from '../../kernel/event-types.js';
import { hostedLinkOnSend, type HostedLinks } from '../documents/hosted-links.js';

export const QUOTE_STATUSES = ['draft', 'sent', 'approved', 'declined', 'converted'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** Moves a client may make with PUT; `approved -> converted` happens only by making a job or invoice. */
export const QUOTE_TRANSITIONS: TransitionTable<QuoteStatus> = {
  draft: ['sent'],
  sent: ['approved', 'declined', 'draft'],
  declined: ['draft'],
  approved: [],
  converted: [],
};

/** The event a move to each status records (others record quote.updated). */
export const QUOTE_STATUS_EVENTS: Partial<Record<QuoteStatus, EventType>> = { sent: 'quote.sent', approved: 'quote.approved', declined: 'quote.declined', converted: 'quote.converted' };

/** Statuses in which the quote's fields (not only its status) may change. */
export const QUOTE_EDITABLE: readonly QuoteStatus[] = ['draft', 'sent'];
/** Statuses a quote may be sent (or re-sent) from. */
export const QUOTE_SENDABLE: readonly QuoteStatus[] = ['draft', 'sent'];

export function assertQuoteEditable(status: QuoteStatus): void {
  if (!QUOTE_EDITABLE.includes(status)) throw invalidState(`This quote is '${status}': only its status can change (fields are editable while ${QUOTE_EDITABLE.join(' or ')}).`);
}

export function assertQuoteDeletable(status: QuoteStatus): void {
  if (status === 'converted') throw invalidState("This quote is 'converted': a job or invoice was made from it, so it cannot be deleted.");
}

/** A job or invoice may be made only from an approved quote (which then becomes converted). */
export function assertQuoteConvertible(status: QuoteStatus): void {
  if (status !== 'approved') throw invalidState(`This quote is '${status}'; only an approved quote can become a job or invoice.`);
}

/**
 * The columns that mark a quote sent, by the send operation or `PUT {status: "sent"}`: a number and a
 * hosted link on first send (never changed after, but for a rotation), sent_at now. `client` is given
 * when the quote is e-mailed.
 */
export async function quoteSentColumns(trx: Executor, clock: Clock, links: HostedLinks, accountId: string, quote: QuoteRow, client?: ClientRow) {
  assertSendable('quote', QUOTE_SENDABLE, quote, client);
  return { status: 'sent', ...(await numberOnSend(trx, accountId, 'quote', quote)), ...hostedLinkOnSend(quote, links), sent_at: clock.now().toISOString() };
}
