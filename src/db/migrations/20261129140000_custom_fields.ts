// docs/api-contract.md §27: custom fields. A definition per (account, kind, key); the values twice, written together
// by the one writer (modules/custom-fields/values.ts): as a JSON object in the object's own row (`custom_fields`,
// what answers read with the row), and as typed value rows (`custom_field_values`), one per value (per option of a
// multi_select), indexed by (account, field, value): what filters read, never the JSON. A deleted definition keeps
// its row, `deleted_at` set, until the purge has taken its values from both (its key taken until then).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { dialectOf } from '../database.js';

/** The nine kinds that carry custom fields, by table. */
const KIND_TABLES = [
  'clients',
  'properties',
  'service_requests',
  'quotes',
  'jobs',
  'invoices',
  'visits',
  'products',
  'team_members',
] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('custom_fields')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('resource', 'text', (column) => column.notNull())
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('label', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('required', 'integer', (column) => column.notNull())
    .addColumn('options', types.json, (column) => column.notNull())
    .addColumn('bounds', types.json, (column) => column.notNull())
    .addColumn('printable', 'integer', (column) => column.notNull())
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('deleted_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  // The key is taken until the purge deletes the row, deleted or not.
  await db.schema
    .createIndex('custom_fields_key_idx')
    .on('custom_fields')
    .columns(['account_id', 'resource', 'key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('custom_fields_account_created_at_idx')
    .on('custom_fields')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('custom_fields_account_updated_at_idx')
    .on('custom_fields')
    .columns(['account_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('custom_field_values')
    .addColumn('account_id', types.id, (column) => column.notNull())
    .addColumn('field_id', types.id, (column) => column.notNull())
    .addColumn('object_id', types.id, (column) => column.notNull())
    // text (lower case, its first 250 characters), date, boolean, select and multi_select values.
    .addColumn('text_value', 'text')
    // number: a double holds every value of ≤ 15 significant digits exactly.
    .addColumn('number_value', 'double precision')
    // money, in minor units.
    .addColumn('amount_value', 'bigint')
    .execute();
  for (const [name, column] of [
    ['custom_field_values_text_idx', 'text_value'],
    ['custom_field_values_number_idx', 'number_value'],
    ['custom_field_values_amount_idx', 'amount_value'],
  ] as const)
    await db.schema
      .createIndex(name)
      .on('custom_field_values')
      .columns(['account_id', 'field_id', column, 'object_id'])
      .where(sql.ref(column), 'is not', null)
      .execute();
  // A field's values by object: a write replacing an object's values, a range filter's check of one row, the
  // purge. Led by the account and the field as every read of the table is (an object's delete names its kind's
  // fields).
  await db.schema
    .createIndex('custom_field_values_field_idx')
    .on('custom_field_values')
    .columns(['account_id', 'field_id', 'object_id'])
    .execute();

  const empty = dialectOf(db) === 'postgres' ? sql`'{}'::jsonb` : sql`'{}'`;
  for (const table of KIND_TABLES)
    await db.schema
      .alterTable(table)
      .addColumn('custom_fields', types.json, (column) => column.notNull().defaultTo(empty))
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of KIND_TABLES) await db.schema.alterTable(table).dropColumn('custom_fields').execute();
  await db.schema.dropTable('custom_field_values').execute();
  await db.schema.dropTable('custom_fields').execute();
}
