// What every account-scoped repository shares: row locks, and the time bounds every list filters by.
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
