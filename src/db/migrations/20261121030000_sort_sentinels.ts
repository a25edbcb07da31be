// Indexes for sorting by a column that may be empty (jobs.scheduled_start, invoices.due_date). Empty
// values sort lowest through coalesce(column, <sentinel>), with a sentinel valid for the column's type on
// both engines (text on SQLite, timestamptz and date on PostgreSQL). Replaces the earlier '' sentinel,
// which PostgreSQL cannot compare with a date.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { SORT_SENTINELS } from '../sort-sentinels.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  for (const name of ['jobs_sort_3_idx', 'invoices_sort_3_idx'])
    await sql`drop index if exists ${sql.raw(name)}`.execute(db);
  await sql`create index jobs_sort_scheduled_start_idx on jobs (account_id, coalesce(scheduled_start, ${sql.lit(SORT_SENTINELS.timestamp)}), id)`.execute(
    db,
  );
  await sql`create index invoices_sort_due_date_idx on invoices (account_id, coalesce(due_date, ${sql.lit(SORT_SENTINELS.date)}), id)`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists jobs_sort_scheduled_start_idx`.execute(db);
  await sql`drop index if exists invoices_sort_due_date_idx`.execute(db);
}
