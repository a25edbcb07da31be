// A credit note as a sent document (docs/api-contract.md §22, "Documents"): sending it (from draft it issues),
// its printed form for the PDF, e-mail and hub page (titled "Credit note", citing its invoice, with what was
// applied and what remains), and what replacing its hosted link needs.
import { newId } from '../../core/deps.js';
import { invalidState, validationError } from '../../core/errors.js';
import type { CreditNoteRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { getClientRow } from '../clients/index.js';
import {
  hostedLinkOnSend,
  type PrintableDocument,
  queueDocumentMail,
  type SendableKind,
  type SendInput,
} from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { findInvoice } from '../invoices/index.js';
import { issueCreditNote } from './credit-notes.money.js';
import { type CreditNoteRecord, getCreditNoteRecord, presentCreditNote, withMoney } from './credit-notes.presenter.js';
import * as repository from './credit-notes.repository.js';
import type { CreditNote } from './credit-notes.schemas.js';

/** The note as its documents print it: its reason and the invoice it credits as the title. */
export async function printableCreditNote(ctx: Context, note: CreditNote): Promise<PrintableDocument & CreditNote> {
  const invoice = note.invoice_id ? await findInvoice(ctx.db, ctx.accountId, note.invoice_id) : undefined;
  const cited = invoice ? `Credits invoice ${invoice.number ?? invoice.id}` : null;
  return { ...note, title: [cited, note.reason].filter(Boolean).join(': ') || null };
}

/**
 * Sends the note to its client's stored address: from draft it is issued first (number, entries, application),
 * recording `credit_note.issued`; a later send records `credit_note.sent`. The e-mail is queued in the same
 * transaction, with the PDF.
 */
export async function sendCreditNote(ctx: Context, id: string, input: SendInput): Promise<CreditNote> {
  return inTransaction(ctx, async (tx) => {
    const current = await getCreditNoteRecord(tx, id, true);
    if (current.status === 'void')
      throw invalidState("This credit note is 'void'; only a draft or issued credit note can be sent.");
    const client = await getClientRow(tx, current.client_id);
    if (!client.email)
      throw validationError(
        [{ field: 'client.email', message: 'the client has no e-mail address to send to' }],
        'This credit note cannot be sent yet.',
      );
    const before = presentCreditNote(current);
    const first = current.status === 'draft';
    const issued = first ? await issueCreditNote(tx, current) : current;
    const deliveryId = newId();
    const updated = (await repository.updateCreditNote(tx.db, tx.accountId, current.id, {
      ...hostedLinkOnSend(issued, tx.links, issued.client_id, client.email),
      delivery_id: deliveryId,
      delivery_status: 'queued',
      updated_at: tx.clock.now().toISOString(),
    }))!;
    const note = presentCreditNote((await withMoney(tx.db, tx.accountId, [updated]))[0]!);
    await recordEvent(tx, first ? 'credit_note.issued' : 'credit_note.sent', note, {
      previous_attributes: previousAttributes(before, note),
    });
    await queueDocumentMail(tx, client, {
      kind: 'credit_note',
      deliveryId,
      message: input?.message ?? null,
      document: await printableCreditNote(tx, note),
    });
    return note;
  });
}

/** What replacing a credit note's hosted link needs (sent-documents' rotateHostedLink). */
export const SENDABLE_CREDIT_NOTE: SendableKind<CreditNoteRecord, CreditNote> = {
  kind: 'credit_note',
  lock: (tx, id) => getCreditNoteRecord(tx, id, true),
  sentColumns: async () => ({}),
  update: async (tx, row, patch) => {
    const updated = (await repository.updateCreditNote(tx.db, tx.accountId, row.id, patch)) ?? (row as CreditNoteRow);
    return (await withMoney(tx.db, tx.accountId, [updated]))[0]!;
  },
  present: presentCreditNote,
};
