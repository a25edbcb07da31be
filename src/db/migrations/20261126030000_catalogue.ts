// The catalogue and exact multi-rate tax (docs/api-contract.md §19): tax rates and products (each listed
// from (account_id, created_at|updated_at, id) indexes, external_id unique per account, a product's code
// unique among the account's active products), the account's and each property's default rates, and on
// quotes, jobs and invoices the settings and read-only figures of the calculation. Existing documents get
// `per_line` rounding, prices without tax and no discount: exactly the version-1 arithmetic, so no stored
// figure changes; their `tax_breakdown` stays null and is answered from their version-1 lines.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const DOCUMENT_TABLES = ['quotes', 'jobs', 'invoices'] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('tax_rates')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    // Ten-thousandths of a percent: 9.975 % is 99750 (an exact integer on both engines).
    .addColumn('percentage', 'integer', (column) => column.notNull())
    .addColumn('compound', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('priority', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('registration_number', 'text')
    .addColumn('active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('products')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('sort_name', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('code', 'text')
    .addColumn('unit_amount', 'bigint')
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('unit_label', 'text')
    // Thousandths, as a line's quantity has at most three decimals.
    .addColumn('default_quantity', 'bigint', (column) => column.notNull())
    .addColumn('tax_rate_ids', types.json)
    .addColumn('taxable', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('cost_amount', 'bigint')
    .addColumn('duration_minutes', 'integer')
    .addColumn('active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const table of ['tax_rates', 'products']) {
    await db.schema
      .createIndex(`${table}_account_created_at_idx`)
      .on(table)
      .columns(['account_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex(`${table}_account_updated_at_idx`)
      .on(table)
      .columns(['account_id', 'updated_at', 'id'])
      .execute();
    // Partial, as for team members: it holds only the rows that have one, and answers `external_id=`.
    await db.schema
      .createIndex(`${table}_external_id_idx`)
      .on(table)
      .columns(['account_id', 'external_id'])
      .unique()
      .where(sql.ref('external_id'), 'is not', null)
      .execute();
  }
  await db.schema
    .createIndex('products_account_name_idx')
    .on('products')
    .columns(['account_id', 'sort_name', 'id'])
    .execute();
  // A code is unique among the account's active products (a partial index on both engines).
  await sql`create unique index products_active_code_unique on products (account_id, code) where active = 1 and code is not null`.execute(
    db,
  );

  await db.schema
    .alterTable('accounts')
    .addColumn('default_tax_rate_ids', types.json, (column) => column.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('prices_include_tax', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('rounding', 'text', (column) => column.notNull().defaultTo('per_line'))
    .execute();
  await db.schema
    .alterTable('properties')
    .addColumn('default_tax_rate_ids', types.json, (column) => column.notNull().defaultTo('[]'))
    .execute();

  for (const table of DOCUMENT_TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('prices_include_tax', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('rounding', 'text', (column) => column.notNull().defaultTo('per_line'))
      .execute();
    await db.schema.alterTable(table).addColumn('discount', types.json).execute();
    await db.schema
      .alterTable(table)
      .addColumn('discount_amount', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable(table).addColumn('tax_breakdown', types.json).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of DOCUMENT_TABLES)
    for (const column of ['tax_breakdown', 'discount_amount', 'discount', 'rounding', 'prices_include_tax'])
      await db.schema.alterTable(table).dropColumn(column).execute();
  await db.schema.alterTable('properties').dropColumn('default_tax_rate_ids').execute();
  for (const column of ['rounding', 'prices_include_tax', 'default_tax_rate_ids'])
    await db.schema.alterTable('accounts').dropColumn(column).execute();
  await db.schema.dropTable('products').execute();
  await db.schema.dropTable('tax_rates').execute();
}
