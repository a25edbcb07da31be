// Jobs: the contract's status table (section 6), written out here, and the rules of the resource.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite, describeStateTable } from './helpers/state-table.js';

const suite = clientSuite('Jobs');

describeStateTable(
  {
    path: '/v1/jobs',
    table: 'jobs',
    // Contract 6: scheduled -> in_progress | completed | canceled; in_progress -> scheduled | completed |
    // canceled; completed -> in_progress (reopen); canceled -> scheduled (reopen).
    transitions: {
      scheduled: ['in_progress', 'completed', 'canceled'],
      in_progress: ['scheduled', 'completed', 'canceled'],
      completed: ['in_progress'],
      canceled: ['scheduled'],
    },
    editable: ['scheduled', 'in_progress', 'completed', 'canceled'],
    // Delete is refused only while an invoice refers to the job (workflow.test.ts), never for its status.
    deletable: ['scheduled', 'in_progress', 'completed', 'canceled'],
    body: (client_id) => ({ client_id, title: 'Fix' }),
    edit: { title: 'Edited' },
  },
  suite,
);

test('completed_at is set on completion and cleared on reopening', async () => {
  const id = (
    await suite.context.request('POST', '/v1/jobs', {
      key: suite.key,
      body: { client_id: suite.clientId, title: 'Job' },
    })
  ).body.data.id;
  const completed = (
    await suite.context.request('PUT', `/v1/jobs/${id}`, { key: suite.key, body: { status: 'completed' } })
  ).body.data;
  assert.ok(completed.completed_at);
  const reopened = (
    await suite.context.request('PUT', `/v1/jobs/${id}`, { key: suite.key, body: { status: 'in_progress' } })
  ).body.data;
  assert.equal(reopened.completed_at, null);
});

test('scheduled_end is not before scheduled_start, on create and on update', async () => {
  const backwards = await suite.context.request('POST', '/v1/jobs', {
    key: suite.key,
    body: {
      client_id: suite.clientId,
      title: 'Job',
      scheduled_start: '2026-12-02T10:00:00.000Z',
      scheduled_end: '2026-12-02T09:00:00.000Z',
    },
  });
  assert.equal(backwards.status, 422);
  assert.equal(backwards.body.error.details[0].field, 'scheduled_end');
  const job = (
    await suite.context.request('POST', '/v1/jobs', {
      key: suite.key,
      body: { client_id: suite.clientId, title: 'Job', scheduled_start: '2026-12-02T10:00:00+02:00' },
    })
  ).body.data;
  assert.equal(job.scheduled_start, '2026-12-02T08:00:00.000Z', 'stored and returned in UTC');
  const update = await suite.context.request('PUT', `/v1/jobs/${job.id}`, {
    key: suite.key,
    body: { scheduled_end: '2026-12-02T07:59:59.999Z' },
  });
  assert.equal(update.status, 422);
});

test('a job is numbered J-000001 upward at creation', async () => {
  const job = (
    await suite.context.request('POST', '/v1/jobs', {
      key: suite.key,
      body: { client_id: suite.clientId, title: 'Numbered' },
    })
  ).body.data;
  assert.match(job.number, /^J-\d{6}$/);
});

test('one 422 names every wrong field: unknown ids beside the body’s own mistakes', async () => {
  const unknown = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99';
  const fields = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
    response.body.error.details.map((detail) => detail.field).sort();
  const post = (body: unknown) => suite.context.request('POST', '/v1/jobs', { key: suite.key, body });
  const schema = await post({
    client_id: unknown,
    title: '',
    line_items: [{ description: 'Work', quantity: 0, unit_amount: 1 }],
  });
  assert.equal(schema.status, 422, schema.text);
  assert.deepEqual(fields(schema), ['client_id', 'line_items[0].quantity', 'title']);
  const service = await post({
    quote_id: unknown,
    request_id: unknown,
    property_id: unknown,
    title: 'Install',
    line_items: [{ description: 'Parts', quantity: 1, unit_amount: 500, product_id: unknown }],
  });
  assert.equal(service.status, 422, service.text);
  assert.deepEqual(fields(service), ['line_items[0].product_id', 'property_id', 'quote_id', 'request_id']);
});
