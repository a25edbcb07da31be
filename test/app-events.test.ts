// What an app's token reads of the events (contract §25: "GET /v1/events with a token answers the same subset"):
// exactly what the app's webhook hears of, compared over real HTTP with a real receiver and the real delivery
// workers, after events of several kinds in the installing account: the kinds the install reads, deliveries of
// the documents it reads (not of those it does not), its own install's app.* (never another install's), nothing of
// the publisher's account, of kinds it cannot read, or of types outside the app's webhook_events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { fileTransport } from '../src/mail/transports.js';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { installApp, type InstalledApp } from './helpers/app-install.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

const quiet = { info() {}, warn() {}, error() {} };
const FAST = { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '1500' };
const LINES = [{ description: 'Boiler service', quantity: 1, unit_amount: 12_500 }];

interface Event {
  id: string;
  type: string;
  data: { object: { id: string; document_type?: string } };
}

describe('an app token’s GET /v1/events', () => {
  let context: TestContext;
  let hooks: Receiver;
  let webhooks: WebhookWorker;
  let outbox: OutboxWorker;
  let business: { accountId: string; key: string };
  let publisher: { accountId: string; key: string };
  let app: { id: string; client_secret: string; webhook_secret: string };
  let installed: InstalledApp;
  let other: InstalledApp;

  const call = async (key: string, method: string, url: string, body?: unknown) => {
    const answer = await context.request(method, url, { key, body });
    assert.ok(answer.status < 300, `${method} ${url}: ${answer.status} ${answer.text}`);
    return answer.body.data;
  };
  /** What the app's webhook received from the `from`th message on, verified with its secret. */
  const heard = async (from = 0): Promise<Event[]> => {
    await webhooks.runPass();
    return hooks.received
      .slice(from)
      .map(
        (received) =>
          new Webhook(app.webhook_secret).verify(received.body, received.headers as Record<string, string>) as Event,
      );
  };
  /** The token's event list, newest first, every page. */
  const read = async (query = ''): Promise<Event[]> => {
    const events: Event[] = [];
    let url = `/v1/events?limit=100${query}`;
    for (;;) {
      const answer = await context.request('GET', url, { key: installed.access_token });
      assert.equal(answer.status, 200, answer.text);
      events.push(...answer.body.data);
      const cursor = answer.body.meta.pagination.next_cursor;
      if (!cursor) return events;
      url = `/v1/events?limit=100${query}&cursor=${encodeURIComponent(cursor)}`;
    }
  };
  const ids = (events: Event[]) => events.map((event) => event.id).sort();
  const sent = async (kind: 'invoices' | 'quotes', clientId: string) => {
    const document = await call(business.key, 'POST', `/v1/${kind}`, { client_id: clientId, line_items: LINES });
    await call(business.key, 'POST', `/v1/${kind}/${document.id}/send`);
    while (await outbox.deliverNext());
    return document.id as string;
  };

  before(async () => {
    context = await createTestContext({ env: FAST });
    hooks = await startReceiver();
    webhooks = new WebhookWorker(context.database, context.clock, context.config.webhooks, quiet);
    outbox = new OutboxWorker(
      context.database,
      fileTransport(`${context.directory}/outbox`),
      context.clock,
      { pollMs: 10, leaseMs: 10_000, retryBaseMs: 1, maxAttempts: 1, fromAddress: 'billing@example.com' },
      quiet,
      context.app.pdf,
    );
    publisher = await context.account('Route Planner Ltd');
    business = await context.account('Acme Plumbing');
    app = await call(publisher.key, 'POST', '/v1/apps', {
      name: 'Ledger sync',
      redirect_uris: ['https://app.example.test/callback'],
      install_url: 'https://app.example.test/install',
      scopes: ['clients:read', 'invoices:read', 'events:read'],
      visibility: 'public',
      webhook_url: hooks.url,
      webhook_events: ['*'],
    });
    installed = await installApp(context, business.key, { app });
    // A second app of the business's own: its app.installed is that install's, not this one's.
    other = await installApp(context, business.key, { scopes: ['clients:read'] });
  });
  after(async () => {
    await webhooks.stop();
    await outbox.stop();
    await hooks.close();
    await context.close();
  });

  test('equals what the webhook hears of, after events of several kinds', async () => {
    const client = await call(business.key, 'POST', '/v1/clients', { name: 'Jane Cooper', email: 'jane@example.com' });
    await call(business.key, 'PUT', `/v1/clients/${client.id}`, { phone: '+1 555 0100' });
    const invoice = await sent('invoices', client.id);
    await sent('quotes', client.id);
    await call(business.key, 'POST', '/v1/team-members', { name: 'Sam Fitter' });
    await call(publisher.key, 'POST', '/v1/clients', { name: 'Not a customer' });

    const received = await heard();
    const listed = await read();
    assert.deepEqual(ids(listed), ids(received));
    assert.deepEqual(listed.map((event) => event.type).sort(), [
      'app.installed',
      'client.created',
      'client.updated',
      'delivery.succeeded',
      'invoice.created',
      'invoice.sent',
    ]);
    const delivery = listed.find((event) => event.type === 'delivery.succeeded')!;
    assert.equal(delivery.data.object.document_type, 'invoice');
    assert.equal((delivery.data.object as { document_id?: string }).document_id, invoice);
    assert.equal(listed.find((event) => event.type === 'app.installed')!.data.object.id, installed.install_id);
  });

  test('filters by type within the same subset; GET of an event it does not hear of is 404', async () => {
    const own = await read('&type=app.*');
    assert.deepEqual(
      own.map((event) => [event.type, event.data.object.id]),
      [['app.installed', installed.install_id]],
    );
    const deliveries = await read('&type=delivery.*');
    assert.deepEqual(
      deliveries.map((event) => event.data.object.document_type),
      ['invoice'],
    );
    assert.deepEqual(await read('&type=quote.*,team_member.*'), []);

    const everything = await call(business.key, 'GET', '/v1/events?limit=100');
    const byKey = (type: string, test: (event: Event) => boolean) =>
      (everything as Event[]).find((event) => event.type === type && test(event))!;
    const quoteDelivery = byKey('delivery.succeeded', (event) => event.data.object.document_type === 'quote');
    const otherInstall = byKey('app.installed', (event) => event.data.object.id === other.install_id);
    const ownInstall = byKey('app.installed', (event) => event.data.object.id === installed.install_id);
    for (const event of [quoteDelivery, otherInstall])
      assert.equal(
        (await context.request('GET', `/v1/events/${event.id}`, { key: installed.access_token })).status,
        404,
        event.type,
      );
    const got = await context.request('GET', `/v1/events/${ownInstall.id}`, { key: installed.access_token });
    assert.equal(got.status, 200, got.text);
  });

  test('narrowed webhook_events narrow both alike; its own app.* still reaches it', async () => {
    const put = await context.request('PUT', `/v1/apps/${app.id}`, {
      key: publisher.key,
      body: { webhook_events: ['client.updated'] },
    });
    assert.equal(put.status, 200, put.text);
    const from = hooks.received.length;
    const newest = (await read())[0]!.id;
    const client = await call(business.key, 'POST', '/v1/clients', {
      name: 'Quiet Client',
      email: 'quiet@example.com',
    });
    await call(business.key, 'PUT', `/v1/clients/${client.id}`, { name: 'Loud Client' });
    await sent('invoices', client.id);
    const received = await heard(from);
    const listed = (await read()).filter((event) => event.id > newest);
    assert.deepEqual(ids(listed), ids(received));
    assert.deepEqual(
      received.map((event) => event.type),
      ['client.updated'],
    );
    assert.deepEqual(
      (await read()).map((event) => event.type).filter((type) => type.startsWith('app.')),
      ['app.installed'],
    );
    await context.request('PUT', `/v1/apps/${app.id}`, { key: publisher.key, body: { webhook_events: ['*'] } });
  });
});
