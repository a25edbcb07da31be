// Contract section 30: text is "UTF-8 without controls but tab, CR, LF". The upload checks it chunk by chunk as the
// bytes stream, without decoding them (text-check.ts, TextCheck): whatever the bytes and wherever the chunks are cut,
// its verdict must be the whole file's, read here the plain way (a fatal decoder over all of it, then a search for
// the controls the contract excludes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TextCheck } from '../src/modules/attachments/text-check.js';

/** C0 but tab, LF and CR; DEL; C1. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function wholeVerdict(bytes: Buffer): 'ok' | 'refused' {
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'refused';
  }
  return CONTROL.test(decoded) ? 'refused' : 'ok';
}

function streamedVerdict(bytes: Buffer, cuts: number[]): 'ok' | 'refused' {
  const check = new TextCheck();
  let at = 0;
  for (const cut of [...cuts.map((value) => value % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    if (cut < at) continue;
    check.write(bytes.subarray(at, cut));
    at = cut;
  }
  check.end();
  return check.problem === undefined ? 'ok' : 'refused';
}

/** Pieces of text and of broken text: ASCII, the allowed controls, 2- to 4-byte characters, C0, DEL, C1, strays. */
const PIECES = [
  'a',
  'date,hours\n',
  '\t',
  '\r\n',
  'é',
  '€',
  '😀',
  '\u00a0',
  '\u0007',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u009f',
  '\ud7ff',
  '\uffff',
].map((text) => Buffer.from(text, 'utf8'));
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 3 }).map((bytes) => Buffer.from(bytes)) },
  // A character cut short, or a surrogate, an overlong form, past U+10FFFF.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...[[0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]].map(
        (bytes) => Buffer.from(bytes),
      ),
    ),
  },
);

test('the streamed check agrees with the whole file’s, however the chunks are cut', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
      const bytes = Buffer.concat(pieces);
      assert.equal(streamedVerdict(bytes, cuts), wholeVerdict(bytes));
    }),
    { numRuns: 3000 },
  );
});

test('the answers name the first problem: not UTF-8, or control characters', () => {
  const check = (bytes: number[], cuts: number[]) => {
    const text = new TextCheck();
    let at = 0;
    for (const cut of [...cuts, bytes.length]) {
      text.write(Buffer.from(bytes.slice(at, cut)));
      at = cut;
    }
    text.end();
    return text.problem;
  };
  // € (E2 82 AC) cut after each of its bytes.
  assert.equal(check([0x61, 0xe2, 0x82, 0xac, 0x62], [2]), undefined);
  assert.equal(check([0x61, 0xe2, 0x82, 0xac, 0x62], [3]), undefined);
  assert.equal(check([0x61, 0xe2, 0x82, 0xac], [1, 2, 3]), undefined);
  // A character the file's end cuts.
  assert.equal(check([0x61, 0xe2, 0x82], [2]), 'is not UTF-8');
  // NEL (U+0085, C2 85) cut between its two bytes.
  assert.equal(check([0x61, 0xc2, 0x85], [2]), 'holds control characters');
  assert.equal(check([0x61, 0x07, 0xff], []), 'is not UTF-8');
  assert.equal(check([0x61, 0x07], [1]), 'holds control characters');
  assert.equal(check([0x09, 0x0d, 0x0a, 0x20], [1, 2]), undefined);
});
