// Per-account limits an operator may raise with `bms accounts set-limits` (docs/api-contract.md §21). Empty means
// the default (16 webhook endpoints).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('max_webhook_endpoints', 'integer').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('max_webhook_endpoints').execute();
}
