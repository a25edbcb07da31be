// Signatures of hub approval (docs/api-contract.md §30): a quote's signed content is its RFC 8785 canonical JSON
// of the fields its client reads (§32: number, client, property, title, currency, lines with taxes, subtotal,
// discount, tax, total, notes, valid_until) — JSON, not PDF bytes, so no layout or software version changes it.
// The hub's page shows its SHA-256 and the approve form carries it back; an approval records who signed, when,
// from where, and that hash with the bytes it binds; with the account's `quote_signature: drawn`, the image drawn on
// the page too (an attachment of kind signature). Moving an approved quote back to draft invalidates it.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import { newId } from '../../core/deps.js';
import type { Executor } from '../../db/index.js';
import type { QuoteSignatureRow } from '../../db/types.js';
import type { Quote, Signature } from './quotes.schemas.js';

/** The signed content of a quote: what its client reads and approves (docs/api-contract.md §32). */
export function signedContent(quote: Quote): Record<string, unknown> {
  return {
    number: quote.number,
    client_id: quote.client_id,
    property_id: quote.property_id,
    title: quote.title,
    currency: quote.currency,
    line_items: quote.line_items,
    subtotal_amount: quote.subtotal_amount,
    discount_amount: quote.discount_amount,
    tax_amount: quote.tax_amount,
    total_amount: quote.total_amount,
    notes: quote.notes,
    valid_until: quote.valid_until,
  };
}

/** The signed content's canonical JSON and its SHA-256 (hex). */
export function signedDocument(quote: Quote): { json: string; sha256: string } {
  const json = canonicalJson(JSON.parse(JSON.stringify(signedContent(quote))));
  return { json, sha256: createHash('sha256').update(json, 'utf8').digest('hex') };
}

export function presentSignature(row: QuoteSignatureRow): Signature {
  return {
    id: row.id,
    object: 'signature',
    quote_id: row.quote_id,
    signer_name: row.signer_name,
    signed_at: row.signed_at,
    ip_address: row.ip_address,
    user_agent: row.user_agent,
    image_attachment_id: row.image_attachment_id,
    document_sha256: row.document_sha256,
    invalidated_at: row.invalidated_at,
    invalidated_reason: row.invalidated_reason as Signature['invalidated_reason'],
  };
}

/** Records a signature (in the approval's transaction) and answers it. */
export async function insertSignature(
  db: Executor,
  accountId: string,
  input: {
    quoteId: string;
    signerName: string;
    signedAt: string;
    ipAddress: string | null;
    userAgent: string | null;
    document: { json: string; sha256: string };
    /** A drawn signature's image (an attachment of kind signature); absent for a typed one. */
    imageAttachmentId?: string | undefined;
  },
): Promise<Signature> {
  const row: QuoteSignatureRow = {
    id: newId(),
    account_id: accountId,
    quote_id: input.quoteId,
    signer_name: input.signerName,
    signed_at: input.signedAt,
    ip_address: input.ipAddress,
    user_agent: input.userAgent === null ? null : input.userAgent.slice(0, 500),
    image_attachment_id: input.imageAttachmentId ?? null,
    document_sha256: input.document.sha256,
    document: input.document.json,
    invalidated_at: null,
    invalidated_reason: null,
    created_at: input.signedAt,
  };
  await db.insertInto('quote_signatures').values(row).execute();
  return presentSignature(row);
}

/** Invalidates the quote's valid signatures (`revised`): in the transaction that moves it back to draft. */
export async function invalidateSignatures(db: Executor, accountId: string, quoteId: string, at: string) {
  await db
    .updateTable('quote_signatures')
    .set({ invalidated_at: at, invalidated_reason: 'revised' })
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .where('invalidated_at', 'is', null)
    .execute();
}

/** Every signature of a quote, oldest first. */
export async function findSignatures(db: Executor, accountId: string, quoteId: string): Promise<QuoteSignatureRow[]> {
  return db
    .selectFrom('quote_signatures')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .orderBy('signed_at')
    .orderBy('id')
    .limit(1000)
    .execute();
}

export async function findSignature(
  db: Executor,
  accountId: string,
  quoteId: string,
  id: string,
): Promise<QuoteSignatureRow | undefined> {
  return db
    .selectFrom('quote_signatures')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteSignatures(db: Executor, accountId: string, quoteId: string): Promise<void> {
  await db.deleteFrom('quote_signatures').where('account_id', '=', accountId).where('quote_id', '=', quoteId).execute();
}
