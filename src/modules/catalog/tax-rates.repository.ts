// Tax rate queries, every one scoped by account.
import { sql, type SqlBool } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { TaxRatePatch, TaxRateRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'name',
  'percentage',
  'compound',
  'priority',
  'registration_number',
  'tax_category',
  'exemption_reason',
  'exemption_reason_code',
  'active',
  'external_id',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export interface TaxRateFilters extends TimeBounds {
  active?: boolean | undefined;
  external_id?: string | undefined;
}

export const TAX_RATE_SORTS: SortFields<TaxRateRow> = timestampSorts<TaxRateRow>();

export async function insertTaxRate(db: Executor, row: TaxRateRow): Promise<void> {
  await db.insertInto('tax_rates').values(row).execute();
}

export async function findTaxRate(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<TaxRateRow | undefined> {
  const query = db.selectFrom('tax_rates').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** The account's rates among `ids` (each id a UUID), in no particular order. */
export async function findTaxRates(db: Executor, accountId: string, ids: readonly string[]): Promise<TaxRateRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('tax_rates')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function updateTaxRate(
  db: Executor,
  accountId: string,
  id: string,
  patch: TaxRatePatch,
): Promise<TaxRateRow | undefined> {
  return db
    .updateTable('tax_rates')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function deleteTaxRate(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('tax_rates').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The JSON text a document's line_items holds when a line names this id (a rate, a product). */
const named = (id: string) => `%"${id}"%`;

/**
 * How many documents of each kind hold the id in their lines, optionally counting only those past draft
 * (jobs have no draft). A rare operation (a rate's terms changed, a product or rate deleted): it reads the
 * account's documents, whose stored lines keep every id they used (docs/decisions.md).
 */
export async function countDocumentsNaming(
  db: Executor,
  accountId: string,
  id: string,
  options: { pastDraft: boolean; also?: string },
): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const [table, label] of [
    ['quotes', 'quote'],
    ['jobs', 'job'],
    ['invoices', 'invoice'],
  ] as const) {
    const draft = options.pastDraft && table !== 'jobs' ? sql<SqlBool>`status <> 'draft'` : sql<SqlBool>`1 = 1`;
    const inDocument = sql<SqlBool>`(cast(line_items as text) like ${named(id)}${
      options.also ? sql` or cast(${sql.ref(options.also)} as text) like ${named(id)}` : sql``
    })`;
    const { rows } = await sql<{ count: number | string }>`
      select count(*) as count from ${sql.table(table)} where account_id = ${accountId} and ${draft} and ${inDocument}`.execute(
      db,
    );
    const count = Number(rows[0]?.count ?? 0);
    if (count > 0) found.push({ label, count });
  }
  // Recurring invoices keep their lines in their `invoice` (docs/api-contract.md §32: a template naming it: 409).
  if (!options.pastDraft) {
    const { rows } = await sql<{ count: number | string }>`
      select count(*) as count from recurring_invoices where account_id = ${accountId} and cast(invoice as text) like ${named(id)}`.execute(
      db,
    );
    const count = Number(rows[0]?.count ?? 0);
    if (count > 0) found.push({ label: 'recurring invoice', count });
  }
  return found;
}

/** Whether the account's default rates or a property's defaults name the rate. */
export async function countDefaultsNaming(db: Executor, accountId: string, id: string): Promise<string[]> {
  const found: string[] = [];
  const account = await sql<{ count: number | string }>`
    select count(*) as count from accounts where id = ${accountId} and cast(default_tax_rate_ids as text) like ${named(id)}`.execute(
    db,
  );
  if (Number(account.rows[0]?.count ?? 0) > 0) found.push('the account’s default_tax_rate_ids');
  const properties = await sql<{ count: number | string }>`
    select count(*) as count from properties where account_id = ${accountId} and cast(default_tax_rate_ids as text) like ${named(id)}`.execute(
    db,
  );
  const propertyCount = Number(properties.rows[0]?.count ?? 0);
  if (propertyCount > 0) found.push(`${propertyCount} propert${propertyCount === 1 ? 'y' : 'ies'}`);
  const products = await sql<{ count: number | string }>`
    select count(*) as count from products where account_id = ${accountId} and cast(tax_rate_ids as text) like ${named(id)}`.execute(
    db,
  );
  const productCount = Number(products.rows[0]?.count ?? 0);
  if (productCount > 0) found.push(`${productCount} product${productCount === 1 ? '' : 's'}`);
  return found;
}

export async function listTaxRates(
  db: Executor,
  accountId: string,
  filters: TaxRateFilters,
  page: PageRequest<TaxRateRow>,
): Promise<Listed<TaxRateRow>> {
  return runList(listTaxRatesPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the sort's index; `active` checked on its rows (an account has few rates). */
export function listTaxRatesPlan(
  db: Executor,
  accountId: string,
  filters: TaxRateFilters,
  page: PageRequest<TaxRateRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.active !== undefined)
    conditions.push({ column: 'active', expression: sql<SqlBool>`active = ${filters.active ? 1 : 0}` });
  return listPlan(
    db,
    { table: 'tax_rates', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ external_id: filters.external_id }), conditions },
    page,
  );
}
