// An upload's bytes, from the request to a staged file (docs/api-contract.md §30): streamed, counted (past
// ATTACHMENT_MAX_BYTES: 413 at once, mid-stream), hashed, text checked and written as they come, never whole in
// memory (docs/decisions.md, "Attachments: uploads at speed"); then the type is read from the first bytes
// (`file-type`, never the declared type or the name), location removed in place (location.ts) and the hash taken
// again only if a byte changed.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, fieldError } from '../../core/errors.js';
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
/** The staged file's write buffer: chunks gathered while a write is under way go in the next one (writev). */
const WRITE_BUFFER = 1024 * 1024;

export interface Staged {
  path: string;
  size: number;
  sha256: string;
  contentType: string;
  extension: string;
  locationRemoved: boolean;
}

/**
 * A UTF-8 sequence's length by its first byte; 1 for a byte no sequence starts with (0xC0, 0xC1, 0xF5 and above),
 * which is then never carried over but judged, and refused, where it stands.
 */
const sequenceLength = (lead: number) =>
  lead >= 0xf5 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 1;

/** Where a UTF-8 sequence that the chunk's end cuts begins (the chunk's length when none is cut). */
function cutAt(chunk: Buffer): number {
  for (let back = 1; back <= 3 && back <= chunk.length; back++) {
    const byte = chunk[chunk.length - back] as number;
    if ((byte & 0xc0) !== 0x80) return sequenceLength(byte) > back ? chunk.length - back : chunk.length;
  }
  return chunk.length;
}

/** Whether bytes `from` to `to` hold a control: C0 but tab, LF and CR; DEL; C1 (0xC2 then 0x80–0x9F). */
function controlIn(bytes: Buffer, from: number, to: number): boolean {
  for (let index = from; index < to; index++) {
    const byte = bytes[index] as number;
    if (byte < 0x20) {
      if (byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return true;
    } else if (byte === 0x7f || (byte === 0xc2 && (bytes[index + 1] as number) < 0xa0)) return true;
  }
  return false;
}

/** Each byte of a 32-bit word: 0x20 (a byte below it is C0), 1 (for bytes equal to one), their high bits. */
const SPACES = 0x20202020;
const ONES = 0x01010101;
const HIGH_BITS = 0x80808080 | 0;
const DELS = 0x7f7f7f7f;
const C2S = 0xc2c2c2c2 | 0;

/**
 * Whether valid UTF-8 holds a control character other than tab, LF and CR (see controlIn). Nothing is decoded: the
 * bytes are read four at a time, and a word is looked at byte by byte only when it may hold one (a byte below
 * 0x20, which tab, LF and CR are too, or 0x7F or 0xC2: the usual bit tricks, exact as to whether any byte does).
 */
function holdsControl(bytes: Buffer): boolean {
  // The bytes before the first 4-byte boundary of the underlying memory, then whole words, then the rest.
  const start = (4 - (bytes.byteOffset & 3)) & 3;
  if (bytes.length < start + 4) return controlIn(bytes, 0, bytes.length);
  if (controlIn(bytes, 0, start)) return true;
  const count = (bytes.length - start) >> 2;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + start, count);
  for (let index = 0; index < count; index++) {
    const word = words[index] as number;
    const del = word ^ DELS;
    const c2 = word ^ C2S;
    if (((((word - SPACES) | 0) & ~word) | (((del - ONES) | 0) & ~del) | (((c2 - ONES) | 0) & ~c2)) & HIGH_BITS) {
      const at = start + index * 4;
      if (controlIn(bytes, at, at + 4)) return true;
    }
  }
  return controlIn(bytes, start + count * 4, bytes.length);
}

const NOTHING = Buffer.alloc(0);

/**
 * Text checked as it streams, chunk by chunk and without decoding it: UTF-8 (`isUtf8`; a sequence cut between two
 * chunks is carried over, at most 3 bytes) without control characters but tab, LF and CR. `problem` is the first
 * found.
 */
export class TextCheck {
  problem: string | undefined;
  private carried = NOTHING;

  write(chunk: Buffer): void {
    if (this.problem !== undefined) return;
    let start = 0;
    if (this.carried.length > 0) {
      const lead = this.carried[0] as number;
      const needed = sequenceLength(lead) - this.carried.length;
      const sequence = Buffer.concat([this.carried, chunk.subarray(0, needed)]);
      if (sequence.length < sequenceLength(lead)) {
        this.carried = sequence;
        return;
      }
      if (!this.judge(sequence)) return;
      start = needed;
    }
    const end = Math.max(start, cutAt(chunk));
    if (!this.judge(chunk.subarray(start, end))) return;
    this.carried = end === chunk.length ? NOTHING : Buffer.from(chunk.subarray(end));
  }

  end(): void {
    if (this.problem === undefined && this.carried.length > 0) this.problem = 'is not UTF-8';
  }

  private judge(bytes: Buffer): boolean {
    if (!isUtf8(bytes)) this.problem = 'is not UTF-8';
    else if (holdsControl(bytes)) this.problem = 'holds control characters';
    return this.problem === undefined;
  }
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
  /** The declared type (the part's or the request's Content-Type): only text relies on it. */
  declaredType: string | undefined;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${maxBytes.toLocaleString('en-US')} bytes, the most an attachment may be (ATTACHMENT_MAX_BYTES).`,
  );
}

/** Resolves once `stream` has closed (its file descriptor with it). */
const closed = (stream: Writable) =>
  new Promise<void>((resolve) => (stream.closed ? resolve() : stream.once('close', resolve)));

/**
 * Streams `source` to a staged file, then checks and cleans it; the staged file is removed on any refusal. Each
 * chunk is counted, hashed, kept if it is of the first HEAD_BYTES and, for declared text, checked, then written;
 * the only bytes held are the head, the chunks under way and the write buffer (WRITE_BUFFER).
 */
export async function intake(source: Readable, options: IntakeOptions): Promise<Staged> {
  const { store, maxBytes } = options;
  await fs.promises.mkdir(store.stagingDirectory, { recursive: true });
  const file = stagingPath(store);
  // Opened here, before the stream: a refusal removes a file that exists, never one still being opened.
  const handle = await fs.promises.open(file, 'wx');
  const writer = handle.createWriteStream({ highWaterMark: WRITE_BUFFER });
  const hash = createHash('sha256');
  let size = 0;
  const head = Buffer.allocUnsafe(HEAD_BYTES);
  let headSize = 0;
  const declared = options.declaredType?.split(';')[0]?.trim().toLowerCase();
  const textExtension = declared === undefined ? undefined : TEXT_TYPES[declared];
  const text = textExtension ? new TextCheck() : undefined;
  try {
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > maxBytes) throw tooLarge(maxBytes);
            const turn = uploadTurn(chunk.length);
            if (turn) await turn;
            if (headSize < HEAD_BYTES) headSize += chunk.copy(head, headSize, 0, HEAD_BYTES - headSize);
            hash.update(chunk);
            text?.write(chunk);
            yield chunk;
          }
          // A truncated multipart part (the client went away) is an error of the stream: it throws above.
          if ((source as Readable & { truncated?: boolean }).truncated) throw tooLarge(maxBytes);
        },
        writer,
      );
    } finally {
      await closed(writer);
    }
    text?.end();
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
      if (text?.problem !== undefined) throw fieldError('file', `is declared as ${declared} but ${text.problem}`);
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
