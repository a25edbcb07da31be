// What every account-scoped repository shares: row locks, and the time bounds every list filters by.
import { sql } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { compare, type Condition } from './list-plan.js';
import { normalizeInstant } from './values.js';

/** The filters every list takes (docs/api-contract.md §5). */
export interface TimeBounds {
  created_after?: string | undefined;
  created_before?: string | undefined;
  updated_after?: string | undefined;
}

/**
 * The conditions for `TimeBounds` on a table of the account (every one has created_at and updated_at,
 * stored as ISO text, so text comparison is instant order once the bound is normalized).
 */
export function timeBoundConditions(bounds: TimeBounds): Condition[] {
  const conditions: Condition[] = [];
  if (bounds.created_after !== undefined)
    conditions.push(compare('created_at', '>=', normalizeInstant(bounds.created_after)));
  if (bounds.created_before !== undefined)
    conditions.push(compare('created_at', '<', normalizeInstant(bounds.created_before)));
  if (bounds.updated_after !== undefined)
    conditions.push(compare('updated_at', '>=', normalizeInstant(bounds.updated_after)));
  return conditions;
}

/**
 * `lock`: hold the row until the transaction ends. PostgreSQL needs FOR UPDATE; SQLite has no such
 * clause, and its transactions (BEGIN IMMEDIATE) already hold the one write lock.
 */
export function lockedIf<Query extends { forUpdate(): Query }>(db: Executor, query: Query, lock: boolean): Query {
  return lock && dialectOf(db) === 'postgres' ? query.forUpdate() : query;
}

/**
 * Holds the rows of `table` whose columns equal `equal` until the transaction ends, before they are read: a
 * `SELECT … FOR UPDATE` of their ids alone on PostgreSQL, nothing on SQLite (as lockedIf). For rows read with
 * columns computed from other tables (a tagged object's tag names): a locking read that waited for a concurrent
 * commit sees the locked row's new version, but its subqueries keep the statement's older snapshot; a read after
 * the lock is a new statement, which sees that commit.
 */
export async function lockRows(db: Executor, table: string, equal: Record<string, string>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const conditions = Object.entries(equal).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  await sql`select 1 from ${sql.table(table)} where ${sql.join(conditions, sql` and `)} for update`.execute(db);
}

/**
 * The `limit` most recent rows (by created_at, then id) of each of some parents in an account's child table,
 * oldest first among them, and how many each parent has: the bounded lists nested in a document (a payment's
 * refunds, an invoice's applications). `liveOnly` leaves out rows whose `released_at` is set.
 */
export async function latestPerParent<Row extends Record<string, unknown>>(
  db: Executor,
  child: { table: string; columns: readonly string[]; parent: string; liveOnly?: boolean },
  accountId: string,
  parentIds: readonly string[],
  limit: number,
): Promise<{ rows: Row[]; counts: Map<string, number> }> {
  if (parentIds.length === 0) return { rows: [], counts: new Map() };
  const columns = sql.join(child.columns.map((column) => sql.ref(column)));
  const parent = sql.ref(child.parent);
  const { rows } = await sql<Row & { total: number | string }>`
    select ${columns}, total from (
      select ${columns},
        row_number() over (partition by ${parent} order by created_at desc, id desc) as recency,
        count(*) over (partition by ${parent}) as total
      from ${sql.table(child.table)}
      where account_id = ${accountId} and ${parent} in (${sql.join(parentIds)})
        ${child.liveOnly ? sql`and released_at is null` : sql``}
    ) ranked
    where recency <= ${limit}
    order by created_at, id`.execute(db);
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(String(row[child.parent]), Number(row.total));
  return { rows: rows.map(({ total: _total, ...row }) => row as unknown as Row), counts };
}
