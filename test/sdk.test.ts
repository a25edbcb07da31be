// The official SDKs against a real BMS server over HTTP: the JavaScript SDK here, the Python SDK's own
// unittest suite as a child process, both READMEs' examples, and the generated files checked against the
// running server's /v1/openapi.json so the SDKs cannot drift from the API.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateSdkSources, type OpenApiDocument, READMES } from '../sdks/generate.js';
import * as sdk from '../sdks/js/src/index.js';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { startFlakyProxy } from './helpers/flaky-proxy.js';
import { ROOT } from './helpers/processes.js';
import { installApp } from './helpers/app-install.js';
import { run, scriptedServer, signedFixture } from './helpers/sdk.js';
import { SCOPES } from '../src/kernel/scopes.js';
import { ImportWorker } from '../src/workers/import-worker.js';

const { BmsClient } = sdk;

let context: TestContext;
let baseUrl: string;
let accountId: string;
let apiKey: string;

let imports: ImportWorker;

before(async () => {
  context = await createTestContext();
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
  ({ accountId, key: apiKey } = await context.account());
  // The import helpers wait for the imports worker, as `bms serve` runs it.
  imports = new ImportWorker(context.app, { error() {} });
  imports.start();
});
after(async () => {
  await imports.stop();
  await context.close();
});

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

test('the generated SDK files and the READMEs’ tables of methods match the running server’s /v1/openapi.json', async () => {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  const readmes = Object.fromEntries(
    READMES.map((file) => [file, fs.readFileSync(path.join(ROOT, 'sdks', file), 'utf8')]),
  );
  for (const [file, text] of Object.entries(generateSdkSources(document, readmes))) {
    assert.equal(
      fs.readFileSync(path.join(ROOT, 'sdks', file), 'utf8'),
      text,
      `sdks/${file} is stale: run npm run sdk:generate`,
    );
  }
});

test('the typed accessors of custom field values read each type, null when unset, and refuse another', () => {
  const client = {
    custom_fields: {
      gate_code: '4512',
      visits: 2.5,
      budget: 125_000,
      since: '2024-01-31',
      vip: true,
      tier: 'gold',
      services: ['lawn'],
      unset: null,
    },
  };
  const { customFields } = sdk;
  assert.equal(customFields.text(client, 'gate_code'), '4512');
  assert.equal(customFields.number(client, 'visits'), 2.5);
  assert.equal(customFields.money(client, 'budget'), 125_000);
  assert.equal(customFields.date(client, 'since'), '2024-01-31');
  assert.equal(customFields.boolean(client, 'vip'), true);
  assert.equal(customFields.select(client, 'tier'), 'gold');
  assert.deepEqual(customFields.multiSelect(client, 'services'), ['lawn']);
  assert.equal(customFields.text(client, 'unset'), null);
  assert.throws(() => customFields.text(client, 'nope'), /'nope' is not a custom field/);
  assert.throws(() => customFields.money(client, 'visits'), /not an amount in minor units/);
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

  test('a change set in one call, then the change feed walked by the list iterator, each object once', async () => {
    const { key } = await context.account('Sets and feed');
    const bms = new BmsClient({ apiKey: key, baseUrl });
    const set = await bms.changeSets.create({
      operations: [
        { method: 'POST', path: '/v1/clients', body: { name: 'Set client' } },
        {
          method: 'POST',
          path: '/v1/properties',
          body: { client_id: '$ref:0', address: { line1: '1 Oak', country: 'US' } },
        },
      ],
    });
    assert.equal(set.object, 'change_set');
    assert.deepEqual(
      set.results.map((result) => result.status),
      [201, 201],
    );
    const seen = [];
    for await (const change of bms.changes.list({ limit: 1 })) seen.push([change.kind, change.id]);
    const ids = set.results.map((result) => (result.data as { id: string }).id);
    assert.deepEqual(seen, [
      ['client', ids[0]],
      ['property', ids[1]],
    ]);
  });

  test('importCsv uploads a CSV file as text/csv and waits for the import to end', async () => {
    const { key } = await context.account('Importer');
    const bms = new BmsClient({ apiKey: key, baseUrl });
    const csv = 'name,email,external_id\r\nSDK Client,sdk@example.com,SDK-1\r\nSDK Other,not-an-email,SDK-2\r\n';
    const ended = await bms.importCsv({ kind: 'client', options: { on_error: 'skip' } }, csv, { pollMs: 20 });
    assert.equal(ended.object, 'import');
    assert.equal(ended.status, 'completed');
    assert.deepEqual(ended.counts, { created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 1 });
    const clients = await bms.clients.list({ external_id: 'SDK-1' });
    assert.equal(clients.data[0]?.name, 'SDK Client');
  });

  test('attachments: a file uploaded from a path, a Node stream, a web stream and bytes, each downloaded to a file with its sha256', async () => {
    const { key } = await context.account('Files');
    const bms = new BmsClient({ apiKey: key, baseUrl });
    const client = await bms.clients.create({ name: 'Files Client' });
    const directory = temporaryDirectory('bms-sdk-files-');
    const source = path.join(directory, 'notes.txt');
    // About 2.8 MB of text: many chunks of every stream.
    const text = Array.from({ length: 60_000 }, (_, n) => `line ${n}: gutters cleared, downpipes checked\n`).join('');
    fs.writeFileSync(source, text);
    const expected = createHash('sha256').update(text).digest('hex');
    const parent = { parent_type: 'client', parent_id: client.id } as const;
    const made = [
      await bms.attachments.create(source, { ...parent, caption: 'From a path', metadata: '{"source":"path"}' }),
      await bms.attachments.create(fs.createReadStream(source), { ...parent, filename: 'node-stream.txt' }),
      await bms.attachments.create(Readable.toWeb(fs.createReadStream(source)) as sdk.ReadableStreamLike, {
        ...parent,
        filename: 'web-stream.txt',
      }),
      await bms.attachments.create(new Uint8Array(fs.readFileSync(source)), { ...parent, filename: 'bytes.txt' }),
    ];
    assert.deepEqual(
      made.map((attachment) => [
        attachment.filename,
        attachment.content_type,
        attachment.size_bytes,
        attachment.sha256,
      ]),
      [
        ['notes.txt', 'text/plain', text.length, expected],
        ['node-stream.txt', 'text/plain', text.length, expected],
        ['web-stream.txt', 'text/plain', text.length, expected],
        ['bytes.txt', 'text/plain', text.length, expected],
      ],
    );
    assert.equal(made[0]!.lastResponse.status, 201);
    assert.equal(made[0]!.caption, 'From a path');
    assert.deepEqual(made[0]!.metadata, { source: 'path' });
    for (const attachment of made) {
      const destination = path.join(directory, `${attachment.id}.txt`);
      const answered = await bms.attachments.downloadToFile(attachment.id, destination);
      assert.equal(answered.status, 200);
      assert.equal(createHash('sha256').update(fs.readFileSync(destination)).digest('hex'), expected);
    }
    // A failed download leaves the destination as it was, and no temporary file.
    const kept = path.join(directory, 'kept.txt');
    fs.writeFileSync(kept, 'the earlier copy');
    const missing = '00000000-0000-4000-8000-000000000000';
    assert.equal((await rejection(bms.attachments.downloadToFile(missing, kept))).status, 404);
    assert.equal(fs.readFileSync(kept, 'utf8'), 'the earlier copy');
    // A body cut off after its first chunk: no partial file either.
    const cutting = new BmsClient({
      apiKey: key,
      baseUrl,
      maxRetries: 0,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        const reader = response.body!.getReader();
        const body = new ReadableStream({
          async pull(controller) {
            const { value } = await reader.read();
            controller.enqueue(value);
            controller.error(new Error('connection reset'));
          },
        });
        return {
          status: response.status,
          headers: response.headers,
          text: () => response.text(),
          arrayBuffer: () => response.arrayBuffer(),
          body,
        };
      },
    });
    const cut = path.join(directory, 'cut.txt');
    await assert.rejects(cutting.attachments.downloadToFile(made[0]!.id, cut), /connection reset/);
    assert.equal(fs.existsSync(cut), false);
    assert.deepEqual(
      fs.readdirSync(directory).filter((name) => name.endsWith('.part')),
      [],
    );
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

  test('an API key is created and rolled through the SDK (no Idempotency-Key is sent), and each secret works', async () => {
    const { key } = await context.account('Keys through the SDK');
    const statuses: number[] = [];
    const bms = new BmsClient({ apiKey: key, baseUrl, fetch: recordingFetch(statuses) });
    const created = await bms.apiKeys.create({ name: 'Bookkeeper', scopes: ['clients:read'] });
    assert.equal(created.lastResponse.status, 201);
    assert.match(created.secret, /^bms_/);
    assert.deepEqual(created.scopes, ['clients:read']);
    const reader = new BmsClient({ apiKey: created.secret, baseUrl });
    assert.equal((await reader.clients.list()).lastResponse.status, 200);
    const rolled = await bms.apiKeys.roll(created.id);
    assert.equal(rolled.lastResponse.status, 200);
    assert.equal(rolled.id, created.id);
    assert.notEqual(rolled.secret, created.secret);
    assert.equal((await new BmsClient({ apiKey: rolled.secret, baseUrl }).clients.list()).lastResponse.status, 200);
    // The roll had no overlap: the first secret stopped at once.
    assert.equal((await rejection(reader.clients.list({}, { maxRetries: 0 }))).status, 401);
    assert.deepEqual(statuses, [201, 200]);
  });

  test('an app’s client built with a refresh token renews its access token and hands each new pair to onTokens', async () => {
    const { key } = await context.account('An app’s business');
    const installed = await installApp(context, key);
    const pairs: sdk.OAuthTokens[] = [];
    const bms = new BmsClient({
      baseUrl,
      oauth: {
        clientId: installed.app.id,
        clientSecret: installed.app.client_secret,
        refreshToken: installed.refresh_token,
        onTokens: (tokens) => {
          pairs.push(tokens);
        },
      },
    });
    // No access token given: the first call renews first.
    assert.equal((await bms.clients.create({ name: 'Made with a token' })).lastResponse.status, 201);
    assert.equal(pairs.length, 1);
    assert.match(pairs[0]!.refreshToken, /^bmsrt_/);
    assert.notEqual(pairs[0]!.refreshToken, installed.refresh_token);
    assert.equal(pairs[0]!.installId, installed.install_id);
    // Concurrent calls share the one token; a revoked access token is renewed once, and the call succeeds.
    await Promise.all([bms.clients.list(), bms.clients.list()]);
    assert.equal(pairs.length, 1);
    await context.database.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: new Date().toISOString() })
      .where('kind', '=', 'access')
      .where('install_id', '=', installed.install_id)
      .execute();
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the token cache's 2 s
    assert.equal((await bms.clients.list()).lastResponse.status, 200);
    assert.equal(pairs.length, 2);
    // The newest refresh token is the one that works: the first, superseded long ago, ends the install.
    const stale = new BmsClient({
      baseUrl,
      oauth: {
        clientId: installed.app.id,
        clientSecret: installed.app.client_secret,
        refreshToken: pairs[1]!.refreshToken,
      },
    });
    assert.equal((await stale.clients.list()).lastResponse.status, 200);
    assert.doesNotMatch(inspect(bms), /bmsrt_|bmsat_/);
  });

  test('a key create whose response was lost is not sent again (it may have been carried out)', async () => {
    const { key } = await context.account('Lost key create');
    const proxy = await startFlakyProxy(baseUrl, 'drop-response');
    try {
      const failed = await rejection(
        new BmsClient({ apiKey: key, baseUrl: proxy.url }).apiKeys.create({ name: 'Once', scopes: ['clients:read'] }),
      );
      assert.ok(failed instanceof sdk.APIConnectionError);
      assert.equal(proxy.connections, 1);
    } finally {
      await proxy.close();
    }
    const keys = await new BmsClient({ apiKey: key, baseUrl }).apiKeys.list();
    assert.equal(keys.data.filter((listed) => listed.name === 'Once').length, 1);
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
        'quote.delivery_status.length',
        "bms.quotes.update('q', { status: 'converted' })",
        "bms.serviceRequests.update('r', { status: 'converted' })",
        "(error.code === 'VALIDATON_ERROR')",
        "(event.type === 'client.created' && event.data.object.amount)",
        "bms.webhookEndpoints.create({ url: 'https://x', enabled_events: ['invoice.payed'] })",
      ];
      fs.writeFileSync(
        path.join(directory, 'mistakes.ts'),
        `import { BmsClient, type BmsError, type Client, type Event, type InvoiceLineItemParams, type Page, type Quote } from '@bms/sdk';\nconst bms = new BmsClient({ apiKey: 'bms_x' });\nconst line: InvoiceLineItemParams = { description: 'Fine', quantity: 1, unit_amount: 100 };\ndeclare const quote: Quote, error: BmsError, event: Event; const clients: Promise<Page<Client>> = bms.clients.list();\nvoid [line, clients, quote.delivery_status?.length, error.code === 'VALIDATION_ERROR', bms.quotes.update('q', { status: 'approved' }), event.type === 'payment.created' && event.data.object.amount, bms.webhookEndpoints.create({ url: 'https://x', enabled_events: ['invoice.*'] })];\nvoid bms.invoices.list({ status: ['sent', 'paid'] });\n${mistakes.map((line) => `void ${line};`).join('\n')}\n`,
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
        mistakes.map((_, index) => 7 + index),
        compiled.output,
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

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

  test('escape hatches: per-call headers and query, bms.request, If-None-Match with a 304, a page’s lastResponse', async () => {
    const page = JSON.stringify({ data: [], meta: { pagination: { has_more: false, next_cursor: null } } });
    const server = await scriptedServer([
      { status: 200, body: CLIENT_BODY },
      { status: 200, body: CLIENT_BODY },
      { status: 304, headers: { etag: '"pdf-1"' } },
      { status: 200, headers: { 'x-request-id': 'req_page' }, body: page },
    ]);
    try {
      const bms = new BmsClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });
      await bms.clients.get('c1', {
        headers: { 'x-trace': 't-1', Authorization: 'Bearer stolen' },
        query: { expand: 'all' },
      });
      assert.equal(server.requests[0]!.url, '/v1/clients/c1?expand=all');
      assert.equal(server.requests[0]!.headers['x-trace'], 't-1');
      assert.equal(server.requests[0]!.headers.authorization, `Bearer ${KEY}`, 'the key cannot be replaced');
      const raw = await bms.request<{ id: string }>('GET', '/v1/clients/c1');
      assert.deepEqual([raw.id, raw.lastResponse.status], ['c1', 200]);
      const pdf = await bms.invoices.getPdf('i1', { ifNoneMatch: '"pdf-1"' });
      assert.equal(server.requests[2]!.headers['if-none-match'], '"pdf-1"');
      assert.deepEqual([pdf.byteLength, pdf.lastResponse.status, pdf.lastResponse.etag], [0, 304, '"pdf-1"']);
      const list = bms.clients.list();
      const promise: Promise<sdk.Page<sdk.Client>> = list;
      assert.equal(Object.prototype.toString.call(list), '[object PagePromise]');
      const first = await promise;
      assert.deepEqual([first.lastResponse.status, first.lastResponse.requestId], [200, 'req_page']);
    } finally {
      await server.close();
    }
  });

  test('baseUrl: a /v1 suffix is dropped, a URL that is not http(s) is refused at once; the log hook omits the query', async () => {
    const server = await scriptedServer([
      { status: 200, body: CLIENT_BODY },
      { status: 200, body: JSON.stringify({ data: [], meta: { pagination: { has_more: false, next_cursor: null } } }) },
    ]);
    try {
      const entries: sdk.RequestLog[] = [];
      const bms = new BmsClient({ apiKey: KEY, baseUrl: `${server.url}/v1/`, log: (entry) => entries.push(entry) });
      await bms.clients.get('c1');
      assert.equal(server.requests[0]!.url, '/v1/clients/c1');
      await bms.clients.list({ q: 'jane@example.com' });
      assert.equal(server.requests[1]!.url, '/v1/clients?q=jane%40example.com');
      assert.equal(entries[1]!.url, `${server.url}/v1/clients`, 'no query string in the log');
      for (const baseUrl of ['localhost:3000', 'bms.example.com', 'ftp://bms.example.com'])
        assert.throws(() => new BmsClient({ apiKey: KEY, baseUrl }), TypeError, baseUrl);
    } finally {
      await server.close();
    }
  });

  test('Retry-After is waited with up to 10% (at most a second) of jitter', async () => {
    const { retryAfterWithJitter } = await import('../sdks/js/src/transport.js');
    const waits = Array.from({ length: 50 }, () => retryAfterWithJitter(2_000));
    assert.ok(
      waits.every((wait) => wait >= 2_000 && wait <= 2_200),
      waits.join(', '),
    );
    assert.ok(new Set(waits).size > 1, 'jittered');
    assert.ok(retryAfterWithJitter(60_000) <= 61_000);
    // And a retry waits that: Retry-After 1 with (nearly) the largest jitter is 1.1 s.
    const server = await scriptedServer([
      { status: 503, headers: { 'retry-after': '1' }, body: BUSY },
      { status: 200, body: CLIENT_BODY },
    ]);
    const random = Math.random;
    Math.random = () => 0.999;
    try {
      const entries: sdk.RequestLog[] = [];
      const started = Date.now();
      await new BmsClient({ apiKey: KEY, baseUrl: server.url, log: (entry) => entries.push(entry) }).clients.get('c1');
      assert.equal(entries[0]!.retryInMs, 1_100);
      assert.ok(Date.now() - started >= 1_099, `waited ${Date.now() - started} ms`);
    } finally {
      Math.random = random;
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

  test('a secret that is not base64 is a WebhookVerificationError; a parsed body a TypeError that says why; bms.webhooks', async () => {
    const fixture = signedFixture();
    await assert.rejects(sdk.webhooks.verify(fixture.payload, fixture.headers, 'whsec_not*base64!'), (error) => {
      assert.ok(error instanceof sdk.WebhookVerificationError, String(error));
      assert.match(error.message, /secret/);
      return true;
    });
    await assert.rejects(
      sdk.webhooks.verify(JSON.parse(fixture.payload) as never, fixture.headers, fixture.secret),
      (error: Error) => error instanceof TypeError && /raw body/.test(error.message),
    );
    const bms = new BmsClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9' });
    assert.equal((await bms.webhooks.verify(fixture.payload, fixture.headers, fixture.secret)).type, 'invoice.paid');
  });
});

describe('Python SDK', () => {
  test('its unittest suite (every endpoint, paging, errors, retries, README) passes against this server', async () => {
    const { accountId: pythonAccount, key } = await context.account('Python');
    const limited = (await context.key(pythonAccount, SCOPES, { rateLimits: { burst: 1, perMinute: 60 } })).key;
    const readOnly = (await context.key(pythonAccount, ['clients:read'])).key;
    const installed = await installApp(context, key);
    // The asyncio client's refresher gets an install of its own: refresh tokens rotate at every use.
    const asyncInstalled = await installApp(context, key);
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
        BMS_OAUTH_CLIENT_ID: installed.app.id,
        BMS_OAUTH_CLIENT_SECRET: installed.app.client_secret,
        BMS_OAUTH_REFRESH_TOKEN: installed.refresh_token,
        BMS_OAUTH_ASYNC_CLIENT_ID: asyncInstalled.app.id,
        BMS_OAUTH_ASYNC_CLIENT_SECRET: asyncInstalled.app.client_secret,
        BMS_OAUTH_ASYNC_REFRESH_TOKEN: asyncInstalled.refresh_token,
        BMS_WEBHOOK_FIXTURE: fixture,
      },
    });
    fs.rmSync(fixtureDirectory, { recursive: true, force: true });
    assert.equal(result.status, 0, result.output);
    const ran = Number(/Ran (\d+) tests?/.exec(result.output)?.[1] ?? 0);
    assert.ok(ran >= 8, `ran ${ran} Python tests`);
  });

  test('mypy --strict refuses what the server would refuse or the data does not hold', async () => {
    const directory = temporaryDirectory('bms-sdk-mypy-');
    try {
      const mistakes = [
        'quote["delivery_status"].upper()',
        'bms.quotes.update("q", status="converted")',
        'bms.service_requests.update("r", status="converted")',
        'webhooks.verify("{}", {}, "whsec_x")["no_such_key"]',
        'bms.invoices.create(line_items=[])',
        'bms.jobs.create(title="x")',
        'print(event["data"]["object"]["amount"] if event["type"] == "client.created" else None)',
        'bms.webhook_endpoints.create(url="https://x", enabled_events=["invoice.payed"])',
        'print(error.code == "VALIDATON_ERROR")',
        'bms.clients.get("c", if_none_match="x")',
        'bms.request("FETCH", "/v1/clients")',
      ];
      // Lines 1-6 are correct uses that must pass; each mistake is one line after them.
      fs.writeFileSync(
        path.join(directory, 'mistakes.py'),
        `from bms_sdk import BmsClient, BmsError, Quote, webhooks\nbms = BmsClient(api_key="bms_x")\nquote: Quote = bms.quotes.get("q")\nevent = webhooks.verify("{}", {}, "whsec_x")\nprint(quote["delivery_status"] or "", bms.quotes.update("q", status="approved"), event["type"], bms.invoices.create(client_id="c"), event["data"]["object"]["amount"] if event["type"] == "payment.created" else None, bms.webhook_endpoints.create(url="https://x", enabled_events=["invoice.*"]))\nerror = BmsError("m", status=None, code="TIMEOUT"); print(error.code == "VALIDATION_ERROR", error.code == "HTTP_502", bms.invoices.get_pdf("i", if_none_match="x"), bms.request("GET", "/v1/x", extra_headers={"x-a": "b"}))\n${mistakes.join('\n')}\n`,
      );
      const result = await run('mypy', ['--strict', '--no-incremental', 'mistakes.py'], {
        cwd: directory,
        env: { ...process.env, MYPYPATH: path.join(ROOT, 'sdks/python') },
      });
      const errorLines = new Set(
        [...result.output.matchAll(/mistakes\.py:(\d+): error/g)].map((match) => Number(match[1])),
      );
      assert.deepEqual(
        [...errorLines].sort((a, b) => a - b),
        mistakes.map((_, index) => 7 + index),
        result.output,
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  test('mypy --strict passes on the package, for Python 3.10 (its oldest)', async () => {
    const result = await run('mypy', ['--strict', '--python-version', '3.10', 'bms_sdk'], {
      cwd: path.join(ROOT, 'sdks/python'),
      env: process.env,
    }).catch((error: Error) => ({
      status: null,
      output: `${error.message}: install mypy (Debian's package; .ci/run does)`,
    }));
    assert.equal(result.status, 0, result.output);
  });
});
