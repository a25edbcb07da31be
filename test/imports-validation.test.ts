// Contract section 26, "Two passes": validating checks every row against the database as it is, and an import
// whose validation finds a failed row under `on_error: abort` writes nothing. Validation checks 100 rows a
// transaction, rolled back, and gives the database's writer back between two, so that another account's write does
// not wait for a whole file; while it runs the import's `rows` counts the rows checked. A row whose object an
// earlier transaction's row made (the same external_id, or a product's code) is checked as the file leaves it.
// And §32's "Imports: 10 MiB (413)": the 413's message names that limit, not the JSON bodies' 1 MiB.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let worker: ImportWorker;
let key: string;

before(async () => {
  context = await createTestContext();
  worker = new ImportWorker(context.app, quiet);
  ({ key } = await context.account('Importing Co'));
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown, apiKey = key): Promise<ApiResponse> {
  return context.request(method, url, { key: apiKey, ...(body !== undefined ? { body } : {}) });
}

/** Makes an import and uploads its file; answers its id (queued for the worker). */
async function queued(body: Record<string, unknown>, csv: string): Promise<string> {
  const made = await api('POST', '/v1/imports', body);
  assert.equal(made.status, 201, made.text);
  const uploaded = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
    key,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(uploaded.status, 202, uploaded.text);
  return made.body.data.id;
}

async function importOf(id: string): Promise<any> {
  const got = await api('GET', `/v1/imports/${id}`);
  assert.equal(got.status, 200, got.text);
  return got.body.data;
}

async function rowsOf(id: string, outcome: string): Promise<any[]> {
  const rows = await api('GET', `/v1/imports/${id}/rows?outcome=${outcome}&limit=100`);
  assert.equal(rows.status, 200, rows.text);
  return rows.body.data;
}

const fillers = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `Filler ${prefix}${index + 1},${prefix}-${index + 1},`);

test('another account’s POST completes while a 2,000-row import is still validating', async () => {
  const csv = ['name,external_id,email', ...fillers(2000, 'V')].join('\r\n');
  const id = await queued({ kind: 'client', dry_run: true }, csv);
  const other = await context.account('Someone Else');

  const pass = worker.runPass();
  // Wait until the first 500 rows are checked (`rows` counts them while validating).
  let seen = await importOf(id);
  for (let wait = 0; !(seen.status === 'validating' && seen.rows >= 500); wait += 1) {
    assert.ok(['queued', 'validating'].includes(seen.status), `still validating, not ${seen.status}`);
    assert.ok(wait < 12_000, 'the import reached its second 500 rows');
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = await importOf(id);
  }

  const made = await api('POST', '/v1/clients', { name: 'Written meanwhile' }, other.key);
  assert.equal(made.status, 201, made.text);
  const during = await importOf(id);
  assert.equal(during.status, 'validating', 'the POST did not wait for the whole file');
  assert.ok(during.rows < 2000, `checked ${during.rows} of 2,000 rows when the POST completed`);

  await pass;
  const ended = await importOf(id);
  assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
  assert.equal(ended.rows, 2000);
  assert.deepEqual(ended.counts, { created: 2000, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
  // A dry run leaves nothing behind.
  assert.equal((await api('GET', '/v1/clients?external_id=V-1')).body.data.length, 0);
});

test('a row matching an object of an earlier 500 rows sees it: updated in the dry run and in the import', async () => {
  // Line 2 makes T-1; line 602 (past the first 500 rows) gives it another e-mail.
  const csv = [
    'name,external_id,email',
    'Tied One,T-1,first@example.com',
    ...fillers(599, 'F'),
    'Tied One,T-1,second@example.com',
  ].join('\r\n');
  const id = await queued({ kind: 'client', dry_run: true }, csv);
  await worker.runPass();
  const dry = await importOf(id);
  assert.equal(dry.status, 'completed', JSON.stringify(dry.error));
  assert.deepEqual(dry.counts, { created: 600, updated: 1, unchanged: 0, skipped: 0, failed: 0 });
  const dryUpdated = await rowsOf(id, 'updated');
  assert.deepEqual(
    dryUpdated.map((row) => [row.line, row.external_id, row.changed_fields]),
    [[602, 'T-1', ['email']]],
  );

  const applied = await api('POST', `/v1/imports/${id}/apply`);
  assert.equal(applied.status, 201, applied.text);
  await worker.runPass();
  const real = await importOf(applied.body.data.id);
  assert.equal(real.status, 'completed', JSON.stringify(real.error));
  assert.deepEqual(real.counts, { created: 600, updated: 1, unchanged: 0, skipped: 0, failed: 0 });
  const updated = await rowsOf(real.id, 'updated');
  assert.deepEqual(
    updated.map((row) => [row.line, row.external_id, row.changed_fields]),
    [[602, 'T-1', ['email']]],
  );
  const tied = (await api('GET', '/v1/clients?external_id=T-1')).body.data;
  assert.deepEqual(
    tied.map((client: any) => [client.name, client.email]),
    [['Tied One', 'second@example.com']],
  );
});

test('two products with one code in different 500-row transactions: the second fails, nothing is written', async () => {
  const csv = [
    'name,type,code,external_id',
    'Drain snake,service,DS-1,P-A',
    ...Array.from({ length: 550 }, (_, index) => `Part ${index + 1},material,PT-${index + 1},PP-${index + 1}`),
    'Other snake,service,DS-1,P-B',
  ].join('\r\n');
  const id = await queued({ kind: 'product' }, csv);
  await worker.runPass();
  const ended = await importOf(id);
  assert.equal(ended.status, 'failed');
  assert.equal(ended.error.code, 'rows_failed');
  assert.deepEqual(ended.counts, { created: 0, updated: 0, unchanged: 0, skipped: 551, failed: 1 });
  const failed = await rowsOf(id, 'failed');
  assert.deepEqual(
    failed.map((row) => [row.line, row.external_id, row.errors.map((error: any) => [error.field, error.code])]),
    [[553, 'P-B', [['code', 'CONFLICT']]]],
  );
  assert.equal((await api('GET', '/v1/products?code=DS-1')).body.data.length, 0);
});

test('413 names the route’s own limit: 10 MiB for an import file, 1 MiB for a JSON body', async () => {
  const made = await api('POST', '/v1/imports', { kind: 'client' });
  assert.equal(made.status, 201, made.text);
  const file = `name\r\n${'x'.repeat(10 * 1024 * 1024)}\r\n`;
  const tooLarge = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
    key,
    rawBody: file,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(tooLarge.status, 413, tooLarge.text);
  assert.equal(tooLarge.body.error.code, 'PAYLOAD_TOO_LARGE');
  assert.equal(tooLarge.body.error.message, "The body is larger than this route's 10 MiB limit.");

  const json = await context.request('POST', '/v1/clients', {
    key,
    rawBody: JSON.stringify({ name: 'Ann', notes: 'x'.repeat(1_100_000) }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(json.status, 413, json.text);
  assert.equal(json.body.error.message, "The body is larger than this route's 1 MiB limit.");
});
