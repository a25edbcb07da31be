// Events record where a change came from beyond its actor (docs/api-contract.md §26): `origin_type`
// (change_set | import) and `origin_id`, null for a single request and for every event recorded before. The
// partial index serves the events list's `origin_id` filter; events without an origin are not in it, so the
// common write pays nothing for it.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('events').addColumn('origin_type', 'text').execute();
  await db.schema.alterTable('events').addColumn('origin_id', types.id).execute();
  await sql`create index events_origin on events (account_id, origin_id, created_at, id) where origin_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index events_origin`.execute(db);
  await db.schema.alterTable('events').dropColumn('origin_id').execute();
  await db.schema.alterTable('events').dropColumn('origin_type').execute();
}
