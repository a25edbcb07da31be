// A drawn signature (docs/api-contract.md §30, §32): the hub's approve form posts the page's pad as a PNG data URL
// in `signature_image`. Before anything is stored it is checked, each failure a 422 on that field: the type read
// from the bytes (`file-type`, never the data URL's own), at most 256 KB, at most 2,000 × 1,000 pixels (the IHDR
// chunk, read before any decoding), 8-bit samples, and not blank (decoded in the PDF pool's threads,
// mail/signature-image.ts). It is then staged as an upload is (intake.ts) and stored, as an attachment of kind
// `signature` on the quote, inside the approval's transaction (storeStaged).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, fieldError } from '../../core/errors.js';
import type { Executor } from '../../db/index.js';
import { PdfRenderTimeout } from '../../mail/pdf-pool.js';
import type { Context } from '../../kernel/context.js';
import * as repository from './attachments.repository.js';
import type { Attachment } from './attachments.schemas.js';
import { openContent, storeStaged } from './attachments.service.js';
import { describeText, intake, type Staged } from './intake.js';
import type { AttachmentStore } from './store.js';

/** The approve form's field that carries the drawing. */
export const SIGNATURE_IMAGE_FIELD = 'signature_image';
/** 256 KB: the most a drawn signature's PNG may be. */
export const SIGNATURE_IMAGE_MAX_BYTES = 256 * 1024;
/** The largest drawing, in pixels. */
export const SIGNATURE_IMAGE_MAX = { width: 2_000, height: 1_000 };
/** The PNG signature and the IHDR chunk that must follow it. */
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A data URL with base64 data: its media type (whatever it says, the bytes decide) and the data. */
const DATA_URL = /^data:[^,]*;base64,([A-Za-z0-9+/]*={0,2})$/;

const refuse = (message: string) => fieldError(SIGNATURE_IMAGE_FIELD, message);

/**
 * The PNG bytes of a drawn signature, checked; throws a 422 on `signature_image` naming what is wrong. `isBlank`
 * decodes the image (the PDF pool's `isBlankSignature`) and rejects when it cannot.
 */
export async function readSignatureImage(
  value: string | undefined,
  isBlank: (png: Buffer) => Promise<boolean>,
): Promise<Buffer> {
  const text = (value ?? '').trim();
  if (text === '') throw refuse('Draw your signature in the box to approve (drawing needs JavaScript).');
  const data = DATA_URL.exec(text)?.[1];
  if (data === undefined)
    throw refuse('The signature must be a PNG image sent as a data URL (data:image/png;base64,…).');
  // Refused before decoding when the base64 alone is too long for 256 KB.
  if (data.length > 4 * Math.ceil(SIGNATURE_IMAGE_MAX_BYTES / 3) + 4)
    throw refuse(`The signature image must be at most ${SIGNATURE_IMAGE_MAX_BYTES.toLocaleString('en-US')} bytes.`);
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length > SIGNATURE_IMAGE_MAX_BYTES)
    throw refuse(
      `The signature image is ${bytes.length.toLocaleString('en-US')} bytes; it must be at most ${SIGNATURE_IMAGE_MAX_BYTES.toLocaleString('en-US')}.`,
    );
  const detected = await fileTypeFromBuffer(bytes);
  if (detected?.mime !== 'image/png')
    throw refuse(
      `The signature must be a PNG image; this is ${detected ? `${detected.mime} (.${detected.ext})` : describeText(bytes.subarray(0, 512))}.`,
    );
  // The IHDR chunk: width, height and bit depth, read before anything decodes the pixels.
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_MAGIC) || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw refuse('The signature image is a damaged PNG (no IHDR chunk).');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width === 0 || height === 0) throw refuse('The signature image is a damaged PNG (no pixels).');
  if (width > SIGNATURE_IMAGE_MAX.width || height > SIGNATURE_IMAGE_MAX.height)
    throw refuse(
      `The signature image is ${width.toLocaleString('en-US')} × ${height.toLocaleString('en-US')} pixels; it must be at most ${SIGNATURE_IMAGE_MAX.width.toLocaleString('en-US')} × ${SIGNATURE_IMAGE_MAX.height.toLocaleString('en-US')}.`,
    );
  if (bytes[24] !== 8) throw refuse(`The signature image has ${bytes[24]}-bit samples; it must have 8-bit ones.`);
  let blank: boolean;
  try {
    blank = await isBlank(bytes);
  } catch (error) {
    if (error instanceof PdfRenderTimeout)
      throw new AppError('SERVICE_UNAVAILABLE', `${error.message} Try again shortly.`);
    throw refuse('The signature image is a PNG that cannot be decoded (damaged).');
  }
  if (blank) throw refuse('The signature is blank: draw your signature in the box.');
  return bytes;
}

/** A checked drawing staged in the store's staging folder, to be stored with the approval (or discarded). */
export interface StagedSignature {
  store: AttachmentStore;
  staged: Staged;
}

/** Stages a checked drawing (hashed, its type read again, any location removed) outside any transaction. */
export async function stageSignatureImage(store: AttachmentStore, png: Buffer): Promise<StagedSignature> {
  const staged = await intake(Readable.from([png]), {
    store,
    maxBytes: SIGNATURE_IMAGE_MAX_BYTES,
    declaredType: 'image/png',
  });
  return { store, staged };
}

/**
 * Stores the drawing as the quote's attachment of kind `signature` (not shown on the hub), in the approval's
 * transaction: its quota and the quote's count taken with it, `attachment.created` recorded.
 */
export function storeSignatureImage(tx: Context, image: StagedSignature, quoteId: string): Promise<Attachment> {
  return storeStaged(
    tx,
    image.store,
    { parent_type: 'quote', parent_id: quoteId, filename: 'signature.png', visible_on_hub: false },
    image.staged,
    'signature',
  );
}

/** Removes the staged copy (the store keeps its own once stored). */
export async function discardStagedSignature(image: StagedSignature): Promise<void> {
  await fs.promises.rm(image.staged.path, { force: true });
}

/** A drawn signature's PNG as stored (at most 256 KB), for the quote's PDF; undefined when there is none. */
export async function signatureImageBytes(
  db: Executor,
  store: AttachmentStore,
  accountId: string,
  attachmentId: string,
): Promise<Buffer | undefined> {
  const row = await repository.findAttachment(db, accountId, attachmentId);
  if (!row || row.kind !== 'signature') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await openContent(store, row)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
