// Service requests, quotes, jobs and invoices, and the per-account counters behind document numbers.
// Line items live in a JSON column of their document: they are always read and replaced as a whole.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  const common = <T extends string>(table: CreateTableBuilder<T, never>) =>
    table
      .addColumn('id', types.id, (column) => column.primaryKey())
      .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
      .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
      .addColumn('status', 'text', (column) => column.notNull())
      .addColumn('metadata', types.json, (column) => column.notNull())
      .addColumn('created_at', types.timestamp, (column) => column.notNull())
      .addColumn('updated_at', types.timestamp, (column) => column.notNull());
  const money = <T extends string>(table: CreateTableBuilder<T, never>) =>
    table
      .addColumn('currency', 'text', (column) => column.notNull())
      .addColumn('line_items', types.json, (column) => column.notNull())
      .addColumn('subtotal_amount', 'bigint', (column) => column.notNull())
      .addColumn('tax_amount', 'bigint', (column) => column.notNull())
      .addColumn('total_amount', 'bigint', (column) => column.notNull());
  const numbered = <T extends string>(table: CreateTableBuilder<T, never>, required: boolean) =>
    table
      .addColumn('number', 'text', (column) => (required ? column.notNull() : column))
      .addColumn('number_seq', 'bigint', (column) => (required ? column.notNull() : column));

  await db.schema
    .createTable('account_counters')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('value', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('account_counters_pk', ['account_id', 'name'])
    .execute();

  await common(db.schema.createTable('service_requests'))
    .addColumn('title', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('preferred_date', types.date)
    .addColumn('converted_at', types.timestamp)
    .execute();

  await numbered(money(common(db.schema.createTable('quotes'))), false)
    .addColumn('request_id', types.id, (column) => column.references('service_requests.id'))
    .addColumn('title', 'text')
    .addColumn('notes', 'text')
    .addColumn('valid_until', types.date)
    .addColumn('sent_at', types.timestamp)
    .addColumn('approved_at', types.timestamp)
    .addColumn('declined_at', types.timestamp)
    .addColumn('converted_at', types.timestamp)
    .execute();

  await numbered(money(common(db.schema.createTable('jobs'))), true)
    .addColumn('quote_id', types.id, (column) => column.references('quotes.id'))
    .addColumn('request_id', types.id, (column) => column.references('service_requests.id'))
    .addColumn('title', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('scheduled_start', types.timestamp)
    .addColumn('scheduled_end', types.timestamp)
    .addColumn('completed_at', types.timestamp)
    .execute();

  await numbered(money(common(db.schema.createTable('invoices'))), false)
    .addColumn('job_id', types.id, (column) => column.references('jobs.id'))
    .addColumn('quote_id', types.id, (column) => column.references('quotes.id'))
    .addColumn('amount_paid', 'bigint', (column) => column.notNull())
    .addColumn('notes', 'text')
    .addColumn('issue_date', types.date)
    .addColumn('due_date', types.date)
    .addColumn('sent_at', types.timestamp)
    .addColumn('paid_at', types.timestamp)
    .addColumn('voided_at', types.timestamp)
    .execute();

  // Every list sorts by (account_id, <column>, id) and filters by client and status; the keyset
  // pagination needs the index to end in id. Nullable sort columns are sorted through coalesce(...).
  const indexes: Record<string, string[]> = {
    service_requests: ['created_at', 'updated_at'],
    quotes: ['created_at', 'updated_at', 'coalesce(number_seq, 0)'],
    // The scheduled_start and due_date sort indexes are created by 20261121030000_sort_sentinels.
    jobs: ['created_at', 'updated_at', 'number_seq'],
    invoices: ['created_at', 'updated_at', 'coalesce(number_seq, 0)'],
  };
  for (const [table, sortColumns] of Object.entries(indexes)) {
    for (const [index, column] of sortColumns.entries()) {
      await sql`create index ${sql.raw(`${table}_sort_${index}_idx`)} on ${sql.table(table)} (account_id, ${sql.raw(column)}, id)`.execute(
        db,
      );
    }
    await db.schema
      .createIndex(`${table}_client_idx`)
      .on(table)
      .columns(['account_id', 'client_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex(`${table}_status_idx`)
      .on(table)
      .columns(['account_id', 'status', 'created_at'])
      .execute();
  }
  for (const table of ['quotes', 'jobs', 'invoices']) {
    await db.schema
      .createIndex(`${table}_number_unique`)
      .on(table)
      .columns(['account_id', 'number_seq'])
      .unique()
      .execute();
  }
  await db.schema.createIndex('quotes_request_idx').on('quotes').columns(['request_id']).execute();
  await db.schema.createIndex('jobs_request_idx').on('jobs').columns(['request_id']).execute();
  await db.schema.createIndex('jobs_quote_idx').on('jobs').columns(['quote_id']).execute();
  await db.schema.createIndex('invoices_quote_idx').on('invoices').columns(['quote_id']).execute();
  await db.schema.createIndex('invoices_job_idx').on('invoices').columns(['job_id']).execute();
  await db.schema
    .createIndex('invoices_due_idx')
    .on('invoices')
    .columns(['account_id', 'status', 'due_date'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['invoices', 'jobs', 'quotes', 'service_requests', 'account_counters'])
    await db.schema.dropTable(table).execute();
}
