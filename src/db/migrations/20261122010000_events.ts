// Events (written in the transaction of each change), webhook endpoints, and webhook deliveries: one row
// per attempt, the pending one being the next attempt, claimed by one worker at a time under a lease.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('events')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('resource_id', 'text', (column) => column.notNull())
    .addColumn('data', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('events_account_created_idx')
    .on('events')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('events_account_type_idx')
    .on('events')
    .columns(['account_id', 'type', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('events_account_resource_idx')
    .on('events')
    .columns(['account_id', 'resource_id', 'created_at', 'id'])
    .execute();
  // Pruning walks events by age across accounts through the primary key: ids are UUIDv7, time-ordered.

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('url', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled_events', types.json, (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (column) => column.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', types.timestamp)
    .addColumn('failing_since', types.timestamp)
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const column of ['created_at', 'updated_at']) {
    await db.schema
      .createIndex(`webhook_endpoints_account_${column}_idx`)
      .on('webhook_endpoints')
      .columns(['account_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('endpoint_id', types.id, (column) =>
      column.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('event_id', types.id, (column) => column.notNull().references('events.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('attempt', 'integer', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('next_attempt_at', types.timestamp, (column) => column.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', types.timestamp)
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  // The attempt log of an endpoint, newest first, and its filters.
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event_idx')
    .on('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .execute();
  // The queue: due pending attempts, oldest first.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  // At most one pending attempt per (event, endpoint): one worker at a time, and a resend cannot double it.
  await sql`create unique index webhook_deliveries_one_pending_idx on webhook_deliveries (event_id, endpoint_id) where status = 'pending'`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.dropTable('events').execute();
}
