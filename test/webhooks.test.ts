// Webhook endpoints and delivery (contract section 9), over real HTTP to real receiver servers, with the
// real delivery worker: Standard Webhooks signatures checked by an independent library (the
// `standardwebhooks` package), retries with the same webhook-id, 410, redirects, a slow endpoint beside a
// fast one, private addresses, Retry-After, rotation, recover and resend, and disabling after failures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { attemptWebhook } from '../src/modules/events/index.js';
import { eventually as until } from './helpers/patience.js';

const quiet = { info() {}, warn() {}, error() {} };
/** Fast retries and short limits for the tests (the production schedule is 5 s … 10 h). */
const FAST = {
  WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_LEASE_MS: '5000',
};

interface World {
  context: TestContext;
  key: string;
  worker: WebhookWorker;
  receivers: Receiver[];
}

async function world(env: Record<string, string> = {}): Promise<World> {
  const context = await createTestContext({ env: { ...FAST, ...env } });
  const { key } = await context.account();
  const worker = new WebhookWorker(context.database, context.clock, context.config.webhooks, quiet);
  return { context, key, worker, receivers: [] };
}

async function close(w: World): Promise<void> {
  await w.worker.stop();
  for (const receiver of w.receivers) await receiver.close();
  await w.context.close();
}

async function receiver(w: World, ...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  w.receivers.push(started);
  return started;
}

const call = async (w: World, method: string, path: string, body?: unknown) =>
  w.context.request(method, path, { key: w.key, body });
async function endpoint(w: World, url: string, enabled_events: string[] = ['*']) {
  const created = await call(w, 'POST', '/v1/webhook-endpoints', { url, enabled_events });
  assert.equal(created.status, 201, created.text);
  return created.body.data as { id: string; secret: string; url: string };
}
const newClient = async (w: World, name = 'Jane Cooper') =>
  (await call(w, 'POST', '/v1/clients', { name })).body.data as { id: string };
async function deliveries(w: World, endpointId: string, query = '') {
  return (await call(w, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`)).body.data as Array<{
    event_id: string;
    attempt: number;
    status: string;
    response_status: number | null;
    error: string | null;
    response_body: string | null;
  }>;
}
/** Waits until `check` holds (the worker runs beside the test). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('managing endpoints', () => {
  let w: World;
  before(async () => {
    w = await world();
  });
  after(() => close(w));

  test('create shows the secret once; get and list never do; enabled_events take types, resource.* and *', async () => {
    const created = await endpoint(w, 'http://127.0.0.1:9/hooks', ['invoice.*', 'payment.created']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const fetched = await call(w, 'GET', `/v1/webhook-endpoints/${created.id}`);
    assert.equal(fetched.body.data.secret, undefined);
    assert.deepEqual(fetched.body.data.enabled_events, ['invoice.*', 'payment.created']);
    assert.equal(fetched.body.data.status, 'enabled');
    assert.ok(
      (await call(w, 'GET', '/v1/webhook-endpoints')).body.data.every(
        (item: { secret?: string }) => item.secret === undefined,
      ),
    );
    for (const enabled_events of [['invoice.exploded'], ['nothing.*'], [], ['*', 'bogus']]) {
      const response = await call(w, 'POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        enabled_events,
      });
      assert.equal(response.status, 422, JSON.stringify(enabled_events));
      assert.equal(response.body.error.details[0].field, 'enabled_events');
    }
  });

  test('update, disable and re-enable, rotate the secret, delete', async () => {
    const created = await endpoint(w, 'http://127.0.0.1:9/hooks');
    const disabled = await call(w, 'PUT', `/v1/webhook-endpoints/${created.id}`, {
      status: 'disabled',
      description: 'Paused',
    });
    assert.deepEqual(
      [disabled.body.data.status, disabled.body.data.disabled_reason, disabled.body.data.description],
      ['disabled', 'disabled through the API', 'Paused'],
    );
    const enabled = await call(w, 'PUT', `/v1/webhook-endpoints/${created.id}`, { status: 'enabled' });
    assert.deepEqual([enabled.body.data.status, enabled.body.data.disabled_reason], ['enabled', null]);
    const rotated = await call(w, 'POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.data.secret, /^whsec_/);
    assert.notEqual(rotated.body.data.secret, created.secret);
    assert.equal((await call(w, 'DELETE', `/v1/webhook-endpoints/${created.id}`)).status, 200);
    assert.equal((await call(w, 'GET', `/v1/webhook-endpoints/${created.id}`)).status, 404);
  });

  test('without the flags, only https:// to a public address is accepted (422 on url)', async () => {
    const strict = await world({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      for (const url of [
        'http://127.0.0.1:8080/hooks',
        'https://127.0.0.1/hooks',
        'https://localhost/hooks',
        'https://10.1.2.3/hooks',
        'https://192.168.1.1/',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::1]/hooks',
        'https://[::ffff:127.0.0.1]/hooks',
        'https://0.0.0.0/',
        'https://user:pass@198.51.100.7/',
        'ftp://example.com/',
        'not a url',
      ]) {
        const response = await call(strict, 'POST', '/v1/webhook-endpoints', { url, enabled_events: ['*'] });
        assert.equal(response.status, 422, `${url}: ${response.text}`);
        assert.equal(response.body.error.details[0].field, 'url');
      }
    } finally {
      await close(strict);
    }
  });

  test('the refusal of a local receiver names the setting that allows it, and only where it applies', async () => {
    const strict = await world({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      const refusal = async (url: string): Promise<string> => {
        const response = await call(strict, 'POST', '/v1/webhook-endpoints', { url, enabled_events: ['*'] });
        assert.equal(response.status, 422, response.text);
        return response.body.error.details[0].message;
      };
      assert.match(await refusal('https://127.0.0.1:8443/hooks'), /WEBHOOK_ALLOW_PRIVATE=true/);
      assert.match(await refusal('https://localhost/hooks'), /WEBHOOK_ALLOW_PRIVATE=true/);
      assert.match(await refusal('http://198.51.100.7/hooks'), /WEBHOOK_ALLOW_HTTP=true/);
      // A host that does not resolve is no private address: no setting would make it deliverable.
      assert.doesNotMatch(await refusal('https://nothing-here.invalid/hooks'), /WEBHOOK_ALLOW/);
    } finally {
      await close(strict);
    }
  });
});

describe('delivery', () => {
  let w: World;
  before(async () => {
    w = await world();
    w.worker.start();
  });
  after(() => close(w));

  test('a delivery is signed per Standard Webhooks: the independent library verifies it', async () => {
    const hooks = await receiver(w);
    const { id, secret } = await endpoint(w, hooks.url, ['client.created']);
    const client = await newClient(w);
    const [received] = await hooks.waitFor(1);
    const headers = received!.headers as Record<string, string>;
    const payload = new Webhook(secret).verify(received!.body, headers) as {
      id: string;
      type: string;
      data: { object: { id: string } };
    };
    assert.deepEqual([payload.type, payload.data.object.id], ['client.created', client.id]);
    assert.equal(headers['webhook-id'], payload.id);
    assert.equal(headers['user-agent'], 'BMS-Webhooks/1');
    assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 10);
    assert.throws(
      () => new Webhook(secret).verify(received!.body.replace('client.created', 'client.deleted'), headers),
      'a changed body fails',
    );
    await eventually(async () => (await deliveries(w, id)).some((row) => row.status === 'succeeded'));
    assert.deepEqual(
      (await deliveries(w, id)).map((row) => [row.attempt, row.status, row.response_status, row.response_body]),
      [[1, 'succeeded', 200, 'ok']],
    );
  });

  test('a receiver failing twice then succeeding gets the same webhook-id three times', async () => {
    const hooks = await receiver(w);
    hooks.answers.push({ status: 500, body: 'boom' }, { status: 503 });
    const { id } = await endpoint(w, hooks.url, ['client.created']);
    await newClient(w);
    const received = await hooks.waitFor(3);
    assert.equal(new Set(received.map((request) => request.headers['webhook-id'])).size, 1);
    assert.ok(received[1]!.at - received[0]!.at >= 900, 'the schedule (1 s) between attempts');
    await eventually(
      async () => (await deliveries(w, id)).length === 3 && (await deliveries(w, id))[0]!.status === 'succeeded',
    );
    assert.deepEqual(
      (await deliveries(w, id)).map((row) => [row.attempt, row.status, row.response_status]),
      [
        [3, 'succeeded', 200],
        [2, 'failed', 503],
        [1, 'failed', 500],
      ],
    );
    assert.equal((await deliveries(w, id, '&status=failed')).length, 2);
  });

  test('410 Gone disables the endpoint at once, with a webhook_endpoint.disabled event', async () => {
    const hooks = await receiver(w, { status: 410 });
    const { id } = await endpoint(w, hooks.url, ['client.created']);
    await newClient(w);
    await hooks.waitFor(1);
    await eventually(async () => (await call(w, 'GET', `/v1/webhook-endpoints/${id}`)).body.data.status === 'disabled');
    assert.equal(
      (await call(w, 'GET', `/v1/webhook-endpoints/${id}`)).body.data.disabled_reason,
      'the endpoint answered 410 Gone',
    );
    const events = (await call(w, 'GET', `/v1/events?type=webhook_endpoint.disabled&resource_id=${id}`)).body.data;
    assert.equal(events.length, 1);
    await newClient(w, 'Not delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(hooks.received.length, 1, 'a disabled endpoint gets nothing more');
  });

  test('a redirect is not followed: the attempt fails and the other host hears nothing', async () => {
    const elsewhere = await receiver(w);
    const hooks = await receiver(w, { status: 302, headers: { location: elsewhere.url } });
    const { id } = await endpoint(w, hooks.url, ['client.created']);
    await newClient(w);
    await hooks.waitFor(2);
    assert.equal(elsewhere.received.length, 0);
    const [first] = (await deliveries(w, id)).reverse();
    assert.equal(first!.status, 'failed');
    assert.match(first!.error ?? '', /redirect.*not followed/);
  });

  test('a receiver that never answers does not delay another endpoint', async () => {
    // The stuck attempt holds for the longest time limit (10 s): deliveries queued behind it would arrive after
    // it, and an idle machine delivers all 6 in a few hundred milliseconds, a loaded one in a couple of seconds.
    const own = await world({ WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_LEASE_MS: '20000' });
    own.worker.start();
    try {
      const stuck = await receiver(own, { hang: true });
      const fast = await receiver(own);
      await endpoint(own, stuck.url, ['client.created']);
      await endpoint(own, fast.url, ['client.created']);
      const started = Date.now();
      for (let index = 0; index < 6; index += 1) await newClient(own, `Busy ${index}`);
      await fast.waitFor(6, 15_000);
      assert.ok(
        Date.now() - started < 10_000,
        `all 6 delivered to the fast endpoint (${Date.now() - started} ms) before the stuck one's first timeout (10 s)`,
      );
      assert.ok(stuck.received.length >= 1);
    } finally {
      await close(own);
    }
  });

  test('Retry-After on 429 is honoured when longer than the schedule', async () => {
    const hooks = await receiver(w);
    hooks.answers.push({ status: 429, headers: { 'retry-after': '2' } });
    await endpoint(w, hooks.url, ['client.created']);
    await newClient(w);
    const received = await hooks.waitFor(2, 8000);
    assert.ok(
      received[1]!.at - received[0]!.at >= 1900,
      `waited ${received[1]!.at - received[0]!.at} ms, not the schedule's 1 s`,
    );
  });

  test('during a rotation both secrets sign: receivers holding either one verify', async () => {
    const hooks = await receiver(w);
    const created = await endpoint(w, hooks.url, ['client.created']);
    const rotated = (await call(w, 'POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`)).body.data;
    await newClient(w);
    const [received] = await hooks.waitFor(1);
    assert.equal(String(received!.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of [created.secret, rotated.secret])
      new Webhook(secret).verify(received!.body, received!.headers as Record<string, string>);
  });

  test('the test event goes to that endpoint alone, and answers 202 with the event', async () => {
    const hooks = await receiver(w);
    const other = await receiver(w);
    const { id } = await endpoint(w, hooks.url, ['invoice.paid']);
    await endpoint(w, other.url, ['*']);
    const response = await call(w, 'POST', `/v1/webhook-endpoints/${id}/test`);
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.data.type, 'webhook_endpoint.test');
    const [received] = await hooks.waitFor(1);
    assert.equal(JSON.parse(received!.body).id, response.body.data.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(other.received.every((request) => JSON.parse(request.body).type !== 'webhook_endpoint.test'));
  });

  test('recover re-queues what failed for good; resend queues one event again', async () => {
    const hooks = await receiver(w, { status: 500 });
    const { id } = await endpoint(w, hooks.url, ['client.created']);
    const since = new Date().toISOString();
    await newClient(w, 'Lost and found');
    await hooks.waitFor(4, 8000); // the first attempt and the schedule's three retries
    await eventually(
      async () =>
        (await deliveries(w, id)).length === 4 && (await deliveries(w, id)).every((row) => row.status === 'failed'),
    );
    hooks.fallback = { status: 204 };
    const recovered = await call(w, 'POST', `/v1/webhook-endpoints/${id}/recover`, { since });
    assert.deepEqual([recovered.status, recovered.body.data], [202, { requeued: 1 }]);
    await hooks.waitFor(5);
    await eventually(async () => (await deliveries(w, id))[0]!.status === 'succeeded');
    assert.equal((await deliveries(w, id))[0]!.attempt, 5);
    assert.deepEqual(
      (await call(w, 'POST', `/v1/webhook-endpoints/${id}/recover`, { since })).body.data,
      { requeued: 0 },
      'nothing failed is left',
    );

    const eventId = (await deliveries(w, id))[0]!.event_id;
    const resent = await call(w, 'POST', `/v1/events/${eventId}/resend`, { endpoint_id: id });
    assert.deepEqual([resent.status, resent.body.data], [202, { requeued: 1 }]);
    const received = await hooks.waitFor(6);
    assert.equal(received[5]!.headers['webhook-id'], eventId);
    const unknown = await call(w, 'POST', `/v1/events/${eventId}/resend`, {
      endpoint_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    });
    assert.equal(unknown.status, 422);
  });

  test('at most 64 KB of an answer is read and 1 KB kept', async () => {
    const hooks = await receiver(w, { status: 200, body: 'x'.repeat(1_000_000) });
    const { id } = await endpoint(w, hooks.url, ['client.created']);
    await newClient(w);
    await eventually(async () => (await deliveries(w, id))[0]?.status === 'succeeded');
    assert.equal((await deliveries(w, id))[0]!.response_body!.length, 1024);
  });
});

describe('refusals and disabling', () => {
  test('a private address is refused at delivery without WEBHOOK_ALLOW_PRIVATE, however the endpoint got there', async () => {
    const w = await world({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_ALLOW_HTTP: 'true' });
    try {
      const hooks = await receiver(w);
      // The URL check at create refuses it too; write the row directly, as a host re-pointed to 127.0.0.1 would look.
      const accountId = (
        await w.context.database.db
          .selectFrom('api_keys')
          .select('account_id')
          .where('prefix', '=', w.key.slice(0, 12))
          .executeTakeFirstOrThrow()
      ).account_id;
      const now = new Date().toISOString();
      await w.context.database.db
        .insertInto('webhook_endpoints')
        .values({
          id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99',
          account_id: accountId,
          url: hooks.url,
          description: null,
          enabled_events: '["*"]',
          status: 'enabled',
          disabled_reason: null,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          previous_secret: null,
          previous_secret_expires_at: null,
          failing_since: null,
          metadata: '{}',
          created_at: now,
          updated_at: now,
        })
        .execute();
      w.worker.start();
      await newClient(w);
      await eventually(async () =>
        (await deliveries(w, '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99')).some((row) => row.status === 'failed'),
      );
      const [attempt] = await deliveries(w, '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99', '&status=failed');
      assert.match(attempt!.error ?? '', /refused: .*127\.0\.0\.1/);
      assert.equal(hooks.received.length, 0);
    } finally {
      await close(w);
    }
  });

  test('an endpoint whose every attempt failed for the configured span (3 days by default) is disabled', async () => {
    const w = await world({ WEBHOOK_DISABLE_AFTER_SECONDS: '1' });
    try {
      const hooks = await receiver(w, { status: 500 });
      const { id } = await endpoint(w, hooks.url, ['client.created']);
      w.worker.start();
      await newClient(w);
      await eventually(
        async () => (await call(w, 'GET', `/v1/webhook-endpoints/${id}`)).body.data.status === 'disabled',
        8000,
      );
      assert.match(
        (await call(w, 'GET', `/v1/webhook-endpoints/${id}`)).body.data.disabled_reason,
        /every attempt failed/,
      );
      assert.equal(
        (await call(w, 'GET', `/v1/events?type=webhook_endpoint.disabled&resource_id=${id}`)).body.data.length,
        1,
      );
    } finally {
      await close(w);
    }
  });
});

describe('addresses, outcomes and the time limit of an attempt', () => {
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

  test('a webhook URL on any special-purpose IPv4 or IPv6 range, embedded forms too, is 422 on create and update and refused at delivery', async () => {
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

  test("a receiver answering NUL bytes has its outcome stored sanitised, and another account's outcome is kept (each delivered once)", async () => {
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
      await Promise.all([poisoned.waitFor(1, 60_000), healthy.waitFor(1, 60_000)]);
      const logOf = async (index: number) =>
        (
          await context.request('GET', `/v1/webhook-endpoints/${endpointIds[index]}/deliveries`, {
            key: accounts[index]!.key,
          })
        ).body.data as Array<{ status: string; response_body: string | null }>;
      await until(
        async () => (await logOf(0))[0]?.status === 'succeeded' && (await logOf(1))[0]?.status === 'succeeded',
        async () => `outcomes not recorded: ${JSON.stringify([await logOf(0), await logOf(1)])}`,
      );
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

  test('the DNS lookup of a webhook host counts within the attempt time limit', async () => {
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
      assert.ok(stuck.durationMs < 3_000, `ended before the lookup answered, at ${stuck.durationMs} ms`);
      // 600 ms of lookup and a 700 ms answer: 1.3 s in all, over a 1 s limit (the answer alone is within it, so
      // only a limit that counts the lookup refuses it).
      const late = await attemptWebhook(`http://hooks.example.test:${port}/`, {}, '{}', {
        timeoutMs: 1_000,
        allowPrivate: true,
        lookup: slowLookup(600),
      });
      assert.equal(late.ok, false, JSON.stringify(late));
      assert.match(late.error ?? '', /no answer within 1000 ms/);
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
