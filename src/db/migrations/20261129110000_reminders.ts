// docs/api-contract.md §23 "Reminders": the account's reminder schedule (JSON, null: off with no steps), an
// invoice's reminders switch, the reminder steps sent (one row per invoice and step: the unique pair makes each
// step, and its fee, once across retries and instances), and an outbox message's kind and step, so that a
// reminder is told from a document's send and cancelled when its invoice is paid before it leaves.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('accounts').addColumn('reminders', types.json).execute();
  await db.schema
    .alterTable('invoices')
    .addColumn('reminders_enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('invoice_reminders')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('invoice_id', types.id, (column) => column.notNull().references('invoices.id'))
    .addColumn('step', 'integer', (column) => column.notNull())
    .addColumn('sent_at', types.timestamp, (column) => column.notNull())
    .addColumn('delivery_id', types.id, (column) => column.notNull())
    .addColumn('late_fee_amount', 'bigint')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('invoice_reminders_step_idx')
    .on('invoice_reminders')
    .columns(['invoice_id', 'step'])
    .unique()
    .execute();
  // The worker's candidates: an account's sent invoices by due date.
  await db.schema
    .createIndex('invoices_reminder_candidates_idx')
    .on('invoices')
    .columns(['account_id', 'status', 'due_date'])
    .where(sql.ref('status'), '=', 'sent')
    .execute();
  await db.schema.alterTable('outbox_messages').addColumn('kind', 'text').execute();
  await db.schema.alterTable('outbox_messages').addColumn('reminder_step', 'integer').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox_messages').dropColumn('reminder_step').execute();
  await db.schema.alterTable('outbox_messages').dropColumn('kind').execute();
  await db.schema.dropIndex('invoices_reminder_candidates_idx').execute();
  await db.schema.dropTable('invoice_reminders').execute();
  await db.schema.alterTable('invoices').dropColumn('reminders_enabled').execute();
  await db.schema.alterTable('accounts').dropColumn('reminders').execute();
}
