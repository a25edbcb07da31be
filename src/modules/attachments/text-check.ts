// A declared text file's check as its bytes stream (docs/decisions.md, "Attachments: uploads at speed"): UTF-8
// without control characters but tab, LF and CR, judged chunk by chunk without decoding. It runs in the intake's
// thread (intake-worker.ts), beside the hash.
import { isUtf8 } from 'node:buffer';

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
