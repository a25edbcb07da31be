// A quote's or invoice's PDF through the API (docs/api-contract.md §10): the same snapshot and renderer as the
// e-mail attachment, built from the document's current revision. Its ETag is a hash of everything the PDF
// is made from, so a conditional GET is answered without rendering.
import { hash } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
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
  const { db, accountId } = ctx;
  const document =
    kind === 'invoice'
      ? await withDepositReceived(ctx, await getInvoice(ctx, id, now))
      : kind === 'credit_note'
        ? await printableCreditNote(ctx, await getCreditNote(ctx, id))
        : await getQuote(ctx, id);
  const client = await getClientRow(ctx, document.client_id);
  const snapshot = await documentSnapshot(db, accountId, kind, document, client, null);
  const logoHash = (await findLogoHash(db, accountId)) ?? null;
  const facturxHash = facturx === undefined ? null : hash('sha256', facturx, 'base64url');
  const etag = `"${hash('sha256', JSON.stringify([LAYOUT_VERSION, logoHash, snapshot, ...(facturxHash ? [facturxHash] : [])]), 'base64url')}"`;
  return {
    etag,
    filename: `${document.number ?? document.id}.pdf`,
    async render() {
      try {
        // The logo is decoded and scaled once per logo, not per render.
        const logo =
          logoHash === null
            ? null
            : await pdf.logo(accountId, logoHash, async () => (await findLogo(db, accountId))?.data);
        // A drawn signature's image: its attachment's bytes never change, so its id in the snapshot keys the ETag.
        const imageId = snapshot.document.signature?.image_attachment_id;
        const signatureImage = imageId && store ? await signatureImageBytes(db, store, accountId, imageId) : undefined;
        const input: PdfInput = {
          snapshot,
          logo,
          fallbackDate: document.updated_at,
          ...(facturx ? { facturx: { cii: facturx } } : {}),
          ...(signatureImage ? { signatureImage } : {}),
        };
        // Counted against the document's account (the hub's links too), kept by its version.
        return await pdf.render(input, { accountId, cacheKey: `${accountId}:${etag}` });
      } catch (error) {
        if (error instanceof PdfRenderTimeout)
          throw new AppError('SERVICE_UNAVAILABLE', `${error.message} Try again shortly.`);
        throw error;
      }
    },
  };
}
