// Response serializers are compiled once per distinct shape (src/http/serializers.ts). What may be shared is
// stated here literally: schemas differing only in annotations, or in an `enum` nothing validates, serialize
// alike; an `enum` under anyOf/oneOf/if (fast-json-stringify validates there to pick a branch), a `default`
// (written for a missing field) or a type keeps two schemas apart. And a shared serializer still writes each
// route's own answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { serializationKey } from '../src/http/serializers.js';

const envelope = (codes: string[], description: string) => ({
  type: 'object',
  description,
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: codes, description: 'Machine-readable error code.', example: codes[0] },
        message: { type: 'string', title: 'Message', examples: ['Nope.'] },
      },
    },
  },
});

test('error envelopes of different routes (codes, descriptions) share one serializer', () => {
  assert.equal(
    serializationKey(envelope(['NOT_FOUND'], 'No such resource')),
    serializationKey(envelope(['NOT_FOUND', 'INVALID_API_KEY', 'RATE_LIMITED'], 'Another description')),
  );
});

test('what changes the written JSON keeps schemas apart', () => {
  const branches = (second: string) => ({
    anyOf: [
      { type: 'object', properties: { kind: { type: 'string', enum: ['a'] }, n: { type: 'integer' } } },
      { type: 'object', properties: { kind: { type: 'string', enum: [second] }, n: { type: 'string' } } },
    ],
  });
  assert.notEqual(serializationKey(branches('b')), serializationKey(branches('c')), 'an enum that picks a branch');
  assert.notEqual(
    serializationKey({ type: 'object', properties: { n: { type: 'integer', default: 1 } } }),
    serializationKey({ type: 'object', properties: { n: { type: 'integer', default: 2 } } }),
    'a default',
  );
  assert.notEqual(
    serializationKey({ type: 'object', properties: { n: { type: 'integer' } } }),
    serializationKey({ type: 'object', properties: { n: { type: 'string' } } }),
    'a type',
  );
});

test('one serializer compiled for one envelope writes another route’s codes as they are', () => {
  const compile = SerializerSelector()();
  const serialize = compile({
    schema: envelope(['NOT_FOUND'], 'No such resource'),
    method: 'GET',
    url: '/',
    httpStatus: '404',
  });
  assert.equal(
    serialize({ error: { code: 'RATE_LIMITED', message: 'Slow down.' } }),
    '{"error":{"code":"RATE_LIMITED","message":"Slow down."}}',
  );
});
