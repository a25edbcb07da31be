// The change feed's deletions by age (docs/api-contract.md §26): the webhook worker prunes those older than
// CHANGE_RETENTION_DAYS a batch at a time, and this partial index finds them without reading the live rows.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index changes_deleted on changes (changed_at) where deleted = 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index changes_deleted`.execute(db);
}
