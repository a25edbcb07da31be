// How many webhook endpoints an account holds (16, raised per account by the operator with
// `bms accounts set-limits`), and an event fanned out to thousands of endpoints at once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { runBmsAsync } from './helpers/processes.js';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Webhook limits');

const api = (method: string, url: string, body?: unknown, key = suite.key) =>
  suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

const endpoint = (key: string, n: number) =>
  suite.context.request('POST', '/v1/webhook-endpoints', {
    key,
    body: { url: `http://127.0.0.1:9/hook-${n}`, enabled_events: ['*'] },
  });

test('an account holds at most 16 webhook endpoints: the 17th is 422 on url, a delete frees a place, `bms accounts set-limits` raises one account', async () => {
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
  assert.deepEqual(JSON.parse(raised.stdout), {
    id: accountId,
    limits: { webhook_endpoints: 17, recurring_invoices: 1000, attachment_bytes: 5368709120 },
  });
  assert.equal((await endpoint(key, 18)).status, 201);
  assert.equal((await endpoint(key, 19)).status, 422);
  const bad = await runBmsAsync(['accounts', 'set-limits', accountId, '--webhook-endpoints', '0'], env);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--webhook-endpoints must be a whole number/);
});

test('an event fans out to 4,096 endpoints (an account the operator raised) in one statement: 201, one pending delivery each', async () => {
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
