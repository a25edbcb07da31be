// The delivery of a sent quote or invoice (docs/api-contract.md §10): the outbox row as the API shows it, and
// its final outcome recorded as a delivery.succeeded or delivery.failed event.
import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../../core/deps.js';
import {
  type Executor,
  fromJson,
  type Page,
  type PageQuery,
  pageRequest,
  timestampSorts,
  toPage,
} from '../../db/index.js';
import { SYSTEM_ACTOR, type Context } from '../../kernel/context.js';
import { listDocumentMessages } from '../../mail/outbox.repository.js';
import type { PdfPool } from '../../mail/pdf-pool.js';
import { findLogo, findLogoHash } from '../accounts/index.js';
import { findInvoice, setInvoiceDeliveryStatus } from '../invoices/index.js';
import { findCreditNote, setCreditNoteDeliveryStatus } from '../credit-notes/index.js';
import type { SentKind } from '../documents/index.js';
import { findQuote, setQuoteDeliveryStatus } from '../quotes/index.js';
import { requireRow } from '../shared/index.js';
import type { OutboxMessageRow } from '../../db/types.js';
import { subjectOf, type MailSnapshot } from '../../mail/document-mail.js';
import { recordEvent } from '../events/index.js';
import { IdSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';
import { DELIVERY_STATUSES } from '../documents/index.js';

export const DeliverySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('delivery', { description: 'Always "delivery".' }),
    channel: Type.Literal('email', { description: 'How the document went out.' }),
    document_type: Type.Unsafe<'quote' | 'invoice' | 'credit_note'>({
      type: 'string',
      enum: ['quote', 'invoice', 'credit_note'],
      description: 'The kind of document sent.',
      example: 'invoice',
    }),
    document_id: { ...IdSchema, description: 'The quote or invoice sent.' },
    to: Type.String({ description: 'The address it went to: the client’s at send time.', example: 'jane@example.com' }),
    subject: Type.String({ description: 'The e-mail subject.', example: 'Invoice INV-000042 from Cooper Plumbing' }),
    kind: Type.Unsafe<'document' | 'reminder'>({
      type: 'string',
      enum: ['document', 'reminder'],
      description: 'document: a send of the document (§7); reminder: a payment reminder step (§23).',
      example: 'document',
    }),
    reminder_step: Nullable(
      Type.Integer({ minimum: 1, description: 'The reminder’s step, from 1; null for a document’s send.', example: 1 }),
    ),
    status: Type.Unsafe<(typeof DELIVERY_STATUSES)[number] | 'canceled'>({
      type: 'string',
      enum: [...DELIVERY_STATUSES, 'canceled'],
      description:
        'queued, sending, delivered (accepted by the SMTP server), failed after every attempt, or canceled (a reminder whose invoice was paid, void or had reminders off when its turn came).',
      example: 'delivered',
    }),
    attempts: Type.Integer({ description: 'Attempts made so far.', example: 1 }),
    last_error: Nullable(
      Type.String({
        description: 'Why the last attempt failed (no credentials in it).',
        example: 'connect ECONNREFUSED 127.0.0.1:2525',
      }),
    ),
    message_id: Type.String({
      description: 'The Message-ID header of the e-mail.',
      example: '<019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01@bms.outbox>',
    }),
    queued_at: TimestampSchema,
    delivered_at: Nullable({ ...TimestampSchema, description: 'When the SMTP server accepted it.' }),
    failed_at: Nullable({ ...TimestampSchema, description: 'When the last attempt failed for good.' }),
  },
  { $id: 'Delivery', description: 'One send of a quote or invoice by e-mail, and what became of it.' },
);

export type Delivery = Static<typeof DeliverySchema>;

const DELIVERY_SORTS = timestampSorts<OutboxMessageRow>();

/** user:password in URLs, and the value after "password"/"pass", as they can appear in transport errors. */
export function withoutCredentials(text: string): string {
  return text
    .replace(/(\w+:\/\/[^:/\s@]*):[^@\s]*@/g, '$1:[redacted]@')
    .replace(/(pass(?:word)?[=:\s]+)\S+/gi, '$1[redacted]');
}

export function presentDelivery(row: OutboxMessageRow): Delivery {
  return {
    id: row.id,
    object: 'delivery',
    channel: 'email',
    document_type: row.document_type as Delivery['document_type'],
    document_id: row.document_id,
    to: row.recipient,
    subject: subjectOf(fromJson<MailSnapshot>(row.snapshot)),
    kind: row.kind === 'reminder' ? 'reminder' : 'document',
    reminder_step: row.reminder_step === null ? null : Number(row.reminder_step),
    status: row.status === 'pending' ? 'queued' : (row.status as Delivery['status']),
    attempts: row.attempts,
    last_error: row.last_error === null ? null : withoutCredentials(row.last_error),
    message_id: row.message_id,
    queued_at: row.created_at,
    delivered_at: row.delivered_at,
    failed_at: row.status === 'failed' ? row.updated_at : null,
  };
}

/** The PDF attachment of an outbox message: its snapshot with the account's logo, rendered in the pool. */
export async function renderDeliveryPdf(
  db: Executor,
  pdf: Pick<PdfPool, 'render' | 'logo'>,
  message: OutboxMessageRow,
  snapshot: MailSnapshot,
): Promise<Buffer> {
  const accountId = message.account_id;
  const logoHash = await findLogoHash(db, accountId);
  const logo =
    logoHash === undefined
      ? null
      : await pdf.logo(accountId, logoHash, async () => (await findLogo(db, accountId))?.data);
  return pdf.render({ snapshot, logo, fallbackDate: message.created_at }, { accountId });
}

/**
 * Called by the outbox worker inside the transaction of every status change of a message (sending, back to
 * pending, delivered, failed): the document's delivery_status while this message is its last send, and on a
 * final outcome delivery.succeeded or delivery.failed, so both commit with the change.
 */
export async function trackDelivery(trx: Executor, clock: Clock, message: OutboxMessageRow): Promise<void> {
  const status = presentDelivery(message).status;
  const accountId = message.account_id;
  // A reminder leaves the document's delivery_status alone (§32); its outcome is still an event.
  if (message.kind === 'reminder') {
    if (status === 'delivered' || status === 'failed')
      await recordEvent(
        { db: trx, clock, accountId, actor: SYSTEM_ACTOR },
        status === 'delivered' ? 'delivery.succeeded' : 'delivery.failed',
        presentDelivery(message),
      );
    return;
  }
  const setStatus =
    message.document_type === 'invoice'
      ? setInvoiceDeliveryStatus
      : message.document_type === 'credit_note'
        ? setCreditNoteDeliveryStatus
        : setQuoteDeliveryStatus;
  await setStatus(trx, accountId, message.document_id, message.id, status);
  if (status === 'delivered' || status === 'failed')
    await recordEvent(
      { db: trx, clock, accountId, actor: SYSTEM_ACTOR },
      status === 'delivered' ? 'delivery.succeeded' : 'delivery.failed',
      presentDelivery(message),
    );
}

/**
 * Called by the outbox worker when it has claimed a reminder, in the claim's transaction: a reminder whose invoice
 * is paid, void or has reminders off by now is not delivered (§23): it becomes `canceled` (delivery.canceled).
 * Whether it was cancelled.
 */
export async function cancelStaleReminder(
  trx: Executor,
  clock: Clock,
  message: OutboxMessageRow,
  complete: (changes: Partial<OutboxMessageRow>) => Promise<OutboxMessageRow | undefined>,
): Promise<boolean> {
  if (message.kind !== 'reminder' || message.document_type !== 'invoice') return false;
  const invoice = await findInvoice(trx, message.account_id, message.document_id);
  const wanted = invoice !== undefined && invoice.status === 'sent' && Number(invoice.reminders_enabled) === 1;
  if (wanted) return false;
  const canceled = await complete({ status: 'canceled', updated_at: clock.now().toISOString() });
  if (canceled)
    await recordEvent(
      { db: trx, clock, accountId: message.account_id, actor: SYSTEM_ACTOR },
      'delivery.canceled',
      presentDelivery(canceled),
    );
  return true;
}

/** Every send of the document, newest first (404 when the document is not in the account). */
export async function listDeliveries(
  ctx: Context,
  kind: SentKind,
  id: string,
  query: PageQuery,
): Promise<Page<OutboxMessageRow>> {
  const { db, accountId } = ctx;
  const document = await requireRow<{ id: string }>(kind.replace('_', ' '), id, (found) =>
    kind === 'invoice'
      ? findInvoice(db, accountId, found)
      : kind === 'credit_note'
        ? findCreditNote(db, accountId, found)
        : findQuote(db, accountId, found),
  );
  const page = pageRequest({ ...query, sort: '-created_at' }, DELIVERY_SORTS);
  return toPage(await listDocumentMessages(db, accountId, document.id, page), page);
}
