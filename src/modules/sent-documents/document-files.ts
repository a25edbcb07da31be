// A quote's or invoice's PDF through the API (docs/api-contract.md §10): the same snapshot and renderer as the
// e-mail attachment, built from the document's current revision. Its ETag is a hash of everything the PDF
// is made from, so a conditional GET is answered without rendering.
import { hash } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Executor } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import type { PdfInput } from '../../mail/pdf.js';
import { PdfRenderTimeout, type PdfPool } from '../../mail/pdf-pool.js';
import { findLogo, findLogoHash } from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { getInvoice } from '../invoices/index.js';
import { withDepositReceived } from './deposit-received.js';
import { getCreditNote, printableCreditNote } from '../credit-notes/index.js';
import { getQuote } from '../quotes/index.js';
import { documentSnapshot, type SentKind } from '../documents/index.js';
import { type AttachmentStore, signatureImageBytes } from '../attachments/index.js';

/** Raise when the layout changes, so PDFs cached under the old ETags are fetched again. */
const LAYOUT_VERSION = 5;

export interface DocumentFile {
  etag: string;
  filename: string;
  render(): Promise<Buffer>;
}

/**
 * What a document's PDF is made from, read in one go (in the caller's transaction when it holds one): rendered
 * by `renderPrint`, which needs no transaction, so a caller may render it after its transaction has ended.
 */
export interface DocumentPrint {
  accountId: string;
  filename: string;
  snapshot: MailSnapshot;
  logoHash: string | null;
  fallbackDate: string;
}

export async function documentPrint(ctx: Context, kind: SentKind, id: string, now: Date): Promise<DocumentPrint> {
  const { db, accountId } = ctx;
  const document =
    kind === 'invoice'
      ? await withDepositReceived(ctx, await getInvoice(ctx, id, now))
      : kind === 'credit_note'
        ? await printableCreditNote(ctx, await getCreditNote(ctx, id))
        : await getQuote(ctx, id);
  const client = await getClientRow(ctx, document.client_id);
  return {
    accountId,
    filename: `${document.number ?? document.id}.pdf`,
    snapshot: await documentSnapshot(db, accountId, kind, document, client, null),
    logoHash: (await findLogoHash(db, accountId)) ?? null,
    fallbackDate: document.updated_at,
  };
}

/** A hash of everything the print's PDF is made from (with the CII a Factur-X embeds): its ETag. */
export function printEtag(print: DocumentPrint, facturx?: Uint8Array): string {
  const facturxHash = facturx === undefined ? null : hash('sha256', facturx, 'base64url');
  return `"${hash('sha256', JSON.stringify([LAYOUT_VERSION, print.logoHash, print.snapshot, ...(facturxHash ? [facturxHash] : [])]), 'base64url')}"`;
}

/**
 * The print's PDF rendered in the pool, the logo read through `db` when the pool does not keep it; a Factur-X
 * (docs/api-contract.md §31) when `facturx` is the CII to embed. A timeout is 503.
 */
export async function renderPrint(
  pdf: Pick<PdfPool, 'render' | 'logo'>,
  db: Executor,
  print: DocumentPrint,
  facturx?: Uint8Array,
  /** The attachment store, for an approved quote's drawn signature (docs/api-contract.md §30). */
  store?: AttachmentStore,
): Promise<Buffer> {
  const { accountId, logoHash } = print;
  try {
    // The logo is decoded and scaled once per logo, not per render.
    const logo =
      logoHash === null ? null : await pdf.logo(accountId, logoHash, async () => (await findLogo(db, accountId))?.data);
    // A drawn signature's image: its attachment's bytes never change, so its id in the snapshot keys the ETag.
    const imageId = print.snapshot.document.signature?.image_attachment_id;
    const signatureImage = imageId && store ? await signatureImageBytes(db, store, accountId, imageId) : undefined;
    const input: PdfInput = {
      snapshot: print.snapshot,
      logo,
      fallbackDate: print.fallbackDate,
      ...(facturx ? { facturx: { cii: facturx } } : {}),
      ...(signatureImage ? { signatureImage } : {}),
    };
    // Counted against the document's account (the hub's links too), kept by its version.
    return await pdf.render(input, { accountId, cacheKey: `${accountId}:${printEtag(print, facturx)}` });
  } catch (error) {
    if (error instanceof PdfRenderTimeout)
      throw new AppError('SERVICE_UNAVAILABLE', `${error.message} Try again shortly.`);
    throw error;
  }
}

export async function documentFile(
  ctx: Context,
  pdf: Pick<PdfPool, 'render' | 'logo'>,
  kind: SentKind,
  id: string,
  now: Date,
  options: {
    /** A Factur-X (docs/api-contract.md §31): the PDF/A-3b embedding this CII. */
    facturx?: Uint8Array;
    /** The attachment store, for an approved quote's drawn signature (docs/api-contract.md §30). */
    store?: AttachmentStore;
  } = {},
): Promise<DocumentFile> {
  const { facturx, store } = options;
  const print = await documentPrint(ctx, kind, id, now);
  return {
    etag: printEtag(print, facturx),
    filename: print.filename,
    render: () => renderPrint(pdf, ctx.db, print, facturx, store),
  };
}
