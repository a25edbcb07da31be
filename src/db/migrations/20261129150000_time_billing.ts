// docs/api-contract.md §29, billing time: an entry billed on an invoice keeps its billed hours as they were when
// billed (hundredths of an hour; null while unbilled, when they follow the account's current increment), and the
// entries of an invoice are found by `invoice_id` (released when its line goes, the draft is deleted or voided).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('time_entries').addColumn('billed_hundredths', 'bigint').execute();
  await db.schema.createIndex('time_entries_invoice_idx').on('time_entries').column('invoice_id').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('time_entries_invoice_idx').execute();
  await db.schema.alterTable('time_entries').dropColumn('billed_hundredths').execute();
}
