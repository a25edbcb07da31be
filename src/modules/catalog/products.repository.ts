// Product queries, every one scoped by account.
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
import type { ProductPatch, ProductRow } from '../../db/types.js';
import type { ProductType } from './products.schemas.js';

const COLUMNS = [
  'id',
  'account_id',
  'type',
  'name',
  'sort_name',
  'description',
  'code',
  'unit_amount',
  'currency',
  'unit_label',
  'unit_code',
  'default_quantity',
  'tax_rate_ids',
  'taxable',
  'cost_amount',
  'duration_minutes',
  'active',
  'external_id',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface ProductFilters extends TimeBounds {
  active?: boolean | undefined;
  type?: ProductType | undefined;
  code?: string | undefined;
  q?: string | undefined;
  external_id?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const PRODUCT_SORTS: SortFields<ProductRow> = {
  ...timestampSorts<ProductRow>(),
  name: { kind: 'text', expression: 'sort_name', value: (row) => row.sort_name },
};

export async function insertProduct(db: Executor, row: ProductRow): Promise<void> {
  await db.insertInto('products').values(row).execute();
}

export async function findProduct(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<ProductRow | undefined> {
  const query = db.selectFrom('products').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function findProducts(db: Executor, accountId: string, ids: readonly string[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('products')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The active product of the account with this code, if any. */
export async function findActiveProductByCode(
  db: Executor,
  accountId: string,
  code: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('products')
    .select('id')
    .where('account_id', '=', accountId)
    .where('code', '=', code)
    .where('active', '=', 1)
    .executeTakeFirst();
  return row?.id;
}

export async function findAccountCurrency(db: Executor, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirst();
  return row?.currency ?? 'USD';
}

export async function updateProduct(
  db: Executor,
  accountId: string,
  id: string,
  patch: ProductPatch,
): Promise<ProductRow | undefined> {
  return db
    .updateTable('products')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function deleteProduct(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('products').where('account_id', '=', accountId).where('id', '=', id).execute();
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export async function listProducts(
  db: Executor,
  accountId: string,
  filters: ProductFilters,
  page: PageRequest<ProductRow>,
): Promise<Listed<ProductRow>> {
  return runList(listProductsPlan(db, accountId, filters, page));
}

/**
 * The list's queries, unexecuted: `external_id` drives from its unique index; the other filters are checked
 * on the rows of the sort's index (a price list is hundreds of rows, not millions).
 */
export function listProductsPlan(
  db: Executor,
  accountId: string,
  filters: ProductFilters,
  page: PageRequest<ProductRow>,
) {
  const conditions: Condition[] = [...timeBoundConditions(filters), ...(filters.custom ?? [])];
  if (filters.active !== undefined)
    conditions.push({ column: 'active', expression: sql<SqlBool>`active = ${filters.active ? 1 : 0}` });
  if (filters.type !== undefined) conditions.push({ column: 'type', expression: sql<SqlBool>`type = ${filters.type}` });
  if (filters.code !== undefined) conditions.push({ column: 'code', expression: sql<SqlBool>`code = ${filters.code}` });
  if (filters.q !== undefined) {
    const pattern = `%${escapeLike(filters.q.toLowerCase())}%`;
    conditions.push({
      column: 'q',
      expression: sql<SqlBool>`(sort_name like ${pattern} escape '\\' or lower(coalesce(code, '')) like ${pattern} escape '\\')`,
    });
  }
  return listPlan(
    db,
    { table: 'products', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ external_id: filters.external_id }), conditions },
    page,
  );
}
