// Availability and booking (docs/api-contract.md §28). Team members gain `working_hours` (null: the account's),
// `bookable` (existing members: 1 for role field, else 0) and the two hourly amounts of §29; the account gains
// `working_hours` ([] until set) and `booking` (null: every default). Exceptions (time off, extra hours) are
// read per member and window from their index. A hold is bound to the key that made it; its members' rows in
// `availability_hold_members` are its commitments while it is active (deleted when it is booked or released),
// read per member and time like `visit_assignees`. Visits gain `hold_id`, the hold they were booked from.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('team_members').addColumn('working_hours', types.json).execute();
  await db.schema
    .alterTable('team_members')
    .addColumn('bookable', 'integer', (column) => column.notNull().defaultTo(0).check(sql`bookable in (0, 1)`))
    .execute();
  await db.updateTable('team_members').set({ bookable: 1 }).where('role', '=', 'field').execute();
  await db.schema.alterTable('team_members').addColumn('hourly_cost_amount', 'bigint').execute();
  await db.schema.alterTable('team_members').addColumn('hourly_rate_amount', 'bigint').execute();

  await db.schema
    .alterTable('accounts')
    .addColumn('working_hours', types.json, (column) => column.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('accounts').addColumn('booking', types.json).execute();

  await db.schema
    .createTable('availability_exceptions')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    // A member's exceptions go with the member (a member no work names may be deleted, §15).
    .addColumn('team_member_id', types.id, (column) =>
      column.notNull().references('team_members.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in ('time_off', 'extra_hours')`))
    .addColumn('all_day', 'integer', (column) => column.notNull().check(sql`all_day in (0, 1)`))
    .addColumn('timezone', 'text', (column) => column.notNull())
    .addColumn('start_at', types.timestamp, (column) => column.notNull())
    .addColumn('end_at', types.timestamp, (column) => column.notNull())
    .addColumn('start_date', types.date)
    .addColumn('end_date', types.date)
    .addColumn('reason', 'text')
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of [
    ['availability_exceptions_account_created_at_idx', ['account_id', 'created_at', 'id']],
    ['availability_exceptions_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
    // A member's exceptions in a window: an exception lasts at most 366 days, so the range starts that far back.
    ['availability_exceptions_member_start_at_idx', ['account_id', 'team_member_id', 'start_at', 'id']],
  ] as const)
    await db.schema
      .createIndex(name)
      .on('availability_exceptions')
      .columns([...columns])
      .execute();
  await db.schema
    .createIndex('availability_exceptions_external_id_idx')
    .on('availability_exceptions')
    .columns(['account_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('availability_holds')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('api_key_id', types.id, (column) => column.notNull())
    .addColumn('start_at', types.timestamp, (column) => column.notNull())
    .addColumn('end_at', types.timestamp, (column) => column.notNull())
    .addColumn('timezone', 'text', (column) => column.notNull())
    .addColumn('duration_minutes', 'integer', (column) => column.notNull())
    .addColumn('property_id', types.id)
    .addColumn('team_member_ids', types.json, (column) => column.notNull())
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('visit_id', types.id)
    .addColumn('released_at', types.timestamp)
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('availability_holds_key_idx')
    .on('availability_holds')
    .columns(['account_id', 'api_key_id', 'expires_at', 'id'])
    .execute();

  await db.schema
    .createTable('availability_hold_members')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('hold_id', types.id, (column) =>
      column.notNull().references('availability_holds.id').onDelete('cascade'),
    )
    .addColumn('team_member_id', types.id, (column) =>
      column.notNull().references('team_members.id').onDelete('cascade'),
    )
    .addColumn('start_at', types.timestamp, (column) => column.notNull())
    .addColumn('end_at', types.timestamp, (column) => column.notNull())
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('property_id', types.id)
    .addPrimaryKeyConstraint('availability_hold_members_pkey', ['hold_id', 'team_member_id'])
    .execute();
  await db.schema
    .createIndex('availability_hold_members_member_idx')
    .on('availability_hold_members')
    .columns(['account_id', 'team_member_id', 'start_at', 'hold_id'])
    .execute();

  await db.schema.alterTable('visits').addColumn('hold_id', types.id).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('visits').dropColumn('hold_id').execute();
  await db.schema.dropTable('availability_hold_members').execute();
  await db.schema.dropTable('availability_holds').execute();
  await db.schema.dropTable('availability_exceptions').execute();
  await db.schema.alterTable('accounts').dropColumn('booking').execute();
  await db.schema.alterTable('accounts').dropColumn('working_hours').execute();
  for (const column of ['hourly_rate_amount', 'hourly_cost_amount', 'bookable', 'working_hours'])
    await db.schema.alterTable('team_members').dropColumn(column).execute();
}
