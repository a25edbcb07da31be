// Whom a quote's or invoice's hosted link was sent to (issue 34.11): a send to another client or address
// replaces the link. Empty for links sent before: they are kept, and record their recipient at the next send.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['quotes', 'invoices'])
    await db.schema.alterTable(table).addColumn('hosted_recipient', 'text').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['quotes', 'invoices'])
    await db.schema.alterTable(table).dropColumn('hosted_recipient').execute();
}
