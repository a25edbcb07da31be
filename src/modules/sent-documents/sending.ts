// What happens to a quote or an invoice as a sent document, one operation for both kinds (docs/api-contract.md
// §7, §12): sending it (number, link and dates on first send, the e-mail queued in the same transaction) and
// replacing its hosted link. Each kind lends its parts through a SendableKind (quotes and invoices faces).
import { newId } from '../../core/deps.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { getClientRow } from '../clients/index.js';
import {
  assertHasHostedLink,
  newHostedLink,
  queueDocumentMail,
  type PrintableDocument,
  type SendableKind,
  type SendInput,
} from '../documents/index.js';
import { previousAttributes, recordChange, recordEvent } from '../events/index.js';
import { withDepositReceived } from './deposit-received.js';

export type SentRow = { id: string; client_id: string; status: string; hosted_token: string | null };

/**
 * Sends the document: in one transaction, mark it sent (the send checks, its number on first send), record
 * `<kind>.sent` (a re-send too: its sent_at moves), and queue the e-mail to the client's stored address.
 * The response never waits for SMTP.
 */
export async function sendDocument<Row extends SentRow, Item extends PrintableDocument>(
  ctx: Context,
  kind: SendableKind<Row, Item>,
  id: string,
  input: SendInput,
): Promise<Item> {
  return inTransaction(ctx, async (tx) => {
    const current = await kind.lock(tx, id);
    const client = await getClientRow(tx, current.client_id);
    const columns = await kind.sentColumns(tx, current, client);
    const now = tx.clock.now();
    const deliveryId = newId();
    const updated = await kind.update(tx, current, {
      ...columns,
      delivery_id: deliveryId,
      delivery_status: 'queued',
      updated_at: now.toISOString(),
    });
    const document = kind.present(updated, now);
    await recordEvent(tx, `${kind.kind}.sent`, document, {
      previous_attributes: previousAttributes(kind.present(current, now), document),
    });
    const printed = kind.kind === 'invoice' ? await withDepositReceived(tx, document) : document;
    await queueDocumentMail(tx, client, {
      kind: kind.kind,
      deliveryId,
      message: input?.message ?? null,
      document: printed,
    });
    return document;
  });
}

/** Replaces the document's hosted link: the old URL stops working at once (a link forwarded by mistake). */
export async function rotateHostedLink<Row extends SentRow, Item extends { id: string }>(
  ctx: Context,
  kind: SendableKind<Row, Item>,
  id: string,
): Promise<Item> {
  return inTransaction(ctx, async (tx) => {
    const current = await kind.lock(tx, id);
    assertHasHostedLink(kind.kind, current);
    const now = tx.clock.now();
    const updated = await kind.update(tx, current, { ...newHostedLink(tx.links), updated_at: now.toISOString() });
    const document = kind.present(updated, now);
    await recordChange(tx, { resource: kind.kind, before: kind.present(current, now), after: document });
    return document;
  });
}
