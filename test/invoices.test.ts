// Invoices: the contract's status table (section 6), written out here, and the rules of the resource:
// dates, amounts, and what each transition records. Sending by e-mail is in send.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite, describeStateTable } from './helpers/state-table.js';

const LINES = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
const suite = clientSuite('Invoices');

describeStateTable(
  {
    path: '/v1/invoices',
    table: 'invoices',
    // Contract 6: draft -> sent; sent -> paid | void; paid and void are final and nothing else may change.
    transitions: { draft: ['sent'], sent: ['paid', 'void'], paid: [], void: [] },
    editable: ['draft', 'sent'],
    // Delete: draft only (else 409: void it instead).
    deletable: ['draft'],
    body: (client_id) => ({ client_id, line_items: LINES }),
    edit: { notes: 'Edited' },
    // Reached through the API: a sent invoice has its ledger entries (§22), which a forced row would lack.
    reach: {
      sent: [{ status: 'sent' }],
      paid: [{ status: 'sent' }, { status: 'paid' }],
      void: [{ status: 'sent' }, { status: 'void' }],
    },
  },
  suite,
);

test('sent sets number, issue and due dates; paid sets amounts; void zeroes what is due', async () => {
  const id = (
    await suite.context.request('POST', '/v1/invoices', {
      key: suite.key,
      body: { client_id: suite.clientId, line_items: LINES },
    })
  ).body.data.id;
  const sent = (await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'sent' } }))
    .body.data;
  assert.match(sent.number, /^INV-\d{6}$/);
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(sent.issue_date, today);
  const due = new Date(`${today}T00:00:00Z`);
  due.setUTCDate(due.getUTCDate() + 30);
  assert.equal(sent.due_date, due.toISOString().slice(0, 10), 'issue_date + 30 days');
  assert.deepEqual([sent.amount_paid, sent.amount_due], [0, 1000]);
  const paid = (await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'paid' } }))
    .body.data;
  assert.deepEqual([paid.amount_paid, paid.amount_due, Boolean(paid.paid_at)], [1000, 0, true]);

  const other = (
    await suite.context.request('POST', '/v1/invoices', {
      key: suite.key,
      body: { client_id: suite.clientId, line_items: LINES, issue_date: '2026-01-10' },
    })
  ).body.data;
  assert.equal(other.due_date, '2026-02-09', 'issue_date + 30 days');
  await suite.context.request('PUT', `/v1/invoices/${other.id}`, { key: suite.key, body: { status: 'sent' } });
  const voided = (
    await suite.context.request('PUT', `/v1/invoices/${other.id}`, { key: suite.key, body: { status: 'void' } })
  ).body.data;
  assert.deepEqual([voided.amount_due, Boolean(voided.voided_at), voided.issue_date], [0, true, '2026-01-10']);
});

test('an invoice without lines cannot be marked sent (422 line_items); lines given in the same request count', async () => {
  const id = (
    await suite.context.request('POST', '/v1/invoices', { key: suite.key, body: { client_id: suite.clientId } })
  ).body.data.id;
  const response = await suite.context.request('PUT', `/v1/invoices/${id}`, {
    key: suite.key,
    body: { status: 'sent' },
  });
  assert.equal(response.status, 422, response.text);
  assert.deepEqual(
    response.body.error.details.map((detail: { field: string }) => detail.field),
    ['line_items'],
  );
  assert.equal(
    (await suite.context.request('GET', `/v1/invoices/${id}`, { key: suite.key })).body.data.status,
    'draft',
  );
  assert.equal(
    (
      await suite.context.request('PUT', `/v1/invoices/${id}`, {
        key: suite.key,
        body: { status: 'sent', line_items: LINES },
      })
    ).status,
    200,
  );
});

test('due_date is never before issue_date', async () => {
  const created = await suite.context.request('POST', '/v1/invoices', {
    key: suite.key,
    body: { client_id: suite.clientId, issue_date: '2026-03-10', due_date: '2026-03-09' },
  });
  assert.equal(created.status, 422);
  assert.equal(created.body.error.details[0].field, 'due_date');
  const id = (
    await suite.context.request('POST', '/v1/invoices', {
      key: suite.key,
      body: { client_id: suite.clientId, issue_date: '2026-03-10' },
    })
  ).body.data.id;
  const update = await suite.context.request('PUT', `/v1/invoices/${id}`, {
    key: suite.key,
    body: { issue_date: '2026-04-20' },
  });
  assert.equal(update.status, 422, 'moving issue_date past the stored due_date');
});

test('while sent, an invoice keeps what sending required: a line, an issue date and a due date', async () => {
  const id = (
    await suite.context.request('POST', '/v1/invoices', {
      key: suite.key,
      body: { client_id: suite.clientId, line_items: LINES },
    })
  ).body.data.id;
  await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'sent' } });
  for (const [body, field] of [
    [{ line_items: [] }, 'line_items'],
    [{ issue_date: null }, 'issue_date'],
    [{ due_date: null }, 'due_date'],
  ] as const) {
    const response = await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body });
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.equal(response.body.error.details[0].field, field);
  }
  const paid = await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'paid' } });
  assert.deepEqual([paid.body.data.amount_paid, paid.body.data.total_amount], [1000, 1000], 'not paid at 0');
});

/** The fields a 422 names, in order. */
const fieldsOf = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
  response.body.error.details.map((detail) => detail.field).sort();
const UNKNOWN = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99';

test('one 422 names every wrong field: unknown and foreign ids beside the body’s own mistakes', async () => {
  const { context, key } = suite;
  const post = (body: unknown, as = key) => context.request('POST', '/v1/invoices', { key: as, body });
  // The schema refuses the line; the unknown client is named in the same answer.
  const both = await post({ client_id: UNKNOWN, line_items: [{ quantity: 0 }] });
  assert.equal(both.status, 422, both.text);
  assert.equal(both.body.error.code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(both), [
    'client_id',
    'line_items[0].description',
    'line_items[0].quantity',
    'line_items[0].unit_amount',
  ]);

  // The body's shape is right: every reference it names is looked up, another account's client included.
  const other = await context.account('Other business');
  const foreign = (await context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Theirs' } })).body.data
    .id;
  const references = await post({
    client_id: foreign,
    property_id: UNKNOWN,
    job_id: UNKNOWN,
    quote_id: UNKNOWN,
    line_items: [
      { description: 'Work', quantity: 1, unit_amount: 1000 },
      { description: 'Parts', quantity: 1.23456, unit_amount: 500, product_id: UNKNOWN, tax_rate_ids: [UNKNOWN] },
    ],
  });
  assert.equal(references.status, 422, references.text);
  assert.deepEqual(fieldsOf(references), [
    'client_id',
    'job_id',
    'line_items[1].product_id',
    'line_items[1].quantity',
    'line_items[1].tax_rate_ids[0]',
    'property_id',
    'quote_id',
  ]);
  for (const detail of references.body.error.details) assert.ok(detail.message.length > 10, detail.message);

  // A key that may not read jobs is not told whether the job exists.
  const narrow = (await context.key(suite.accountId, ['invoices:write'])).key;
  const unseen = await post(
    { client_id: UNKNOWN, job_id: UNKNOWN, line_items: [{ description: 'Work', quantity: 0, unit_amount: 1 }] },
    narrow,
  );
  assert.deepEqual(fieldsOf(unseen), ['client_id', 'line_items[0].quantity']);

  // A PUT too: its unknown client and product beside the schema's complaint.
  const id = (await post({ client_id: suite.clientId, line_items: LINES })).body.data.id;
  const put = await context.request('PUT', `/v1/invoices/${id}`, {
    key,
    body: {
      client_id: UNKNOWN,
      notes: 5,
      line_items: [{ description: 'x', quantity: 1, unit_amount: 1, product_id: UNKNOWN }],
    },
  });
  assert.equal(put.status, 422, put.text);
  assert.deepEqual(fieldsOf(put), ['client_id', 'line_items[0].product_id', 'notes']);
});

test('a line without a product is named for each field it lacks, even when the client is unknown too', async () => {
  const response = await suite.context.request('POST', '/v1/invoices', {
    key: suite.key,
    body: {
      client_id: UNKNOWN,
      line_items: [
        { unit_amount: 5 },
        { description: 'Both', quantity: 1, unit_amount: 1, tax_rate: 5, tax_rate_ids: [] },
      ],
    },
  });
  assert.equal(response.status, 422, response.text);
  assert.deepEqual(fieldsOf(response), [
    'client_id',
    'line_items[0].description',
    'line_items[0].quantity',
    'line_items[1].tax_rate_ids',
  ]);
});

test('a preview’s 422 names every wrong field as the create’s does', async () => {
  const response = await suite.context.request('POST', '/v1/invoices/preview', {
    key: suite.key,
    body: {
      client_id: UNKNOWN,
      line_items: [{ description: 'Work', quantity: 0, unit_amount: 1, product_id: UNKNOWN }],
    },
  });
  assert.equal(response.status, 422, response.text);
  assert.deepEqual(fieldsOf(response), ['client_id', 'line_items[0].product_id', 'line_items[0].quantity']);
});
