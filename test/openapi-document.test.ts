// The OpenAPI document as an outside generator reads it: openapi-typescript makes types from the served
// document, and a use of them compiles under `tsc --strict`, so an invoice needs one of client_id, job_id and
// quote_id and a list filter takes a list of its values; and the server takes a list filter both ways a
// generated client sends it (`status=sent,paid`, and `status=sent&status=paid` from one that explodes arrays).
// On the wire, the document is Brotli or gzip as asked, with one ETag; the API's own answers are not compressed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';
import { run } from './helpers/sdk.js';

let context: TestContext;
let key: string;
let document: Record<string, any>;

before(async () => {
  // Every route's schemas compiled at start-up, as the server does: the other suites compile only those they use.
  context = await createTestContext({ compileOnFirstUse: false });
  ({ key } = await context.account());
  document = (await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
});
after(() => context.close());

describe('the document holds only standard OpenAPI 3.1', () => {
  test('no vendor extension (x-…) anywhere', () => {
    const found = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object')
        for (const [name, inner] of Object.entries(value)) {
          if (name.startsWith('x-')) found.add(name);
          walk(inner);
        }
    };
    walk(document);
    assert.deepEqual([...found], []);
  });

  test('an invoice create needs exactly one branch of client_id, job_id, quote_id; a job create client_id or quote_id', () => {
    const branches = (name: string) =>
      (
        document.components.schemas[name].oneOf as Array<{ required: string[]; properties: Record<string, unknown> }>
      ).map((branch) => [
        branch.required,
        Object.keys(branch.properties).filter((field) => branch.properties[field] === false),
      ]);
    assert.deepEqual(branches('InvoiceCreate'), [
      [['client_id'], []],
      [['job_id'], ['client_id']],
      [['quote_id'], ['client_id', 'job_id']],
    ]);
    assert.deepEqual(branches('JobCreate'), [
      [['client_id'], []],
      [['quote_id'], ['client_id']],
    ]);
    assert.deepEqual(document.paths['/v1/invoices'].post.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/InvoiceCreate',
    });
  });

  test('list filters are arrays written a,b (style form, explode false); errors are shared responses', () => {
    const parameter = (route: string, name: string) =>
      document.paths[route].get.parameters.find((entry: { name: string }) => entry.name === name);
    const status = parameter('/v1/invoices', 'status');
    assert.deepEqual([status.style, status.explode, status.schema.type], ['form', false, 'array']);
    assert.deepEqual(status.schema.items.enum, ['draft', 'sent', 'paid', 'void']);
    const assignees = parameter('/v1/visits', 'assignee_id');
    assert.deepEqual(
      [assignees.style, assignees.explode, assignees.schema.items, assignees.schema.maxItems],
      ['form', false, { type: 'string', format: 'uuid' }, 50],
    );
    assert.deepEqual(document.paths['/v1/clients/{id}'].get.responses['404'], {
      $ref: '#/components/responses/NotFound',
    });
    assert.deepEqual(document.paths['/v1/invoices'].post.responses['401'], {
      $ref: '#/components/responses/Unauthorized',
    });
  });
});

test('openapi-typescript: the generated types compile under --strict and refuse what the server refuses', async () => {
  const directory = temporaryDirectory('bms-openapi-typescript-');
  try {
    fs.writeFileSync(path.join(directory, 'openapi.json'), JSON.stringify(document));
    const generated = await run(
      process.execPath,
      [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'api.d.ts'],
      { cwd: directory, env: process.env },
    );
    assert.equal(generated.status, 0, generated.output);
    fs.writeFileSync(
      path.join(directory, 'use.ts'),
      `import type { components, operations } from './api.js';
type InvoiceCreate = components['schemas']['InvoiceCreate'];
type JobCreate = components['schemas']['JobCreate'];
type InvoiceList = NonNullable<operations['listInvoices']['parameters']['query']>;
type VisitList = NonNullable<operations['listVisits']['parameters']['query']>;
const id = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
export const byClient: InvoiceCreate = { client_id: id };
export const byJob: InvoiceCreate = { job_id: id, notes: 'From the job' };
export const byQuote: InvoiceCreate = { quote_id: id };
export const jobByQuote: JobCreate = { quote_id: id };
// @ts-expect-error an invoice needs a client, a job or a quote
export const none: InvoiceCreate = {};
// @ts-expect-error a job needs a client or a quote
export const untitled: JobCreate = { title: 'Gutters' };
export const statuses: InvoiceList = { status: ['sent', 'paid'] };
// @ts-expect-error lost is no status of an invoice
export const unknownStatus: InvoiceList = { status: ['sent', 'lost'] };
export const assignees: VisitList = { assignee_id: [id, id] };
`,
    );
    const compiled = await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--strict',
        '--noEmit',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        'use.ts',
      ],
      { cwd: directory, env: process.env },
    );
    assert.equal(compiled.status, 0, compiled.output);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

describe('the server takes what generated clients send', () => {
  test('a list filter as a,b or repeated; an unknown value is still a 422', async () => {
    const commas = await context.request('GET', '/v1/invoices?status=sent,paid', { key });
    const repeated = await context.request('GET', '/v1/invoices?status=sent&status=paid', { key });
    assert.deepEqual([commas.status, repeated.status], [200, 200], repeated.text);
    const unknown = await context.request('GET', '/v1/invoices?status=sent&status=lost', { key });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.error.details, [
      { field: 'status', message: 'status must be a comma-separated list of: draft, sent, paid, void' },
    ]);
    const member = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    const window = 'from=2026-12-01T00:00:00Z&to=2026-12-08T00:00:00Z';
    const assignees = await context.request('GET', `/v1/visits?${window}&assignee_id=${member}&assignee_id=${member}`, {
      key,
    });
    assert.equal(assignees.status, 200, assignees.text);
  });

  test('the 422 of an invoice without client_id, job_id or quote_id is the one it was', async () => {
    const response = await context.request('POST', '/v1/invoices', { key, body: {} });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.error.details, [
      { field: 'client_id', message: 'client_id is required unless job_id or quote_id is given' },
    ]);
    const job = await context.request('POST', '/v1/jobs', { key, body: { title: 'Gutters' } });
    assert.deepEqual(job.body.error.details, [
      { field: 'client_id', message: 'client_id is required unless quote_id is given' },
    ]);
  });
});

describe('the document on the wire', () => {
  const get = (headers: Record<string, string>) =>
    context.app.inject({ method: 'GET', url: '/v1/openapi.json', headers });

  test('Brotli and gzip as asked, each decoding to the same JSON; nothing compressed when not asked', async () => {
    const plain = await get({});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.json(), document);
    const brotli = await get({ 'accept-encoding': 'br' });
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.deepEqual(JSON.parse(zlib.brotliDecompressSync(brotli.rawPayload).toString('utf8')), document);
    const gzip = await get({ 'accept-encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gzip.rawPayload).toString('utf8')), document);
    assert.equal(brotli.headers['content-type'], 'application/json; charset=utf-8');
    // The document is some 620 KB; compressed, under a tenth of that.
    assert.ok(brotli.rawPayload.length < plain.rawPayload.length / 10, `${brotli.rawPayload.length} bytes`);
    assert.ok(gzip.rawPayload.length < plain.rawPayload.length / 10, `${gzip.rawPayload.length} bytes`);
    assert.match(String(brotli.headers.vary), /accept-encoding/i);
  });

  test('one weak ETag whatever the encoding; If-None-Match with it answers 304 without a body', async () => {
    const plain = await get({});
    const brotli = await get({ 'accept-encoding': 'br' });
    assert.match(String(plain.headers.etag), /^W\/"[^"]+"$/);
    assert.equal(brotli.headers.etag, plain.headers.etag);
    assert.equal(plain.headers['cache-control'], 'no-cache');
    const again = await get({ 'if-none-match': String(plain.headers.etag), 'accept-encoding': 'br, gzip' });
    assert.deepEqual([again.statusCode, again.rawPayload.length, again.headers.etag], [304, 0, plain.headers.etag]);
    const changed = await get({ 'if-none-match': 'W/"another"' });
    assert.equal(changed.statusCode, 200);
  });

  test("/docs's script is compressed; the API's answers are not", async () => {
    const script = await context.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui-bundle.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    assert.deepEqual([script.statusCode, script.headers['content-encoding']], [200, 'br']);
    const clients = await context.request('GET', '/v1/clients?limit=100', {
      key,
      headers: { 'accept-encoding': 'br, gzip' },
    });
    assert.deepEqual([clients.status, clients.headers['content-encoding']], [200, undefined]);
  });
});
