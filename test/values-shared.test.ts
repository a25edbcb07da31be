// fromJsonShared (src/db/values.ts): a JSON column's text read again gives the value parsed the first time,
// frozen, equal to what JSON.parse makes of it; a long text is parsed every time. No database involved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromJsonShared } from '../src/db/values.js';

test('the same text gives the same frozen value, equal to JSON.parse of it', () => {
  const text =
    '{"line1":"1 Main St","line2":null,"city":"Springfield","region":null,"postal_code":"01101","country":"US"}';
  const first = fromJsonShared<Record<string, unknown>>(text);
  assert.deepEqual(first, JSON.parse(text));
  // Another string of the same text (as each read of a row makes): the same object.
  assert.equal(fromJsonShared(`${text.slice(0, 10)}${text.slice(10)}`), first);
  assert.ok(Object.isFrozen(first));
  assert.throws(() => {
    (first as Record<string, unknown>).city = 'Shelbyville';
  }, TypeError);
  assert.equal(first.city, 'Springfield');
});

test('nested values are frozen too; `{}` and other texts give values of their own', () => {
  const nested = fromJsonShared<{ a: { b: string[] } }>('{"a":{"b":["x"]}}');
  assert.ok(Object.isFrozen(nested.a) && Object.isFrozen(nested.a.b));
  assert.throws(() => nested.a.b.push('y'), TypeError);
  assert.deepEqual(fromJsonShared('{}'), {});
  assert.ok(Object.isFrozen(fromJsonShared('{}')));
  assert.deepEqual(fromJsonShared('{"a":"1"}'), { a: '1' });
  assert.deepEqual(fromJsonShared('{"a":"2"}'), { a: '2' });
  assert.deepEqual(fromJsonShared('{"__proto__":"x"}'), JSON.parse('{"__proto__":"x"}'));
  assert.throws(() => fromJsonShared('{'), SyntaxError);
});

test('a long text is parsed each time (not kept), still frozen and equal', () => {
  const text = JSON.stringify({ notes: 'x'.repeat(5000) });
  const first = fromJsonShared(text);
  const second = fromJsonShared(text);
  assert.deepEqual(first, second);
  assert.notEqual(first, second);
  assert.ok(Object.isFrozen(first));
});
