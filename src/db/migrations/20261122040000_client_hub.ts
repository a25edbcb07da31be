// The client hub (docs/api-contract.md §12): each sent quote and invoice gets a secret token, the hosted
// page's URL made from it, and a quote answered on the page keeps who approved it or why it was declined.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['quotes', 'invoices']) {
    await db.schema.alterTable(table).addColumn('hosted_token', 'text').execute();
    await db.schema.alterTable(table).addColumn('hosted_url', 'text').execute();
    await db.schema.createIndex(`${table}_hosted_token_idx`).on(table).column('hosted_token').unique().execute();
  }
  await db.schema.alterTable('quotes').addColumn('approved_by', 'text').execute();
  await db.schema.alterTable('quotes').addColumn('decline_reason', 'text').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('quotes').dropColumn('decline_reason').execute();
  await db.schema.alterTable('quotes').dropColumn('approved_by').execute();
  for (const table of ['quotes', 'invoices']) {
    await db.schema.dropIndex(`${table}_hosted_token_idx`).execute();
    await db.schema.alterTable(table).dropColumn('hosted_url').execute();
    await db.schema.alterTable(table).dropColumn('hosted_token').execute();
  }
}
