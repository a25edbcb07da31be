// docs/api-contract.md §23 and §32: recurring invoices. A template keeps the invoice it makes (`invoice`, JSON) and
// its rule in recurrence.ts's normal form (JSON, exdates in it: at most 1,000, changed by skip/unskip). The worker
// finds what is due by (status, next_run_at). An invoice made from a template names it and the date it stands for;
// the unique (recurring_invoice_id, occurrence_date) makes each occurrence one invoice across retries and instances.
// The account gains its cap of templates not ended (null: the default, 1,000), set by `bms accounts set-limits`.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('recurring_invoices')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('external_id', 'text')
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('property_id', types.id, (column) => column.references('properties.id'))
    .addColumn('job_id', types.id, (column) => column.references('jobs.id'))
    .addColumn('name', 'text')
    .addColumn('invoice', types.json, (column) => column.notNull())
    .addColumn('recurrence', types.json, (column) => column.notNull())
    .addColumn('send_time', 'text', (column) => column.notNull())
    .addColumn('auto_send', 'integer', (column) => column.notNull())
    .addColumn('catch_up_days', 'integer', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('paused_from', types.date)
    .addColumn('paused_until', types.date)
    // Run moments before this instant do not count (its creation, else its last resume: §23 "Catch-up").
    .addColumn('counts_from', types.timestamp, (column) => column.notNull())
    .addColumn('next_run_at', types.timestamp)
    .addColumn('occurrences_made', 'integer', (column) => column.notNull())
    .addColumn('last_invoice_id', types.id)
    .addColumn('last_error', types.json)
    .addColumn('ended_at', types.timestamp)
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of [
    ['recurring_invoices_account_created_at_idx', ['account_id', 'created_at', 'id']],
    ['recurring_invoices_account_updated_at_idx', ['account_id', 'updated_at', 'id']],
    // The worker: what is due, soonest first; and the references a delete of a client, property or job counts.
    ['recurring_invoices_due_idx', ['status', 'next_run_at']],
    ['recurring_invoices_client_idx', ['client_id']],
    ['recurring_invoices_property_idx', ['property_id']],
    ['recurring_invoices_job_idx', ['job_id']],
  ] as Array<[string, string[]]>)
    await db.schema.createIndex(name).on('recurring_invoices').columns(columns).execute();
  await db.schema
    .createIndex('recurring_invoices_external_id_idx')
    .on('recurring_invoices')
    .columns(['account_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();

  // No foreign key: SQLite cannot drop a column that has one (down), and a template is never deleted, only ended.
  await db.schema.alterTable('invoices').addColumn('recurring_invoice_id', types.id).execute();
  await db.schema.alterTable('invoices').addColumn('occurrence_date', types.date).execute();
  await db.schema
    .createIndex('invoices_occurrence_idx')
    .on('invoices')
    .columns(['recurring_invoice_id', 'occurrence_date'])
    .unique()
    .where(sql.ref('recurring_invoice_id'), 'is not', null)
    .execute();
  // `GET /v1/invoices?recurring_invoice_id=`, newest first.
  await db.schema
    .createIndex('invoices_recurring_idx')
    .on('invoices')
    .columns(['account_id', 'recurring_invoice_id', 'created_at', 'id'])
    .where(sql.ref('recurring_invoice_id'), 'is not', null)
    .execute();

  await db.schema.alterTable('accounts').addColumn('max_recurring_invoices', 'integer').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('max_recurring_invoices').execute();
  await db.schema.dropIndex('invoices_recurring_idx').execute();
  await db.schema.dropIndex('invoices_occurrence_idx').execute();
  await db.schema.alterTable('invoices').dropColumn('occurrence_date').execute();
  await db.schema.alterTable('invoices').dropColumn('recurring_invoice_id').execute();
  await db.schema.dropTable('recurring_invoices').execute();
}
