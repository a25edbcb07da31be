// docs/api-contract.md §16: properties, the places where a client has work done, and `property_id` on service
// requests, quotes, jobs and invoices. Every list of properties is answered from an index (§5, §13): one
// per sort, one per equality filter (client, postal code), one per sort for `archived`, and `q` on a trigram
// index of the name and address text (PostgreSQL pg_trgm; SQLite an FTS5 `trigram` table kept in step by
// triggers, its rowid a search_id from `property_search_keys` as for clients). Each document table gains an
// index on (account_id, property_id), which the delete of a property counts its references from.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';
import { columnTypes } from './column-types.js';

const DOCUMENT_TABLES = ['service_requests', 'quotes', 'jobs', 'invoices'] as const;

/** [index name, its columns]. */
const INDEXES: Array<[string, string[]]> = [
  ['properties_account_created_at_idx', ['account_id', 'created_at', 'id']],
  ['properties_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
  ['properties_client_idx', ['account_id', 'client_id', 'created_at', 'id']],
  ['properties_postal_code_idx', ['account_id', 'postal_code_key', 'created_at', 'id']],
  ['properties_archived_created_at_idx', ['account_id', 'archived', 'created_at', 'id']],
  ['properties_archived_updated_at_idx', ['account_id', 'archived', 'updated_at', 'id']],
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('properties')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('name', 'text')
    .addColumn('address', types.json, (column) => column.notNull())
    .addColumn('postal_code_key', 'text')
    .addColumn('search_text', 'text', (column) => column.notNull())
    .addColumn('timezone', 'text', (column) => column.notNull())
    .addColumn('location', types.json)
    .addColumn('access_notes', 'text')
    .addColumn('archived', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('properties').columns(columns).execute();
  // NULLs are distinct on both engines: many properties may have no external id.
  await db.schema
    .createIndex('properties_external_id_unique')
    .on('properties')
    .columns(['account_id', 'external_id'])
    .unique()
    .execute();

  for (const table of DOCUMENT_TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('property_id', types.id, (column) => column.references('properties.id'))
      .execute();
    await db.schema.createIndex(`${table}_property_idx`).on(table).columns(['account_id', 'property_id']).execute();
  }

  if (dialectOf(db) === 'postgres') {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index properties_search_trgm_idx on properties using gin (search_text gin_trgm_ops)`.execute(db);
    return;
  }
  await sql`create table property_search_keys (search_id integer primary key, property_id text not null unique)`.execute(
    db,
  );
  await sql`create virtual table properties_fts using fts5(body, tokenize = 'trigram')`.execute(db);
  await sql
    .raw(`create trigger properties_search_insert after insert on properties begin
    insert into property_search_keys (property_id) values (new.id);
    insert into properties_fts (rowid, body) values (last_insert_rowid(), new.search_text);
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_search_update after update of search_text on properties begin
    update properties_fts set body = new.search_text where rowid = (select search_id from property_search_keys where property_id = new.id);
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_search_delete after delete on properties begin
    delete from properties_fts where rowid = (select search_id from property_search_keys where property_id = old.id);
    delete from property_search_keys where property_id = old.id;
  end`)
    .execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`drop index if exists properties_search_trgm_idx`.execute(db);
  } else {
    for (const trigger of ['properties_search_insert', 'properties_search_update', 'properties_search_delete'])
      await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
    await sql`drop table if exists properties_fts`.execute(db);
    await sql`drop table if exists property_search_keys`.execute(db);
  }
  for (const table of DOCUMENT_TABLES) {
    await db.schema.dropIndex(`${table}_property_idx`).execute();
    await db.schema.alterTable(table).dropColumn('property_id').execute();
  }
  await db.schema.dropTable('properties').execute();
}
