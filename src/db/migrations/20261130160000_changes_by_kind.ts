// The change feed's page (docs/api-contract.md §26) read from one index per kind: (account, kind, position) for
// the positioned changes. Before it the page walked (account, position) filtering kinds, or, when the planner's
// statistics had not yet seen a kind's rows (a million changes written since the last ANALYZE), read every
// change of the kind by the primary key and sorted them: 85–290 ms at 1,000,000 changes on PostgreSQL against
// 2 ms for the first page. Each kind is now a range of this index, merged (modules/events/changes.repository.ts).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index changes_kind_position on changes (account_id, kind, position) where position is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index changes_kind_position`.execute(db);
}
