// An upload's bytes, from the request to a staged file (docs/api-contract.md §30): streamed, counted (past
// ATTACHMENT_MAX_BYTES: 413 at once, mid-stream), hashed and written as they come, never whole in memory; then
// the type is read from the bytes (`file-type`, never the declared type or the name), location removed in place
// (location.ts) and the hash taken again only if a byte changed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { fileTypeFromFile } from 'file-type';
import { AppError, fieldError } from '../../core/errors.js';
import { removeLocation } from './location.js';
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

/** Bytes of the start kept to name what a refused file is. */
const HEAD_BYTES = 512;

export interface Staged {
  path: string;
  size: number;
  sha256: string;
  contentType: string;
  extension: string;
  locationRemoved: boolean;
}

/** Controls other than tab, LF and CR (C0, DEL, C1). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

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
  /** The declared type (the part's or the request's Content-Type): only text relies on it. */
  declaredType: string | undefined;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${maxBytes.toLocaleString('en-US')} bytes, the most an attachment may be (ATTACHMENT_MAX_BYTES).`,
  );
}

/** Streams `source` to a staged file, then checks and cleans it; the staged file is removed on any refusal. */
export async function intake(source: Readable, options: IntakeOptions): Promise<Staged> {
  const { store, maxBytes } = options;
  await fs.promises.mkdir(store.stagingDirectory, { recursive: true });
  const file = stagingPath(store);
  const handle = await fs.promises.open(file, 'wx');
  const hash = createHash('sha256');
  let size = 0;
  const headChunks: Buffer[] = [];
  let headSize = 0;
  const declared = options.declaredType?.split(';')[0]?.trim().toLowerCase();
  const textExtension = declared === undefined ? undefined : TEXT_TYPES[declared];
  // Text is checked as it streams: a decoder that throws on invalid UTF-8, and no control characters.
  const decoder = textExtension ? new TextDecoder('utf-8', { fatal: true }) : undefined;
  let textProblem: string | undefined;
  try {
    try {
      for await (const piece of source) {
        const chunk = piece as Buffer;
        size += chunk.length;
        if (size > maxBytes) throw tooLarge(maxBytes);
        if (headSize < HEAD_BYTES) {
          headChunks.push(chunk.subarray(0, HEAD_BYTES - headSize));
          headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
        }
        hash.update(chunk);
        if (decoder && textProblem === undefined) {
          try {
            if (CONTROL.test(decoder.decode(chunk, { stream: true }))) textProblem = 'holds control characters';
          } catch {
            textProblem = 'is not UTF-8';
          }
        }
        await handle.write(chunk);
      }
      if (decoder && textProblem === undefined) {
        try {
          decoder.decode();
        } catch {
          textProblem = 'is not UTF-8';
        }
      }
      // A truncated multipart part (the client went away) is an error of the stream: it throws above.
      if ((source as Readable & { truncated?: boolean }).truncated) throw tooLarge(maxBytes);
    } finally {
      await handle.close();
    }
    if (size === 0) throw fieldError('file', 'is empty: an attachment needs at least one byte');
    const head = Buffer.concat(headChunks);
    const detected = await fileTypeFromFile(file);
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
      const trimmed = head
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trimStart();
      if (!textExtension || trimmed.startsWith('<') || trimmed.startsWith('#!'))
        throw fieldError(
          'file',
          `is ${describeText(head)}, which is not accepted: attachments are JPEG, PNG, GIF, WebP, HEIC/HEIF, PDF, MP4/QuickTime, or text declared as text/plain or text/csv`,
        );
      if (textProblem !== undefined) throw fieldError('file', `is declared as ${declared} but ${textProblem}`);
      type = { contentType: declared as string, extension: textExtension };
    }
    let sha256 = hash.digest('hex');
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
