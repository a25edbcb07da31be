// docs/api-contract.md §18: visit schedules. A schedule's rule is stored in its normal form (JSON, without its
// exdates); its exdates are rows of their own, so that deleting a materialised visit (the visits module) and
// skip/unskip add or remove one key without rewriting the rule; its template's members are rows too, so a
// member named by a schedule cannot be deleted (§15). The visits' unique (schedule_id, occurrence_key) is
// made by the visits migration; it is made here as well when missing, as materialisation relies on it.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('visit_schedules')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('job_id', types.id, (column) => column.notNull().references('jobs.id'))
    .addColumn('recurrence', types.json, (column) => column.notNull())
    .addColumn('duration_minutes', 'integer')
    .addColumn('duration_days', 'integer')
    .addColumn('template', types.json, (column) => column.notNull())
    .addColumn('horizon_days', 'integer', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('paused_from', types.date)
    .addColumn('paused_until', types.date)
    .addColumn('materialized_through', types.date)
    .addColumn('previous_schedule_id', types.id)
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of [
    ['visit_schedules_account_created_at_idx', ['account_id', 'created_at', 'id']],
    ['visit_schedules_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
    ['visit_schedules_job_idx', ['account_id', 'job_id', 'created_at', 'id']],
    // The daily worker walks the active schedules of every account in id order.
    ['visit_schedules_status_idx', ['status', 'id']],
  ] as Array<[string, string[]]>)
    await db.schema.createIndex(name).on('visit_schedules').columns(columns).execute();

  await db.schema
    .createTable('visit_schedule_exdates')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('schedule_id', types.id, (column) =>
      column.notNull().references('visit_schedules.id').onDelete('cascade'),
    )
    .addColumn('occurrence_key', 'text', (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('visit_schedule_exdates_pkey', ['schedule_id', 'occurrence_key'])
    .execute();

  await db.schema
    .createTable('visit_schedule_assignees')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('schedule_id', types.id, (column) =>
      column.notNull().references('visit_schedules.id').onDelete('cascade'),
    )
    .addColumn('team_member_id', types.id, (column) => column.notNull().references('team_members.id'))
    .addPrimaryKeyConstraint('visit_schedule_assignees_pkey', ['schedule_id', 'team_member_id'])
    .execute();
  await db.schema
    .createIndex('visit_schedule_assignees_member_idx')
    .on('visit_schedule_assignees')
    .columns(['account_id', 'team_member_id'])
    .execute();

  await db.schema
    .createIndex('visits_occurrence_idx')
    .ifNotExists()
    .on('visits')
    .columns(['schedule_id', 'occurrence_key'])
    .unique()
    .where(sql.ref('schedule_id'), 'is not', null)
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('visit_schedule_assignees').execute();
  await db.schema.dropTable('visit_schedule_exdates').execute();
  await db.schema.dropTable('visit_schedules').execute();
}
