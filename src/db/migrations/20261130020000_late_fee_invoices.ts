// docs/api-contract.md §32 "Late fees and frozen e-invoices": with e-invoicing on, a reminder step's late fee is an
// invoice of its own. That invoice names the one it is a fee for (`late_fee_for_invoice_id`), and the step's row
// names the fee invoice it issued. Both are null on existing rows: nothing an existing integrator sees changes.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('invoices').addColumn('late_fee_for_invoice_id', types.id).execute();
  await db.schema.alterTable('invoice_reminders').addColumn('late_fee_invoice_id', types.id).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoice_reminders').dropColumn('late_fee_invoice_id').execute();
  await db.schema.alterTable('invoices').dropColumn('late_fee_for_invoice_id').execute();
}
