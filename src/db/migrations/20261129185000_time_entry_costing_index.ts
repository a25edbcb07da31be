// docs/api-contract.md §29, a job's costing at 10,000 entries: the job's index carries every column the costing
// sums (time-entries.repository.ts `sumLabour`), so the database reads the index alone, not each entry's row.
// It replaces the index on `job_id` alone, which served the references a job's delete counts; this one, led by
// the same column, still does. On PostgreSQL the other columns are INCLUDEd (kept in the leaves, no key): the
// index is found by the job alone, never chosen for a scan of an account's entries.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

const INCLUDED = [
  'account_id',
  'ended_at',
  'approved_at',
  'billable',
  'invoice_id',
  'duration_seconds',
  'hourly_cost_amount',
  'hourly_rate_amount',
  'billed_hundredths',
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres')
    await sql`create index time_entries_job_costing_idx on time_entries (job_id) include (${sql.join(INCLUDED.map((column) => sql.ref(column)))})`.execute(
      db,
    );
  else
    await db.schema
      .createIndex('time_entries_job_costing_idx')
      .on('time_entries')
      .columns(['job_id', ...INCLUDED])
      .execute();
  await db.schema.dropIndex('time_entries_job_idx').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('time_entries_job_idx').on('time_entries').column('job_id').execute();
  await db.schema.dropIndex('time_entries_job_costing_idx').execute();
}
