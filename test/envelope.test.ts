// The envelope written by hand around JSON already made (envelopeJson: an object's answer and a list's page,
// http/resource-routes.ts and http/pagination.ts) is byte for byte what Fastify's serializer writes for the
// envelope's schema from the same object, request id and time: random clients, pages of them and their
// pagination (any cursor text, null, any limit), through a Fastify instance set up as the app sets up its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { ManualClock } from './helpers/context.js';
import { envelopeJson, meta, ok, type Pagination } from '../src/http/envelope.js';
import { sentJson } from '../src/http/etag.js';
import { newRequestId } from '../src/http/connections.js';
import { dataEnvelope, listEnvelope, schemaRef } from '../src/http/schemas.js';
import { buildSerializer } from '../src/http/serializers.js';
import { ClientSchema } from '../src/modules/clients/index.js';

let app: FastifyInstance;
/** What the next request answers, and what the hand-written envelope of it was. */
let answer: { data: unknown; pagination?: Pagination } = { data: null };
let handWritten = '';

before(async () => {
  app = Fastify({ genReqId: newRequestId, schemaController: { compilersFactory: { buildSerializer } } });
  // A clock that stands still: the two envelopes of one request are written at the same instant.
  app.decorate('clock', new ManualClock(new Date('2026-11-28T12:00:00.000Z')));
  app.addSchema(ClientSchema);
  const item = schemaRef(ClientSchema);
  app.get('/one', { schema: { response: { 200: dataEnvelope(item) } } }, async (request, reply) => {
    handWritten = envelopeJson(request, sentJson(reply, item)(answer.data));
    return ok(request, answer.data);
  });
  app.get('/page', { schema: { response: { 200: listEnvelope(item) } } }, async (request, reply) => {
    const json = sentJson(reply, item);
    handWritten = envelopeJson(request, `[${(answer.data as unknown[]).map(json).join(',')}]`, answer.pagination);
    return { data: answer.data, meta: { ...meta(request), pagination: answer.pagination } };
  });
  await app.ready();
});
after(() => app.close());

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\n', '</script>', '\u2028'),
);
const nullable = <T>(value: fc.Arbitrary<T>) => fc.oneof(fc.constant(null), value);
const client = fc.record({
  id: fc.uuid(),
  object: fc.constant('client'),
  name: text,
  email: nullable(text),
  phone: nullable(text),
  company_name: nullable(text),
  address: nullable(
    fc.record({
      line1: nullable(text),
      line2: nullable(text),
      city: nullable(text),
      region: nullable(text),
      postal_code: nullable(text),
      country: nullable(fc.constantFrom('US', 'FR', 'JP')),
    }),
  ),
  notes: nullable(text),
  vat_id: nullable(text),
  registration_id: nullable(text),
  registration_scheme: nullable(text),
  electronic_address: nullable(fc.record({ scheme: text, value: text })),
  buyer_reference: nullable(text),
  einvoice_format: nullable(fc.constantFrom('ubl', 'cii', 'facturx')),
  property_ids: fc.array(fc.uuid(), { maxLength: 3 }),
  external_id: nullable(text),
  metadata: fc.dictionary(text, text, { maxKeys: 4 }),
  custom_fields: fc.dictionary(text, nullable(fc.oneof(text, fc.integer(), fc.boolean())), { maxKeys: 3 }),
  tags: fc.array(text, { maxLength: 3 }),
  created_at: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  updated_at: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
});

test("an object's hand-written envelope is the bytes the envelope's schema serializes", async () => {
  await fc.assert(
    fc.asyncProperty(client, async (data) => {
      answer = { data };
      const response = await app.inject({ method: 'GET', url: '/one' });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(handWritten, response.body);
    }),
    { numRuns: 300 },
  );
});

test("a list page's hand-written envelope is the bytes the envelope's schema serializes, for any pagination", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(client, { maxLength: 4 }),
      fc.record({
        limit: fc.integer({ min: 1, max: 100 }),
        has_more: fc.boolean(),
        next_cursor: nullable(fc.oneof(fc.base64String(), fc.string({ unit: 'binary' }))),
      }),
      async (data, pagination) => {
        answer = { data, pagination };
        const response = await app.inject({ method: 'GET', url: '/page' });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(handWritten, response.body);
      },
    ),
    { numRuns: 300 },
  );
});
