// The change feed (docs/api-contract.md §26): a row per object that changed, at its latest change. A write
// leaves its row pending (`position` null); the feed gives pending rows their positions after they committed
// (docs/decisions.md, "The change feed: positions in commit order"), so a position is never below one already
// read. `change_positions` is each account's last position given.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('changes')
    .addColumn('account_id', types.id, (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('object_id', types.id, (column) => column.notNull())
    .addColumn('position', 'bigint')
    .addColumn('deleted', 'integer', (column) => column.notNull())
    .addColumn('changed_at', types.timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('changes_pkey', ['account_id', 'kind', 'object_id'])
    .execute();
  await sql`create unique index changes_position on changes (account_id, position) where position is not null`.execute(
    db,
  );
  await sql`create index changes_pending on changes (account_id, changed_at) where position is null`.execute(db);
  await db.schema
    .createTable('change_positions')
    .addColumn('account_id', types.id, (column) => column.primaryKey())
    .addColumn('last_position', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_positions').execute();
  await db.schema.dropTable('changes').execute();
}
