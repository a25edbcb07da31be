// RFC 8785 (JSON Canonicalization Scheme), with the RFC's own examples written out: §3.2.2's sample object and its
// canonical text, §3.2.3's member order by UTF-16 code units, and numbers as ECMAScript writes them (Appendix B).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../src/core/canonical-json.js';

test('RFC 8785 §3.2.2: the sample object', () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
  );
  assert.equal(
    canonicalJson(input),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

test('RFC 8785 §3.2.3: members sorted by UTF-16 code units', () => {
  const input = JSON.parse(
    '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
  );
  // Read from the text itself: a parsed object would list the integer-like name "1" first.
  const names = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":"/g)].map((match) =>
    JSON.parse(`"${match[1]}"`),
  );
  assert.deepEqual(names, ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
});

test('RFC 8785 Appendix B: numbers', () => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [123456789012345680000, '123456789012345680000'],
    [9007199254740992, '9007199254740992'],
    [0.000001, '0.000001'],
    [-1.5, '-1.5'],
  ];
  for (const [value, text] of cases) assert.equal(canonicalJson(value), text, String(value));
  assert.throws(() => canonicalJson(Number.NaN));
  assert.throws(() => canonicalJson(Number.POSITIVE_INFINITY));
});

test('nested objects and arrays, no whitespace, undefined members left out', () => {
  assert.equal(
    canonicalJson({ b: [1, { d: 'x', c: null }], a: true, z: undefined }),
    '{"a":true,"b":[1,{"c":null,"d":"x"}]}',
  );
});
