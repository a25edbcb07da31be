// Contract section 26 ("Two passes", "Report"): an import writes its rows through each route's own code, without
// the HTTP machinery (docs/decisions.md, "Imports: one row path without HTTP"). What the rows make is what the same
// rows POSTed one by one make, ids and times aside: the objects, their numbers and their events; a row the route
// refuses is reported with the route's own error (the same fields, codes and messages as the POST's 422).
// Clients and invoices (with their lines, a product named by its code), on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
/** The account the CSV is imported into, and the one the same rows are POSTed to. */
let imported: string;
let posted: string;

before(async () => {
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  const worker = new ImportWorker(context.app, quiet);
  context.app.workerPasses.set('imports', () => worker.runPass());
  imported = (await context.account('Imported Co')).key;
  posted = (await context.account('Posted Co')).key;
});
after(() => context.close());

async function api(key: string, method: string, url: string, body?: unknown): Promise<ApiResponse> {
  return context.request(method, url, { key, ...(body !== undefined ? { body } : {}) });
}

/** Imports `csv` (`on_error: skip`) into the importing account; answers the import as it ended and its report. */
async function importCsv(kind: string, csv: string) {
  const made = await api(imported, 'POST', '/v1/imports', { kind, options: { on_error: 'skip' } });
  assert.equal(made.status, 201, made.text);
  const uploaded = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
    key: imported,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(uploaded.status, 202, uploaded.text);
  const ran = await context.request('POST', '/test/workers/run', { body: { worker: 'imports' } });
  assert.equal(ran.status, 200, ran.text);
  const ended = (await api(imported, 'GET', `/v1/imports/${made.body.data.id}`)).body.data;
  const rows = await api(imported, 'GET', `/v1/imports/${made.body.data.id}/rows?limit=100`);
  assert.equal(rows.status, 200, rows.text);
  return { ended, report: rows.body.data as any[] };
}

/** A value without what differs between two accounts' copies: ids, times and the accounts' own references. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key === 'external_id' || !/(^|_)id$|_ids$|_at$|^origin$|^actor$|url$|^etag$/.test(key))
      .map(([key, item]) => [key, withoutIds(item)]),
  );
}

async function listed(key: string, path: string): Promise<unknown[]> {
  const answer = await api(key, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.data;
}

/** The events of `type` in an account, oldest first, without ids and times. */
async function eventsOf(key: string, type: string): Promise<unknown[]> {
  const events = await listed(key, `/v1/events?type=${type}`);
  return withoutIds(events) as unknown[];
}

/** POSTs each body to `path` in the posting account; answers the answers. */
async function postEach(path: string, bodies: unknown[]): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (const body of bodies) answers.push(await api(posted, 'POST', path, body));
  return answers;
}

/** A failed row's errors as the route's 422 words them: each detail with the answer's code. */
const errorsOfAnswer = (answer: ApiResponse) =>
  (answer.body.error.details as { field: string; message: string }[]).map((detail) => ({
    field: detail.field,
    code: answer.body.error.code,
    message: detail.message,
  }));

describe('clients: the import makes what the same rows POSTed one by one make', () => {
  // Six rows: two made whole (every column, a formula cell), one with empty cells, and three the route refuses
  // (a bad e-mail; no name with a lower-case country; a tab in a single-line name).
  const csv = [
    'name,email,phone,company_name,address.line1,address.city,address.postal_code,address.country,notes,external_id,metadata,tags',
    `Ada Lovelace,ada@example.com,+44 20 7946 0000,Analytical Ltd,12 St James's Square,London,SW1Y 4JH,GB,First client,CRM-1,"{""source"":""crm"",""rank"":""1""}",vip|north`,
    `Grace Hopper,grace@example.com,,,,,,,"'=SUM(A1:A2)",CRM-2,,`,
    'Bad Email,not-an-email,,,,,,,,CRM-3,,',
    ',nobody@example.com,,,,,,gb,,CRM-4,,',
    '"Tab\tName",,,,,,,,,CRM-5,,',
    'Plain Client,,,,,,,,,,,',
  ].join('\r\n');
  const bodies = [
    {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      company_name: 'Analytical Ltd',
      address: { line1: "12 St James's Square", city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' },
      notes: 'First client',
      external_id: 'CRM-1',
      metadata: { source: 'crm', rank: '1' },
      tags: ['vip', 'north'],
    },
    { name: 'Grace Hopper', email: 'grace@example.com', notes: '=SUM(A1:A2)', external_id: 'CRM-2' },
    { name: 'Bad Email', email: 'not-an-email', external_id: 'CRM-3' },
    { email: 'nobody@example.com', address: { country: 'gb' }, external_id: 'CRM-4' },
    { name: 'Tab\tName', external_id: 'CRM-5' },
    { name: 'Plain Client' },
  ];

  test('the same clients, the same events, and the route’s own errors for the refused rows', async () => {
    const { ended, report } = await importCsv('client', csv);
    assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
    assert.deepEqual(ended.counts, { created: 3, updated: 0, unchanged: 0, skipped: 0, failed: 3 });
    const answers = await postEach('/v1/clients', bodies);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 201, 422, 422, 422, 201],
    );
    assert.deepEqual(
      report.map((row) => [row.line, row.outcome]),
      [
        [2, 'created'],
        [3, 'created'],
        [4, 'failed'],
        [5, 'failed'],
        [6, 'failed'],
        [7, 'created'],
      ],
    );
    for (const [index, row] of report.entries())
      if (row.outcome === 'failed') assert.deepEqual(row.errors, errorsOfAnswer(answers[index] as ApiResponse));
    assert.deepEqual(
      report[2].errors.map((error: any) => error.field),
      ['email'],
    );
    const importedClients = await listed(imported, '/v1/clients');
    const postedClients = await listed(posted, '/v1/clients');
    assert.equal(importedClients.length, 3);
    assert.deepEqual(withoutIds(importedClients), withoutIds(postedClients));
    assert.equal((importedClients[1] as any).notes, '=SUM(A1:A2)', 'newest first: Grace Hopper is second');
    assert.deepEqual(await eventsOf(imported, 'client.created'), await eventsOf(posted, 'client.created'));
  });
});

describe('invoices: the import makes what the same rows POSTed one by one make', () => {
  test('the same invoices with their lines, totals and numbers; the route’s errors for a refused row', async () => {
    // The same client and product in both accounts, found by the rows through their external id and code.
    const products: Record<string, string> = {};
    const clients: Record<string, string> = {};
    for (const key of [imported, posted]) {
      const client = await api(key, 'POST', '/v1/clients', { name: 'Invoice Client', external_id: 'C-1' });
      assert.equal(client.status, 201, client.text);
      clients[key] = client.body.data.id;
      const product = await api(key, 'POST', '/v1/products', {
        type: 'service',
        name: 'Gutter cleaning',
        code: 'GUT',
        unit_amount: 12_500,
      });
      assert.equal(product.status, 201, product.text);
      products[key] = product.body.data.id;
    }
    const csv = [
      'external_id,client_external_id,currency,notes,line.description,line.quantity,line.unit_amount,line.product_code',
      'INV-A,C-1,USD,Spring visit,Gutter cleaning,2,12500,GUT',
      'INV-A,C-1,USD,Spring visit,Disposal fee,1,1500,',
      'INV-B,C-1,USD,,Inspection,3,3333,',
      'INV-C,C-1,USD,,Bad quantity,many,100,',
      'INV-D,C-1,USD,,Second visit,1,9999,',
    ].join('\r\n');
    const { ended, report } = await importCsv('invoice', csv);
    assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
    assert.deepEqual(ended.counts, { created: 3, updated: 0, unchanged: 0, skipped: 0, failed: 1 });
    const client = clients[posted];
    const answers = await postEach('/v1/invoices', [
      {
        external_id: 'INV-A',
        client_id: client,
        currency: 'USD',
        notes: 'Spring visit',
        line_items: [
          { description: 'Gutter cleaning', quantity: 2, unit_amount: 12_500, product_id: products[posted] },
          { description: 'Disposal fee', quantity: 1, unit_amount: 1_500 },
        ],
      },
      {
        external_id: 'INV-B',
        client_id: client,
        currency: 'USD',
        line_items: [{ description: 'Inspection', quantity: 3, unit_amount: 3_333 }],
      },
      {
        external_id: 'INV-C',
        client_id: client,
        currency: 'USD',
        line_items: [{ description: 'Bad quantity', quantity: 'many', unit_amount: 100 }],
      },
      {
        external_id: 'INV-D',
        client_id: client,
        currency: 'USD',
        line_items: [{ description: 'Second visit', quantity: 1, unit_amount: 9_999 }],
      },
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 201, 422, 201],
    );
    assert.deepEqual(
      report.map((row) => [row.line, row.outcome]),
      [
        [2, 'created'],
        [4, 'created'],
        [5, 'failed'],
        [6, 'created'],
      ],
    );
    assert.deepEqual(report[2].errors, errorsOfAnswer(answers[2] as ApiResponse));
    const importedInvoices = await listed(imported, '/v1/invoices');
    const postedInvoices = await listed(posted, '/v1/invoices');
    assert.deepEqual(
      importedInvoices.map((invoice: any) => [invoice.external_id, invoice.total_amount]),
      [
        ['INV-D', 9_999],
        ['INV-B', 9_999],
        ['INV-A', 26_500],
      ],
    );
    assert.deepEqual(withoutIds(importedInvoices), withoutIds(postedInvoices));
    for (const [index, invoice] of importedInvoices.entries()) {
      const one = await api(imported, 'GET', `/v1/invoices/${(invoice as any).id}`);
      const other = await api(posted, 'GET', `/v1/invoices/${(postedInvoices[index] as any).id}`);
      assert.deepEqual(withoutIds(one.body.data), withoutIds(other.body.data));
    }
    assert.deepEqual(await eventsOf(imported, 'invoice.created'), await eventsOf(posted, 'invoice.created'));
  });
});

describe('clients made together: a file whose rows all pass', () => {
  // Every row passes, so the chunk's new clients are made together (docs/decisions.md, "Imports: a chunk's
  // creates made together"); the file's second DUP-1 row updates the client its first made.
  const csv = [
    'name,email,address.city,address.country,external_id,metadata,tags',
    'Ada Lovelace,ada@example.com,London,GB,CRM-1,"{""source"":""crm""}",vip|north',
    'Dup One,dup1@example.com,,,DUP-1,,',
    'Plain Client,,,,,,',
    'Dup One,dup1.changed@example.com,,,DUP-1,,',
    'Grace Hopper,grace@example.com,,,CRM-2,,vip',
  ].join('\r\n');
  const bodies = [
    {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      address: { city: 'London', country: 'GB' },
      external_id: 'CRM-1',
      metadata: { source: 'crm' },
      tags: ['vip', 'north'],
    },
    { name: 'Dup One', email: 'dup1@example.com', external_id: 'DUP-1' },
    { name: 'Plain Client' },
    { name: 'Grace Hopper', email: 'grace@example.com', external_id: 'CRM-2', tags: ['vip'] },
  ];

  test('the same clients, events, change feed entries and webhook deliveries as POSTed one by one', async () => {
    const keys = [(await context.account('Together Co')).key, (await context.account('One By One Co')).key];
    const endpoints: string[] = [];
    for (const key of keys) {
      const endpoint = await api(key, 'POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        enabled_events: ['client.*'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      endpoints.push(endpoint.body.data.id);
    }
    const made = await api(keys[0] as string, 'POST', '/v1/imports', { kind: 'client' });
    assert.equal(made.status, 201, made.text);
    const uploaded = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
      key: keys[0] as string,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(uploaded.status, 202, uploaded.text);
    await context.request('POST', '/test/workers/run', { body: { worker: 'imports' } });
    const ended = (await api(keys[0] as string, 'GET', `/v1/imports/${made.body.data.id}`)).body.data;
    assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
    assert.deepEqual(ended.counts, { created: 4, updated: 1, unchanged: 0, skipped: 0, failed: 0 });
    for (const body of bodies) assert.equal((await api(keys[1] as string, 'POST', '/v1/clients', body)).status, 201);
    const dup = (await listed(keys[1] as string, '/v1/clients?external_id=DUP-1'))[0] as { id: string };
    const changed = await api(keys[1] as string, 'PUT', `/v1/clients/${dup.id}`, { email: 'dup1.changed@example.com' });
    assert.equal(changed.status, 200, changed.text);

    const [together, oneByOne] = keys as [string, string];
    const clients = await listed(together, '/v1/clients');
    assert.equal(clients.length, 4);
    assert.deepEqual(withoutIds(clients), withoutIds(await listed(oneByOne, '/v1/clients')));
    assert.deepEqual(
      clients.map((client: any) => [client.name, client.email, client.tags]),
      [
        ['Grace Hopper', 'grace@example.com', ['vip']],
        ['Plain Client', null, []],
        ['Dup One', 'dup1.changed@example.com', []],
        ['Ada Lovelace', 'ada@example.com', ['vip', 'north']],
      ],
    );
    for (const type of ['client.created', 'client.updated'])
      assert.deepEqual(await eventsOf(together, type), await eventsOf(oneByOne, type));
    assert.equal((await eventsOf(together, 'client.created')).length, 4);
    // The feed: each client once, the updated one with the rest.
    const feed = async (key: string) => {
      const page = await api(key, 'GET', '/v1/changes?kinds=client&limit=100');
      assert.equal(page.status, 200, page.text);
      return (page.body.data as any[]).map((entry) => `${entry.kind} ${entry.data?.name}`).sort();
    };
    assert.deepEqual(await feed(together), [
      'client Ada Lovelace',
      'client Dup One',
      'client Grace Hopper',
      'client Plain Client',
    ]);
    assert.deepEqual(await feed(together), await feed(oneByOne));
    // A delivery queued to the endpoint for each event: four creates and the update.
    const deliveries = async (key: string, endpoint: string) => {
      const page = await api(key, 'GET', `/v1/webhook-endpoints/${endpoint}/deliveries?limit=100`);
      assert.equal(page.status, 200, page.text);
      return (page.body.data as any[]).map((delivery) => delivery.event_type).sort();
    };
    const expected = ['client.created', 'client.created', 'client.created', 'client.created', 'client.updated'];
    assert.deepEqual(await deliveries(together, endpoints[0] as string), expected);
    assert.deepEqual(await deliveries(oneByOne, endpoints[1] as string), expected);
  });
});
