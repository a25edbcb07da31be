// Indexes for a range on a column that may be empty (invoices.due_date, jobs.scheduled_start), docs/api-contract.md
// §13. Their sort indexes order coalesce(column, sentinel), where empty rows sit among the earliest
// values, so `due_before` walked every undated row; a range's rows all have a value, so the list orders
// them by the plain column, and a range is a range of these indexes, with a status or without one. The
// range alone also drives a list sorted by another column when it holds few rows (db/list-plan.ts).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

/** [table, nullable column]: (account_id, column, id) and (account_id, status, column, id) for each. */
const RANGES: Array<[string, string]> = [
  ['invoices', 'due_date'],
  ['jobs', 'scheduled_start'],
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  // (account_id, status, due_date) without id could not give a keyset order; the new status index replaces it.
  await db.schema.dropIndex('invoices_due_idx').execute();
  for (const [table, column] of RANGES) {
    await db.schema
      .createIndex(`${table}_range_${column}_idx`)
      .on(table)
      .columns(['account_id', column, 'id'])
      .execute();
    await db.schema
      .createIndex(`${table}_status_range_${column}_idx`)
      .on(table)
      .columns(['account_id', 'status', column, 'id'])
      .execute();
  }
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of RANGES) {
    await db.schema.dropIndex(`${table}_status_range_${column}_idx`).execute();
    await db.schema.dropIndex(`${table}_range_${column}_idx`).execute();
  }
  await db.schema
    .createIndex('invoices_due_idx')
    .on('invoices')
    .columns(['account_id', 'status', 'due_date'])
    .execute();
}
