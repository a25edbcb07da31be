// docs/api-contract.md §17: visits (one scheduled occurrence of a job) and their assignees. A visit's time is
// two instants (UTC) with its zone beside them, plus the local dates of an all-day visit; `schedule_id`,
// `occurrence_key` and `is_exception` are section 18's (a unique (schedule_id, occurrence_key) makes
// materialisation idempotent). Every calendar question is answered from an index (§13): a window is a range
// of (…, start_at, id) (a visit lasts at most 31 days, so a window reaches back at most that far); one per
// filter that drives (job, client, property, schedule, status, unassigned), and the assignee's on
// `visit_assignees`, which carries the visit's instants and status so that "a week for one member" and a
// member's conflicts never read the visits table's other rows. Jobs gain the summary and mirrors of their
// visits, kept by the visits service in the transaction of each visit change.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** [index name, its columns] on visits. */
const VISIT_INDEXES: Array<[string, string[]]> = [
  ['visits_account_created_at_idx', ['account_id', 'created_at', 'id']],
  ['visits_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
  ['visits_account_start_at_idx', ['account_id', 'start_at', 'id']],
  ['visits_status_created_at_idx', ['account_id', 'status', 'created_at', 'id']],
  ['visits_status_updated_at_idx', ['account_id', 'status', 'updated_at', 'id']],
  ['visits_status_start_at_idx', ['account_id', 'status', 'start_at', 'id']],
  ['visits_job_idx', ['account_id', 'job_id', 'start_at', 'id']],
  ['visits_client_idx', ['account_id', 'client_id', 'start_at', 'id']],
  ['visits_property_idx', ['account_id', 'property_id', 'start_at', 'id']],
  ['visits_schedule_idx', ['account_id', 'schedule_id', 'start_at', 'id']],
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('visits')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('job_id', types.id, (column) => column.notNull().references('jobs.id'))
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('property_id', types.id, (column) => column.references('properties.id'))
    .addColumn('title', 'text', (column) => column.notNull())
    .addColumn('instructions', 'text')
    .addColumn('status', 'text', (column) => column.notNull())
    // 1 or 0 on both engines, so both drivers return the same number.
    .addColumn('all_day', 'integer', (column) => column.notNull().defaultTo(0).check(sql`all_day in (0, 1)`))
    .addColumn('timezone', 'text', (column) => column.notNull())
    .addColumn('start_at', types.timestamp)
    .addColumn('end_at', types.timestamp)
    .addColumn('start_date', types.date)
    .addColumn('end_date', types.date)
    .addColumn('arrival_window_minutes', 'integer')
    // How many members are assigned: 0 is what the partial index of `unassigned=true` holds.
    .addColumn('assignee_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('en_route_at', types.timestamp)
    .addColumn('started_at', types.timestamp)
    .addColumn('completed_at', types.timestamp)
    .addColumn('canceled_at', types.timestamp)
    .addColumn('cancel_reason', 'text')
    .addColumn('completion_notes', 'text')
    .addColumn('schedule_id', types.id)
    .addColumn('occurrence_key', 'text')
    .addColumn('is_exception', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of VISIT_INDEXES)
    await db.schema.createIndex(name).on('visits').columns(columns).execute();
  await db.schema
    .createIndex('visits_unassigned_start_at_idx')
    .on('visits')
    .columns(['account_id', 'start_at', 'id'])
    .where(sql.ref('assignee_count'), '=', 0)
    .execute();
  await db.schema
    .createIndex('visits_external_id_idx')
    .on('visits')
    .columns(['account_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('visits_occurrence_idx')
    .on('visits')
    .columns(['schedule_id', 'occurrence_key'])
    .unique()
    .where(sql.ref('schedule_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('visit_assignees')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('visit_id', types.id, (column) => column.notNull().references('visits.id').onDelete('cascade'))
    .addColumn('team_member_id', types.id, (column) => column.notNull().references('team_members.id'))
    .addColumn('position', 'integer', (column) => column.notNull())
    // The visit's, kept in step by the visits service: a member's calendar and conflicts read this table only.
    .addColumn('start_at', types.timestamp)
    .addColumn('end_at', types.timestamp)
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('visit_assignees_pkey', ['visit_id', 'team_member_id'])
    .execute();
  await db.schema
    .createIndex('visit_assignees_member_start_at_idx')
    .on('visit_assignees')
    // end_at and status too, so that a window's `end_at > from` and a conflict's `status` are checked in the index.
    .columns(['account_id', 'team_member_id', 'start_at', 'visit_id', 'end_at', 'status'])
    .execute();

  // The longest visit an account ever had, in minutes: how far back a window must look for a visit that began
  // before it and is still running (at most 31 days; for most accounts a few hours).
  await db.schema
    .createTable('visit_spans')
    .addColumn('account_id', types.id, (column) => column.primaryKey().references('accounts.id'))
    .addColumn('longest_minutes', 'integer', (column) => column.notNull())
    .execute();

  await db.schema
    .alterTable('jobs')
    .addColumn('visits_total', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('visits_open', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('visits_completed', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('visits_next_start_at', types.timestamp).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['visits_next_start_at', 'visits_completed', 'visits_open', 'visits_total'])
    await db.schema.alterTable('jobs').dropColumn(column).execute();
  await db.schema.dropTable('visit_spans').execute();
  await db.schema.dropTable('visit_assignees').execute();
  await db.schema.dropTable('visits').execute();
}
