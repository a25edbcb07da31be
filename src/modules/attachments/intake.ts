// An upload's bytes, from the request to a staged file (docs/api-contract.md §30): streamed, counted (past
// ATTACHMENT_MAX_BYTES: 413 at once, mid-stream), hashed, text checked and written as they come (the last three in
// the intake's thread, intake-thread.ts), never whole in memory (docs/decisions.md, "Attachments: uploads at speed"
// and "Attachments: the intake's thread"); then the type is read from the first bytes (`file-type`, never the
// declared type or the name), location removed in place (location.ts) and the hash taken again only if a byte
// changed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, fieldError } from '../../core/errors.js';
import { type Taken, ThreadIntake, uploadsUnderWay } from './intake-thread.js';
import { removeLocation } from './location.js';
import { uploadTurn } from './pace.js';
import { type AttachmentStore, stagingPath } from './store.js';

/** The types kept, by what `file-type` answers (its `ext`): a browser runs none of them. */
const ACCEPTED: Record<string, { contentType: string; extension: string }> = {
  jpg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  gif: { contentType: 'image/gif', extension: 'gif' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  heic: { contentType: 'image/heic', extension: 'heic' },
  pdf: { contentType: 'application/pdf', extension: 'pdf' },
  mp4: { contentType: 'video/mp4', extension: 'mp4' },
  mov: { contentType: 'video/quicktime', extension: 'mov' },
};

/** Text is kept only when declared as one of these (and then checked): UTF-8, no controls, not markup. */
const TEXT_TYPES: Record<string, string> = { 'text/plain': 'txt', 'text/csv': 'csv' };

/**
 * Bytes of the start kept in memory, for the detector (`file-type` needs 4,100 for most types; container walks,
 * a PNG's chunks before its first IDAT, go further) and to name what a refused file is.
 */
const HEAD_BYTES = 64 * 1024;
/** Bytes named when a refused file is described (markup and scripts show in their first line). */
const DESCRIBED_BYTES = 512;

export interface Staged {
  path: string;
  size: number;
  sha256: string;
  contentType: string;
  extension: string;
  locationRemoved: boolean;
}

/** What a refused file is, in a few words, from its first bytes (markup and scripts have no magic number). */
export function describeText(head: Buffer): string {
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (text.startsWith('#!')) return 'a script';
  if (text.includes('<svg')) return 'an SVG image (it can hold scripts)';
  if (text.startsWith('<!doctype html') || text.includes('<html') || text.includes('<script') || text.includes('<body'))
    return 'an HTML page';
  if (text.startsWith('<?xml') || text.startsWith('<')) return 'XML or HTML markup';
  return 'not a recognised type';
}

export interface IntakeOptions {
  store: AttachmentStore;
  maxBytes: number;
  /** What uploads take together, in bytes a second, while two or more are under way (0 or absent: no limit). */
  sharedBytesPerSecond?: number;
  /** The declared type (the part's or the request's Content-Type): only text relies on it. */
  declaredType: string | undefined;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${maxBytes.toLocaleString('en-US')} bytes, the most an attachment may be (ATTACHMENT_MAX_BYTES).`,
  );
}

/**
 * Streams `source` to a staged file, then checks and cleans it; the staged file is removed on any refusal. Each
 * chunk is counted and kept if it is of the first HEAD_BYTES here, then hashed, checked if declared text, and
 * written by the intake's thread (intake-thread.ts); the only bytes held are the head and the chunks handed over
 * and not yet written (at most about 1 MiB an upload).
 */
export async function intake(source: Readable, options: IntakeOptions): Promise<Staged> {
  const { store, maxBytes } = options;
  await fs.promises.mkdir(store.stagingDirectory, { recursive: true });
  const file = stagingPath(store);
  // Opened here, before the stream: a refusal removes a file that exists, never one still being opened.
  const handle = await fs.promises.open(file, 'wx');
  let size = 0;
  const head = Buffer.allocUnsafe(HEAD_BYTES);
  let headSize = 0;
  const declared = options.declaredType?.split(';')[0]?.trim().toLowerCase();
  const textExtension = declared === undefined ? undefined : TEXT_TYPES[declared];
  // A request's body chunks are the HTTP parser's copies, read by this stream alone: moved to the thread as they
  // are. Others' (multipart's parts are pieces of the request's chunks, a caller's stream may keep its bytes) are
  // copied to it.
  const owned = source instanceof IncomingMessage;
  const thread = new ThreadIntake(handle.fd, textExtension !== undefined);
  try {
    let taken: Taken;
    try {
      await pipeline(source, async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          size += chunk.length;
          if (size > maxBytes) throw tooLarge(maxBytes);
          const limit = uploadsUnderWay() > 1 ? (options.sharedBytesPerSecond ?? 0) : 0;
          const turn = uploadTurn(chunk.length, !owned, limit);
          if (turn) await turn;
          if (headSize < HEAD_BYTES) headSize += chunk.copy(head, headSize, 0, HEAD_BYTES - headSize);
          await thread.write(chunk, owned);
        }
        // A truncated multipart part (the client went away) is an error of the stream: it throws above.
        if ((source as Readable & { truncated?: boolean }).truncated) throw tooLarge(maxBytes);
      });
      taken = await thread.end();
    } catch (error) {
      // The thread writes nothing more before the file's descriptor closes (a number the process may reuse).
      await thread.abort();
      throw error;
    } finally {
      await handle.close();
    }
    if (size === 0) throw fieldError('file', 'is empty: an attachment needs at least one byte');
    const start = head.subarray(0, headSize);
    const detected = await fileTypeFromBuffer(start);
    let type: { contentType: string; extension: string } | undefined;
    if (detected) {
      type = ACCEPTED[detected.ext];
      // HEIF's own brands answer image/heif (or a sequence type): kept as detected.
      if (type && detected.ext === 'heic') type = { ...type, contentType: detected.mime };
      if (!type)
        throw fieldError(
          'file',
          `is ${detected.mime} (.${detected.ext}), which is not accepted: attachments are JPEG, PNG, GIF, WebP, HEIC/HEIF, PDF, MP4/QuickTime or plain text`,
        );
    } else {
      const described = start.subarray(0, DESCRIBED_BYTES);
      const trimmed = described
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trimStart();
      if (!textExtension || trimmed.startsWith('<') || trimmed.startsWith('#!'))
        throw fieldError(
          'file',
          `is ${describeText(described)}, which is not accepted: attachments are JPEG, PNG, GIF, WebP, HEIC/HEIF, PDF, MP4/QuickTime, or text declared as text/plain or text/csv`,
        );
      if (taken.textProblem !== undefined)
        throw fieldError('file', `is declared as ${declared} but ${taken.textProblem}`);
      type = { contentType: declared as string, extension: textExtension };
    }
    let sha256 = taken.sha256;
    const locationRemoved = await removeLocation(file, type.contentType);
    if (locationRemoved) sha256 = await hashFile(file);
    return { path: file, size, sha256, contentType: type.contentType, extension: type.extension, locationRemoved };
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}

/** The SHA-256 of a file, streamed. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A filename as kept (docs/api-contract.md §30): without its path and controls, at most 255 bytes of UTF-8, and
 * with the detected extension added when its own differs (`a.html` → `a.html.jpg`).
 */
export function keptFilename(given: string | undefined, extension: string): string {
  let name = (given ?? '').split(/[\\/]/).pop() ?? '';
  name = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if (name === '' || name === '.' || name === '..') name = 'file';
  const own = /\.([^.]+)$/.exec(name)?.[1]?.toLowerCase();
  const same = own === extension || (extension === 'jpg' && own === 'jpeg') || (extension === 'heic' && own === 'heif');
  const suffix = same ? '' : `.${extension}`;
  const limit = 255 - Buffer.byteLength(suffix);
  while (Buffer.byteLength(name) > limit) name = Array.from(name).slice(0, -1).join('');
  return `${name}${suffix}`;
}
