// How an account's documents are printed: `locale` (a BCP 47 tag; `en-US` for every existing account) and
// `paper_size` (`letter` | `a4`; null, the default, follows the account's country: accounts/locale.ts).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('locale', 'text', (column) => column.notNull().defaultTo('en-US'))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('paper_size', 'text', (column) => column.check(sql`paper_size in ('letter', 'a4')`))
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('paper_size').execute();
  await db.schema.alterTable('accounts').dropColumn('locale').execute();
}
