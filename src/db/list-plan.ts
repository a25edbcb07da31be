// How a filtered list is written so that one index must answer it, at a million rows as at a hundred
// (contract section 13). Left to statistics, both engines will walk the sort's index through the whole
// account testing each row, or read every matching row to sort them; the query's form rules both out.
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { applyPage, type PageRequest } from './keyset.js';

/** A filter condition, and the column it is on: a range on the sort's own column is a range of its index. */
export interface Condition {
  column: string;
  expression: Expression<SqlBool>;
  /** The same range on the sort expression of `column` (e.g. its coalesce(...)), when that sort is asked. */
  onSortExpression?: Expression<SqlBool>;
}

export interface ListShape {
  /**
   * Equality filters on references (client_id, quote_id, …), each with an index (account_id, column, …):
   * one value names few rows, so that index drives and its rows are then sorted.
   */
  keys: Array<{ column: string; value: string }>;
  /**
   * A filter on a column of few values (status, method, type): one range of the index (account_id,
   * column, sort, id) per value, each already in sort order, merged. Undefined: no such filter.
   */
  among?: { column: string; values: readonly string[] } | undefined;
  /** Every other condition, checked on the rows the driving index yields. */
  conditions: Condition[];
}

/**
 * `column operator value`, and the same on the sort expression `onSort` (e.g. coalesce(due_date, …)),
 * which a sort by that column orders by: then the condition is a range of the sort's index.
 */
export function compare(column: string, operator: '<' | '>=', value: string, onSort?: string): Condition {
  const condition = (left: string) => sql<SqlBool>`${sql.raw(left)} ${sql.raw(operator)} ${value}`;
  return { column, expression: condition(column), ...(onSort === undefined ? {} : { onSortExpression: condition(onSort) }) };
}

/** A condition no index may serve, so the planner cannot prefer it to the driving one. */
export function unindexed(condition: Expression<SqlBool>): Expression<SqlBool> {
  return sql<SqlBool>`(${condition}) is true`;
}

/** Equality conditions from the filters that are set. */
export function keysOf(filters: Record<string, string | undefined>): ListShape['keys'] {
  return Object.entries(filters).flatMap(([column, value]) => (value === undefined ? [] : [{ column, value }]));
}

/**
 * A subquery both engines keep apart (neither flattens a subquery with OFFSET): its rows come from its
 * own index, and the sort happens outside it. SQLite needs a LIMIT to take an OFFSET; -1 is none.
 */
export function fenced<DB, TB extends keyof DB, O>(db: Executor, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.offset(0) : query.limit(-1).offset(0);
}

/**
 * The list query for `shape`, unexecuted (the query-plan test explains exactly what runs). `start`
 * selects the table's columns of one account; it is called once per branch.
 */
export function shapedList<DB, TB extends keyof DB, O>(db: Executor, start: () => SelectQueryBuilder<DB, TB, O>, shape: ListShape, page: PageRequest<O>) {
  const { keys, among, conditions } = shape;
  // Written against Executor's tables, which the derived tables below are not; the rows are O either way.
  const outer = db as unknown as { selectFrom(from: unknown): { selectAll(): SelectQueryBuilder<DB, TB, O> } };
  if (keys.length > 0) {
    let query = start();
    for (const key of keys) query = query.where(sql.ref(key.column), '=', key.value);
    if (among) query = query.where(unindexed(sql<SqlBool>`${sql.ref(among.column)} in (${sql.join(among.values)})`));
    for (const condition of conditions) query = query.where(unindexed(condition.expression));
    return applyPage(outer.selectFrom(fenced(db, query).as('matched')).selectAll(), page);
  }
  const filtered = (query: SelectQueryBuilder<DB, TB, O>) => {
    for (const condition of conditions) {
      if (condition.column !== page.column) query = query.where(unindexed(condition.expression));
      else if (!page.field.expression) query = query.where(condition.expression);
      else if (condition.onSortExpression) query = query.where(condition.onSortExpression).where(unindexed(condition.expression));
      else query = query.where(unindexed(condition.expression));
    }
    return query;
  };
  if (!among) return applyPage(filtered(start()), page);
  if (among.values.length === 0) return applyPage(start().where(sql<SqlBool>`1 = 0`), page);
  const branches = [...new Set(among.values)].map((value) => applyPage(filtered(start()).where(sql.ref(among.column), '=', value), page));
  if (branches.length === 1) return branches[0]!;
  // Each branch reads at most one page from its own range; the merge sorts those few rows.
  const [first, ...rest] = branches.map((branch, index) => outer.selectFrom(branch.as(`branch${index}`)).selectAll());
  const merged = rest.reduce((union, branch) => union.unionAll(branch), first!);
  return applyPage(outer.selectFrom(merged.as('merged')).selectAll(), page);
}
