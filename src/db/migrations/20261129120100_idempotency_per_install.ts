// docs/api-contract.md §25: an app's token keeps its idempotency records under its install's id, which is no API
// key: the records' `api_key_id` loses its foreign key to api_keys. The table is rebuilt (SQLite cannot drop a
// foreign key), its rows copied.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const COLUMNS =
  'api_key_id, key, request_hash, status, response_status, response_body, response_location, locked_until, expires_at, created_at, response_etag';

async function rebuild(db: Kysely<any>, withForeignKey: boolean): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('idempotency_keys_rebuilt')
    .addColumn('api_key_id', types.id, (column) =>
      withForeignKey ? column.notNull().references('api_keys.id') : column.notNull(),
    )
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('request_hash', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_location', 'text')
    .addColumn('locked_until', types.timestamp, (column) => column.notNull())
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('response_etag', 'text')
    .execute();
  await sql`insert into idempotency_keys_rebuilt (${sql.raw(COLUMNS)}) select ${sql.raw(COLUMNS)} from idempotency_keys`.execute(
    db,
  );
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('idempotency_keys_rebuilt').renameTo('idempotency_keys').execute();
  await db.schema
    .createIndex('idempotency_keys_pk_idx')
    .on('idempotency_keys')
    .columns(['api_key_id', 'key'])
    .unique()
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry_idx').on('idempotency_keys').column('expires_at').execute();
}

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, false);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, true);
}
