// A list of clients and GET of one always show the client as it now stands. On SQLite both read the rows'
// ids and versions and reuse the records read before (clients.repository.ts, migration 20261128110000), so
// every way a client can change must reach the next page read: an update through the API (two in the same
// millisecond included), a property added or deleted, a write by another connection, a delete; and
// pages by name must still carry their cursors. On PostgreSQL the same behaviour, read whole.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const clock = new ManualClock(new Date('2026-11-27T10:00:00.000Z'));
let context: TestContext;
let key: string;

async function call(method: string, url: string, body?: Record<string, unknown>) {
  const response = await context.request(method, url, { key, body });
  assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
}

/** The list's clients as `name: property count` pairs, in the list's order. */
async function listed(query = 'limit=25'): Promise<string[]> {
  const { data } = await call('GET', `/v1/clients?${query}`);
  return data.map((client: { name: string; property_ids: string[] }) => `${client.name}:${client.property_ids.length}`);
}

/** GET of one client: its name and property count, as listed() writes them. */
async function got(id: string): Promise<string> {
  const { data } = await call('GET', `/v1/clients/${id}`);
  return `${data.name}:${data.property_ids.length}`;
}

/** A write by a connection that is not BMS's: a shell, a script, another tool on the same database. */
async function foreignWrite(statement: string, parameters: string[]) {
  if (onPostgres) {
    const client = new pg.Client({ connectionString: context.databaseUrl });
    await client.connect();
    let index = 0;
    try {
      await client.query(
        statement.replace(/\?/g, () => `$${++index}`),
        parameters,
      );
    } finally {
      await client.end();
    }
    return;
  }
  const connection = new SqliteDatabase(context.databaseUrl.replace(/^sqlite:/, ''));
  try {
    connection.prepare(statement).run(...parameters);
  } finally {
    connection.close();
  }
}

before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());
beforeEach(async () => {
  ({ key } = await context.account());
});

test('a list and GET show every change of a client: updates, properties, other connections, deletes', async () => {
  const ids: string[] = [];
  for (const name of ['Ada', 'Bob', 'Cy']) {
    clock.advance(1);
    ids.push((await call('POST', '/v1/clients', { name })).data.id);
  }
  assert.deepEqual(await listed(), ['Cy:0', 'Bob:0', 'Ada:0']);
  assert.deepEqual(await listed(), ['Cy:0', 'Bob:0', 'Ada:0'], 'read again, unchanged');
  assert.equal(await got(ids[1]!), 'Bob:0');

  // Two updates in the same millisecond: updated_at does not move, the list still shows the second.
  await call('PUT', `/v1/clients/${ids[1]}`, { name: 'Bobby' });
  assert.deepEqual(await listed(), ['Cy:0', 'Bobby:0', 'Ada:0']);
  await call('PUT', `/v1/clients/${ids[1]}`, { name: 'Robert' });
  assert.deepEqual(await listed(), ['Cy:0', 'Robert:0', 'Ada:0'], 'a second update in the same millisecond');
  assert.equal(await got(ids[1]!), 'Robert:0');
  const robert = (await call('GET', '/v1/clients?limit=25')).data[1];
  assert.equal(robert.updated_at, '2026-11-27T10:00:00.003Z');

  const property = (
    await call('POST', '/v1/properties', {
      client_id: ids[0],
      address: { line1: '1 Elm St', city: 'Springfield', country: 'US' },
    })
  ).data;
  assert.deepEqual(await listed(), ['Cy:0', 'Robert:0', 'Ada:1'], 'a property added');
  assert.equal(await got(ids[0]!), 'Ada:1');
  const { data } = await call('GET', '/v1/clients?limit=25');
  assert.deepEqual(data[2].property_ids, [property.id]);
  await call('DELETE', `/v1/properties/${property.id}`);
  assert.deepEqual(await listed(), ['Cy:0', 'Robert:0', 'Ada:0'], 'a property deleted');
  assert.equal(await got(ids[0]!), 'Ada:0');

  await foreignWrite('update clients set name = ?, notes = ? where id = ?', ['Cyril', 'by hand', ids[2]!]);
  const byHand = (await call('GET', '/v1/clients?limit=25')).data[0];
  assert.equal(byHand.name, 'Cyril', 'a write by another connection');
  assert.equal(byHand.notes, 'by hand');
  assert.equal(await got(ids[2]!), 'Cyril:0');
  await foreignWrite('update clients set name = ? where id = ?', ['Cyrus', ids[2]!]);
  assert.equal(await got(ids[2]!), 'Cyrus:0', 'GET first, after another connection');
  assert.deepEqual(await listed(), ['Cyrus:0', 'Robert:0', 'Ada:0']);

  await call('DELETE', `/v1/clients/${ids[0]}`);
  assert.deepEqual(await listed(), ['Cyrus:0', 'Robert:0'], 'a delete');
  const gone = await context.request('GET', `/v1/clients/${ids[0]}`, { key });
  assert.equal(gone.status, 404);
});

test('pages by name and by creation carry their cursors when their clients are read again', async () => {
  for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo']) {
    clock.advance(1);
    await call('POST', '/v1/clients', { name });
  }
  for (let round = 0; round < 2; round += 1) {
    const names: string[] = [];
    let url: string | undefined = '/v1/clients?sort=name&limit=2';
    while (url) {
      const { data, meta } = await call('GET', url);
      names.push(...data.map((client: { name: string }) => client.name));
      url = meta.pagination.next_cursor
        ? `/v1/clients?sort=name&limit=2&cursor=${meta.pagination.next_cursor}`
        : undefined;
    }
    assert.deepEqual(names, ['Alpha', 'Bravo', 'charlie', 'delta', 'echo'], `by name, round ${round + 1}`);
  }
  const first = await call('GET', '/v1/clients?limit=2');
  const second = await call('GET', `/v1/clients?limit=2&cursor=${first.meta.pagination.next_cursor}`);
  assert.deepEqual(
    [...first.data, ...second.data].map((client: { name: string }) => client.name),
    ['echo', 'Bravo', 'charlie', 'Alpha'],
  );
});
