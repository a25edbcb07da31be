// A document linked to another (made from a service request, quote or job, or made into one) shares that
// one's client: changing its client_id with PUT would undo the link's rule, so it is refused.
import { fieldError } from '../../core/errors.js';

/** 422 on client_id when `requested` is another client and `link` says what ties the document to its client. */
export function assertClientKept(
  currentClientId: string,
  requested: string | undefined,
  link: string | undefined,
): void {
  if (requested === undefined || requested === currentClientId || link === undefined) return;
  throw fieldError('client_id', `cannot change: ${link}, which belongs to this client`);
}
