// docs/api-contract.md §25: an install whose live refresh token lapsed (90 days unused) is uninstalled (`expired`)
// by a worker's pass, which finds them by this index: the live refresh tokens (neither revoked nor superseded) by
// expiry, so a pass reads only the lapsed ones however many tokens there are.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index oauth_tokens_live_refresh_idx on oauth_tokens (expires_at) where kind = 'refresh' and revoked_at is null and superseded_at is null`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oauth_tokens_live_refresh_idx').execute();
}
