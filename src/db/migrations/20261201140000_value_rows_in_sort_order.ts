// Custom field value rows and tag links carry their object's `created_at` (`object_created_at`), with an index
// each that reads a field's (a tag's) objects in the lists' default order: (account_id, field_id,
// object_created_at, object_id) and the value columns; (account_id, tag_id, resource, object_created_at,
// object_id); and the value columns' indexes end with it. A filtered list sorted by created_at that cannot read its
// filter's range whole walks that index instead of the sort's own, testing each entry's value in the index: no
// probe of the value rows per object; a range read whole is sorted from its index, only a page's objects read
// (db/list-plan.ts, docs/decisions.md "Filters walked in the lists' order"). An object's created_at never changes, so
// the copy is written with the row and never updated; existing rows take theirs from their objects here.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** The kinds that carry custom fields, by the `resource` their fields name, and their tables. */
const CUSTOM_FIELD_TABLES = {
  client: 'clients',
  property: 'properties',
  service_request: 'service_requests',
  quote: 'quotes',
  job: 'jobs',
  invoice: 'invoices',
  visit: 'visits',
  product: 'products',
  team_member: 'team_members',
} as const;
/** The value columns' indexes, (account_id, field_id, value, object_id) where the value is set. */
const VALUE_INDEXES = [
  ['custom_field_values_text_idx', 'text_value'],
  ['custom_field_values_number_idx', 'number_value'],
  ['custom_field_values_amount_idx', 'amount_value'],
] as const;
/** The kinds that carry tags, by the `resource` their links name. */
const TAGGED = ['client', 'property', 'quote', 'job', 'invoice', 'visit'] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  for (const table of ['custom_field_values', 'tag_links'])
    await db.schema.alterTable(table).addColumn('object_created_at', types.timestamp).execute();
  for (const [resource, table] of Object.entries(CUSTOM_FIELD_TABLES))
    await sql`update custom_field_values set object_created_at = (
        select created_at from ${sql.table(table)} objects
        where objects.account_id = custom_field_values.account_id and objects.id = custom_field_values.object_id)
      where field_id in (select id from custom_fields where resource = ${resource})`.execute(db);
  for (const resource of TAGGED)
    await sql`update tag_links set object_created_at = (
        select created_at from ${sql.table(CUSTOM_FIELD_TABLES[resource])} objects
        where objects.account_id = tag_links.account_id and objects.id = tag_links.object_id)
      where resource = ${resource}`.execute(db);
  // The values' own indexes end with it too, so that a small range read whole is sorted by created_at from the
  // index alone and only a page's objects are read.
  for (const [name, column] of VALUE_INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('custom_field_values')
      .columns(['account_id', 'field_id', column, 'object_id', 'object_created_at'])
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  await db.schema
    .createIndex('custom_field_values_sorted_idx')
    .on('custom_field_values')
    .columns(['account_id', 'field_id', 'object_created_at', 'object_id', 'text_value', 'number_value', 'amount_value'])
    .execute();
  await db.schema
    .createIndex('tag_links_sorted_idx')
    .on('tag_links')
    .columns(['account_id', 'tag_id', 'resource', 'object_created_at', 'object_id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tag_links_sorted_idx').execute();
  await db.schema.dropIndex('custom_field_values_sorted_idx').execute();
  for (const [name, column] of VALUE_INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('custom_field_values')
      .columns(['account_id', 'field_id', column, 'object_id'])
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  for (const table of ['custom_field_values', 'tag_links'])
    await db.schema.alterTable(table).dropColumn('object_created_at').execute();
}
