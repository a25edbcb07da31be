// Quotes: the contract's status table (section 6), written out here, and the rules of the resource.
// Sending by e-mail is in send.test.ts; conversion into jobs and invoices in workflow.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite, describeStateTable } from './helpers/state-table.js';

const LINES = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
const suite = clientSuite('Quotes');

describeStateTable(
  {
    path: '/v1/quotes',
    table: 'quotes',
    // Contract 6: draft -> sent; sent -> approved | declined | draft; declined -> draft; approved -> converted
    // only by making a job or invoice; converted is final. Contract 30: approved -> draft (a revision, which
    // invalidates the signature).
    transitions: {
      draft: ['sent'],
      sent: ['approved', 'declined', 'draft'],
      approved: ['draft'],
      declined: ['draft'],
      converted: [],
    },
    // Fields are editable in draft and sent; delete in any status but converted.
    editable: ['draft', 'sent'],
    deletable: ['draft', 'sent', 'approved', 'declined'],
    body: (client_id) => ({ client_id, line_items: LINES }),
    edit: { title: 'Edited' },
  },
  suite,
);

test('each transition records its time; revising keeps the number', async () => {
  const id = (
    await suite.context.request('POST', '/v1/quotes', {
      key: suite.key,
      body: { client_id: suite.clientId, line_items: LINES },
    })
  ).body.data.id;
  const sent = (await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'sent' } }))
    .body.data;
  assert.match(sent.number, /^Q-\d{6}$/);
  assert.ok(sent.sent_at);
  const revised = (
    await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'draft' } })
  ).body.data;
  assert.equal(revised.number, sent.number);
  const resent = (await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'sent' } }))
    .body.data;
  assert.equal(resent.number, sent.number, 'a number is never replaced');
  const declined = (
    await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'declined' } })
  ).body.data;
  assert.ok(declined.declined_at);
  await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'draft' } });
  await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'sent' } });
  const approved = (
    await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'approved' } })
  ).body.data;
  assert.ok(approved.approved_at);
});

test('a quote without lines cannot be marked sent (422 line_items); lines given in the same request count', async () => {
  const id = (
    await suite.context.request('POST', '/v1/quotes', { key: suite.key, body: { client_id: suite.clientId } })
  ).body.data.id;
  const response = await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'sent' } });
  assert.equal(response.status, 422, response.text);
  assert.deepEqual(
    response.body.error.details.map((detail: { field: string }) => detail.field),
    ['line_items'],
  );
  assert.equal((await suite.context.request('GET', `/v1/quotes/${id}`, { key: suite.key })).body.data.status, 'draft');
  assert.equal(
    (
      await suite.context.request('PUT', `/v1/quotes/${id}`, {
        key: suite.key,
        body: { status: 'sent', line_items: LINES },
      })
    ).status,
    200,
  );
});

test('while sent, a quote keeps at least one line', async () => {
  const id = (
    await suite.context.request('POST', '/v1/quotes', {
      key: suite.key,
      body: { client_id: suite.clientId, line_items: LINES },
    })
  ).body.data.id;
  await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { status: 'sent' } });
  const emptied = await suite.context.request('PUT', `/v1/quotes/${id}`, { key: suite.key, body: { line_items: [] } });
  assert.deepEqual([emptied.status, emptied.body.error.details[0].field], [422, 'line_items']);
  assert.equal(
    (
      await suite.context.request('PUT', `/v1/quotes/${id}`, {
        key: suite.key,
        body: { status: 'draft', line_items: [] },
      })
    ).status,
    200,
    'back in draft it may be emptied',
  );
});

test('one 422 names every wrong field: unknown ids beside the body’s own mistakes', async () => {
  const unknown = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99';
  const fields = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
    response.body.error.details.map((detail) => detail.field).sort();
  const post = (body: unknown) => suite.context.request('POST', '/v1/quotes', { key: suite.key, body });
  const schema = await post({
    client_id: unknown,
    request_id: unknown,
    line_items: [{ description: 'Work', quantity: 0, unit_amount: 1 }],
  });
  assert.equal(schema.status, 422, schema.text);
  assert.deepEqual(fields(schema), ['client_id', 'line_items[0].quantity', 'request_id']);
  const service = await post({
    client_id: unknown,
    property_id: unknown,
    line_items: [{ description: 'Parts', quantity: 1, unit_amount: 500, product_id: unknown, tax_rate_ids: [unknown] }],
  });
  assert.equal(service.status, 422, service.text);
  assert.deepEqual(fields(service), [
    'client_id',
    'line_items[0].product_id',
    'line_items[0].tax_rate_ids[0]',
    'property_id',
  ]);
});
