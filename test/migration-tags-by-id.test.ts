// The migration that keeps an object's tags by the tag's id only (contract §27: "a rename, delete or count costs
// one row"), on a database whose clients hold tags as the version before wrote them (names in the client's row
// and links without a place), on both engines: each client answers its names in its own order, a rename of the
// tag's row is every client's new name, and down and up again keep them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { findClient } from '../src/modules/clients/clients.repository.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261130060000_tags_by_id';

test('tags stored as names in their objects are read by id in the same order; a rename is one row; down and up keep them', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const account = '019a8f4e-7c1a-7d2b-9a3e-0000000000a1';
    const first = '019a8f4e-7c1a-7d2b-9a3e-0000000000c1';
    const second = '019a8f4e-7c1a-7d2b-9a3e-0000000000c2';
    const untagged = '019a8f4e-7c1a-7d2b-9a3e-0000000000c3';
    const vip = '019a8f4e-7c1a-7d2b-9a3e-0000000000f1';
    const north = '019a8f4e-7c1a-7d2b-9a3e-0000000000f2';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${account}, ${'Before tags by id'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const [id, name, tags] of [
      [first, 'Acme', '["VIP","north"]'],
      [second, 'Globex', '["north","VIP"]'],
      [untagged, 'Initech', '[]'],
    ] as const)
      await sql`insert into clients (id, account_id, name, sort_name, email, metadata, tags, created_at, updated_at)
        values (${id}, ${account}, ${name}, ${name.toLowerCase()}, ${null}, ${'{}'}, ${tags}, ${now}, ${now})`.execute(
        database.db,
      );
    for (const [id, name, count] of [
      [vip, 'VIP', 2],
      [north, 'north', 2],
    ] as const)
      await db
        .insertInto('tags')
        .values({
          id,
          account_id: account,
          name,
          name_key: name.toLowerCase(),
          client_count: count,
          created_at: now,
          updated_at: now,
        })
        .execute();
    for (const [tag, object] of [
      [vip, first],
      [north, first],
      [north, second],
      [vip, second],
    ])
      await db
        .insertInto('tag_links')
        .values({ account_id: account, tag_id: tag, resource: 'client', object_id: object })
        .execute();

    assert.ok((await database.migrateToLatest()).includes(NAME));
    const tagsOf = async (id: string) => JSON.parse((await findClient(database.db, account, id))!.tags) as string[];
    assert.deepEqual(await tagsOf(first), ['VIP', 'north']);
    assert.deepEqual(await tagsOf(second), ['north', 'VIP']);
    assert.deepEqual(await tagsOf(untagged), []);
    const positions = await db
      .selectFrom('tag_links')
      .select(['object_id', 'tag_id', 'position'])
      .orderBy('object_id')
      .orderBy('position')
      .execute();
    assert.deepEqual(
      positions.map((row) => [row.object_id, row.tag_id, Number(row.position)]),
      [
        [first, vip, 0],
        [first, north, 1],
        [second, north, 0],
        [second, vip, 1],
      ],
    );
    // The clients' rows hold no tags any more: a rename is the tag's row alone.
    await assert.rejects(sql`select tags from clients`.execute(database.db));
    await db.updateTable('tags').set({ name: 'Gold', name_key: 'gold' }).where('id', '=', vip).execute();
    assert.deepEqual(await tagsOf(first), ['Gold', 'north']);
    assert.deepEqual(await tagsOf(second), ['north', 'Gold']);

    await database.migrateTo(database.before(NAME));
    const stored = await sql<{ id: string; tags: unknown }>`select id, tags from clients order by id`.execute(
      database.db,
    );
    assert.deepEqual(
      stored.rows.map((row) => [row.id, typeof row.tags === 'string' ? JSON.parse(row.tags) : row.tags]),
      [
        [first, ['Gold', 'north']],
        [second, ['north', 'Gold']],
        [untagged, []],
      ],
    );
    await database.migrateToLatest();
    assert.deepEqual(await tagsOf(second), ['north', 'Gold']);
  } finally {
    await database.close();
  }
});
