// An app's webhook (contract §25): the installing account's events reach the app's webhook_url by §9's rules,
// signed with the app's webhook secret (checked by the independent `standardwebhooks` library), retried with the
// same webhook-id, only the types in webhook_events whose kind the install reads, its own install's app.* and
// never another's, none of the publisher's own events; uninstalling drops what is queued and delivers
// app.uninstalled; 410 disables the app's webhook; a private address is refused when not allowed; the
// publisher reads the attempt log with `account_id`. Over real HTTP to a real receiver, with the real worker.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { appSubscriptions } from '../src/modules/events/events.service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { installApp } from './helpers/app-install.js';

const quiet = { info() {}, warn() {}, error() {} };
const FAST = { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '1500' };

interface Payload {
  id: string;
  type: string;
  account_id: string;
  data: { object: { id: string; object?: string } };
}

describe('an app’s webhook', () => {
  let context: TestContext;
  let worker: WebhookWorker;
  let hooks: Receiver;
  let publisher: { accountId: string; key: string };
  let business: { accountId: string; key: string };
  let app: { id: string; client_secret: string; webhook_secret: string };
  let installId: string;

  const call = async (key: string, method: string, url: string, body?: unknown) =>
    context.request(method, url, { key, body });
  /**
   * Runs the delivery worker until nothing is due, then answers what the receiver got from the `from`th request
   * on, each verified with the app's current webhook secret and parsed.
   */
  const delivered = async (from = 0): Promise<Payload[]> => {
    await worker.runPass();
    return hooks.received
      .slice(from)
      .map(
        (received) =>
          new Webhook(app.webhook_secret).verify(received.body, received.headers as Record<string, string>) as Payload,
      );
  };
  const typesSince = async (from: number) => (await delivered(from)).map((payload) => payload.type);

  before(async () => {
    context = await createTestContext({ env: FAST });
    worker = new WebhookWorker(context.database, context.clock, context.config.webhooks, quiet);
    hooks = await startReceiver();
    publisher = await context.account('Route Planner Ltd');
    business = await context.account('Acme Plumbing');
    const made = await call(publisher.key, 'POST', '/v1/apps', {
      name: 'Route planner',
      redirect_uris: ['https://app.example.test/callback'],
      install_url: 'https://app.example.test/install',
      scopes: ['clients:read', 'clients:write'],
      visibility: 'public',
      webhook_url: hooks.url,
      webhook_events: ['*'],
    });
    assert.equal(made.status, 201, made.text);
    app = made.body.data;
    const installed = await installApp(context, business.key, { app });
    installId = installed.install_id;
  });
  after(async () => {
    await worker.stop();
    await hooks.close();
    await context.close();
  });

  test('app.installed reaches the app, signed with its webhook secret, as a Standard Webhooks message', async () => {
    const payloads = await delivered();
    assert.deepEqual(
      payloads.map((payload) => [payload.type, payload.account_id, payload.data.object.id]),
      [['app.installed', business.accountId, installId]],
    );
    const headers = hooks.received[0]!.headers;
    assert.equal(headers['webhook-id'], payloads[0]!.id);
    assert.equal(headers['user-agent'], 'BMS-Webhooks/1');
  });

  test('the business’s events reach it when the type is subscribed and the install reads the kind', async () => {
    const before = hooks.received.length;
    const client = await call(business.key, 'POST', '/v1/clients', { name: 'Jane Cooper' });
    assert.equal(client.status, 201, client.text);
    // team:read is not the install's: a team member's event is not the app's to hear.
    const member = await call(business.key, 'POST', '/v1/team-members', { name: 'Sam Fitter' });
    assert.equal(member.status, 201, member.text);
    const payloads = await delivered(before);
    assert.deepEqual(
      payloads.map((payload) => [payload.type, payload.data.object.id]),
      [['client.created', client.body.data.id]],
    );
  });

  test('the publisher’s own events and another app’s install never reach it', async () => {
    const before = hooks.received.length;
    assert.equal((await call(publisher.key, 'POST', '/v1/clients', { name: 'Not a customer' })).status, 201);
    // A second app installed in the same account: its app.installed is its own.
    await installApp(context, business.key, { scopes: ['clients:read'] });
    assert.deepEqual(await typesSince(before), []);
  });

  test('the install’s endpoint is not the business’s: not listed, not readable, not counted', async () => {
    const listed = await call(business.key, 'GET', '/v1/webhook-endpoints');
    assert.deepEqual(listed.body.data, []);
    const endpoint = await context.database.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('app_install_id', '=', installId)
      .executeTakeFirstOrThrow();
    assert.equal((await call(business.key, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).status, 404);
    assert.equal((await call(business.key, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status, 404);
  });

  test('the publisher reads the attempt log with account_id; the business cannot', async () => {
    const log = await call(publisher.key, 'GET', `/v1/apps/${app.id}/deliveries?limit=100`);
    assert.equal(log.status, 200, log.text);
    const rows = log.body.data as Array<{ account_id: string; event_type: string; status: string; attempt: number }>;
    assert.deepEqual(rows.map((row) => [row.event_type, row.account_id, row.status, row.attempt]).reverse(), [
      ['app.installed', business.accountId, 'succeeded', 1],
      ['client.created', business.accountId, 'succeeded', 1],
    ]);
    assert.equal((await call(business.key, 'GET', `/v1/apps/${app.id}/deliveries`)).status, 404);
    const failedOnly = await call(publisher.key, 'GET', `/v1/apps/${app.id}/deliveries?status=failed`);
    assert.deepEqual(failedOnly.body.data, []);
    const bad = await call(publisher.key, 'GET', `/v1/apps/${app.id}/deliveries?status=lost`);
    assert.equal(bad.status, 422);
  });

  test('a failed attempt is retried with the same webhook-id', async () => {
    const before = hooks.received.length;
    hooks.answers.push({ status: 500, body: 'try later' });
    const client = await call(business.key, 'POST', '/v1/clients', { name: 'Retry Me' });
    await worker.runPass();
    assert.equal(hooks.received.length, before + 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await worker.runPass();
    const [first, second] = hooks.received.slice(before);
    assert.ok(second, 'the second attempt arrived');
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
    const log = await call(
      publisher.key,
      'GET',
      `/v1/apps/${app.id}/deliveries?event_id=${first!.headers['webhook-id']}`,
    );
    assert.deepEqual(
      (log.body.data as Array<{ attempt: number; status: string; response_status: number }>)
        .map((row) => [row.attempt, row.status, row.response_status])
        .sort(),
      [
        [1, 'failed', 500],
        [2, 'succeeded', 200],
      ],
    );
    assert.equal(JSON.parse(second!.body).data.object.id, client.body.data.id);
  });

  test('narrowing webhook_events narrows what arrives', async () => {
    const put = await call(publisher.key, 'PUT', `/v1/apps/${app.id}`, { webhook_events: ['client.updated'] });
    assert.equal(put.status, 200, put.text);
    const before = hooks.received.length;
    const client = await call(business.key, 'POST', '/v1/clients', { name: 'Quiet' });
    await call(business.key, 'PUT', `/v1/clients/${client.body.data.id}`, { name: 'Loud' });
    assert.deepEqual(await typesSince(before), ['client.updated']);
    await call(publisher.key, 'PUT', `/v1/apps/${app.id}`, { webhook_events: ['*'] });
  });

  test('after a rotation the new secret signs, and the old one beside it', async () => {
    const rotated = await call(publisher.key, 'POST', `/v1/apps/${app.id}/rotate-webhook-secret`);
    assert.equal(rotated.status, 200, rotated.text);
    const before = hooks.received.length;
    await call(business.key, 'POST', '/v1/clients', { name: 'Signed Twice' });
    await worker.runPass();
    const received = hooks.received[before]!;
    const headers = received.headers as Record<string, string>;
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    new Webhook(rotated.body.data.webhook_secret).verify(received.body, headers);
    new Webhook(app.webhook_secret).verify(received.body, headers);
    app = { ...app, webhook_secret: rotated.body.data.webhook_secret };
  });

  test('uninstalling drops what is queued, delivers app.uninstalled, and nothing after', async () => {
    const before = hooks.received.length;
    // Queued, never delivered: the uninstall drops it.
    await call(business.key, 'POST', '/v1/clients', { name: 'Dropped' });
    const uninstalled = await call(business.key, 'DELETE', `/v1/app-installs/${installId}`);
    assert.equal(uninstalled.status, 200, uninstalled.text);
    await call(business.key, 'POST', '/v1/clients', { name: 'After' });
    const payloads = await delivered(before);
    assert.deepEqual(
      payloads.map((payload) => [payload.type, payload.data.object.id]),
      [['app.uninstalled', installId]],
    );
  });
});

describe('an app’s webhook that answers 410 Gone', () => {
  test('is disabled for every install, with app.updated in the publisher’s account', async () => {
    const context = await createTestContext({ env: FAST });
    const worker = new WebhookWorker(context.database, context.clock, context.config.webhooks, quiet);
    const hooks = await startReceiver({ status: 410 });
    try {
      const publisher = await context.account('Publisher');
      const business = await context.account('Business');
      const made = await context.request('POST', '/v1/apps', {
        key: publisher.key,
        body: {
          name: 'Gone app',
          redirect_uris: ['https://app.example.test/callback'],
          install_url: 'https://app.example.test/install',
          scopes: ['clients:read'],
          visibility: 'public',
          webhook_url: hooks.url,
        },
      });
      assert.equal(made.status, 201, made.text);
      await installApp(context, business.key, { app: made.body.data });
      await worker.runPass();
      assert.equal(hooks.received.length, 1);
      const read = await context.request('GET', `/v1/apps/${made.body.data.id}`, { key: publisher.key });
      assert.equal(read.body.data.webhook_status, 'disabled');
      const events = await context.request('GET', '/v1/events?type=app.updated', { key: publisher.key });
      assert.deepEqual(
        events.body.data.map((event: { data: { previous_attributes: { webhook_status?: string } } }) => [
          event.data.previous_attributes.webhook_status,
        ]),
        [['enabled']],
      );
      await context.request('POST', '/v1/clients', { key: business.key, body: { name: 'Nobody hears' } });
      await worker.runPass();
      assert.equal(hooks.received.length, 1, 'nothing more is sent');
      // Enabled again by the publisher, it delivers again.
      hooks.fallback = { status: 200 };
      const enabled = await context.request('PUT', `/v1/apps/${made.body.data.id}`, {
        key: publisher.key,
        body: { webhook_status: 'enabled' },
      });
      assert.equal(enabled.body.data.webhook_status, 'enabled');
      await context.request('POST', '/v1/clients', { key: business.key, body: { name: 'Heard' } });
      await worker.runPass();
      assert.equal(hooks.received.length, 2);
    } finally {
      await worker.stop();
      await hooks.close();
      await context.close();
    }
  });
});

describe('an app’s webhook_url', () => {
  test('resolving to a private address is refused unless WEBHOOK_ALLOW_PRIVATE (422 on webhook_url)', async () => {
    const context = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const { key } = await context.account();
      const body = {
        name: 'Nosy app',
        redirect_uris: ['https://app.example.test/callback'],
        install_url: 'https://app.example.test/install',
        scopes: ['clients:read'],
        webhook_url: 'http://127.0.0.1:9/hooks',
      };
      const made = await context.request('POST', '/v1/apps', { key, body });
      assert.equal(made.status, 422, made.text);
      assert.equal(made.body.error.details[0].field, 'webhook_url');
      const fine = await context.request('POST', '/v1/apps', { key, body: { ...body, webhook_url: null } });
      assert.equal(fine.status, 201, fine.text);
      const put = await context.request('PUT', `/v1/apps/${fine.body.data.id}`, {
        key,
        body: { webhook_url: 'http://169.254.169.254/latest' },
      });
      assert.equal(put.status, 422, put.text);
      assert.equal(put.body.error.details[0].field, 'webhook_url');
    } finally {
      await context.close();
    }
  });
});

describe('what an install’s endpoint subscribes to', () => {
  const INSTALL = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  // Its own install's app.* always (contract §25), whatever webhook_events say.
  const OWN = [`app.installed@${INSTALL}`, `app.reauthorized@${INSTALL}`, `app.uninstalled@${INSTALL}`];
  test('the kinds the install reads; delivery.* of the documents it reads; its own app.* always', () => {
    assert.deepEqual(appSubscriptions(['client.*', 'team_member.*'], new Set(['clients:read']), INSTALL), [
      'client.created',
      'client.updated',
      'client.deleted',
      ...OWN,
    ]);
    assert.deepEqual(appSubscriptions(['delivery.*'], new Set(['invoices:read']), INSTALL), [
      'delivery.succeeded@invoice',
      'delivery.failed@invoice',
      'delivery.canceled@invoice',
      ...OWN,
    ]);
    assert.deepEqual(appSubscriptions(['app.*'], new Set(['clients:read']), INSTALL), OWN);
    assert.deepEqual(appSubscriptions(['invoice.paid'], new Set(['clients:read']), INSTALL), OWN);
    assert.deepEqual(appSubscriptions(['api_key.*', 'webhook_endpoint.*'], new Set(['clients:read']), INSTALL), OWN);
  });
});
