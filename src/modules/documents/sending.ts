// What sending a quote and sending an invoice share (contract section 7): the checks, made the same way
// for the send operation and for `PUT {status: "sent"}`, and the e-mail queued in the outbox inside the
// caller's transaction, so a document is never marked sent without its message, nor the reverse.
import { invalidState, validationError, type ErrorDetail } from '../../core/errors.js';
import { newId, type Clock } from '../../core/deps.js';
import type { Executor } from '../../db/database.js';
import type { ClientRow } from '../../db/types.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import { enqueueMessage } from '../../mail/outbox.repository.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { lineItemsOf } from './priced.js';

export type SentKind = 'quote' | 'invoice';

/**
 * 409 INVALID_STATE unless the document's status is one it may be sent from; then 422 with every
 * missing piece: a line item, and, when it is e-mailed (`recipient` given), the client's address.
 */
export function assertSendable(kind: SentKind, sendable: readonly string[], document: { status: string; line_items: string }, recipient?: ClientRow): void {
  if (!sendable.includes(document.status)) throw invalidState(`This ${kind} is '${document.status}'; only ${sendable.join(' or ')} ${kind}s can be sent.`);
  const details: ErrorDetail[] = [];
  if (recipient && !recipient.email) details.push({ field: 'client.email', message: 'the client has no e-mail address to send to' });
  if (lineItemsOf(document).length === 0) details.push({ field: 'line_items', message: `the ${kind} needs at least one line item before it is sent` });
  if (details.length > 0) throw validationError(details, `This ${kind} cannot be sent yet.`);
}

/** Puts the document's e-mail in the outbox, frozen as it is now, for the worker to deliver. */
export async function queueDocumentMail(
  trx: Executor,
  clock: Clock,
  accountId: string,
  client: ClientRow,
  mail: { kind: SentKind; document: MailSnapshot['document']; message: string | null },
): Promise<void> {
  const account = await findAccount(trx, accountId);
  const now = clock.now().toISOString();
  const id = newId();
  const snapshot: MailSnapshot = {
    kind: mail.kind,
    business: { name: account?.name ?? 'BMS' },
    client: { name: client.name, email: String(client.email), company_name: client.company_name },
    document: mail.document,
    message: mail.message,
  };
  await enqueueMessage(trx, {
    id,
    account_id: accountId,
    document_type: mail.kind,
    document_id: mail.document.id,
    recipient: String(client.email),
    message_id: `<${id}@bms.outbox>`,
    snapshot: JSON.stringify(snapshot),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_by: null,
    locked_until: null,
    last_error: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  });
}
