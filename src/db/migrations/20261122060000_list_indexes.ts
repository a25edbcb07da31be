// Indexes for filtered lists at scale (docs/api-contract.md §13): a filter on a column of few values (status,
// payment method, delivery status) with any sort is one range per value of (account_id, value, sort, id),
// so each value's rows come already in sort order. They replace the status indexes that ended in created_at.
// A filter on a reference (request, quote, job) reads (account_id, reference, …), which beats every other
// index of the table on both engines, with statistics or without; they replace indexes on the reference alone.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { coalesceSort } from '../sort-sentinels.js';

const NUMBER = 'coalesce(number_seq, 0)';
/** [table, filtered column, the sort expressions of its list (the same text as the list's ORDER BY)]. */
const FILTERED_SORTS: Array<[string, string, Record<string, string>]> = [
  ['service_requests', 'status', { created_at: 'created_at', updated_at: 'updated_at' }],
  ['quotes', 'status', { created_at: 'created_at', updated_at: 'updated_at', number: NUMBER }],
  [
    'jobs',
    'status',
    {
      created_at: 'created_at',
      updated_at: 'updated_at',
      scheduled_start: coalesceSort('scheduled_start', 'timestamp'),
    },
  ],
  [
    'invoices',
    'status',
    { created_at: 'created_at', updated_at: 'updated_at', number: NUMBER, due_date: coalesceSort('due_date', 'date') },
  ],
  ['payments', 'method', { created_at: 'created_at', updated_at: 'updated_at', paid_at: 'paid_at' }],
];
/** [table, reference column]: each had an index `${table}_${name}_idx` on the column alone. */
const REFERENCES: Array<[string, string, string]> = [
  ['quotes', 'request_id', 'request'],
  ['jobs', 'request_id', 'request'],
  ['jobs', 'quote_id', 'quote'],
  ['invoices', 'quote_id', 'quote'],
  ['invoices', 'job_id', 'job'],
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column, sorts] of FILTERED_SORTS) {
    if (column === 'status') await db.schema.dropIndex(`${table}_status_idx`).execute();
    for (const [name, expression] of Object.entries(sorts)) {
      await sql`create index ${sql.raw(`${table}_${column}_${name}_idx`)} on ${sql.table(table)} (account_id, ${sql.ref(column)}, ${sql.raw(expression)}, id)`.execute(
        db,
      );
    }
  }
  for (const [table, column, name] of REFERENCES) {
    await db.schema.dropIndex(`${table}_${name}_idx`).execute();
    await db.schema
      .createIndex(`${table}_${name}_idx`)
      .on(table)
      .columns(['account_id', column, 'created_at', 'id'])
      .execute();
  }
  // An endpoint's attempts filtered by status, newest first.
  await db.schema
    .createIndex('webhook_deliveries_endpoint_status_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'created_at', 'id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_status_idx').execute();
  for (const [table, column, name] of REFERENCES) {
    await db.schema.dropIndex(`${table}_${name}_idx`).execute();
    await db.schema.createIndex(`${table}_${name}_idx`).on(table).column(column).execute();
  }
  for (const [table, column, sorts] of FILTERED_SORTS) {
    for (const name of Object.keys(sorts)) await db.schema.dropIndex(`${table}_${column}_${name}_idx`).execute();
    if (column === 'status')
      await db.schema
        .createIndex(`${table}_status_idx`)
        .on(table)
        .columns(['account_id', 'status', 'created_at'])
        .execute();
  }
}
