// The migration that leads the value rows' second index by the object (custom_field_values_object_idx, for a
// create's ten value rows on one page), on a database whose clients hold values as the version before wrote them,
// on both engines: the index replaces (account_id, field_id, object_id); filters answer as before; the purge finds
// a deleted field's values of every type through the value's own index; down and up again keep the values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../src/db/database.js';
import { customFieldConditions, purgeAllDeletedCustomFields } from '../src/modules/custom-fields/index.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261130180000_custom_field_values_by_object';

test('value rows written before are found by the object-led index; a purge of each type; down and up keep them', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const account = '019a8f4e-7c1a-7d2b-9a3e-0000000000a2';
    const visits = '019a8f4e-7c1a-7d2b-9a3e-0000000000e1';
    const budget = '019a8f4e-7c1a-7d2b-9a3e-0000000000e2';
    const services = '019a8f4e-7c1a-7d2b-9a3e-0000000000e3';
    const clients = [
      '019a8f4e-7c1a-7d2b-9a3e-0000000000c1',
      '019a8f4e-7c1a-7d2b-9a3e-0000000000c2',
      '019a8f4e-7c1a-7d2b-9a3e-0000000000c3',
    ];
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${account}, ${'Before values by object'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const [id, key, type, options] of [
      [visits, 'visits', 'number', []],
      [budget, 'budget', 'money', []],
      [services, 'services', 'multi_select', ['lawn', 'snow']],
    ] as const)
      await db
        .insertInto('custom_fields')
        .values({
          id,
          account_id: account,
          resource: 'client',
          key,
          label: key,
          description: null,
          type,
          required: 0,
          options: JSON.stringify(options.map((value) => ({ value, label: value, archived: false }))),
          bounds: '{}',
          printable: 0,
          position: 0,
          metadata: '{}',
          deleted_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    // Client i: visits 10 + i, budget 100 × i, services lawn (and snow for the second).
    for (const [index, id] of clients.entries()) {
      const values = { visits: 10 + index, budget: 100 * index, services: index === 1 ? ['lawn', 'snow'] : ['lawn'] };
      await sql`insert into clients (id, account_id, name, sort_name, email, metadata, custom_fields, created_at, updated_at)
        values (${id}, ${account}, ${`Client ${index}`}, ${`client ${index}`}, ${null}, ${'{}'},
          ${JSON.stringify(values)}, ${now}, ${now})`.execute(database.db);
      const row = { account_id: account, object_id: id, text_value: null, number_value: null, amount_value: null };
      await db
        .insertInto('custom_field_values')
        .values([
          { ...row, field_id: visits, number_value: 10 + index },
          { ...row, field_id: budget, amount_value: 100 * index },
          ...values.services.map((one) => ({ ...row, field_id: services, text_value: one })),
        ])
        .execute();
    }

    assert.ok((await database.migrateToLatest()).includes(NAME));
    const postgres = dialectOf(database.db) === 'postgres';
    const indexes = async () =>
      (postgres
        ? await sql<{ name: string }>`select indexname as name from pg_indexes
            where tablename = 'custom_field_values' order by indexname`.execute(database.db)
        : await sql<{ name: string }>`select name from sqlite_master
            where type = 'index' and tbl_name = 'custom_field_values' order by name`.execute(database.db)
      ).rows.map((row) => row.name);
    assert.deepEqual(await indexes(), [
      'custom_field_values_amount_idx',
      'custom_field_values_number_idx',
      'custom_field_values_object_idx',
      // A later migration's (the entries in created_at order).
      'custom_field_values_sorted_idx',
      'custom_field_values_text_idx',
    ]);
    // The filters answer from the rows written before: visits 11–12 are the second and third clients.
    const [range] = await customFieldConditions(database.db, account, 'client', 'clients', {
      'custom_fields.visits.gte': '11',
      'custom_fields.visits.lte': '12',
    });
    const found = await range!.range!.execute();
    assert.deepEqual(
      found.map((row) => row.range_id),
      [clients[1], clients[2]],
    );

    // Deleting the number and the multi_select fields: the purge takes their rows and keys, the money stays.
    await db.updateTable('custom_fields').set({ deleted_at: now }).where('id', 'in', [visits, services]).execute();
    await purgeAllDeletedCustomFields(database.db);
    const left = await db
      .selectFrom('custom_field_values')
      .select(['object_id', 'field_id', 'amount_value'])
      .orderBy('object_id')
      .execute();
    assert.deepEqual(
      left.map((row) => [row.object_id, row.field_id, Number(row.amount_value)]),
      clients.map((id, index) => [id, budget, 100 * index]),
    );
    const json = await sql<{ custom_fields: unknown }>`select custom_fields from clients order by id`.execute(
      database.db,
    );
    assert.deepEqual(
      json.rows.map((row) =>
        typeof row.custom_fields === 'string' ? JSON.parse(row.custom_fields) : row.custom_fields,
      ),
      [{ budget: 0 }, { budget: 100 }, { budget: 200 }],
    );
    const definitions = await db.selectFrom('custom_fields').select('id').execute();
    assert.deepEqual(
      definitions.map((row) => row.id),
      [budget],
    );

    await database.migrateTo(database.before(NAME));
    assert.deepEqual(await indexes(), [
      'custom_field_values_amount_idx',
      'custom_field_values_field_idx',
      'custom_field_values_number_idx',
      'custom_field_values_text_idx',
    ]);
    await database.migrateToLatest();
    assert.equal((await db.selectFrom('custom_field_values').select('object_id').execute()).length, 3);
  } finally {
    await database.close();
  }
});
