// Hardening, third round (issue 34; docs/api-contract.md §21): each numbered item of the issue is a test named
// after it, written to fail on the code before its fix. The fairness items (1–3) have their own file.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { clientSuite } from './helpers/state-table.js';
import { runBmsAsync } from './helpers/processes.js';
import { createTestContext } from './helpers/context.js';
import { attemptWebhook } from '../src/modules/events/index.js';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { startReceiver } from './helpers/receiver.js';
import { ManualClock } from '../src/core/deps.js';
import { png, rgbaPng } from './helpers/images.js';

const suite = clientSuite('Hardening');

const api = (method: string, url: string, body?: unknown, key = suite.key) =>
  suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

/** A sent invoice of `total` minor units in `currency` (one line, no tax). */
async function sentInvoice(total: number, currency = 'USD'): Promise<string> {
  const created = await api('POST', '/v1/invoices', {
    client_id: suite.clientId,
    currency,
    line_items: [{ description: 'Work', quantity: 1, unit_amount: total }],
  });
  assert.equal(created.status, 201, created.text);
  const sent = await api('PUT', `/v1/invoices/${created.body.data.id}`, { status: 'sent' });
  assert.equal(sent.status, 200, sent.text);
  return created.body.data.id;
}

/** The events about `resourceId`, newest first. */
const eventsOf = async (resourceId: string): Promise<{ id: string; type: string; data: any }[]> =>
  (await api('GET', `/v1/events?resource_id=${resourceId}&limit=100`)).body.data;

/** The types of the events about `resourceId` that are not among `known`. */
const newEventTypes = async (resourceId: string, known: Set<string>): Promise<string[]> =>
  (await eventsOf(resourceId)).filter((event) => !known.has(event.id)).map((event) => event.type);

const eventIds = async (...resourceIds: string[]): Promise<Set<string>> =>
  new Set((await Promise.all(resourceIds.map(eventsOf))).flat().map((event) => event.id));

describe('delivery and data integrity', () => {
  test('34.9 a refund on a paid invoice records payment.refunded and invoice.updated, never invoice.sent', async () => {
    const invoiceId = await sentInvoice(5_000);
    const payment = (await api('POST', '/v1/payments', { invoice_id: invoiceId, amount: 5_000, method: 'card' })).body
      .data;
    assert.equal((await api('GET', `/v1/invoices/${invoiceId}`)).body.data.status, 'paid');
    const known = await eventIds(invoiceId, payment.id);

    const refund = await api('POST', `/v1/payments/${payment.id}/refund`, { amount: 1_000 });
    assert.equal(refund.status, 200, refund.text);
    assert.equal((await api('GET', `/v1/invoices/${invoiceId}`)).body.data.status, 'sent');
    assert.deepEqual(await newEventTypes(invoiceId, known), ['invoice.updated']);
    assert.deepEqual(await newEventTypes(payment.id, known), ['payment.refunded']);
    const [updated] = (await eventsOf(invoiceId)).filter((event) => !known.has(event.id));
    assert.deepEqual(
      { status: updated?.data.previous_attributes.status, amount_paid: updated?.data.previous_attributes.amount_paid },
      { status: 'paid', amount_paid: 5_000 },
    );
  });

  test('34.8 an invoice currency is frozen once a payment or a sent version exists: 409 INVALID_STATE', async () => {
    // Sent, no payment yet: the client was shown this currency.
    const sent = await sentInvoice(10_000, 'USD');
    const onSent = await api('PUT', `/v1/invoices/${sent}`, { currency: 'JPY' });
    assert.equal(onSent.status, 409, onSent.text);
    assert.equal(onSent.body.error.code, 'INVALID_STATE');
    assert.match(onSent.body.error.message, /currency/);

    // With a payment in USD: never becomes a JPY invoice.
    await api('POST', '/v1/payments', { invoice_id: sent, amount: 2_500, method: 'cash' });
    const onPaid = await api('PUT', `/v1/invoices/${sent}`, { currency: 'JPY', notes: 'Yen please' });
    assert.equal(onPaid.status, 409, onPaid.text);
    assert.equal(onPaid.body.error.code, 'INVALID_STATE');
    const after = (await api('GET', `/v1/invoices/${sent}`)).body.data;
    assert.deepEqual([after.currency, after.notes], ['USD', null], 'nothing of the refused PUT was applied');

    // The same currency again is no change and is accepted; a draft's currency still changes freely.
    assert.equal((await api('PUT', `/v1/invoices/${sent}`, { currency: 'USD' })).status, 200);
    const draft = await api('POST', '/v1/invoices', { client_id: suite.clientId, currency: 'USD' });
    const changed = await api('PUT', `/v1/invoices/${draft.body.data.id}`, { currency: 'EUR' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.currency, 'EUR');

    // A quote once sent keeps its currency too, even back in draft.
    const quote = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      currency: 'USD',
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 1_000 }],
    });
    assert.equal((await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status: 'sent' })).status, 200);
    const onQuote = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { currency: 'JPY' });
    assert.equal(onQuote.status, 409, onQuote.text);
    assert.equal(onQuote.body.error.code, 'INVALID_STATE');
  });
});

describe('one tenant must not hurt another', () => {
  const endpoint = (key: string, n: number) =>
    suite.context.request('POST', '/v1/webhook-endpoints', {
      key,
      body: { url: `http://127.0.0.1:9/hook-${n}`, enabled_events: ['*'] },
    });

  test('34.4 webhook endpoints are capped at 16 per account: the 17th is 422 on url; the CLI raises one account', async () => {
    const { accountId, key } = await suite.context.account('Endpoint collector');
    for (let n = 1; n <= 16; n += 1) assert.equal((await endpoint(key, n)).status, 201, `endpoint ${n}`);
    const seventeenth = await endpoint(key, 17);
    assert.equal(seventeenth.status, 422, seventeenth.text);
    assert.equal(seventeenth.body.error.code, 'VALIDATION_ERROR');
    assert.equal(seventeenth.body.error.details[0].field, 'url');
    assert.match(seventeenth.body.error.details[0].message, /16 webhook endpoints/);
    assert.match(seventeenth.body.error.details[0].message, /bms accounts set-limits/);
    // Another account is not affected; a deleted endpoint frees its place.
    assert.equal((await endpoint(suite.key, 1)).status, 201);
    const list = await suite.context.request('GET', '/v1/webhook-endpoints?limit=1', { key });
    assert.equal((await api('DELETE', `/v1/webhook-endpoints/${list.body.data[0].id}`, undefined, key)).status, 200);
    assert.equal((await endpoint(key, 17)).status, 201);
    assert.equal((await endpoint(key, 18)).status, 422);

    // The operator raises this account's limit with the CLI (a real `bms` process on the same database).
    const env = { DATABASE_URL: suite.context.databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    const raised = await runBmsAsync(['accounts', 'set-limits', accountId, '--webhook-endpoints', '17', '--json'], env);
    assert.equal(raised.status, 0, raised.stderr);
    assert.deepEqual(JSON.parse(raised.stdout), { id: accountId, limits: { webhook_endpoints: 17 } });
    assert.equal((await endpoint(key, 18)).status, 201);
    assert.equal((await endpoint(key, 19)).status, 422);
    const bad = await runBmsAsync(['accounts', 'set-limits', accountId, '--webhook-endpoints', '0'], env);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--webhook-endpoints must be a whole number/);
  });

  test('34.4 an event fans out to 4,096 endpoints (an account the operator raised) with one statement: 201, one row each', async () => {
    const { accountId, key } = await suite.context.account('Raised account');
    const now = new Date().toISOString();
    const rows = Array.from({ length: 4_096 }, (_, n) => ({
      id: randomUUID(),
      account_id: accountId,
      url: `http://127.0.0.1:9/fan-${n}`,
      description: null,
      enabled_events: JSON.stringify(n % 2 === 0 ? ['*'] : ['client.*']),
      status: 'enabled',
      disabled_reason: null,
      secret: `whsec_${n}`,
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    }));
    // One more that listens for something else: it gets nothing.
    rows.push({ ...rows[0]!, id: randomUUID(), url: 'http://127.0.0.1:9/other', enabled_events: '["invoice.paid"]' });
    for (let start = 0; start < rows.length; start += 500)
      await suite.context.database.db
        .insertInto('webhook_endpoints')
        .values(rows.slice(start, start + 500))
        .execute();

    const created = await suite.context.request('POST', '/v1/clients', { key, body: { name: 'Fan-out' } });
    assert.equal(created.status, 201, created.text);
    const [event] = (await suite.context.request('GET', '/v1/events?limit=1', { key })).body.data;
    const deliveries = await suite.context.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'status', 'attempt', 'event_type'])
      .where('event_id', '=', event.id)
      .execute();
    assert.equal(deliveries.length, 4_096);
    assert.equal(new Set(deliveries.map((delivery) => delivery.endpoint_id)).size, 4_096);
    assert.equal(new Set(deliveries.map((delivery) => delivery.id)).size, 4_096);
    assert.ok(deliveries.every((d) => d.status === 'pending' && d.attempt === 1 && d.event_type === 'client.created'));
    assert.ok(
      deliveries.every((d) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(d.id)),
    );
  });
});

describe('inputs and what errors say', () => {
  // Every range of the IANA special-purpose registries, and the IPv6 forms that embed an IPv4 address.
  const NOT_PUBLIC = [
    '127.0.0.1',
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '192.0.0.170',
    '192.0.2.1',
    '192.31.196.1',
    '192.52.193.1',
    '192.88.99.1',
    '192.168.1.1',
    '192.175.48.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.5',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '[::]',
    '[::1]',
    '[::7f00:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[64:ff9b::7f00:1]',
    '[64:ff9b:1::7f00:1]',
    '[100::1]',
    '[2001::7f00:1]',
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
    '[2001:2::1]',
    '[2001:10::1]',
    '[2001:20::1]',
    '[2001:db8::1]',
    '[2002:7f00:1::1]',
    '[3fff::1]',
    '[5f00::1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[fe80::1]',
    '[fec0::1]',
    '[ff02::1]',
  ];

  test('34.14 webhook URLs: every special-purpose IPv4 and IPv6 range, embedded forms too, is 422 on create, update and refused at delivery', async () => {
    const strict = await createTestContext({ env: { WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const { key } = await strict.account();
      const create = (url: string) =>
        strict.request('POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events: ['*'] } });
      const accepted: string[] = [];
      const refusals: Array<{ field: string; message: string }> = [];
      for (const host of NOT_PUBLIC) {
        const response = await create(`https://${host}/hooks`);
        if (response.status !== 422) accepted.push(`${host}: ${response.status}`);
        else refusals.push(response.body.error.details[0]);
      }
      assert.deepEqual(accepted, [], 'every special-purpose address is refused at create');
      for (const refusal of refusals) {
        assert.equal(refusal.field, 'url');
        assert.match(refusal.message, /not a public address/);
      }

      // A name that resolves to loopback: refused, without saying what it resolved to.
      const named = await create('https://localhost/hooks');
      assert.equal(named.status, 422, named.text);
      assert.match(named.body.error.details[0].message, /public address/);
      assert.doesNotMatch(named.text, /127\.0\.0\.1|::1/);

      // Public addresses are accepted; an update to an embedded form is refused.
      for (const url of ['https://1.1.1.1/hooks', 'https://[2606:4700:4700::1111]/hooks']) {
        const response = await create(url);
        assert.equal(response.status, 201, `${url}: ${response.text}`);
      }
      const endpoint = (await strict.request('GET', '/v1/webhook-endpoints?limit=1', { key })).body.data[0];
      const update = await strict.request('PUT', `/v1/webhook-endpoints/${endpoint.id}`, {
        key,
        body: { url: 'https://[::ffff:0:a9fe:a9fe]/latest/meta-data/' },
      });
      assert.equal(update.status, 422, update.text);
      assert.equal(update.body.error.details[0].field, 'url');
    } finally {
      await strict.close();
    }

    // At delivery (a host re-pointed after it was checked): refused before any connection is made.
    for (const host of ['[::7f00:1]', '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::1]', '192.0.0.170']) {
      const attempt = await attemptWebhook(`https://${host}/hooks`, {}, '{}', {
        timeoutMs: 2_000,
        allowPrivate: false,
      });
      assert.equal(attempt.ok, false);
      assert.equal(attempt.status, null);
      assert.match(attempt.error ?? '', /^refused: .*not a public address/, host);
    }
  });
});

describe('control characters in text fields', () => {
  test('34.15 single-line fields refuse CR, LF, NUL and other C0/C1 controls (422 naming each field); multi-line fields keep LF and tab only', async () => {
    // The From display name of every e-mail: a CR/LF in it broke a standard e-mail parser.
    const profile = await api('PUT', '/v1/account', { name: 'Acme\r\nBcc: victim@example.com' });
    assert.equal(profile.status, 422, profile.text);
    assert.equal(profile.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      profile.body.error.details.map((detail: { field: string }) => detail.field),
      ['name'],
    );
    assert.match(profile.body.error.details[0].message, /single line/);

    // Every offending field in one answer: C0, DEL and C1 alike, in nested fields and metadata keys.
    const client = await api('POST', '/v1/clients', {
      name: 'Jane\u0085Cooper',
      company: 'Tab\tCompany',
      phone: '555\u007f0100',
      address: { line1: '1 Main St\n', city: 'Springfield' },
      metadata: { 'crm\nid': 'x' },
    });
    assert.equal(client.status, 422, client.text);
    assert.deepEqual(client.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
      'address.line1',
      'company',
      'metadata.crm\nid',
      'name',
      'phone',
    ]);
    const refusedNul = await api('POST', '/v1/clients', { name: 'Nul\u0000' });
    assert.equal(refusedNul.status, 422);
    assert.equal(refusedNul.body.error.details[0].field, 'name');

    // Multi-line fields: LF and tab kept, CR and other controls refused.
    const notes = 'Gate code 1234\n\tRing twice\nDog in the yard';
    const kept = await api('POST', '/v1/clients', { name: 'Multi Line', notes, metadata: { note: 'a\nb' } });
    assert.equal(kept.status, 201, kept.text);
    assert.equal(kept.body.data.notes, notes);
    const crlf = await api('PUT', `/v1/clients/${kept.body.data.id}`, { notes: 'Line one\r\nLine two' });
    assert.equal(crlf.status, 422, crlf.text);
    assert.equal(crlf.body.error.details[0].field, 'notes');
    assert.match(crlf.body.error.details[0].message, /line feeds and tabs/);
    const lines = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Boiler service\n- flush\n- new valve', quantity: 1, unit_amount: 100 }],
    });
    assert.equal(lines.status, 201, lines.text);
    const escape = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Boiler \u001b[31mservice', quantity: 1, unit_amount: 100 }],
    });
    assert.equal(escape.status, 422, escape.text);
    assert.equal(escape.body.error.details[0].field, 'line_items[0].description');
  });
});

describe('secrets in the logs', () => {
  /** The text with percent-encoding undone until it no longer changes. */
  function decodedFully(text: string): string {
    let current = text;
    for (;;) {
      const next = current.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
      if (next === current) return current;
      current = next;
    }
  }
  const percentEncoded = (text: string) =>
    [...text].map((character) => `%${character.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

  test('34.16 keys and secrets are redacted in every logged URL, percent-encoded or not', async () => {
    const body = suite.key.slice(4);
    const password = 'hunter2-hunter2-hunter2';
    const token = 'T0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k';
    const signing = 'whsecSecretPart0123456789';
    const before = suite.context.logs.length;
    const urls = [
      `/v1/clients?q=bms%5F${body}`,
      `/v1/clients?q=bms%255F${body}`,
      `/v1/clients?q=${percentEncoded(suite.key)}`,
      `/v1/clients?%70assword=${password}`,
      `/v1/clients?limit=5&api%5Fkey=${percentEncoded(body)}`,
      `/v1/clients/bms%5F${body}`,
      `/v1/clients?q=whsec%5F${signing}`,
      `/%68ub/${token}`,
      `/v1/clients?q=plain+text&limit=5`,
    ];
    for (const url of urls) await suite.context.request('GET', url, { key: suite.key });
    const lines = suite.context.logs.slice(before).filter((line) => line.includes('"msg":"request"'));
    assert.equal(lines.length, urls.length, 'every request was logged');
    const logged = lines.join('\n');
    for (const secret of [body, password, token, signing]) {
      assert.ok(!logged.includes(secret), `${secret.slice(0, 6)}… is not in the logs as sent`);
      assert.ok(!decodedFully(logged).includes(secret), `${secret.slice(0, 6)}… is not in the logs, decoded`);
    }
    assert.match(logged, /"url":"\/v1\/clients\?q=plain\+text&limit=5"/, 'what holds no secret is logged as sent');
  });
});

describe('the client hub', () => {
  /** RFC 6265 §5.1.4: whether a browser sends a cookie of path `cookiePath` with a request for `requestPath`. */
  function pathMatches(cookiePath: string, requestPath: string): boolean {
    if (requestPath === cookiePath) return true;
    if (!requestPath.startsWith(cookiePath)) return false;
    return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
  }

  test('34.13 PUBLIC_BASE_URL with a path (https://example.com/bms): the CSRF cookie is scoped to /bms/hub and approve works', async () => {
    const hub = await createTestContext({ env: { PUBLIC_BASE_URL: 'https://example.com/bms' } });
    try {
      const { key } = await hub.account();
      const client = await hub.request('POST', '/v1/clients', { key, body: { name: 'Path', email: 'p@example.com' } });
      const quote = await hub.request('POST', '/v1/quotes', {
        key,
        body: { client_id: client.body.data.id, line_items: [{ description: 'Work', quantity: 1, unit_amount: 500 }] },
      });
      const sent = await hub.request('POST', `/v1/quotes/${quote.body.data.id}/send`, { key });
      assert.equal(sent.status, 200, sent.text);
      const browserPath = new URL(sent.body.data.hosted_url).pathname;
      assert.match(browserPath, /^\/bms\/hub\/[A-Za-z0-9_-]{43}$/);
      // The proxy strips /bms: the server sees /hub/<token>; the browser sees /bms/hub/<token>.
      const serverPath = browserPath.slice('/bms'.length);
      const page = await hub.request('GET', serverPath);
      assert.equal(page.status, 200, page.text);
      const setCookie = String(page.headers['set-cookie']);
      const cookiePath = /; Path=([^;]+)/.exec(setCookie)?.[1] ?? '/';
      assert.equal(cookiePath, '/bms/hub');
      const approvePath = `${browserPath}/approve`;
      assert.match(page.text, new RegExp(`action="${approvePath}"`), 'the form posts to the browser path');
      // The browser sends the cookie with the approve only when its path matches.
      const cookie = pathMatches(cookiePath, approvePath) ? setCookie.split(';')[0]! : undefined;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
      const version = /name="version" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
      const answered = await hub.request('POST', `${serverPath}/approve`, {
        rawBody: new URLSearchParams({ csrf, version, name: 'Jane Doe' }).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
          ...(cookie ? { cookie } : {}),
        },
      });
      assert.equal(answered.status, 303, answered.text);
      assert.equal(answered.headers.location, browserPath);
      const stored = await hub.request('GET', `/v1/quotes/${quote.body.data.id}`, { key });
      assert.equal(stored.body.data.status, 'approved');
    } finally {
      await hub.close();
    }
  });
});

describe('webhook outcomes', () => {
  test("34.7 a receiver answering a NUL byte: its outcome is stored sanitised, and another account's outcome is kept (delivered once)", async () => {
    const context = await createTestContext({
      env: {
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        WEBHOOK_POLL_MS: '20',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_LEASE_MS: '3000',
      },
    });
    const quiet = { info() {}, warn() {}, error() {} };
    const worker = new WebhookWorker(context.database, context.clock, context.config.webhooks, quiet);
    const poisoned = await startReceiver({ status: 200, body: 'ok\u0000\u0000 then more' });
    const healthy = await startReceiver({ status: 200, body: 'fine' });
    try {
      const accounts = [await context.account('Poisoned'), await context.account('Healthy')];
      const endpointIds: string[] = [];
      for (const [index, receiver] of [poisoned, healthy].entries()) {
        const created = await context.request('POST', '/v1/webhook-endpoints', {
          key: accounts[index]!.key,
          body: { url: receiver.url, enabled_events: ['client.created'] },
        });
        assert.equal(created.status, 201, created.text);
        endpointIds.push(created.body.data.id);
      }
      for (const { key } of accounts)
        assert.equal((await context.request('POST', '/v1/clients', { key, body: { name: 'X' } })).status, 201);
      worker.start();
      await Promise.all([poisoned.waitFor(1), healthy.waitFor(1)]);
      const logOf = async (index: number) =>
        (
          await context.request('GET', `/v1/webhook-endpoints/${endpointIds[index]}/deliveries`, {
            key: accounts[index]!.key,
          })
        ).body.data as Array<{ status: string; response_body: string | null }>;
      const deadline = Date.now() + 8_000;
      while ((await logOf(0))[0]?.status !== 'succeeded' || (await logOf(1))[0]?.status !== 'succeeded') {
        assert.ok(Date.now() < deadline, `outcomes not recorded: ${JSON.stringify([await logOf(0), await logOf(1)])}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(
        (await logOf(0)).map((delivery) => [delivery.status, delivery.response_body]),
        [['succeeded', 'ok\uFFFD\uFFFD then more']],
      );
      assert.deepEqual(
        (await logOf(1)).map((delivery) => [delivery.status, delivery.response_body]),
        [['succeeded', 'fine']],
      );
      // Past a lease: nothing was delivered twice.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      assert.deepEqual([poisoned.received.length, healthy.received.length], [1, 1]);
    } finally {
      await worker.stop();
      await poisoned.close();
      await healthy.close();
      await context.close();
    }
  });
});

describe('what a scope grants', () => {
  test('34.12 the guide’s scope table says that webhooks:write receives every event and that hosted_url acts as the customer', () => {
    const guide = fs.readFileSync(new URL('../docs/guide/access.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf('## Scopes'), guide.indexOf('## Rate limits'));
    const row = (scope: string) =>
      section.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${scope}\``)) ?? '';
    assert.match(row('webhooks:write'), /every event's data/);
    for (const scope of ['quotes:read', 'invoices:read', 'events:read'])
      assert.match(row(scope), /hosted_url.*acts as the customer/, scope);
  });
});

describe('bounded events and lists', () => {
  test('34.5 an invoice holds its 20 most recent payments with payments_count, a payment its 20 most recent refunds with refunds_count', async () => {
    const invoiceId = await sentInvoice(100_000);
    const paymentIds: string[] = [];
    for (let n = 0; n < 25; n += 1) {
      const paidAt = new Date(Date.UTC(2026, 0, 1 + n)).toISOString();
      const paid = await api('POST', '/v1/payments', {
        invoice_id: invoiceId,
        amount: 100,
        method: 'cash',
        paid_at: paidAt,
      });
      assert.equal(paid.status, 201, paid.text);
      paymentIds.push(paid.body.data.id);
    }
    const invoice = (await api('GET', `/v1/invoices/${invoiceId}`)).body.data;
    assert.equal(invoice.payments_count, 25);
    assert.deepEqual(
      invoice.payments.map((payment: { id: string }) => payment.id),
      paymentIds.slice(5),
      'the 20 most recent, oldest first among them',
    );
    assert.equal(invoice.amount_paid, 2_500, 'the balance counts every payment, listed or not');
    const listed = await api('GET', `/v1/payments?invoice_id=${invoiceId}&limit=100`);
    assert.equal(listed.body.data.length, 25, 'the rest are listed by GET /v1/payments?invoice_id=');
    // The invoice's event carries the same bounded list.
    const [event] = await eventsOf(invoiceId);
    assert.equal(event?.data.object.payments.length, 20);
    assert.equal(event?.data.object.payments_count, 25);
    // payments_count is read-only.
    const written = await api('PUT', `/v1/invoices/${invoiceId}`, { payments_count: 1 });
    assert.equal(written.status, 422, written.text);

    const big = await api('POST', '/v1/payments', { invoice_id: invoiceId, amount: 5_000, method: 'card' });
    const refundIds: string[] = [];
    for (let n = 0; n < 22; n += 1) {
      const refunded = await api('POST', `/v1/payments/${big.body.data.id}/refund`, { amount: 10 });
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.body.data.refunds_count, n + 1);
      assert.equal(refunded.body.data.refunds.length, Math.min(n + 1, 20));
      refundIds.push(refunded.body.data.refunds.at(-1).id);
    }
    const payment = (await api('GET', `/v1/payments/${big.body.data.id}`)).body.data;
    assert.equal(payment.refunds_count, 22);
    assert.equal(payment.amount_refunded, 220);
    assert.deepEqual(
      payment.refunds.map((refund: { id: string }) => refund.id),
      refundIds.slice(2),
    );
    const afterRefunds = (await api('GET', `/v1/invoices/${invoiceId}`)).body.data;
    assert.equal(afterRefunds.payments_count, 26);
    assert.equal(afterRefunds.payments.at(-1).id, big.body.data.id);
  });

  test('34.5 no event is over 64 KB: an invoice of 200 long lines, edited, records events of at most 64 KB that say they are truncated', async () => {
    const line = (n: number) => ({
      description: `${'Ünïcödé wörk '.repeat(35)}${n}`.slice(0, 500),
      quantity: 1,
      unit_amount: 100,
    });
    const created = await api('POST', '/v1/invoices', {
      client_id: suite.clientId,
      line_items: Array.from({ length: 200 }, (_, n) => line(n)),
    });
    assert.equal(created.status, 201, created.text);
    assert.ok(Buffer.byteLength(JSON.stringify(created.body.data)) > 64 * 1024, 'the invoice itself is over 64 KB');
    const edited = await api('PUT', `/v1/invoices/${created.body.data.id}`, {
      line_items: Array.from({ length: 200 }, (_, n) => line(n + 1)),
    });
    assert.equal(edited.status, 200, edited.text);
    const small = await api('PUT', `/v1/invoices/${created.body.data.id}`, { line_items: [line(1)] });
    assert.equal(small.status, 200);
    const events = await eventsOf(created.body.data.id);
    assert.deepEqual(
      events.map((event) => event.type),
      ['invoice.updated', 'invoice.updated', 'invoice.created'],
    );
    for (const { id } of events) {
      const one = await api('GET', `/v1/events/${id}`);
      assert.ok(Buffer.byteLength(one.text) <= 64 * 1024 + 200, `event ${id}: ${Buffer.byteLength(one.text)} bytes`);
      assert.ok(Buffer.byteLength(JSON.stringify(one.body.data)) <= 64 * 1024);
      assert.equal(one.body.data.data.object.id, created.body.data.id);
    }
    const [shrunk, grown, first] = events;
    // Smaller after the edit: the whole object is kept, its old lines are left out.
    assert.equal(shrunk?.data.truncated, true);
    assert.equal(shrunk?.data.object.line_items.length, 1);
    assert.equal(shrunk?.data.previous_attributes, undefined);
    // Too large even without previous_attributes: a reference the receiver GETs.
    assert.deepEqual(grown?.data.object, { id: created.body.data.id, object: 'invoice' });
    assert.deepEqual(first?.data.object, { id: created.body.data.id, object: 'invoice' });
    assert.equal(first?.data.truncated, true);
  });

  test('34.5 a list answer is bounded in bytes (about 5 MB): it ends early with has_more and a cursor that resumes it', async () => {
    const { accountId, key } = await suite.context.account('Large events');
    const { v7 } = await import('uuid');
    const padding = 'x'.repeat(60 * 1024);
    const start = Date.now() - 60_000;
    const rows = Array.from({ length: 120 }, (_, n) => ({
      id: v7({ msecs: start + n }),
      account_id: accountId,
      type: 'client.updated',
      resource_id: randomUUID(),
      data: JSON.stringify({ object: { id: randomUUID(), object: 'client', notes: padding } }),
      actor_type: 'api_key',
      actor_id: null,
      created_at: new Date(start + n).toISOString(),
    }));
    for (let from = 0; from < rows.length; from += 20)
      await suite.context.database.db
        .insertInto('events')
        .values(rows.slice(from, from + 20))
        .execute();
    const seen: string[] = [];
    let url = '/v1/events?limit=100';
    const sizes: number[] = [];
    for (;;) {
      const page = await suite.context.request('GET', url, { key });
      assert.equal(page.status, 200, page.text.slice(0, 200));
      sizes.push(Buffer.byteLength(page.text));
      seen.push(...page.body.data.map((event: { id: string }) => event.id));
      const { has_more: hasMore, next_cursor: cursor } = page.body.meta.pagination;
      if (!hasMore) break;
      url = `/v1/events?limit=100&cursor=${cursor}`;
    }
    assert.ok(sizes[0]! <= 5 * 1024 * 1024 + 64 * 1024, `first page ${sizes[0]} bytes`);
    assert.ok(sizes[0]! > 4 * 1024 * 1024, `first page ${sizes[0]} bytes`);
    assert.ok(sizes.length >= 2, 'the 100-row page ended early');
    assert.deepEqual(seen, rows.map((row) => row.id).reverse(), 'every event exactly once, newest first');
  });

  test('34.5b a resource list (clients) is bounded in bytes too, each object counted as it is sent, and resumes where it ended', async () => {
    const { accountId, key } = await suite.context.account('Large clients');
    const { v7 } = await import('uuid');
    // Longer than the API accepts (5,000 characters), as an import or a shell could store them: 100 clients
    // of ~60 KB are ~6 MB, more than a page may carry; a multi-byte character makes the exact count matter.
    const notes = `€${'x'.repeat(60 * 1024)}`;
    const start = Date.now() - 60_000;
    const ids: string[] = [];
    for (let n = 0; n < 100; n += 1) {
      const at = new Date(start + n).toISOString();
      const id = v7({ msecs: start + n });
      ids.push(id);
      await suite.context.database.db
        .insertInto('clients')
        .values({
          id,
          account_id: accountId,
          name: `Big ${n}`,
          sort_name: `big ${n}`,
          notes,
          metadata: '{}',
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let url = '/v1/clients?limit=100';
    for (;;) {
      const page = await suite.context.request('GET', url, { key });
      assert.equal(page.status, 200, page.text.slice(0, 200));
      sizes.push(Buffer.byteLength(page.text));
      seen.push(...page.body.data.map((client: { id: string }) => client.id));
      const { has_more: hasMore, next_cursor: cursor } = page.body.meta.pagination;
      if (!hasMore) break;
      assert.equal(page.headers.link, `</v1/clients?limit=100&cursor=${cursor}>; rel="next"`);
      url = `/v1/clients?limit=100&cursor=${cursor}`;
    }
    assert.ok(sizes[0]! <= 5 * 1024 * 1024 + 64 * 1024, `first page ${sizes[0]} bytes`);
    assert.ok(sizes[0]! > 4 * 1024 * 1024, `first page ${sizes[0]} bytes`);
    assert.equal(sizes.length, 2, 'the 100-client page ended early, once');
    assert.deepEqual(seen, [...ids].reverse(), 'every client exactly once, newest first');
  });
});

describe('event pruning', () => {
  test('34.6 pruning runs in batches until the retention is met, within a time budget: writing 2,500 events a run (faster than one batch) keeps the table flat', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
    const context = await createTestContext({ clock });
    const quiet = { info() {}, warn() {}, error() {} };
    try {
      const { accountId } = await context.account('Busy account');
      const { v7 } = await import('uuid');
      const worker = new WebhookWorker(context.database, clock, context.config.webhooks, quiet);
      const count = async () =>
        Number(
          (
            await context.database.db
              .selectFrom('events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      /** 2,500 events written now (more than one batch of 1,000 between two runs). */
      const write = async () => {
        const at = clock.now().getTime();
        const rows = Array.from({ length: 2_500 }, (_, n) => ({
          id: v7({ msecs: at + (n % 1000) }),
          account_id: accountId,
          type: 'client.updated',
          resource_id: randomUUID(),
          data: '{"object":{"id":"x"}}',
          actor_type: 'system',
          actor_id: null,
          created_at: new Date(at + (n % 1000)).toISOString(),
        }));
        for (let from = 0; from < rows.length; from += 250)
          await context.database.db
            .insertInto('events')
            .values(rows.slice(from, from + 250))
            .execute();
      };
      // Retention is 90 days; a run every 30 days of writing: at most 4 runs' writes are young enough to keep.
      const sizes: number[] = [];
      for (let run = 0; run < 8; run += 1) {
        await write();
        const { done } = await worker.prune();
        assert.equal(done, true, `run ${run} met the retention within its budget`);
        sizes.push(await count());
        clock.advance(30 * 86_400_000);
      }
      assert.deepEqual(sizes, [2_500, 5_000, 7_500, 10_000, 10_000, 10_000, 10_000, 10_000], 'the table stays flat');

      // A run out of time stops after its batch and says a backlog remains; the next run takes it up.
      clock.advance(120 * 86_400_000);
      assert.deepEqual(await worker.prune(0), { pruned: 1_000, done: false });
      assert.deepEqual(await worker.prune(), { pruned: 9_000, done: true });
      assert.equal(await count(), 0);
    } finally {
      await context.close();
    }
  });
});

describe('what errors say', () => {
  test('34.17 one 422 names every wrong field, schema and semantic checks together', async () => {
    // The issue's case: the schema misses enabled_events, the service's check refuses the URL.
    const both = await api('POST', '/v1/webhook-endpoints', { url: 'not a url' });
    assert.equal(both.status, 422, both.text);
    const fields = (response: { body: any }) =>
      response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    assert.deepEqual(fields(both), ['enabled_events', 'url']);
    assert.match(both.body.error.message, /2 invalid fields: /);

    // Both semantic checks together, when the schema has nothing to say.
    const semantic = await api('POST', '/v1/webhook-endpoints', {
      url: 'ftp://example.com/hooks',
      enabled_events: ['invoice.exploded'],
    });
    assert.equal(semantic.status, 422, semantic.text);
    assert.deepEqual(fields(semantic), ['enabled_events', 'url']);
    // The same on update, with a schema error beside them.
    const endpoint = await api('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['*'],
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const update = await api('PUT', `/v1/webhook-endpoints/${endpoint.body.data.id}`, {
      url: 'mailto:x@example.com',
      enabled_events: ['nope.*'],
      status: 'paused',
    });
    assert.equal(update.status, 422, update.text);
    assert.deepEqual(fields(update), ['enabled_events', 'status', 'url']);

    // Control characters and the schema's errors in one answer.
    const client = await api('POST', '/v1/clients', { name: 'Line\r\nbreak', email: 'not an address', colour: 'red' });
    assert.equal(client.status, 422, client.text);
    assert.deepEqual(fields(client), ['colour', 'email', 'name']);
  });

  test('34.17 every resource: a body with a schema error and a semantic error answers one 422 naming both', async () => {
    const fields = (response: { body: any }) =>
      response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    const job = await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Mowing' });
    assert.equal(job.status, 201, job.text);
    const product = await api('POST', '/v1/products', { type: 'service', name: 'Drain clearing' });
    assert.equal(product.status, 201, product.text);
    const unknownRate = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    // [method, path, body, the fields the 422 names]: the schema's first, then the semantic checks'.
    const cases: [string, string, Record<string, unknown>, string[]][] = [
      [
        'POST',
        '/v1/products',
        {
          type: 'service',
          name: 'Drain',
          code: 5,
          default_quantity: 1.2345,
          taxable: false,
          tax_rate_ids: [unknownRate],
        },
        ['code', 'default_quantity', 'tax_rate_ids'],
      ],
      [
        'PUT',
        `/v1/products/${product.body.data.id}`,
        { name: '', default_quantity: 0.0001 },
        ['default_quantity', 'name'],
      ],
      ['POST', '/v1/tax-rates', { name: 'GST', percentage: 5.12345, compound: 'yes' }, ['compound', 'percentage']],
      [
        'POST',
        '/v1/team-members',
        // A metadata key is the caller's own: its timezone is any text.
        { name: 'Ann', email: 'not an address', timezone: 'Mars/Olympus', metadata: { timezone: 'Ann’s' } },
        ['email', 'timezone'],
      ],
      // A property's zone is the schema's own format (time-zone); it stays named once.
      [
        'POST',
        '/v1/properties',
        {
          client_id: suite.clientId,
          address: { line1: '1 Main Street', country: 'US' },
          timezone: 'Mars/Olympus',
          colour: 'red',
        },
        ['colour', 'timezone'],
      ],
      ['PUT', '/v1/account', { timezone: 'Mars/Olympus', colour: 'red' }, ['colour', 'timezone']],
      [
        'POST',
        '/v1/quotes',
        { client_id: suite.clientId, line_items: [{ description: 'Work', quantity: 1.23456, unit_amount: 'lots' }] },
        ['line_items[0].quantity', 'line_items[0].unit_amount'],
      ],
      [
        'POST',
        '/v1/invoices',
        {
          client_id: suite.clientId,
          currency: 'usd',
          discount: { type: 'percent', value: 12.34567 },
          line_items: [{ description: 'Work', quantity: 1, unit_amount: 100, tax_rate: 5.12345 }],
        },
        ['currency', 'discount.value', 'line_items[0].tax_rate'],
      ],
      [
        'POST',
        '/v1/jobs',
        {
          client_id: suite.clientId,
          title: 'Gutters',
          priority: 'high',
          line_items: [{ description: 'Work', quantity: 0.00001, unit_amount: 100 }],
        },
        ['line_items[0].quantity', 'priority'],
      ],
      [
        'POST',
        '/v1/visits',
        { job_id: job.body.data.id, local_start: '2026-02-30T09:00', duration_minutes: 60, colour: 'red' },
        ['colour', 'local_start'],
      ],
      [
        'POST',
        '/v1/api-keys',
        { name: 'Integration', scopes: ['clients:read'], per_minute: 0, allowed_cidrs: ['10.0.0.0/8', 'the office'] },
        ['allowed_cidrs[1]', 'per_minute'],
      ],
      [
        'POST',
        '/v1/visit-schedules',
        {
          job_id: job.body.data.id,
          duration_minutes: 30,
          horizon_days: 'many',
          recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-03-01', time: '09:00', timezone: 'Mars/Olympus' },
        },
        ['horizon_days', 'recurrence.timezone'],
      ],
    ];
    for (const [method, path, body, expected] of cases) {
      const response = await api(method, path, body);
      assert.equal(response.status, 422, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(fields(response), expected, `${method} ${path}: ${response.text}`);
      assert.match(response.body.error.message, new RegExp(`${expected.length} invalid fields`));
    }
    // A check that needs a field the schema refused says nothing about it: start_at has no offset (the
    // schema's), and duration_minutes is not 'needing a start' (it has one, refused).
    const noOffset = await api('POST', '/v1/visits', {
      job_id: job.body.data.id,
      start_at: '2026-03-10T09:00:00',
      duration_minutes: 60,
    });
    assert.deepEqual(fields(noOffset), ['start_at'], noOffset.text);
    // A body the schema accepts meets the service's checks, which name every field they refuse too.
    const semanticOnly = await api('POST', '/v1/tax-rates', { name: 'GST', percentage: 5.12345 });
    assert.equal(semanticOnly.status, 422, semanticOnly.text);
    assert.deepEqual(fields(semanticOnly), ['percentage']);
    const twoSemantic = await api('POST', '/v1/products', {
      type: 'service',
      name: 'Drain',
      default_quantity: 1.2345,
      taxable: false,
      tax_rate_ids: [unknownRate],
    });
    assert.equal(twoSemantic.status, 422, twoSemantic.text);
    assert.deepEqual(fields(twoSemantic), ['default_quantity', 'tax_rate_ids']);
  });

  // Ajv's own phrases (ajv/lib/vocabularies): none may reach a caller.
  const RAW_PHRASES =
    /must NOT|must be equal to|must match (pattern|format|a schema|exactly)|must have required property|must pass "|must be [<>]=? |must be (string|integer|number|boolean|object|array)\b|property name must be valid|must be multiple of|of type|allowed values|additional properties|are identical/;
  /** Keywords that say nothing about validity, and the ones the walk below knows how to break. */
  const ANNOTATIONS = new Set([
    'description',
    'example',
    'examples',
    'default',
    'x-list-of',
    'x-required-one-of',
    'title',
    'readOnly',
    'deprecated',
    '$id',
    'items',
    'properties',
    'anyOf',
    'oneOf',
    'allOf',
    'nullable',
  ]);
  const BREAKABLE = new Set([
    'type',
    'minLength',
    'maxLength',
    'pattern',
    'format',
    'enum',
    'const',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minItems',
    'maxItems',
    'uniqueItems',
    'minProperties',
    'maxProperties',
    'propertyNames',
    'additionalProperties',
    'required',
  ]);

  /** A value that breaks `keyword` of `schema`, or undefined when this keyword cannot be broken alone. */
  function breaking(keyword: string, schema: any): unknown {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    switch (keyword) {
      case 'type':
        return types.includes('string')
          ? 12_345
          : types.includes('object') || types.includes('array')
            ? 'text'
            : 'text';
      case 'minLength':
        return 'a'.repeat(Math.max(0, schema.minLength - 1));
      case 'maxLength':
        return 'a'.repeat(schema.maxLength + 1);
      case 'pattern':
        return ['', ' ', '!', 'zz', '#zz'].find((text) => !new RegExp(schema.pattern, 'u').test(text));
      case 'format':
        return 'not a valid value!';
      case 'enum':
        return '__not_one_of_them__';
      case 'const':
        return '__not_it__';
      case 'minimum':
        return schema.minimum - 1;
      case 'maximum':
        return schema.maximum + 1;
      case 'exclusiveMinimum':
        return schema.exclusiveMinimum;
      case 'exclusiveMaximum':
        return schema.exclusiveMaximum;
      case 'multipleOf':
        return schema.multipleOf / 3;
      case 'minItems':
        return [];
      case 'maxItems':
        return Array.from({ length: schema.maxItems + 1 }, () => 'x');
      case 'uniqueItems':
        return ['a', 'a'];
      case 'minProperties':
        return {};
      case 'maxProperties':
        return Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, n) => [`k${n}`, 'v']));
      case 'propertyNames':
        return { ['k'.repeat(41)]: 'v' };
      case 'additionalProperties':
        return schema.additionalProperties === false ? { zz_not_a_field: 1 } : undefined;
      case 'required':
        return {};
      default:
        return undefined;
    }
  }

  test('34.18 every 422 message is a sentence with the field path: a walk of every request schema in the OpenAPI document breaks each keyword it uses', async () => {
    const document = (await api('GET', '/v1/openapi.json')).body;
    const resolve = (schema: any): any =>
      schema?.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()]) : schema;
    type Step = string | number;
    const cases: Array<{
      method: string;
      url: string;
      in: 'body' | 'query';
      path: Step[];
      keyword: string;
      value: unknown;
    }> = [];
    const unknownKeywords = new Set<string>();
    const walk = (
      schema: any,
      path: Step[],
      emit: (path: Step[], keyword: string, value: unknown) => void,
      depth = 0,
    ) => {
      const resolved = resolve(schema);
      if (!resolved || typeof resolved !== 'object' || depth > 8) return;
      for (const keyword of Object.keys(resolved)) {
        if (ANNOTATIONS.has(keyword) || keyword === '$ref') continue;
        if (!BREAKABLE.has(keyword)) {
          unknownKeywords.add(keyword);
          continue;
        }
        const value = breaking(keyword, resolved);
        if (value !== undefined) emit(path, keyword, value);
      }
      for (const [name, property] of Object.entries(resolved.properties ?? {}))
        walk(property, [...path, name], emit, depth + 1);
      if (resolved.items) walk(resolved.items, [...path, 0], emit, depth + 1);
      for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
        walk(branch, path, emit, depth + 1);
    };
    for (const [route, item] of Object.entries<any>(document.paths)) {
      if (!route.startsWith('/v1/') || route === '/v1/openapi.json') continue;
      const url = route.replace(/\{[^}]+\}/g, randomUUID());
      for (const [method, operation] of Object.entries<any>(item)) {
        const body = operation.requestBody?.content?.['application/json']?.schema;
        if (body)
          walk(body, [], (path, keyword, value) => cases.push({ method, url, in: 'body', path, keyword, value }));
        for (const parameter of operation.parameters ?? [])
          if (parameter.in === 'query')
            walk(parameter.schema, [parameter.name], (path, keyword, value) => {
              if (path.length === 1 && (typeof value === 'string' || typeof value === 'number'))
                cases.push({ method, url, in: 'query', path, keyword, value });
            });
      }
    }
    assert.deepEqual([...unknownKeywords], [], 'every keyword the request schemas use is one this test breaks');
    // The walk covers the resources of contract v3 too: each one's create and update bodies and list query.
    const walked = new Set(
      cases.map((entry) => `${entry.method.toUpperCase()} ${entry.url.replace(/[0-9a-f-]{36}/g, ':id')} ${entry.in}`),
    );
    for (const resource of [
      '/v1/visits',
      '/v1/visit-schedules',
      '/v1/products',
      '/v1/tax-rates',
      '/v1/team-members',
      '/v1/properties',
      '/v1/api-keys',
    ])
      for (const operation of [`POST ${resource} body`, `PUT ${resource}/:id body`, `GET ${resource} query`])
        assert.ok(walked.has(operation), `the walk breaks ${operation}`);

    /** `value` at `path` inside an otherwise empty body: {line_items: [{description: value}]}. */
    const placed = (path: Step[], value: unknown): unknown =>
      path.length === 0
        ? value
        : typeof path[0] === 'number'
          ? [placed(path.slice(1), value)]
          : { [path[0]!]: placed(path.slice(1), value) };
    const problems: string[] = [];
    const broken = new Set<string>();
    for (const entry of cases) {
      const response =
        entry.in === 'body'
          ? await api(entry.method.toUpperCase(), entry.url, placed(entry.path, entry.value))
          : await api(
              entry.method.toUpperCase(),
              `${entry.url}?${entry.path[0]}=${encodeURIComponent(String(entry.value))}`,
            );
      const where = `${entry.method.toUpperCase()} ${entry.url} ${entry.in} ${entry.path.join('.')} ${entry.keyword}`;
      if (response.status >= 500) problems.push(`${where}: ${response.status}`);
      if (response.status !== 422) continue;
      broken.add(entry.keyword);
      for (const detail of response.body.error.details ?? []) {
        if (RAW_PHRASES.test(detail.message)) problems.push(`${where}: "${detail.message}"`);
        if (!detail.message.startsWith(detail.field))
          problems.push(`${where}: "${detail.message}" does not name ${detail.field}`);
      }
    }
    assert.deepEqual(problems, []);
    const used = new Set(cases.map((entry) => entry.keyword));
    assert.deepEqual(
      [...used].filter((keyword) => !broken.has(keyword)),
      [],
      'every keyword in use was broken at least once',
    );
    assert.ok(cases.length > 500, `${cases.length} cases`);

    // The issue's example, literally.
    const empty = await api('POST', '/v1/clients', { name: '' });
    assert.deepEqual(empty.body.error.details, [{ field: 'name', message: 'name must not be empty' }]);
  });
});

describe('the hub binds answers to what the client saw', () => {
  /** The hub page of a hosted URL, with what its forms carry and the cookie the browser would send back. */
  async function openPage(hostedUrl: string) {
    const path = new URL(hostedUrl).pathname;
    const page = await suite.context.request('GET', path);
    assert.equal(page.status, 200, page.text);
    return {
      path,
      page,
      csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '',
      version: /name="version" value="([^"]+)"/.exec(page.text)?.[1] ?? '',
      cookie: String(page.headers['set-cookie']).split(';')[0]!,
    };
  }
  const post = (opened: { path: string; cookie: string }, action: string, form: Record<string, string>) =>
    suite.context.request('POST', `${opened.path}/${action}`, {
      rawBody: new URLSearchParams(form).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        cookie: opened.cookie,
      },
    });

  async function sentQuote(unitAmount: number) {
    const quote = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Roof repair', quantity: 1, unit_amount: unitAmount }],
    });
    assert.equal(quote.status, 201, quote.text);
    const sent = await api('POST', `/v1/quotes/${quote.body.data.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    return sent.body.data as { id: string; hosted_url: string };
  }

  test('34.10 approve or decline of another version than the page showed is 409 and shows the new page', async () => {
    const quote = await sentQuote(50_000);
    const opened = await openPage(quote.hosted_url);
    assert.match(opened.version, /^[A-Za-z0-9_-]{22}$/, 'the page carries the version it shows');
    assert.match(opened.page.text, /\$500\.00/);

    // The business raises the total after the page was loaded.
    const raised = await api('PUT', `/v1/quotes/${quote.id}`, {
      line_items: [{ description: 'Roof repair', quantity: 1, unit_amount: 90_000 }],
    });
    assert.equal(raised.status, 200, raised.text);
    for (const action of ['approve', 'decline']) {
      const stale = await post(opened, action, { csrf: opened.csrf, version: opened.version, name: 'Jane Doe' });
      assert.equal(stale.status, 409, `${action}: ${stale.text}`);
      assert.match(stale.text, /This quote has changed/);
      assert.match(stale.text, /\$900\.00/, 'the new page shows the new total');
      const newVersion = /name="version" value="([^"]+)"/.exec(stale.text)?.[1];
      assert.ok(newVersion && newVersion !== opened.version, 'the new page carries the new version');
    }
    // No version at all (a page from before versions, or a forged form) is not the version shown either.
    assert.equal((await post(opened, 'approve', { csrf: opened.csrf, name: 'Jane Doe' })).status, 409);
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');

    // A change the client does not see (metadata) is the same version; the answer to the shown one is taken.
    assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { metadata: { crm: '7' } })).status, 200);
    const current = await openPage(quote.hosted_url);
    assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { metadata: { crm: '8' } })).status, 200);
    const approved = await post(current, 'approve', { csrf: current.csrf, version: current.version, name: 'Jane Doe' });
    assert.equal(approved.status, 303, approved.text);
    const stored = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.deepEqual([stored.status, stored.total_amount], ['approved', 90_000]);
  });
});

describe('a hub link belongs to its recipient', () => {
  const hubStatus = async (hostedUrl: string) =>
    (await suite.context.request('GET', new URL(hostedUrl).pathname)).status;
  const newClient = async (name: string, email: string) =>
    (await api('POST', '/v1/clients', { name, email })).body.data.id as string;

  test('34.11 a change of client or recipient ends the old hub link', async () => {
    const alice = await newClient('Alice', 'alice@example.com');
    const bob = await newClient('Bob', 'bob@example.com');
    const created = await api('POST', '/v1/quotes', {
      client_id: alice,
      line_items: [{ description: 'Fence', quantity: 1, unit_amount: 10_000 }],
    });
    const id = created.body.data.id;
    const toAlice = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.equal(await hubStatus(toAlice), 200);
    // A re-send to the same client and address keeps the link, as the e-mail that carried it.
    assert.equal((await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url, toAlice);

    // The issue's case: back to draft, another client, sent again: Alice's link no longer opens it.
    assert.equal((await api('PUT', `/v1/quotes/${id}`, { status: 'draft' })).status, 200);
    assert.equal((await api('PUT', `/v1/quotes/${id}`, { client_id: bob })).status, 200);
    const toBob = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.notEqual(toBob, toAlice);
    assert.equal(await hubStatus(toAlice), 404);
    assert.equal(await hubStatus(toBob), 200);

    // A sent quote moved to another client: the link ends at the change, not at the next send.
    const moved = await api('PUT', `/v1/quotes/${id}`, { client_id: alice });
    assert.equal(moved.status, 200, moved.text);
    assert.notEqual(moved.body.data.hosted_url, toBob);
    assert.equal(await hubStatus(toBob), 404);
    const again = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.equal(again, moved.body.data.hosted_url, 'the new link is the one sent');

    // The same client at another address (the recipient changed): the next send makes a new link.
    assert.equal((await api('PUT', `/v1/clients/${alice}`, { email: 'alice@new.example.com' })).status, 200);
    const toNewAddress = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.notEqual(toNewAddress, again);
    assert.equal(await hubStatus(again), 404);
    assert.equal(await hubStatus(toNewAddress), 200);

    // Invoices alike.
    const invoice = await api('POST', '/v1/invoices', {
      client_id: bob,
      line_items: [{ description: 'Fence', quantity: 1, unit_amount: 10_000 }],
    });
    const invoiceLink = (await api('POST', `/v1/invoices/${invoice.body.data.id}/send`)).body.data.hosted_url;
    const movedInvoice = await api('PUT', `/v1/invoices/${invoice.body.data.id}`, { client_id: alice });
    assert.equal(movedInvoice.status, 200, movedInvoice.text);
    assert.equal(await hubStatus(invoiceLink), 404);
    assert.equal(await hubStatus(movedInvoice.body.data.hosted_url), 200);
  });
});

describe('the quote PDF', () => {
  /** The text of a PDF, as poppler's pdftotext reads it. */
  async function pdfText(url: string): Promise<string> {
    const response = await suite.context.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${suite.key}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/pdf');
    const file = `${suite.context.directory}/quote-${randomUUID()}.pdf`;
    fs.writeFileSync(file, response.rawPayload);
    const { execFileSync } = await import('node:child_process');
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  }

  test('34 a quote PDF shows its issue and expiry dates', async () => {
    const quote = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      valid_until: '2099-12-31',
      line_items: [{ description: 'Gutter cleaning', quantity: 1, unit_amount: 12_000 }],
    });
    assert.equal(quote.status, 201, quote.text);
    const sent = await api('POST', `/v1/quotes/${quote.body.data.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    const issued = sent.body.data.sent_at.slice(0, 10); // the account's zone is UTC
    const text = await pdfText(`/v1/quotes/${quote.body.data.id}/pdf`);
    assert.match(text, new RegExp(`Issue date\\s+${issued}`));
    assert.match(text, /Valid until\s+2099-12-31/);

    // A draft without an expiry: issued the day it was made, and says it does not expire.
    const draft = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Gutter cleaning', quantity: 1, unit_amount: 12_000 }],
    });
    const draftText = await pdfText(`/v1/quotes/${draft.body.data.id}/pdf`);
    assert.match(draftText, new RegExp(`Issue date\\s+${draft.body.data.created_at.slice(0, 10)}`));
    assert.match(draftText, /Valid until\s+no expiry date/);
  });
});

describe('webhook time limit', () => {
  test('34.7 the DNS lookup of a webhook host counts within the attempt time limit', async () => {
    const receiver = await startReceiver({ status: 200, body: 'ok', delayMs: 700 });
    try {
      const port = new URL(receiver.url).port;
      const slowLookup = (ms: number) => async () => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return [{ address: '127.0.0.1', family: 4 }];
      };
      // A name server that takes longer than the whole limit: the attempt ends at the limit, not after the lookup.
      const stuck = await attemptWebhook(`http://hooks.example.test:${port}/`, {}, '{}', {
        timeoutMs: 1_000,
        allowPrivate: true,
        lookup: slowLookup(3_000),
      });
      assert.equal(stuck.ok, false);
      assert.match(stuck.error ?? '', /no answer within 1000 ms/);
      assert.ok(stuck.durationMs < 1_500, `${stuck.durationMs} ms`);
      // 600 ms of lookup and a 700 ms answer: 1.3 s in all, over a 1 s limit.
      const late = await attemptWebhook(`http://hooks.example.test:${port}/`, {}, '{}', {
        timeoutMs: 1_000,
        allowPrivate: true,
        lookup: slowLookup(600),
      });
      assert.equal(late.ok, false, JSON.stringify(late));
      assert.match(late.error ?? '', /no answer within 1000 ms/);
      assert.ok(late.durationMs < 1_300, `${late.durationMs} ms`);
      // With room for both, it succeeds.
      const inTime = await attemptWebhook(`http://hooks.example.test:${port}/`, {}, '{}', {
        timeoutMs: 2_000,
        allowPrivate: true,
        lookup: slowLookup(200),
      });
      assert.equal(inTime.ok, true, JSON.stringify(inTime));
    } finally {
      await receiver.close();
    }
  });
});

describe('the logo in PDFs', () => {
  /** The images of a PDF as poppler's pdfimages lists them: type, width, height (an smask is the logo's alpha). */
  async function pdfImages(pdf: Buffer): Promise<string[][]> {
    const file = `${suite.context.directory}/logo-${randomUUID()}.pdf`;
    fs.writeFileSync(file, pdf);
    const { execFileSync } = await import('node:child_process');
    const listing = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').slice(2);
    return listing.filter((line) => line.trim()).map((line) => line.trim().split(/\s+/).slice(2, 5));
  }

  test('34.3 the logo is decoded and scaled once per logo, not per render: two documents, one decode; a changed logo (by this process or another), one more', async () => {
    const { accountId, key } = await suite.context.account('Logo once');
    const call = (method: string, url: string, body?: unknown) =>
      suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });
    const client = await call('POST', '/v1/clients', { name: 'Logo client', email: 'logo@example.com' });
    const invoice = async (description: string) =>
      (
        await call('POST', '/v1/invoices', {
          client_id: client.body.data.id,
          line_items: [{ description, quantity: 1, unit_amount: 5_000 }],
        })
      ).body.data.id as string;
    const pdfOf = async (id: string) => {
      const response = await suite.context.app.inject({
        method: 'GET',
        url: `/v1/invoices/${id}/pdf`,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.rawPayload;
    };
    // 2,000 × 1,000 pixels with transparency (a soft edge): the kind of logo that made every render slow.
    const logo = (shade: number) =>
      rgbaPng(2000, 1000, (x, y) => [shade, 105, 218, x < 1000 ? 255 : Math.max(0, 255 - ((x + y) % 256))]);
    const pool = suite.context.app.pdf;
    const decodes = () => pool.logoDecodes - start;
    const start = pool.logoDecodes;

    const put = await call('PUT', '/v1/account/logo', { content_type: 'image/png', data: logo(9).toString('base64') });
    assert.equal(put.status, 200, put.text);
    assert.equal(decodes(), 1, 'the upload is checked by decoding it once');
    const rendersBefore = pool.renders;
    const first = await pdfOf(await invoice('Gutters'));
    const second = await pdfOf(await invoice('Windows'));
    assert.equal(pool.renders, rendersBefore + 2, 'two documents rendered');
    assert.equal(decodes(), 1, 'rendering two documents decoded no image');
    // Scaled to 3 pixels a point of the 160 × 60 point box (the height limits: 180 px), alpha as a soft mask.
    for (const pdf of [first, second])
      assert.deepEqual(await pdfImages(pdf), [
        ['image', '360', '180'],
        ['smask', '360', '180'],
      ]);

    // A new logo through the API: one decode (its check), and the next document uses it.
    await call('PUT', '/v1/account/logo', { content_type: 'image/png', data: logo(200).toString('base64') });
    assert.equal(decodes(), 2);
    const third = await pdfOf(await invoice('Roof'));
    assert.equal(decodes(), 2);
    assert.notDeepEqual(third, first);

    // Another process changed the logo (the stored row, as that process's upload leaves it): the next render
    // sees the stored hash change and decodes it once; the render after does not.
    const opaque = png(600, 300, () => [31, 35, 40]);
    await suite.context.database.db
      .updateTable('account_logos')
      .set({ data: opaque, sha256: createHash('sha256').update(opaque).digest('hex') })
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(await pdfImages(await pdfOf(await invoice('Fence'))), [['image', '360', '180']]);
    assert.equal(decodes(), 3);
    await pdfOf(await invoice('Deck'));
    assert.equal(decodes(), 3);

    // Without a logo, nothing is decoded and no image is drawn.
    await call('DELETE', '/v1/account/logo');
    assert.deepEqual(await pdfImages(await pdfOf(await invoice('Shed'))), []);
    assert.equal(decodes(), 3);
  });
});
