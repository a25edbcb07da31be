// A list of clients and GET of one always show the client as it now stands. On SQLite both read the rows'
// ids and versions and reuse the records read before (modules/clients/client-cache.ts, migration
// 20261128110000), so every way a client can change must reach the next page read: an update through the API
// (two in the same millisecond included), a property added or deleted, a write by another connection, a
// delete; and pages by name must still carry their cursors; and a page whose rows change between the read of
// their versions and the read of their records (another commit in between) is read again whole, never answered
// out of order or ended early. On PostgreSQL the same behaviour, read whole.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { StatementCache } from '../src/db/sqlite/sqlite-statements.js';
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

/**
 * SQLite: `write` runs on another connection at the moment the list reads the records of its page (the
 * records' statement is the one that reads `version` by `id in (…)`), after it read the page's versions.
 */
async function listedWith(write: (connection: SqliteDatabase.Database) => void, url: string) {
  const connection = new SqliteDatabase(context.databaseUrl.replace(/^sqlite:/, ''));
  const prepare = StatementCache.prototype.prepare;
  let armed = true;
  StatementCache.prototype.prepare = function (this: StatementCache, sqlText: string) {
    if (armed && sqlText.includes('"version"') && sqlText.includes(' in (')) {
      armed = false;
      write(connection);
    }
    return prepare.call(this, sqlText);
  };
  try {
    const page = await call('GET', url);
    assert.equal(armed, false, 'the page read its records after its versions');
    return page;
  } finally {
    StatementCache.prototype.prepare = prepare;
    connection.close();
  }
}

test('a commit between the two reads of a page: the page is read again whole, in order, with its cursor', async (t) => {
  if (onPostgres) return t.skip('SQLite only: PostgreSQL reads a page in one statement');
  const ids: string[] = [];
  for (const name of ['A', 'B', 'C', 'D', 'E']) {
    clock.advance(1);
    ids.push((await call('POST', '/v1/clients', { name })).data.id);
  }
  // Read once, so that B and C are remembered at their current versions; then both change.
  await call('GET', '/v1/clients?sort=name&limit=2');
  await call('PUT', `/v1/clients/${ids[1]}`, { notes: 'changed' });
  await call('PUT', `/v1/clients/${ids[0]}`, { notes: 'changed' });
  const deleted = await listedWith(
    (connection) => connection.prepare('delete from clients where id = ?').run(ids[1]),
    '/v1/clients?sort=name&limit=2',
  );
  assert.deepEqual(
    deleted.data.map((client: { name: string }) => client.name),
    ['A', 'C'],
  );
  assert.equal(deleted.meta.pagination.has_more, true, 'D and E remain');

  await call('PUT', `/v1/clients/${ids[2]}`, { notes: 'changed' });
  const renamed = await listedWith(
    (connection) => connection.prepare("update clients set name = 'Zed', sort_name = 'zed' where id = ?").run(ids[2]),
    '/v1/clients?sort=name&limit=2',
  );
  const first = renamed.data.map((client: { name: string }) => client.name);
  const rest = (
    await call('GET', `/v1/clients?sort=name&limit=10&cursor=${renamed.meta.pagination.next_cursor}`)
  ).data.map((client: { name: string }) => client.name);
  assert.deepEqual([...first, ...rest], ['A', 'D', 'E', 'Zed'], 'every client once, in order');
});
