// The response check every suite runs through its test context (test/helpers/response-schemas.ts): it
// accepts real answers, including a draft's null delivery_status, and refuses a null where the document
// says string.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { ResponseSchemas } from './helpers/response-schemas.js';

let context: TestContext;
let key: string;
let schemas: ResponseSchemas;

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  schemas = new ResponseSchemas((await context.request('GET', '/v1/openapi.json')).body);
});
after(() => context.close());

test('real answers match; a null where the document says string does not', async () => {
  const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Jane Cooper' } });
  assert.equal(schemas.check('POST', '/v1/clients', 201, client.body), null);
  const read = await context.request('GET', `/v1/clients/${client.body.data.id}`, { key });
  assert.equal(schemas.check('GET', '/v1/clients/{id}', 200, read.body), null);
  const broken = { ...read.body, data: { ...read.body.data, name: null } };
  assert.match(schemas.check('GET', '/v1/clients/{id}', 200, broken) ?? '', /name must be string/);
  const missing = { ...read.body, data: { ...read.body.data, id: undefined } };
  assert.match(schemas.check('GET', '/v1/clients/{id}', 200, missing) ?? '', /must have required property 'id'/);
});

test('a draft quote’s delivery_status is null, and the document admits it', async () => {
  const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Draft Owner' } });
  const quote = await context.request('POST', '/v1/quotes', { key, body: { client_id: client.body.data.id } });
  assert.equal(quote.body.data.delivery_status, null);
  assert.equal(schemas.check('POST', '/v1/quotes', 201, quote.body), null);
  const invoice = await context.request('POST', '/v1/invoices', { key, body: { client_id: client.body.data.id } });
  assert.equal(schemas.check('POST', '/v1/invoices', 201, invoice.body), null);
  const wrong = { ...quote.body, data: { ...quote.body.data, delivery_status: 'lost' } };
  assert.ok(schemas.check('POST', '/v1/quotes', 201, wrong));
});

test('an undocumented status or route is not this check’s business', () => {
  assert.equal(schemas.check('GET', '/docs', 200, {}), null);
  assert.equal(schemas.check('GET', '/v1/clients/{id}', 299, {}), null);
});
