// Accounts, API keys and clients. Timestamps are ISO text on SQLite and timestamptz on PostgreSQL.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// Kysely hands migrations an untyped instance by design: they run against any past schema.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);

  await db.schema
    .createTable('accounts')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull().defaultTo('USD'))
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('prefix', 'text', (column) => column.notNull())
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('expires_at', types.timestamp)
    .addColumn('revoked_at', types.timestamp)
    .addColumn('last_used_at', types.timestamp)
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('rate_limit_per_day', 'integer')
    .addColumn('rate_limit_burst', 'integer')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('company_name', 'text')
    .addColumn('address', types.json)
    .addColumn('notes', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  // One index per sort order of the list endpoint, each ending in id for the keyset tie-break.
  for (const column of ['created_at', 'updated_at', 'name']) {
    await db.schema
      .createIndex(`clients_account_${column}_idx`)
      .on('clients')
      .columns(['account_id', column, 'id'])
      .execute();
  }
  // The email filter is case-insensitive, so the index is on lower(email).
  await sql`create index clients_account_email_idx on clients (account_id, lower(email))`.execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('clients').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('accounts').execute();
}
