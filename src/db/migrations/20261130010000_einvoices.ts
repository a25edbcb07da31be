// docs/api-contract.md §31, the fields an EN 16931 e-invoice needs: the seller's and the buyer's identifiers,
// electronic addresses and the payment account (one JSON column each on accounts and clients: they are read
// and written together, and only by the e-invoice and its profile), an invoice's buyer reference, purchase
// order, delivery date and service period, a tax rate's VAT category and exemption, and a product's unit code.
// Every column is null (or off) on existing rows: nothing an existing integrator sees changes.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('accounts').addColumn('einvoicing', types.json).execute();
  await db.schema.alterTable('clients').addColumn('einvoicing', types.json).execute();
  await db.schema.alterTable('invoices').addColumn('buyer_reference', 'text').execute();
  await db.schema.alterTable('invoices').addColumn('purchase_order', 'text').execute();
  await db.schema.alterTable('invoices').addColumn('delivery_date', types.date).execute();
  await db.schema.alterTable('invoices').addColumn('service_period', types.json).execute();
  await db.schema.alterTable('invoices').addColumn('einvoice', types.json).execute();
  await db.schema.alterTable('tax_rates').addColumn('tax_category', 'text').execute();
  await db.schema.alterTable('tax_rates').addColumn('exemption_reason', 'text').execute();
  await db.schema.alterTable('tax_rates').addColumn('exemption_reason_code', 'text').execute();
  await db.schema.alterTable('products').addColumn('unit_code', 'text').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('unit_code').execute();
  for (const column of ['exemption_reason_code', 'exemption_reason', 'tax_category'])
    await db.schema.alterTable('tax_rates').dropColumn(column).execute();
  for (const column of ['einvoice', 'service_period', 'delivery_date', 'purchase_order', 'buyer_reference'])
    await db.schema.alterTable('invoices').dropColumn(column).execute();
  await db.schema.alterTable('clients').dropColumn('einvoicing').execute();
  await db.schema.alterTable('accounts').dropColumn('einvoicing').execute();
}
