// CSV imports (docs/api-contract.md §26, "Imports"): an import, its file, its progress, and its per-row report.
// `progress_line` is the last CSV line whose batch committed, in that batch's transaction, so a restart resumes
// after it and applies no row twice; `lease_until` keeps two workers off one import while one is alive.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('imports')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('dry_run', 'integer', (column) => column.notNull())
    .addColumn('mapping', 'text')
    .addColumn('ignored_columns', 'text')
    .addColumn('options', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('rows', 'integer')
    .addColumn('counts', 'text', (column) => column.notNull())
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (column) => column.notNull())
    .addColumn('acting_scopes', 'text', (column) => column.notNull())
    .addColumn('file', 'text')
    .addColumn('source_import_id', types.id)
    .addColumn('progress_line', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('lease_until', types.timestamp)
    .addColumn('started_at', types.timestamp)
    .addColumn('finished_at', types.timestamp)
    .addColumn('metadata', 'text', (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await sql`create index imports_account_created on imports (account_id, created_at, id)`.execute(db);
  await sql`create index imports_account_updated on imports (account_id, updated_at, id)`.execute(db);
  // The worker's queue: only imports that still have work.
  await sql`create index imports_pending on imports (created_at) where status in ('queued', 'validating', 'running')`.execute(
    db,
  );
  await db.schema
    .createTable('import_rows')
    .addColumn('import_id', types.id, (column) => column.notNull().references('imports.id').onDelete('cascade'))
    .addColumn('account_id', types.id, (column) => column.notNull())
    .addColumn('line', 'integer', (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('object_id', types.id)
    .addColumn('external_id', 'text')
    .addColumn('changed_fields', 'text', (column) => column.notNull())
    .addColumn('errors', 'text', (column) => column.notNull())
    .addColumn('cells', 'text')
    .addPrimaryKeyConstraint('import_rows_pkey', ['import_id', 'line'])
    .execute();
  await sql`create index import_rows_outcome on import_rows (import_id, outcome, line)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_rows').execute();
  await db.schema.dropTable('imports').execute();
}
