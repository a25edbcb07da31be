// The migration that gives custom field value rows and tag links their object's created_at (object_created_at),
// with an index each in that order (db/list-plan.ts walks a filter's own entries there), on a database whose
// clients hold values and tags as the version before wrote them, on both engines: each row takes exactly its own
// client's created_at, a filtered list sorted by created_at finds them newest first, and down and up keep them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { pageRequest } from '../src/db/index.js';
import type { ClientRow } from '../src/db/types.js';
import { CLIENT_SORTS, clientListPlan } from '../src/modules/clients/clients.repository.js';
import { customFieldConditions } from '../src/modules/custom-fields/index.js';
import { tagConditions } from '../src/modules/tags/index.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261201140000_value_rows_in_sort_order';

test('value rows and tag links written before take their own object’s created_at; lists read them newest first; down and up keep them', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(NAME));
    const now = '2026-11-30T12:00:00.000Z';
    const account = '019a8f4e-7c1a-7d2b-9a3e-0000000000a3';
    const region = '019a8f4e-7c1a-7d2b-9a3e-0000000000e1';
    const vip = '019a8f4e-7c1a-7d2b-9a3e-0000000000f1';
    // Created in the opposite order to their ids, so that an order taken from the ids would be wrong.
    const clients = [
      ['019a8f4e-7c1a-7d2b-9a3e-0000000000c1', '2026-03-03T09:00:00.000Z'],
      ['019a8f4e-7c1a-7d2b-9a3e-0000000000c2', '2026-02-02T09:00:00.000Z'],
      ['019a8f4e-7c1a-7d2b-9a3e-0000000000c3', '2026-01-01T09:00:00.000Z'],
    ] as const;
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${account}, ${'Before sort order'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await db
      .insertInto('custom_fields')
      .values({
        id: region,
        account_id: account,
        resource: 'client',
        key: 'region',
        label: 'Region',
        description: null,
        type: 'text',
        required: 0,
        options: '[]',
        bounds: '{}',
        printable: 0,
        position: 0,
        metadata: '{}',
        deleted_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('tags')
      .values({
        id: vip,
        account_id: account,
        name: 'VIP',
        name_key: 'vip',
        client_count: 3,
        created_at: now,
        updated_at: now,
      })
      .execute();
    for (const [id, created] of clients) {
      await sql`insert into clients (id, account_id, name, sort_name, email, metadata, custom_fields, created_at, updated_at)
        values (${id}, ${account}, ${id}, ${id}, ${null}, ${'{}'}, ${'{"region":"North"}'}, ${created}, ${now})`.execute(
        database.db,
      );
      await db
        .insertInto('custom_field_values')
        .values({
          account_id: account,
          field_id: region,
          object_id: id,
          text_value: 'north',
          number_value: null,
          amount_value: null,
        })
        .execute();
      await db
        .insertInto('tag_links')
        .values({ account_id: account, tag_id: vip, resource: 'client', object_id: id, position: 0 })
        .execute();
    }

    assert.ok((await database.migrateToLatest()).includes(NAME));
    const stamps = async (table: 'custom_field_values' | 'tag_links') =>
      (await db.selectFrom(table).select(['object_id', 'object_created_at']).orderBy('object_id').execute()).map(
        (row) => [row.object_id, new Date(row.object_created_at as string).toISOString()],
      );
    const expected = clients.map(([id, created]) => [id, created]);
    assert.deepEqual(await stamps('custom_field_values'), expected);
    assert.deepEqual(await stamps('tag_links'), expected);

    // Sorted by created_at (newest first: c1, c2, c3), both filters walk their own entries in that order (the
    // list's walk, run here without a bound, as when fewer than WALK_LIMIT entries remain).
    const page = pageRequest<ClientRow>({ limit: 5 }, CLIENT_SORTS);
    for (const custom of [
      await customFieldConditions(database.db, account, 'client', 'clients', { 'custom_fields.region': 'north' }),
      await tagConditions(database.db, account, 'client', 'clients', { tags_any: 'vip' }),
    ]) {
      const { walk, query } = clientListPlan(database.db, account, { custom }, page);
      assert.ok(walk);
      assert.match(query.compile().sql, /object_created_at/);
      assert.deepEqual(
        (await query.execute()).map((row) => row.id),
        clients.map(([id]) => id),
      );
    }

    await database.migrateTo(database.before(NAME));
    assert.equal((await db.selectFrom('custom_field_values').select('object_id').execute()).length, 3);
    assert.equal((await db.selectFrom('tag_links').select('object_id').execute()).length, 3);
    await database.migrateToLatest();
    assert.deepEqual(await stamps('tag_links'), expected);
  } finally {
    await database.close();
  }
});
