// The official SDKs against a real BMS server over HTTP: the JavaScript SDK here, the Python SDK's own
// unittest suite as a child process, both READMEs' examples, and the generated files checked against the
// running server's /v1/openapi.json so the SDKs cannot drift from the API.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { inspect } from 'node:util';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateSdkSources, type OpenApiDocument } from '../sdks/generate.js';
import * as sdk from '../sdks/js/src/index.js';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { startFlakyProxy } from './helpers/flaky-proxy.js';
import { ROOT } from './helpers/processes.js';
import { Webhook } from 'standardwebhooks';
import { SCOPES } from '../src/kernel/scopes.js';

const { BmsClient } = sdk;

let context: TestContext;
let baseUrl: string;
let accountId: string;
let apiKey: string;

before(async () => {
  context = await createTestContext();
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
  ({ accountId, key: apiKey } = await context.account());
});
after(() => context.close());

/** Runs a child process without blocking this one, which serves the API the child calls. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** A fetch that records every status the server answered, to see the retries. */
function recordingFetch(statuses: number[]): sdk.FetchFunction {
  return async (url, init) => {
    const response = await fetch(url, init);
    statuses.push(response.status);
    return response;
  };
}

async function rejection(promise: PromiseLike<unknown>): Promise<sdk.BmsError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof sdk.BmsError, `expected a BmsError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

test('the generated SDK files match the running server’s /v1/openapi.json', async () => {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  for (const [file, text] of Object.entries(generateSdkSources(document))) {
    assert.equal(
      fs.readFileSync(path.join(ROOT, 'sdks', file), 'utf8'),
      text,
      `sdks/${file} is stale: run npm run sdk:generate`,
    );
  }
});

describe('JavaScript SDK', () => {
  test('every endpoint, from a service request to a sent invoice', async () => {
    const bms = new BmsClient({ apiKey, baseUrl });
    const client = await bms.clients.create({
      name: 'Jane Cooper',
      email: 'jane@example.com',
      address: { city: 'Springfield' },
    });
    assert.equal(client.object, 'client');
    assert.equal(client.address?.city, 'Springfield');
    assert.match(client.lastResponse.requestId ?? '', /^req_/);
    assert.equal(client.lastResponse.status, 201);
    assert.equal(Object.keys(client).includes('lastResponse'), false, 'lastResponse is not enumerable');
    assert.equal((await bms.clients.get(client.id)).name, 'Jane Cooper');
    assert.equal((await bms.clients.update(client.id, { phone: '+1 555 0100' })).phone, '+1 555 0100');
    assert.deepEqual(
      (await bms.clients.list({ q: 'Jane' })).data.map((c) => c.id),
      [client.id],
    );

    const request = await bms.serviceRequests.create({ client_id: client.id, title: 'Leaking tap', source: 'phone' });
    assert.equal((await bms.serviceRequests.get(request.id)).title, 'Leaking tap');
    assert.equal((await bms.serviceRequests.update(request.id, { status: 'assessed' })).status, 'assessed');
    assert.equal((await bms.serviceRequests.list({ status: 'assessed' })).data.length, 1);

    const lines = [{ description: 'Replace faucet', quantity: 1.5, unit_amount: 12_000, tax_rate: 8.875 }];
    const quote = await bms.quotes.create({ client_id: client.id, request_id: request.id, line_items: lines });
    assert.equal(quote.total_amount, 19_598);
    assert.equal((await bms.quotes.get(quote.id)).status, 'draft');
    const sentQuote = await bms.quotes.send(quote.id, { message: 'As discussed.' });
    assert.equal(sentQuote.status, 'sent');
    assert.match(sentQuote.number ?? '', /^Q-/);
    assert.equal((await bms.quotes.update(quote.id, { status: 'approved' })).status, 'approved');
    assert.equal((await bms.quotes.list({ client_id: client.id })).data.length, 1);
    const spare = await bms.quotes.create({ client_id: client.id });
    assert.deepEqual({ ...(await bms.quotes.delete(spare.id)) }, { id: spare.id, deleted: true });

    const job = await bms.jobs.create({ quote_id: quote.id });
    assert.equal(job.total_amount, 19_598);
    assert.equal((await bms.jobs.get(job.id)).status, 'scheduled');
    assert.equal((await bms.jobs.update(job.id, { status: 'completed' })).status, 'completed');
    assert.equal((await bms.jobs.list({ status: 'completed' })).data.length, 1);
    const spareJob = await bms.jobs.create({ client_id: client.id, title: 'Spare' });
    assert.equal((await bms.jobs.delete(spareJob.id)).deleted, true);

    const invoice = await bms.invoices.create({ job_id: job.id });
    assert.equal(invoice.amount_due, 19_598);
    assert.equal((await bms.invoices.get(invoice.id)).status, 'draft');
    assert.equal((await bms.invoices.update(invoice.id, { notes: 'Thanks!' })).notes, 'Thanks!');
    const sent = await bms.invoices.send(invoice.id);
    assert.equal(sent.status, 'sent');
    assert.match(sent.number ?? '', /^INV-/);
    assert.deepEqual(
      (await bms.invoices.list({ status: 'sent' })).data.map((i) => i.id),
      [invoice.id],
    );
    const spareInvoice = await bms.invoices.create({ client_id: client.id });
    assert.equal((await bms.invoices.delete(spareInvoice.id)).deleted, true);

    const deposit = await bms.payments.create({
      invoice_id: invoice.id,
      amount: 5_000,
      method: 'bank_transfer',
      reference: 'SDK-DEP-1',
    });
    assert.equal((await bms.invoices.get(invoice.id)).amount_due, 14_598);
    assert.equal((await bms.payments.get(deposit.id)).reference, 'SDK-DEP-1');
    assert.equal((await bms.payments.update(deposit.id, { notes: 'Deposit' })).notes, 'Deposit');
    const refunded = await bms.payments.refund(deposit.id, { amount: 1_000, reason: 'Goodwill' });
    assert.deepEqual([refunded.amount_refunded, refunded.refunds.length], [1_000, 1]);
    assert.deepEqual(
      (await bms.payments.list({ invoice_id: invoice.id })).data.map((payment) => payment.id),
      [deposit.id],
    );
    assert.ok(
      (await rejection(
        bms.payments.create({ invoice_id: invoice.id, amount: 1, method: 'cash', reference: 'SDK-DEP-1' }),
      )) instanceof sdk.ConflictError,
    );

    const loner = await bms.clients.create({ name: 'Gone Soon' });
    assert.equal((await bms.clients.delete(loner.id)).deleted, true);
    assert.ok((await rejection(bms.clients.get(loner.id))) instanceof sdk.NotFoundError);
  });

  test('list: await gives the first page; for await walks every page', async () => {
    const { key } = await context.account('Paging');
    const bms = new BmsClient({ apiKey: key, baseUrl });
    const created = [];
    for (let i = 0; i < 7; i++) created.push((await bms.clients.create({ name: `Client ${i}` })).id);
    const first = await bms.clients.list({ limit: 3, sort: 'created_at' });
    assert.deepEqual(
      first.data.map((c) => c.id),
      created.slice(0, 3),
    );
    assert.equal(first.hasMore, true);
    const second = await first.nextPage();
    assert.deepEqual(
      second?.data.map((c) => c.id),
      created.slice(3, 6),
    );
    const walked = [];
    for await (const c of bms.clients.list({ limit: 3, sort: 'created_at' })) walked.push(c.id);
    assert.deepEqual(walked, created);
  });

  test('errors: a class per kind, with status, code, message, details and request id', async () => {
    const bms = new BmsClient({ apiKey, baseUrl });
    const invalid = await rejection(bms.clients.create({ name: '', email: 'not-an-email' }));
    assert.ok(invalid instanceof sdk.ValidationError);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    assert.deepEqual(invalid.details.map((detail) => detail.field).sort(), ['email', 'name']);
    assert.match(invalid.requestId ?? '', /^req_/);

    const unknownKey = await rejection(new BmsClient({ apiKey: `bms_${'x'.repeat(40)}`, baseUrl }).clients.list());
    assert.ok(unknownKey instanceof sdk.AuthenticationError);
    assert.equal(unknownKey.status, 401);

    const readOnly = (await context.key(accountId, ['clients:read'])).key;
    const denied = await rejection(new BmsClient({ apiKey: readOnly, baseUrl }).clients.create({ name: 'X' }));
    assert.ok(denied instanceof sdk.PermissionDeniedError);
    assert.equal(denied.code, 'INSUFFICIENT_SCOPE');

    const client = await bms.clients.create({ name: 'Stale' });
    await bms.clients.update(client.id, { phone: '1' });
    const stale = await rejection(bms.clients.update(client.id, { phone: '2' }, { ifMatch: client.lastResponse.etag }));
    assert.ok(stale instanceof sdk.PreconditionFailedError && stale instanceof sdk.ConflictError);
    const fresh = await bms.clients.get(client.id);
    assert.equal(
      (await bms.clients.update(client.id, { phone: '3' }, { ifMatch: fresh.lastResponse.etag })).phone,
      '3',
    );

    const invoice = await bms.invoices.create({ client_id: client.id });
    const state = await rejection(bms.invoices.update(invoice.id, { status: 'paid' }));
    assert.ok(state instanceof sdk.InvalidStateError);
    assert.equal(state.status, 409);
    assert.match(state.message, /'draft'.*'paid'/);
  });

  test('a 429 is retried after the Retry-After the server sent', async () => {
    const limited = (await context.key(accountId, SCOPES, { rateLimits: { burst: 1, perMinute: 60 } })).key;
    const statuses: number[] = [];
    const bms = new BmsClient({ apiKey: limited, baseUrl, fetch: recordingFetch(statuses) });
    await bms.clients.list({ limit: 1 });
    const started = Date.now();
    await bms.clients.list({ limit: 1 });
    assert.deepEqual(statuses, [200, 429, 200]);
    assert.ok(Date.now() - started >= 900, 'waited about the one second Retry-After asked for');

    const impatient = new BmsClient({ apiKey: limited, baseUrl, maxRetries: 0 });
    const limitedError = await rejection(impatient.clients.list());
    assert.ok(limitedError instanceof sdk.RateLimitError);
    assert.equal(limitedError.retryAfter, 1);
  });

  test('a reset connection is retried', async () => {
    const proxy = await startFlakyProxy(baseUrl, 'reset');
    try {
      const bms = new BmsClient({ apiKey, baseUrl: proxy.url });
      const page = await bms.clients.list({ limit: 1 });
      assert.equal(page.data.length, 1);
      assert.equal(proxy.connections, 2);
    } finally {
      await proxy.close();
    }
  });

  test('a POST whose response was lost is retried with the same Idempotency-Key and creates once', async () => {
    const { key } = await context.account('Lost response');
    const proxy = await startFlakyProxy(baseUrl, 'drop-response');
    try {
      const created = await new BmsClient({ apiKey: key, baseUrl: proxy.url }).clients.create({ name: 'Only Once' });
      assert.equal(created.lastResponse.headers['idempotent-replayed'], 'true');
      assert.equal(proxy.connections, 2);
      const all = await new BmsClient({ apiKey: key, baseUrl }).clients.list();
      assert.deepEqual(
        all.data.map((c) => c.id),
        [created.id],
      );
    } finally {
      await proxy.close();
    }
  });

  test('backoff grows exponentially with jitter up to a cap; Retry-After is read as seconds or a date', async () => {
    const { backoffDelay, retryAfterDelay } = await import('../sdks/js/src/transport.js');
    [
      [250, 500],
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [4000, 8000],
    ].forEach(([low, high], attempt) => {
      const delays = Array.from({ length: 50 }, () => backoffDelay(attempt));
      assert.ok(
        delays.every((delay) => delay >= low! && delay <= high!),
        `attempt ${attempt}: ${delays.join(', ')}`,
      );
      assert.ok(new Set(delays).size > 1, 'jittered');
    });
    assert.equal(retryAfterDelay('2'), 2000);
    assert.equal(retryAfterDelay('Thu, 01 Jan 1970 00:00:10 GMT', 4000), 6000);
    assert.equal(retryAfterDelay(undefined), null);
    assert.equal(retryAfterDelay('soon'), null);
  });

  test('with no server, the call fails with APIConnectionError after its retries', async () => {
    const proxy = await startFlakyProxy(baseUrl, 'reset');
    await proxy.close();
    const failure = await rejection(new BmsClient({ apiKey, baseUrl: proxy.url, maxRetries: 1 }).clients.list());
    assert.ok(failure instanceof sdk.APIConnectionError);
    assert.equal(failure.status, null);
    assert.equal(failure.code, 'CONNECTION_ERROR');
  });

  test('the README examples compile under strict TypeScript and run, from a CommonJS and an ESM project', async () => {
    const { key } = await context.account('README');
    const readme = fs.readFileSync(path.join(ROOT, 'sdks/js/README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    assert.ok(blocks.length >= 4);
    const source = blocks.join('\n');
    const imports = source.split('\n').filter((line) => line.startsWith('import '));
    const body = source
      .split('\n')
      .filter((line) => !line.startsWith('import '))
      .join('\n');
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    // A default `tsc --init` CommonJS project, and an ESM one; neither has DOM or @types/node.
    const projects = {
      commonjs: {
        packageType: 'commonjs',
        compilerOptions: {
          module: 'commonjs',
          target: 'ES2022',
          lib: ['ES2022'],
          types: [],
          strict: true,
          esModuleInterop: true,
          skipLibCheck: false,
          outDir: 'out',
        },
        program: `${imports.join('\n')}\ndeclare const process: { env: Record<string, string | undefined> };\nasync function main(): Promise<void> {\n${body}\n}\nmain().catch((error: unknown) => { console.error(error); throw error; });\n`,
      },
      module: {
        packageType: 'module',
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2022'],
          types: [],
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
        },
        program: `${imports.join('\n')}\ndeclare const process: { env: Record<string, string | undefined> };\n${body}\n`,
      },
    };
    for (const [kind, project] of Object.entries(projects)) {
      const directory = temporaryDirectory(`bms-sdk-${kind}-`);
      try {
        fs.mkdirSync(path.join(directory, 'node_modules/@bms'), { recursive: true });
        fs.symlinkSync(path.join(ROOT, 'sdks/js'), path.join(directory, 'node_modules/@bms/sdk'));
        fs.writeFileSync(
          path.join(directory, 'package.json'),
          JSON.stringify({ name: `consumer-${kind}`, private: true, type: project.packageType }),
        );
        fs.writeFileSync(
          path.join(directory, 'tsconfig.json'),
          JSON.stringify({ compilerOptions: { ...project.compilerOptions, lib: ['ES2022'] }, files: ['example.ts'] }),
        );
        fs.writeFileSync(
          path.join(directory, 'example.ts'),
          project.program.replace(
            'declare const process',
            'declare const console: { log(...values: unknown[]): void; error(...values: unknown[]): void };\ndeclare const process',
          ),
        );
        const compiled = await run(process.execPath, [tsc, '-p', '.'], { cwd: directory, env: process.env });
        assert.equal(compiled.status, 0, `${kind}: ${compiled.output}`);
        const result = await run(process.execPath, ['out/example.js'], {
          cwd: directory,
          env: { ...process.env, BMS_API_KEY: key, BMS_BASE_URL: baseUrl },
        });
        assert.equal(result.status, 0, `${kind}: ${result.output}`);
        assert.match(result.output, /19598/);
      } finally {
        fs.rmSync(directory, { recursive: true, force: true });
      }
    }
  });

  test('a mistyped call does not compile: the types catch what the server would refuse', async () => {
    const directory = temporaryDirectory('bms-sdk-types-');
    try {
      fs.mkdirSync(path.join(directory, 'node_modules/@bms'), { recursive: true });
      fs.symlinkSync(path.join(ROOT, 'sdks/js'), path.join(directory, 'node_modules/@bms/sdk'));
      fs.writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
      fs.writeFileSync(
        path.join(directory, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            lib: ['ES2022'],
            types: [],
            strict: true,
            noEmit: true,
          },
          files: ['mistakes.ts'],
        }),
      );
      const mistakes = [
        'bms.invoices.create({})',
        "bms.invoices.list({ status: 'paied' })",
        "bms.invoices.list({ status: ['sent', 'open'] })",
        "bms.payments.create({ invoice_id: 'x', amount: 100, method: 'bitcoin' })",
        "bms.jobs.create({ title: 'No client or quote' })",
      ];
      fs.writeFileSync(
        path.join(directory, 'mistakes.ts'),
        `import { BmsClient, type InvoiceLineItemParams } from '@bms/sdk';\nconst bms = new BmsClient({ apiKey: 'bms_x' });\nconst line: InvoiceLineItemParams = { description: 'Fine', quantity: 1, unit_amount: 100 };\nvoid line;\nvoid bms.invoices.list({ status: ['sent', 'paid'] });\n${mistakes.map((line) => `void ${line};`).join('\n')}\n`,
      );
      const compiled = await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
        cwd: directory,
        env: process.env,
      });
      const errorLines = new Set(
        [...compiled.output.matchAll(/mistakes\.ts\((\d+),/g)].map((match) => Number(match[1])),
      );
      assert.deepEqual(
        [...errorLines].sort((a, b) => a - b),
        mistakes.map((_, index) => 6 + index),
        compiled.output,
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** A scripted server: each request gets the next reply (the last repeats); requests are recorded. */
async function scriptedServer(
  replies: Array<{ status: number; headers?: Record<string, string>; body?: string; trickleMs?: number }>,
) {
  const requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
      const reply = replies[Math.min(requests.length, replies.length) - 1]!;
      const body = Buffer.from(reply.body ?? '');
      response.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': String(body.length),
        ...reply.headers,
      });
      if (!reply.trickleMs) return response.end(body);
      for (const byte of body) {
        if (response.destroyed) return;
        response.write(Buffer.from([byte]));
        await new Promise((resolve) => setTimeout(resolve, reply.trickleMs));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const KEY = `bms_${'k'.repeat(40)}`;
const CLIENT_BODY = JSON.stringify({ data: { id: 'c1', object: 'client', name: 'Jane' } });
const BUSY = JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'busy' }, meta: {} });

describe('JavaScript SDK against scripted servers', () => {
  test('a redirect is never followed: RedirectError with status and location, the key never leaves', async () => {
    const elsewhere = await scriptedServer([{ status: 200, body: '{"data": []}' }]);
    const server = await scriptedServer([{ status: 301, headers: { location: `${elsewhere.url}/v1/clients` } }]);
    try {
      const error = await rejection(
        new BmsClient({ apiKey: KEY, baseUrl: server.url }).clients.create({ name: 'Jane' }),
      );
      assert.ok(error instanceof sdk.RedirectError);
      assert.equal(error.status, 301);
      assert.equal(error.location, `${elsewhere.url}/v1/clients`);
      assert.deepEqual(
        server.requests.map((request) => request.method),
        ['POST'],
      );
      assert.equal(elsewhere.requests.length, 0);
    } finally {
      await Promise.all([server.close(), elsewhere.close()]);
    }
  });

  test('a 200 that is not JSON, or an HTML error page, is an SDK error with a short message and the body kept', async () => {
    const page = `<html>${'Gateway says hello '.repeat(500)}</html>`;
    const server = await scriptedServer([
      { status: 200, headers: { 'content-type': 'text/html' }, body: page },
      { status: 502, headers: { 'content-type': 'text/html' }, body: page },
    ]);
    try {
      const bms = new BmsClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });
      const invalid = await rejection(bms.clients.get('c1'));
      assert.ok(invalid instanceof sdk.InvalidResponseError);
      assert.ok(invalid.message.length < 200 && invalid.message.includes('text/html'), invalid.message);
      assert.equal(invalid.body, page);
      const failed = await rejection(bms.clients.get('c1'));
      assert.ok(failed instanceof sdk.ServerError);
      assert.ok(failed.message.length < 200, failed.message);
      assert.equal(failed.body, page);
    } finally {
      await server.close();
    }
  });

  test('a 409 with Retry-After is retried with the same Idempotency-Key; one without is final', async () => {
    const conflict = JSON.stringify({ error: { code: 'CONFLICT', message: 'still being processed' }, meta: {} });
    const server = await scriptedServer([
      { status: 409, headers: { 'retry-after': '0' }, body: conflict },
      { status: 201, body: CLIENT_BODY },
      { status: 409, body: conflict },
    ]);
    try {
      const bms = new BmsClient({ apiKey: KEY, baseUrl: server.url });
      assert.equal((await bms.clients.create({ name: 'Jane' })).id, 'c1');
      const [first, second] = server.requests.map((request) => request.headers['idempotency-key']);
      assert.ok(first && first === second);
      assert.ok((await rejection(bms.clients.create({ name: 'Jane' }))) instanceof sdk.ConflictError);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  test('an AbortSignal stops the call before the first attempt and during a retry wait', async () => {
    const server = await scriptedServer([{ status: 503, headers: { 'retry-after': '30' }, body: BUSY }]);
    try {
      const bms = new BmsClient({ apiKey: KEY, baseUrl: server.url });
      const early = await rejection(bms.clients.create({ name: 'Never' }, { signal: AbortSignal.abort() }));
      assert.ok(early instanceof sdk.RequestAbortedError);
      assert.equal(server.requests.length, 0, 'nothing was sent');
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 300);
      const waiting = await rejection(bms.clients.get('c1', { signal: controller.signal }));
      assert.ok(waiting instanceof sdk.RequestAbortedError);
      assert.ok(Date.now() - started < 5_000, 'the 30-second wait was cut short');
      assert.equal(server.requests.length, 1, 'no retry after the abort');
    } finally {
      await server.close();
    }
  });

  test('timeout: APITimeoutError (an APIConnectionError); connection errors keep their cause', async () => {
    const server = await scriptedServer([{ status: 200, body: CLIENT_BODY, trickleMs: 200 }]);
    try {
      const slow = await rejection(
        new BmsClient({ apiKey: KEY, baseUrl: server.url, timeout: 1_000, maxRetries: 0 }).clients.get('c1'),
      );
      assert.ok(slow instanceof sdk.APITimeoutError && slow instanceof sdk.APIConnectionError);
      assert.equal(slow.code, 'TIMEOUT');
    } finally {
      await server.close();
    }
    const refused = await rejection(
      new BmsClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 }).clients.get('c1'),
    );
    assert.ok(refused instanceof sdk.APIConnectionError);
    assert.equal(sdk.ApiConnectionError, sdk.APIConnectionError, 'the 0.1 name still works');
    assert.ok(refused.cause instanceof Error, 'the network error is the cause');
  });

  test('the key stays out of console.log and JSON.stringify; env defaults; the log hook sees each attempt', async () => {
    const server = await scriptedServer([
      { status: 503, headers: { 'retry-after': '0' }, body: BUSY },
      { status: 200, body: CLIENT_BODY },
      { status: 200, body: JSON.stringify({ data: [], meta: { pagination: { has_more: false, next_cursor: null } } }) },
    ]);
    const saved = { key: process.env.BMS_API_KEY, url: process.env.BMS_BASE_URL };
    try {
      process.env.BMS_API_KEY = KEY;
      process.env.BMS_BASE_URL = server.url;
      const entries: sdk.RequestLog[] = [];
      const bms = new BmsClient({ log: (entry) => entries.push(entry) });
      assert.equal((await bms.clients.get('c1')).name, 'Jane');
      assert.equal(server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
      assert.ok(!inspect(bms, { depth: 10, showHidden: true }).includes(KEY));
      assert.ok(!JSON.stringify(bms).includes(KEY));
      assert.ok(!inspect(bms.clients, { depth: 10 }).includes(KEY));
      assert.deepEqual(
        entries.map((entry) => [entry.method, entry.attempt, entry.status]),
        [
          ['GET', 1, 503],
          ['GET', 2, 200],
        ],
      );
      assert.ok(!JSON.stringify(entries).includes(KEY));
      await bms.invoices.list({ status: ['sent', 'paid'] });
      assert.equal(server.requests.at(-1)!.url, '/v1/invoices?status=sent%2Cpaid');
    } finally {
      process.env.BMS_API_KEY = saved.key;
      process.env.BMS_BASE_URL = saved.url;
      if (saved.key === undefined) delete process.env.BMS_API_KEY;
      if (saved.url === undefined) delete process.env.BMS_BASE_URL;
      await server.close();
    }
  });

  test('IDEMPOTENCY_KEY_REUSED is its own class; a RateLimitError reads an HTTP-date Retry-After', async () => {
    const bms = new BmsClient({ apiKey, baseUrl });
    const idempotencyKey = `reuse-${Date.now()}`;
    await bms.clients.create({ name: 'First' }, { idempotencyKey });
    const reused = await rejection(bms.clients.create({ name: 'Second' }, { idempotencyKey }));
    assert.ok(reused instanceof sdk.IdempotencyKeyReusedError && !(reused instanceof sdk.ValidationError));
    const limited = new sdk.RateLimitError({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      headers: { 'retry-after': new Date(Date.now() + 120_000).toUTCString() },
    });
    assert.ok(limited.retryAfter! > 110 && limited.retryAfter! <= 120, String(limited.retryAfter));
  });
});

/** A delivery signed by the independent Standard Webhooks library, and variants that must fail. */
function signedFixture() {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const payload = JSON.stringify({
    id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    object: 'event',
    type: 'invoice.paid',
    data: { object: { id: 'x', amount_due: 0 } },
  });
  const id = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  const sign = (at: Date, key = secret) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, payload),
  });
  const other = 'whsec_' + Buffer.from('another secret of thirty-two bytes!').toString('base64');
  return {
    secret,
    payload,
    headers: sign(new Date()),
    rotated: {
      ...sign(new Date(), other),
      'webhook-signature': `${sign(new Date(), other)['webhook-signature']} ${sign(new Date())['webhook-signature']}`,
    },
    stale: sign(new Date(Date.now() - 301_000)),
    wrongSecret: sign(new Date(), other),
  };
}

describe('webhooks.verify (JavaScript)', () => {
  test('accepts what the Standard Webhooks library signs, and refuses tampering, replays and other secrets', async () => {
    const fixture = signedFixture();
    const event = await sdk.webhooks.verify(fixture.payload, fixture.headers, fixture.secret);
    assert.equal(event.type, 'invoice.paid');
    assert.equal(
      (
        await sdk.webhooks.verify(
          new TextEncoder().encode(fixture.payload),
          new Headers(fixture.rotated),
          fixture.secret,
        )
      ).id,
      event.id,
      'one of several signatures, Headers and bytes',
    );
    const refusals = [
      () =>
        sdk.webhooks.verify(
          fixture.payload.replace('"amount_due":0', '"amount_due":1'),
          fixture.headers,
          fixture.secret,
        ),
      () => sdk.webhooks.verify(fixture.payload, fixture.stale, fixture.secret),
      () => sdk.webhooks.verify(fixture.payload, fixture.wrongSecret, fixture.secret),
      () => sdk.webhooks.verify(fixture.payload, { 'webhook-id': fixture.headers['webhook-id'] }, fixture.secret),
    ];
    for (const refusal of refusals) await assert.rejects(refusal, sdk.WebhookVerificationError);
    const lenient = await sdk.webhooks.verify(fixture.payload, fixture.stale, fixture.secret, {
      toleranceSeconds: 600,
    });
    assert.equal(lenient.id, event.id, 'the tolerance is adjustable');
  });
});

describe('Python SDK', () => {
  test('its unittest suite (every endpoint, paging, errors, retries, README) passes against this server', async () => {
    const { accountId: pythonAccount, key } = await context.account('Python');
    const limited = (await context.key(pythonAccount, SCOPES, { rateLimits: { burst: 1, perMinute: 60 } })).key;
    const readOnly = (await context.key(pythonAccount, ['clients:read'])).key;
    const fixtureDirectory = temporaryDirectory('bms-webhook-fixture-');
    const fixture = path.join(fixtureDirectory, 'signed.json');
    fs.writeFileSync(fixture, JSON.stringify(signedFixture()));
    const result = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: path.join(ROOT, 'sdks/python'),
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: '1',
        BMS_BASE_URL: baseUrl,
        BMS_API_KEY: key,
        BMS_LIMITED_API_KEY: limited,
        BMS_READ_ONLY_API_KEY: readOnly,
        BMS_WEBHOOK_FIXTURE: fixture,
      },
    });
    fs.rmSync(fixtureDirectory, { recursive: true, force: true });
    assert.equal(result.status, 0, result.output);
    const ran = Number(/Ran (\d+) tests?/.exec(result.output)?.[1] ?? 0);
    assert.ok(ran >= 8, `ran ${ran} Python tests`);
  });

  test('mypy --strict passes on the package', async () => {
    const result = await run('mypy', ['--strict', 'bms_sdk'], {
      cwd: path.join(ROOT, 'sdks/python'),
      env: process.env,
    }).catch((error: Error) => ({
      status: null,
      output: `${error.message}: install mypy (Debian's package; .ci/run does)`,
    }));
    assert.equal(result.status, 0, result.output);
  });

  test('a wheel built from the folder installs into a fresh venv and runs the README there', async () => {
    const { key } = await context.account('Python wheel');
    const directory = temporaryDirectory('bms-python-wheel-');
    try {
      fs.cpSync(path.join(ROOT, 'sdks/python'), path.join(directory, 'source'), {
        recursive: true,
        filter: (source) => !/__pycache__|\.egg-info|\/build$/.test(source),
      });
      // Offline: the wheel is built with the system's setuptools and wheel (Debian's python3-wheel).
      const builder = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
      const built = await run(
        builder,
        [
          '-m',
          'pip',
          'wheel',
          '--no-build-isolation',
          '--no-deps',
          '--no-index',
          '-w',
          path.join(directory, 'wheels'),
          path.join(directory, 'source'),
        ],
        { cwd: directory, env: process.env },
      );
      assert.equal(built.status, 0, built.output);
      const venv = path.join(directory, 'venv');
      const created = await run('python3', ['-m', 'venv', venv], { cwd: directory, env: process.env });
      assert.equal(created.status, 0, created.output);
      const wheel = fs.readdirSync(path.join(directory, 'wheels')).find((name) => name.endsWith('.whl'))!;
      const installed = await run(
        path.join(venv, 'bin/pip'),
        ['install', '--no-index', path.join(directory, 'wheels', wheel)],
        { cwd: directory, env: process.env },
      );
      assert.equal(installed.status, 0, installed.output);
      const readme = fs.readFileSync(path.join(ROOT, 'sdks/python/README.md'), 'utf8');
      const blocks = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map((match) => match[1]);
      fs.writeFileSync(path.join(directory, 'readme_example.py'), blocks.join('\n'));
      const result = await run(path.join(venv, 'bin/python'), ['readme_example.py'], {
        cwd: directory,
        env: { ...process.env, BMS_API_KEY: key, BMS_BASE_URL: baseUrl, PYTHONPATH: '' },
      });
      assert.equal(result.status, 0, result.output);
      assert.match(result.output, /19598/);
      assert.match(result.output, /found Ada Lovelace/);
      const where = await run(
        path.join(venv, 'bin/python'),
        ['-c', 'import bms_sdk; print(bms_sdk.__file__, bms_sdk.__version__)'],
        { cwd: directory, env: process.env },
      );
      assert.match(where.output, /venv\/lib\/python3\.\d+\/site-packages\/bms_sdk\/__init__\.py 0\.2\.0/);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
