// Version 2 documents (docs/api-contract.md §10): the business profile on the account, its logo (a row of
// its own, so reading the account never loads the image), and each quote's and invoice's last delivery.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const PROFILE_COLUMNS = [
  'legal_name',
  'email',
  'phone',
  'website',
  'tax_id',
  'payment_instructions',
  'invoice_footer',
  'quote_footer',
] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  for (const column of PROFILE_COLUMNS) await db.schema.alterTable('accounts').addColumn(column, 'text').execute();
  await db.schema.alterTable('accounts').addColumn('address', types.json).execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('payment_terms_days', 'integer', (column) => column.notNull().defaultTo(30))
    .execute();
  await db.schema
    .createTable('account_logos')
    .addColumn('account_id', types.id, (column) => column.primaryKey().references('accounts.id'))
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('data', types.blob, (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const table of ['quotes', 'invoices']) {
    await db.schema.alterTable(table).addColumn('delivery_id', types.id).execute();
    await db.schema.alterTable(table).addColumn('delivery_status', 'text').execute();
  }
  await db.schema
    .createIndex('outbox_document_created_idx')
    .on('outbox_messages')
    .columns(['account_id', 'document_id', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('outbox_document_idx').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('outbox_document_idx')
    .on('outbox_messages')
    .columns(['account_id', 'document_id'])
    .execute();
  await db.schema.dropIndex('outbox_document_created_idx').execute();
  for (const table of ['quotes', 'invoices']) {
    await db.schema.alterTable(table).dropColumn('delivery_status').execute();
    await db.schema.alterTable(table).dropColumn('delivery_id').execute();
  }
  await db.schema.dropTable('account_logos').execute();
  for (const column of [...PROFILE_COLUMNS, 'address', 'payment_terms_days'])
    await db.schema.alterTable('accounts').dropColumn(column).execute();
}
