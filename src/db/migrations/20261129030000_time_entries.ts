// docs/api-contract.md §29: time entries. An entry keeps the rates it was made with and the currency of its job (else
// the account's); its figures (cost, billed hours, billable amount) are computed when answered. At most one running
// entry (ended_at null) per member: the partial unique index decides between two racing starts. The account gains
// its billing increment (minutes; 3 unless set) and the last local date of its locked pay periods (null: none).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('time_entries')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('team_member_id', types.id, (column) => column.notNull().references('team_members.id'))
    .addColumn('job_id', types.id, (column) => column.references('jobs.id'))
    .addColumn('visit_id', types.id, (column) => column.references('visits.id'))
    .addColumn('started_at', types.timestamp, (column) => column.notNull())
    .addColumn('ended_at', types.timestamp)
    .addColumn('break_minutes', 'integer', (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('billable', 'integer', (column) => column.notNull())
    .addColumn('hourly_cost_amount', 'bigint', (column) => column.notNull())
    .addColumn('hourly_rate_amount', 'bigint', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('notes', 'text')
    .addColumn('approved_at', types.timestamp)
    .addColumn('approved_by', types.json)
    .addColumn('invoice_id', types.id)
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of [
    ['time_entries_account_created_at_idx', ['account_id', 'created_at', 'id']],
    ['time_entries_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
    ['time_entries_account_started_at_idx', ['account_id', 'started_at', 'id']],
    // A member's entries by start: the overlap check and the member filter.
    ['time_entries_member_started_idx', ['account_id', 'team_member_id', 'started_at']],
    // The references a delete of a job or a visit counts, and their filters.
    ['time_entries_job_idx', ['job_id']],
    ['time_entries_visit_idx', ['visit_id']],
  ] as Array<[string, string[]]>)
    await db.schema.createIndex(name).on('time_entries').columns(columns).execute();
  await db.schema
    .createIndex('time_entries_running_idx')
    .on('time_entries')
    .column('team_member_id')
    .unique()
    .where(sql.ref('ended_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('time_entries_external_id_idx')
    .on('time_entries')
    .columns(['account_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();

  await db.schema
    .alterTable('accounts')
    .addColumn('time_billing_increment_minutes', 'integer', (column) => column.notNull().defaultTo(3))
    .execute();
  await db.schema.alterTable('accounts').addColumn('time_locked_through', types.date).execute();
  await db.schema.alterTable('accounts').addColumn('time_lock_updated_at', types.timestamp).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('time_lock_updated_at').execute();
  await db.schema.alterTable('accounts').dropColumn('time_locked_through').execute();
  await db.schema.alterTable('accounts').dropColumn('time_billing_increment_minutes').execute();
  await db.schema.dropTable('time_entries').execute();
}
