// docs/api-contract.md §30: the account's `quote_signature`, how a hub approval is signed: `typed` (the name
// alone, the default every existing account keeps) or `drawn` (the name and a PNG drawn on the page's pad).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('quote_signature', 'text', (column) => column.notNull().defaultTo('typed'))
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('quote_signature').execute();
}
