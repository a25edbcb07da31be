// Contract section 26, "Export", with section 32's formula escaping: NDJSON ending in export_end with its count,
// CSV with a BOM, CRLF, a header row, dotted nested fields, metadata as JSON, custom fields, escaped formulas and an
// invoice a row per line; the list's filters, sort and scope; errors before the first byte as envelopes; the
// change cursor; and an export of clients imported into a fresh account reproducing them (the round trip).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let accountId: string;

const CLIENTS = [
  {
    name: '=HYPERLINK("http://evil.example","Click")',
    email: 'formula@example.com',
    address: { line1: '1 Elm Street', city: 'Springfield', country: 'US' },
    notes: "'+already quoted",
    metadata: { crm_id: 'C-1', 'with,comma': 'a "quoted" value' },
    custom_fields: { tier: 'gold' },
  },
  { name: 'Bea Plain', email: 'bea@example.com', phone: '-5 on the dial', custom_fields: { tier: null } },
  { name: 'Cy Multi', notes: 'first line\nsecond line', external_id: 'CY-1' },
];

before(async () => {
  context = await createTestContext();
  ({ key, accountId } = await context.account('Exporting Co'));
  const field = await api('POST', '/v1/custom-fields', {
    resource: 'client',
    key: 'tier',
    label: 'Tier',
    type: 'text',
  });
  assert.equal(field.status, 201, field.text);
  for (const client of CLIENTS) assert.equal((await api('POST', '/v1/clients', client)).status, 201);
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown, apiKey = key): Promise<ApiResponse> {
  return context.request(method, url, { key: apiKey, ...(body !== undefined ? { body } : {}) });
}

describe('NDJSON', () => {
  test('each object as its list answers it, one a line, then export_end with the count', async () => {
    const exported = await api('GET', '/v1/exports/clients?format=ndjson&sort=name');
    assert.equal(exported.status, 200, exported.text);
    assert.match(String(exported.headers['content-type']), /^application\/x-ndjson/);
    assert.ok(String(exported.headers['bms-change-cursor']).length > 0);
    const lines = exported.text.split('\n');
    assert.equal(lines.pop(), '');
    const objects = lines.map((line) => JSON.parse(line));
    assert.deepEqual(objects.at(-1), { object: 'export_end', count: 3 });
    const listed = await api('GET', '/v1/clients?sort=name&limit=100');
    assert.deepEqual(objects.slice(0, -1), listed.body.data);
  });

  test('the list’s filters apply; unknown parameters, limit, another list and a missing scope are envelopes', async () => {
    const filtered = await api('GET', '/v1/exports/clients?format=ndjson&email=bea@example.com');
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(
      filtered.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).name ?? JSON.parse(line).object),
      ['Bea Plain', 'export_end'],
    );
    const unknown = await api('GET', '/v1/exports/clients?format=ndjson&colour=red');
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.error.code, 'VALIDATION_ERROR');
    const paged = await api('GET', '/v1/exports/clients?format=csv&limit=10');
    assert.equal(paged.status, 422, paged.text);
    assert.equal(paged.body.error.details[0].field, 'limit');
    const nowhere = await api('GET', '/v1/exports/nothing?format=csv');
    assert.equal(nowhere.status, 404, nowhere.text);
    const { key: invoicesOnly } = await context.key(accountId, ['invoices:read']);
    const refused = await api('GET', '/v1/exports/clients?format=csv', undefined, invoicesOnly);
    assert.equal(refused.status, 403, refused.text);
    assert.match(String(refused.headers['www-authenticate']), /scope="clients:read"/);
  });

  test('Bms-Change-Cursor: the feed from it gives what changed after the export', async () => {
    const exported = await api('GET', '/v1/exports/clients?format=ndjson');
    const cursor = String(exported.headers['bms-change-cursor']);
    const bea = (await api('GET', '/v1/clients?email=bea@example.com')).body.data[0];
    assert.equal((await api('PUT', `/v1/clients/${bea.id}`, { phone: '+1 555 0199' })).status, 200);
    const changes = await api('GET', `/v1/changes?since=${cursor}&kinds=client`);
    assert.equal(changes.status, 200, changes.text);
    assert.deepEqual(
      changes.body.data.map((change: any) => [change.id, change.data.phone]),
      [[bea.id, '+1 555 0199']],
    );
  });
});

describe('CSV', () => {
  test('BOM, CRLF, header row; nested fields dotted, metadata as JSON, custom fields, formulas escaped', async () => {
    const exported = await api('GET', '/v1/exports/clients?format=csv&sort=name');
    assert.equal(exported.status, 200, exported.text);
    assert.match(String(exported.headers['content-type']), /^text\/csv/);
    assert.ok(exported.text.startsWith('\uFEFFid,object,name,email,phone,company_name,address.line1,'));
    const header = exported.text.slice(1, exported.text.indexOf('\r\n')).split(',');
    for (const column of ['address.city', 'notes', 'external_id', 'metadata', 'custom_fields.tier', 'created_at'])
      assert.ok(header.includes(column), `a ${column} column`);
    // §32: a text cell starting with =, +, -, @, tab or CR (or ' and one of these) gains one leading '.
    assert.ok(exported.text.includes(`"'=HYPERLINK(""http://evil.example"",""Click"")"`));
    assert.ok(exported.text.includes(`''+already quoted`));
    // Bea's phone, '-5 on the dial' when made, is '+1 555 0199' since the change-cursor test: escaped either way.
    assert.ok(exported.text.includes(`'+1 555 0199`));
    const records = parse(exported.text, { bom: true, columns: true }) as Record<string, string>[];
    const formula = records.find((record) => record.email === 'formula@example.com');
    assert.deepEqual(JSON.parse(formula?.metadata ?? ''), { crm_id: 'C-1', 'with,comma': 'a "quoted" value' });
    assert.equal(formula?.['address.city'], 'Springfield');
    assert.equal(formula?.['custom_fields.tier'], 'gold');
    assert.ok(exported.text.includes('"first line\nsecond line"'));
    assert.ok(exported.text.endsWith('\r\n'));
  });

  test('an invoice is a row per line, its own columns repeated', async () => {
    const client = (await api('GET', '/v1/clients?email=bea@example.com')).body.data[0];
    const invoice = await api('POST', '/v1/invoices', {
      client_id: client.id,
      line_items: [
        { description: 'Gutter cleaning', quantity: 2, unit_amount: 12_500 },
        { description: 'Downspout repair', quantity: 1, unit_amount: 4_999 },
      ],
    });
    assert.equal(invoice.status, 201, invoice.text);
    const exported = await api('GET', `/v1/exports/invoices?format=csv&client_id=${client.id}`);
    assert.equal(exported.status, 200, exported.text);
    const records = parse(exported.text, { bom: true, columns: true }) as Record<string, string>[];
    assert.ok('line.description' in records[0]! && 'line.unit_amount' in records[0]!);
    assert.deepEqual(
      records.map((record) => [record.id, record['line.description'], record['line.unit_amount'], record.total_amount]),
      [
        [invoice.body.data.id, 'Gutter cleaning', '12500', '29999'],
        [invoice.body.data.id, 'Downspout repair', '4999', '29999'],
      ],
    );
  });
});

test('round trip: clients exported as CSV and imported into a fresh account are the same clients', async () => {
  const exported = await api('GET', '/v1/exports/clients?format=csv&sort=name');
  assert.equal(exported.status, 200);
  const fresh = await context.account('Fresh Co');
  const field = await api(
    'POST',
    '/v1/custom-fields',
    { resource: 'client', key: 'tier', label: 'Tier', type: 'text' },
    fresh.key,
  );
  assert.equal(field.status, 201, field.text);
  const made = await api('POST', '/v1/imports', { kind: 'client', mapping: { id: null } }, fresh.key);
  assert.equal(made.status, 201, made.text);
  const uploaded = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
    key: fresh.key,
    rawBody: exported.text,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(uploaded.status, 202, uploaded.text);
  await new ImportWorker(context.app, { error() {} }).runPass();
  const ended = await api('GET', `/v1/imports/${made.body.data.id}`, undefined, fresh.key);
  assert.equal(ended.body.data.status, 'completed', JSON.stringify(ended.body.data.error));
  assert.equal(ended.body.data.counts.created, 3);
  const fields = [
    'name',
    'email',
    'phone',
    'company_name',
    'address',
    'notes',
    'external_id',
    'metadata',
    'custom_fields',
  ];
  const shown = (clients: any[]) =>
    clients.map((client) => Object.fromEntries(fields.map((name) => [name, client[name]])));
  const original = (await api('GET', '/v1/clients?sort=name&limit=100')).body.data;
  const copied = (await api('GET', '/v1/clients?sort=name&limit=100', undefined, fresh.key)).body.data;
  assert.deepEqual(shown(copied), shown(original));
});
