// Service requests: the contract's status table (section 6), written out here, and the rules of the
// resource. Conversion through quotes and jobs is in workflow.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite, describeStateTable } from './helpers/state-table.js';

const suite = clientSuite('Requests');

describeStateTable(
  {
    path: '/v1/service-requests',
    table: 'service_requests',
    // Contract 6: new -> assessed | archived; assessed -> new | archived; archived -> new; converted is final
    // (and reached only by making a quote or job).
    transitions: { new: ['assessed', 'archived'], assessed: ['new', 'archived'], archived: ['new'], converted: [] },
    editable: ['new', 'assessed', 'archived', 'converted'],
    body: (client_id) => ({ client_id, title: 'Leak' }),
    edit: { title: 'Edited' },
  },
  suite,
);

test('service requests have no delete and no send: 405 with Allow', async () => {
  const id = (
    await suite.context.request('POST', '/v1/service-requests', {
      key: suite.key,
      body: { client_id: suite.clientId, title: 'Leak' },
    })
  ).body.data.id;
  const remove = await suite.context.request('DELETE', `/v1/service-requests/${id}`, { key: suite.key });
  assert.equal(remove.status, 405);
  assert.equal(remove.headers.allow, 'GET, HEAD, PUT');
  assert.equal(
    (await suite.context.request('POST', `/v1/service-requests/${id}/send`, { key: suite.key })).status,
    404,
  );
});

test('source defaults to other and takes only the listed values', async () => {
  const created = await suite.context.request('POST', '/v1/service-requests', {
    key: suite.key,
    body: { client_id: suite.clientId, title: 'Leak' },
  });
  assert.equal(created.body.data.source, 'other');
  for (const source of ['phone', 'email', 'web', 'in_person', 'other']) {
    assert.equal(
      (
        await suite.context.request('POST', '/v1/service-requests', {
          key: suite.key,
          body: { client_id: suite.clientId, title: 'Leak', source },
        })
      ).status,
      201,
      source,
    );
  }
  const wrong = await suite.context.request('POST', '/v1/service-requests', {
    key: suite.key,
    body: { client_id: suite.clientId, title: 'Leak', source: 'fax' },
  });
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.error.details[0].field, 'source');
});

test('one 422 names every wrong field: an unknown client and property beside the body’s own mistakes', async () => {
  const unknown = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99';
  const fields = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
    response.body.error.details.map((detail) => detail.field).sort();
  const post = (body: unknown) => suite.context.request('POST', '/v1/service-requests', { key: suite.key, body });
  const schema = await post({ client_id: unknown, property_id: unknown, title: '' });
  assert.equal(schema.status, 422, schema.text);
  assert.deepEqual(fields(schema), ['client_id', 'property_id', 'title']);
  const service = await post({ client_id: unknown, property_id: unknown, title: 'Leak' });
  assert.equal(service.status, 422, service.text);
  assert.deepEqual(fields(service), ['client_id', 'property_id']);
});
