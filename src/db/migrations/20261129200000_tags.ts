// docs/api-contract.md §27: tags on clients, properties, quotes, jobs, invoices and visits. A tag is a row of `tags`
// per account (its first spelling, its lower-case key unique, and a count per kind, moved with each link); each
// object's tags twice, written together by the one writer (modules/tags): as a JSON list of names in the object's
// own row (`tags`, what answers read with the row) and as rows of `tag_links` (tag, kind, object), which the
// filters read through (account, tag, kind, object): never the JSON.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { dialectOf } from '../database.js';

/** The six kinds that carry tags, by table. */
const TAGGED_TABLES = ['clients', 'properties', 'quotes', 'jobs', 'invoices', 'visits'] as const;
/** The count columns of a tag, one per kind. */
const COUNTS = ['client_count', 'property_count', 'quote_count', 'job_count', 'invoice_count', 'visit_count'] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  let tags = db.schema
    .createTable('tags')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('name_key', 'text', (column) => column.notNull());
  for (const count of COUNTS) tags = tags.addColumn(count, 'integer', (column) => column.notNull().defaultTo(0));
  await tags
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  // A name is the account's once, whatever its case; the same index serves `q` (a prefix) and the name's lookup.
  await db.schema.createIndex('tags_name_key_idx').on('tags').columns(['account_id', 'name_key']).unique().execute();
  await db.schema
    .createIndex('tags_account_created_at_idx')
    .on('tags')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('tags_account_updated_at_idx')
    .on('tags')
    .columns(['account_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('tag_links')
    .addColumn('account_id', types.id, (column) => column.notNull())
    .addColumn('tag_id', types.id, (column) => column.notNull())
    .addColumn('resource', 'text', (column) => column.notNull())
    .addColumn('object_id', types.id, (column) => column.notNull())
    .execute();
  // The filters' index: a tag's objects of one kind, in id order; also what a rename or delete rewrites.
  await db.schema
    .createIndex('tag_links_tag_idx')
    .on('tag_links')
    .columns(['account_id', 'tag_id', 'resource', 'object_id'])
    .unique()
    .execute();
  // An object's links: its writes and its delete.
  await db.schema.createIndex('tag_links_object_idx').on('tag_links').columns(['account_id', 'object_id']).execute();

  const empty = dialectOf(db) === 'postgres' ? sql`'[]'::jsonb` : sql`'[]'`;
  for (const table of TAGGED_TABLES)
    await db.schema
      .alterTable(table)
      .addColumn('tags', types.json, (column) => column.notNull().defaultTo(empty))
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TAGGED_TABLES) await db.schema.alterTable(table).dropColumn('tags').execute();
  await db.schema.dropTable('tag_links').execute();
  await db.schema.dropTable('tags').execute();
}
