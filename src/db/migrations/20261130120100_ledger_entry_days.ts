// The ledger's entry days (docs/architecture.md, "Kept copies"; docs/decisions.md, "Reports without long holds"): per
// account and local day, the last sequence of an entry dated that day, kept by `ledger` in each posting's
// transaction. An older aging or statement (`?ledger_sequence=N`, docs/api-contract.md §24) finds from it the days
// up to `as_of` that an entry after N is dated on, and reads only those days' entries after N. Existing entries are
// summed in here once.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('ledger_entry_days')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('effective_date', types.date, (column) => column.notNull())
    .addColumn('last_sequence', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ledger_entry_days_pk', ['account_id', 'effective_date'])
    .execute();
  await sql`insert into ledger_entry_days (account_id, effective_date, last_sequence)
    select account_id, effective_date, max(sequence) from ledger_entries group by account_id, effective_date`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ledger_entry_days').execute();
}
