// Who hears of an event is kept in memory per process and read again when the account's endpoints change,
// whichever instance changed them (issue 36): two apps on one database (one SQLite file, or one PostgreSQL
// database), an endpoint created, disabled, re-enabled and deleted through A, clients created through B.
// The list is invalidated only by the database's version of the account's endpoints (raised by trigger),
// never by the process that made the change, so B learns of A's changes the way another server would.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { hasSubscribers } from '../src/modules/events/subscriber-cache.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let a: TestContext;
let b: { app: FastifyInstance; database: Database };
let key: string;
let firstAccountId: string;

before(async () => {
  a = await createTestContext();
  const database = openDatabase(a.config.database);
  b = { app: await buildApp(a.config, { database, clock: a.clock }), database };
  ({ key, accountId: firstAccountId } = await a.account('Two instances'));
});
after(async () => {
  await b.app.close();
  await a.close();
});

async function createClientOnB(name: string): Promise<string> {
  const response = await b.app.inject({
    method: 'POST',
    url: '/v1/clients',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name }),
  });
  assert.equal(response.statusCode, 201, response.body);
  return JSON.parse(response.body).data.id;
}

async function deliveriesOf(clientId: string): Promise<string[]> {
  const rows = await a.database.db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .select('webhook_deliveries.endpoint_id')
    .where('events.resource_id', '=', clientId)
    .execute();
  return rows.map((row) => row.endpoint_id);
}

test('an endpoint created, disabled, re-enabled or deleted on one instance is heard by writes on another', async () => {
  const first = await createClientOnB('Before any endpoint');
  assert.deepEqual(await deliveriesOf(first), [], 'no endpoint: no delivery (and B now knows the account has none)');

  const created = await a.request('POST', '/v1/webhook-endpoints', {
    key,
    body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['client.created'] },
  });
  assert.equal(created.status, 201, created.text);
  const endpoint = created.body.data.id;
  assert.deepEqual(await deliveriesOf(await createClientOnB('After A created it')), [endpoint]);

  const disabled = await a.request('PUT', `/v1/webhook-endpoints/${endpoint}`, { key, body: { status: 'disabled' } });
  assert.equal(disabled.status, 200, disabled.text);
  assert.deepEqual(await deliveriesOf(await createClientOnB('After A disabled it')), []);

  const enabled = await a.request('PUT', `/v1/webhook-endpoints/${endpoint}`, { key, body: { status: 'enabled' } });
  assert.equal(enabled.status, 200, enabled.text);
  assert.deepEqual(await deliveriesOf(await createClientOnB('After A enabled it again')), [endpoint]);

  const other = await a.request('PUT', `/v1/webhook-endpoints/${endpoint}`, {
    key,
    body: { enabled_events: ['invoice.paid'] },
  });
  assert.equal(other.status, 200, other.text);
  assert.deepEqual(await deliveriesOf(await createClientOnB('After A changed its events')), []);

  const back = await a.request('PUT', `/v1/webhook-endpoints/${endpoint}`, {
    key,
    body: { enabled_events: ['client.*'] },
  });
  assert.equal(back.status, 200, back.text);
  assert.deepEqual(await deliveriesOf(await createClientOnB('Subscribed by client.*')), [endpoint]);

  const deleted = await a.request('DELETE', `/v1/webhook-endpoints/${endpoint}`, { key });
  assert.equal(deleted.status, 200, deleted.text);
  assert.deepEqual(await deliveriesOf(await createClientOnB('After A deleted it')), []);
});

// The fan-out statement is compiled once per engine and bound per event (issue 36): its parameters must
// follow each event, not the first one it was compiled with.
test('the fan-out statement, compiled once, queues each event to its own subscribers, in its own account', async () => {
  const other = await a.account('Another account');
  const endpoints: Record<string, string> = {};
  for (const [name, account, events] of [
    ['every client event', key, ['client.*']],
    ['client.created only', key, ['client.created']],
    ['client.updated only', key, ['client.updated']],
    ['everything, other account', other.key, ['*']],
  ] as const) {
    const created = await a.request('POST', '/v1/webhook-endpoints', {
      key: account,
      body: { url: 'http://127.0.0.1:9/hook', enabled_events: [...events] },
    });
    assert.equal(created.status, 201, created.text);
    endpoints[name] = created.body.data.id;
  }
  const mine = await createClientOnB('Compiled once, first event');
  const theirs = await a.request('POST', '/v1/clients', { key: other.key, body: { name: 'Other account' } });
  assert.equal(theirs.status, 201, theirs.text);
  const updated = await a.request('PUT', `/v1/clients/${mine}`, { key, body: { name: 'Renamed' } });
  assert.equal(updated.status, 200, updated.text);

  const byEvent = await a.database.db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .select(['events.type', 'events.resource_id', 'webhook_deliveries.endpoint_id', 'webhook_deliveries.account_id'])
    .select(['webhook_deliveries.event_type', 'webhook_deliveries.status', 'webhook_deliveries.attempt'])
    .where('events.resource_id', 'in', [mine, theirs.body.data.id])
    .execute();
  const seen = (type: string, resource: string) =>
    byEvent
      .filter((row) => row.type === type && row.resource_id === resource)
      .map((row) => row.endpoint_id)
      .sort();
  assert.deepEqual(
    seen('client.created', mine),
    [endpoints['every client event'], endpoints['client.created only']].sort(),
  );
  assert.deepEqual(
    seen('client.updated', mine),
    [endpoints['every client event'], endpoints['client.updated only']].sort(),
  );
  assert.deepEqual(seen('client.created', theirs.body.data.id), [endpoints['everything, other account']]);
  for (const row of byEvent) {
    assert.equal(row.event_type, row.type);
    assert.equal(row.status, 'pending');
    assert.equal(Number(row.attempt), 1);
  }
  for (const row of byEvent)
    assert.equal(
      row.account_id,
      row.resource_id === mine ? firstAccountId : other.accountId,
      "the event's own account",
    );
});

// A process can read the subscribers inside a transaction that changed an endpoint and then rolled back. The
// next committed change must not give the version that transaction saw, or the list read in it (here: nobody
// listens) is taken for the committed one, and an event skips its fan-out. One delete rolled back, then one
// insert committed: counting up, both gave the same version.
test('a change of the endpoints that rolled back leaves no version for a later change to reuse', async () => {
  const account = await a.account('Rolled back');
  const first = await a.request('POST', '/v1/webhook-endpoints', {
    key: account.key,
    body: { url: 'http://127.0.0.1:9/first', enabled_events: ['client.created'] },
  });
  assert.equal(first.status, 201, first.text);
  await assert.rejects(
    a.database.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_endpoints').where('id', '=', first.body.data.id).execute();
      assert.equal(await hasSubscribers(trx, account.accountId, ['client.created', 'client.*', '*']), false);
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  const second = await a.request('POST', '/v1/webhook-endpoints', {
    key: account.key,
    body: { url: 'http://127.0.0.1:9/second', enabled_events: ['client.created'] },
  });
  assert.equal(second.status, 201, second.text);
  const client = await a.request('POST', '/v1/clients', { key: account.key, body: { name: 'Heard by both' } });
  assert.equal(client.status, 201, client.text);
  assert.deepEqual((await deliveriesOf(client.body.data.id)).sort(), [first.body.data.id, second.body.data.id].sort());
});
