// An older answer of revenue or the tax summary (docs/api-contract.md §24, `?ledger_sequence=N`) takes back from the
// kept day totals the entries posted after N on the days whose totals they moved (docs/decisions.md, "Reports without
// long holds"): those entries are a range of this index per day, so that the entries after N dated outside the
// report's days are never read.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('ledger_entries_account_date_idx')
    .on('ledger_entries')
    .columns(['account_id', 'effective_date', 'sequence'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_entries_account_date_idx').execute();
}
