// The durable outbox: one row per e-mail to deliver, written in the same transaction as the send.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('outbox_messages')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('document_type', 'text', (column) => column.notNull())
    .addColumn('document_id', types.id, (column) => column.notNull())
    .addColumn('recipient', 'text', (column) => column.notNull())
    .addColumn('message_id', 'text', (column) => column.notNull().unique())
    // Everything needed to render the e-mail and PDF, frozen at the moment of sending.
    .addColumn('snapshot', types.json, (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_at', types.timestamp, (column) => column.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', types.timestamp)
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('outbox_due_idx').on('outbox_messages').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createIndex('outbox_document_idx')
    .on('outbox_messages')
    .columns(['account_id', 'document_id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox_messages').execute();
}
