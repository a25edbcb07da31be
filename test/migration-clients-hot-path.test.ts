// The migrations 20261128080000, 20261128080100 and 20261128110000 (issue 36) on a database that already holds clients:
// - client_search_queue, on both engines (a no-op on PostgreSQL): the clients made before it are still found
//   by their search text, a client made after it is found once its transaction has committed, a queued client
//   deleted before its batch commits leaves nothing behind, and down makes the search rows of whatever is
//   still queued before it restores the old trigger;
// - clients_property_ids, SQLite only: the column is filled from the properties already there and kept by
//   every insert, update and delete of a property; down drops it;
// - clients_version, SQLite only: the clients already there start at 0, and every UPDATE raises it by one
//   (a property's change of property_ids too), whatever it sets, unless it sets the version itself; down
//   drops the column and its trigger.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f31';
const BEFORE = '20261127200000_webhook_deliveries_fewer_indexes';
const NOW = '2026-11-20T10:00:00.000Z';

test('client search queue: rows made before and after are found, a deleted queued row leaves none, down drains the queue', async () => {
  const database = await migratableDatabase();
  const db = database.db;
  const insert = (id: string, name: string) =>
    sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${id}, ${ACCOUNT}, ${name}, ${name.toLowerCase()}, ${'{}'}, ${NOW}, ${NOW})`.execute(db);
  // What the list's `q` reads on each engine: the FTS5 table on SQLite, the trigram expression on PostgreSQL.
  const found = async (q: string) =>
    onPostgres
      ? (
          await sql<{
            id: string;
          }>`select id from clients where lower(name) like ${`%${q}%`} order by id`.execute(db)
        ).rows.map((row) => row.id)
      : (
          await sql<{
            id: string;
          }>`select k.client_id as id from clients_fts f join client_search_keys k on k.search_id = f.rowid where clients_fts match ${`"${q}"`} order by k.client_id`.execute(
            db,
          )
        ).rows.map((row) => row.id);
  const queued = async () =>
    onPostgres
      ? 0
      : Number(
          (await sql<{ count: number }>`select count(*) as count from client_search_pending`.execute(db)).rows[0]!
            .count,
        );
  const id = (last: number) => `019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f${String(last).padStart(2, '0')}`;
  try {
    await database.migrateTo(BEFORE);
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before'}, ${'USD'}, ${30}, ${NOW}, ${NOW})`.execute(db);
    await insert(id(40), 'Pangolin Plumbing');
    await insert(id(41), 'Pangolin Roofing');

    await database.migrateToLatest();
    assert.deepEqual(await found('pangolin'), [id(40), id(41)], 'made before the migration');
    await insert(id(42), 'Pangolin Gardens');
    assert.deepEqual(await found('pangolin'), [id(40), id(41), id(42)], 'made after, found once committed');
    assert.equal(await queued(), 0);
    await db.transaction().execute(async (trx) => {
      await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
        values (${id(43)}, ${ACCOUNT}, ${'Pangolin Gone'}, ${'pangolin gone'}, ${'{}'}, ${NOW}, ${NOW})`.execute(trx);
      if (!onPostgres)
        assert.equal(
          Number((await sql<{ n: number }>`select count(*) as n from client_search_pending`.execute(trx)).rows[0]!.n),
          1,
        );
      await sql`delete from clients where id = ${id(43)}`.execute(trx);
    });
    assert.deepEqual(await found('pangolin'), [id(40), id(41), id(42)], 'deleted before its batch committed');
    assert.equal(await queued(), 0);

    if (!onPostgres) {
      // A connection without the group commit's batch work (a shell, a bulk load) leaves its rows queued.
      const raw = new SqliteDatabase((database.config.database as { path: string }).path);
      raw
        .prepare(
          `insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at) values (?, ?, 'Pangolin Queued', 'pangolin queued', '{}', ?, ?)`,
        )
        .run(id(45), ACCOUNT, NOW, NOW);
      raw.close();
      assert.equal(await queued(), 1);
    }
    const all = onPostgres ? [id(40), id(41), id(42)] : [id(40), id(41), id(42), id(45)];
    await database.migrateTo(BEFORE);
    assert.deepEqual(await found('pangolin'), all, 'down keeps every search row and makes the queued ones');
    await insert(id(44), 'Pangolin Electric');
    assert.deepEqual(await found('pangolin'), [...all, id(44)].sort(), 'down: the trigger indexes at once');
    await database.migrateToLatest();
  } finally {
    await database.close();
  }
});

test('client property ids column (SQLite): filled from the properties already there, then kept by every change', async (t) => {
  if (onPostgres) return t.skip('SQLite only: PostgreSQL reads the ids with a subquery');
  const database = await migratableDatabase();
  const db = database.db;
  const id = (last: number) => `019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f${String(last).padStart(2, '0')}`;
  const property = (last: number, client: number, at: string) =>
    sql`insert into properties (id, account_id, client_id, address, search_text, timezone, metadata, created_at, updated_at)
      values (${id(last)}, ${ACCOUNT}, ${id(client)}, ${'{}'}, ${''}, ${'UTC'}, ${'{}'}, ${at}, ${at})`.execute(db);
  const ids = async (client: number) =>
    JSON.parse(
      (await sql<{ ids: string }>`select property_ids as ids from clients where id = ${id(client)}`.execute(db))
        .rows[0]!.ids,
    );
  try {
    await database.migrateTo(BEFORE);
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before'}, ${'USD'}, ${30}, ${NOW}, ${NOW})`.execute(db);
    for (const client of [50, 51])
      await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
        values (${id(client)}, ${ACCOUNT}, ${'Owner'}, ${'owner'}, ${'{}'}, ${NOW}, ${NOW})`.execute(db);
    // Made in the reverse of id order: the ids come by created_at, then id.
    await property(62, 50, '2026-11-20T10:00:01.000Z');
    await property(61, 50, '2026-11-20T10:00:02.000Z');
    await property(60, 50, '2026-11-20T10:00:02.000Z');

    await database.migrateToLatest();
    assert.deepEqual(await ids(50), [id(62), id(60), id(61)], 'filled from the properties already there');
    assert.deepEqual(await ids(51), []);
    await property(63, 51, '2026-11-20T10:00:03.000Z');
    assert.deepEqual(await ids(51), [id(63)], 'an insert');
    await sql`update properties set created_at = ${'2026-11-20T10:00:00.000Z'} where id = ${id(61)}`.execute(db);
    assert.deepEqual(await ids(50), [id(61), id(62), id(60)], 'an update of the order');
    await sql`update properties set client_id = ${id(51)} where id = ${id(62)}`.execute(db);
    assert.deepEqual(
      [await ids(50), await ids(51)],
      [
        [id(61), id(60)],
        [id(62), id(63)],
      ],
      'a move, both clients',
    );
    await sql`delete from properties where id = ${id(60)}`.execute(db);
    assert.deepEqual(await ids(50), [id(61)], 'a delete');

    await database.migrateTo(BEFORE);
    const columns = await sql<{ name: string }>`select name from pragma_table_info('clients')`.execute(db);
    assert.ok(!columns.rows.some((row) => row.name === 'property_ids'), 'down drops the column');
    await property(64, 51, '2026-11-20T10:00:04.000Z');
    await database.migrateToLatest();
    assert.deepEqual(await ids(51), [id(62), id(63), id(64)], 'up again fills it');
  } finally {
    await database.close();
  }
});

test('client version (SQLite): 0 for the clients already there, raised by every change of the row', async (t) => {
  if (onPostgres) return t.skip('SQLite only: PostgreSQL lists read their rows whole');
  const database = await migratableDatabase();
  const db = database.db;
  const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f70';
  const version = async () =>
    Number(
      (await sql<{ version: number }>`select version from clients where id = ${CLIENT}`.execute(db)).rows[0]!.version,
    );
  try {
    await database.migrateTo(database.before('20261128110000_clients_version'));
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before'}, ${'USD'}, ${30}, ${NOW}, ${NOW})`.execute(db);
    await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${CLIENT}, ${ACCOUNT}, ${'Owner'}, ${'owner'}, ${'{}'}, ${NOW}, ${NOW})`.execute(db);

    await database.migrateToLatest();
    assert.equal(await version(), 0, 'a client made before the migration');
    await sql`update clients set name = ${'Owner 2'} where id = ${CLIENT}`.execute(db);
    assert.equal(await version(), 1, 'an update');
    await sql`update clients set name = name where id = ${CLIENT}`.execute(db);
    assert.equal(await version(), 2, 'an update that changes nothing still counts');
    await sql`insert into properties (id, account_id, client_id, address, search_text, timezone, metadata, created_at, updated_at)
      values (${'019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f71'}, ${ACCOUNT}, ${CLIENT}, ${'{}'}, ${''}, ${'UTC'}, ${'{}'}, ${NOW}, ${NOW})`.execute(
      db,
    );
    assert.equal(await version(), 3, "a property's insert changes property_ids");
    await sql`update clients set version = 10 where id = ${CLIENT}`.execute(db);
    assert.equal(await version(), 10, 'an update that sets the version itself');

    await database.migrateTo(database.before('20261128110000_clients_version'));
    const columns = await sql<{ name: string }>`select name from pragma_table_info('clients')`.execute(db);
    assert.ok(!columns.rows.some((row) => row.name === 'version'), 'down drops the column');
    await sql`update clients set name = ${'Owner 3'} where id = ${CLIENT}`.execute(db);
    await database.migrateToLatest();
    assert.equal(await version(), 0, 'up again starts at 0');
  } finally {
    await database.close();
  }
});
