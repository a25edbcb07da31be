// Credit notes (docs/api-contract.md §22): a document that lowers what a client owes, numbered CN-000001 upward
// when issued, made of lines or of an amount, and its refunds (money paid back from it).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('credit_notes')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('external_id', 'text')
    .addColumn('number', 'text')
    .addColumn('number_seq', 'bigint')
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('invoice_id', types.id, (column) => column.references('invoices.id'))
    .addColumn('property_id', types.id, (column) => column.references('properties.id'))
    .addColumn('reason', 'text')
    .addColumn('amount', 'bigint')
    .addColumn('tax_rate_ids', types.json)
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('line_items', types.json, (column) => column.notNull())
    .addColumn('subtotal_amount', 'bigint', (column) => column.notNull())
    .addColumn('tax_amount', 'bigint', (column) => column.notNull())
    .addColumn('total_amount', 'bigint', (column) => column.notNull())
    .addColumn('prices_include_tax', 'integer', (column) => column.notNull())
    .addColumn('rounding', 'text', (column) => column.notNull())
    .addColumn('discount', types.json)
    .addColumn('discount_amount', 'bigint', (column) => column.notNull())
    .addColumn('tax_breakdown', types.json)
    .addColumn('issue_date', types.date)
    .addColumn('apply_on_issue', 'integer', (column) => column.notNull())
    .addColumn('amount_refunded', 'bigint', (column) => column.notNull())
    .addColumn('notes', 'text')
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('issued_at', types.timestamp)
    .addColumn('voided_at', types.timestamp)
    .addColumn('delivery_id', types.id)
    .addColumn('delivery_status', 'text')
    .addColumn('hosted_token', 'text')
    .addColumn('hosted_url', 'text')
    .addColumn('hosted_recipient', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const column of ['created_at', 'updated_at', 'number_seq', 'issue_date']) {
    await db.schema
      .createIndex(`credit_notes_account_${column}_idx`)
      .on('credit_notes')
      .columns(['account_id', column, 'id'])
      .execute();
  }
  for (const column of ['client_id', 'invoice_id', 'property_id', 'status']) {
    await db.schema
      .createIndex(`credit_notes_account_${column}_idx`)
      .on('credit_notes')
      .columns(['account_id', column, 'created_at', 'id'])
      .execute();
  }
  await db.schema
    .createIndex('credit_notes_hosted_token_idx')
    .on('credit_notes')
    .column('hosted_token')
    .unique()
    .execute();
  await sql`create unique index credit_notes_account_external_id_idx on credit_notes (account_id, external_id) where external_id is not null`.execute(
    db,
  );

  await db.schema
    .createTable('credit_note_refunds')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('credit_note_id', types.id, (column) => column.notNull().references('credit_notes.id'))
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('method', 'text', (column) => column.notNull())
    .addColumn('reference', 'text')
    .addColumn('reason', 'text')
    .addColumn('refunded_at', types.timestamp, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('credit_note_refunds_note_idx')
    .on('credit_note_refunds')
    .columns(['account_id', 'credit_note_id', 'created_at', 'id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credit_note_refunds').execute();
  await db.schema.dropTable('credit_notes').execute();
}
