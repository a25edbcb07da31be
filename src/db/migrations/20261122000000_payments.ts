// Payments against invoices and their refunds. A payment's amount never changes; refunds are rows of
// their own, and the payment keeps their sum (amount_refunded) so a balance is one sum over payments.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('payments')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('invoice_id', types.id, (column) => column.notNull().references('invoices.id'))
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('amount_refunded', 'bigint', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('method', 'text', (column) => column.notNull())
    .addColumn('reference', 'text')
    .addColumn('paid_at', types.timestamp, (column) => column.notNull())
    .addColumn('notes', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  // One index per sort order of the list, each ending in id for the keyset tie-break.
  for (const column of ['created_at', 'updated_at', 'paid_at']) {
    await db.schema
      .createIndex(`payments_account_${column}_idx`)
      .on('payments')
      .columns(['account_id', column, 'id'])
      .execute();
  }
  await db.schema
    .createIndex('payments_account_invoice_idx')
    .on('payments')
    .columns(['account_id', 'invoice_id', 'paid_at', 'id'])
    .execute();
  await db.schema
    .createIndex('payments_account_client_idx')
    .on('payments')
    .columns(['account_id', 'client_id', 'created_at', 'id'])
    .execute();
  // A reference is unique per account when given, so a sync that retries cannot record a payment twice.
  await sql`create unique index payments_account_reference_idx on payments (account_id, reference) where reference is not null`.execute(
    db,
  );

  await db.schema
    .createTable('payment_refunds')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('payment_id', types.id, (column) => column.notNull().references('payments.id'))
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('payment_refunds_payment_idx')
    .on('payment_refunds')
    .columns(['payment_id', 'created_at', 'id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_refunds').execute();
  await db.schema.dropTable('payments').execute();
}
