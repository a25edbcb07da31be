// A document linked to another (made from a service request, quote or job, or made into one) shares that
// one's client: changing its client_id with PUT would undo the link's rule, so it is refused.
import { fieldError, invalidState } from '../../core/errors.js';

/** 422 on client_id when `requested` is another client and `link` says what ties the document to its client. */
export function assertClientKept(
  currentClientId: string,
  requested: string | undefined,
  link: string | undefined,
): void {
  if (requested === undefined || requested === currentClientId || link === undefined) return;
  throw fieldError('client_id', `cannot change: ${link}, which belongs to this client`);
}

/**
 * 409 INVALID_STATE when `requested` changes the currency of a document that was sent (its client saw the
 * amounts in that currency) or has payments recorded in it.
 */
export function assertCurrencyKept(
  current: { currency: string; sent_at: string | null },
  requested: string | undefined,
  paymentCount = 0,
): void {
  if (requested === undefined || requested === current.currency) return;
  const why =
    paymentCount > 0 ? 'payments are recorded in it' : current.sent_at !== null ? 'it was sent in it' : undefined;
  if (why === undefined) return;
  throw invalidState(`The currency cannot change from ${current.currency}: ${why}.`);
}
