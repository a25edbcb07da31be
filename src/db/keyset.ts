// Keyset pagination shared by every list: `sort` names one column, the cursor carries that column's
// value and the id of the last row, so a page deep in a million rows costs the same as the first.
import { sql, type SelectQueryBuilder } from 'kysely';
import { isUuid } from '../core/deps.js';
import { fieldError } from '../core/errors.js';
import { isStorableText } from '../core/text.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_SORT = '-created_at';

/** How a list sorts by one field: the SQL it orders by (a column by default) and that value for a row. */
export interface SortField<Row> {
  /** What the sort value is, so that a cursor's value is checked before it reaches a query. */
  kind: 'timestamp' | 'date' | 'text' | 'integer';
  /** An SQL expression from our own code (never from input), e.g. coalesce(number_seq, 0); matches an index. */
  expression?: string;
  value(row: Row): string | number;
}

export type SortFields<Row> = Record<string, SortField<Row>>;

/** created_at and updated_at, which every list sorts by. */
export function timestampSorts<Row extends { created_at: string; updated_at: string }>(): SortFields<Row> {
  return {
    created_at: { kind: 'timestamp', value: (row) => row.created_at },
    updated_at: { kind: 'timestamp', value: (row) => row.updated_at },
  };
}

export interface PageRequest<Row> {
  column: string;
  field: SortField<Row>;
  descending: boolean;
  limit: number;
  after: SortKey | undefined;
  /** Every column the list sorts by: each has an index (account_id, column, id), so a range of it is a read of that index. */
  columns: readonly string[];
}

/** Where a row stands in a list's order: its sort value and its id (what a cursor carries). */
export interface SortKey {
  value: string | number;
  id: string;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
  /** The cursor of the page that follows `item`, for an answer that ends early (bounded in bytes). */
  cursorAfter?: (item: T) => string;
}

/**
 * The page with its items replaced one for one (rows presented as objects), its early-end cursor still that of
 * the row each item came from.
 */
export function mapPage<T, R>(page: Page<T>, items: R[]): Page<R> {
  const { cursorAfter } = page;
  return {
    items,
    hasMore: page.hasMore,
    nextCursor: page.nextCursor,
    ...(cursorAfter ? { cursorAfter: (item: R) => cursorAfter(page.items[items.indexOf(item)] as T) } : {}),
  };
}

export interface PageQuery {
  sort?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const INSTANT = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATE = /^(\d{4})-\d{2}-\d{2}$/;

/** Whether a cursor's sort value is one this sort can have produced (as stored: UTC, years 0001–9999). */
function validSortValue(kind: SortField<unknown>['kind'], value: unknown): boolean {
  switch (kind) {
    case 'integer':
      return Number.isSafeInteger(value);
    case 'text':
      return typeof value === 'string' && value.length <= 1000 && isStorableText(value);
    case 'timestamp':
    case 'date': {
      if (typeof value !== 'string') return false;
      const match = (kind === 'timestamp' ? INSTANT : DATE).exec(value);
      if (match === null || match[1] === '0000') return false;
      // A day that exists: Date.parse rolls 2026-02-30 over to March, which PostgreSQL refuses with an error.
      const parsed = new Date(kind === 'date' ? `${value}T00:00:00.000Z` : value);
      return (
        !Number.isNaN(parsed.getTime()) && parsed.toISOString() === (kind === 'date' ? `${value}T00:00:00.000Z` : value)
      );
    }
  }
}

/** Reads `sort`, `limit` and `cursor`; a cursor made for another sort order is a validation error. */
export function pageRequest<Row>(query: PageQuery, fields: SortFields<Row>): PageRequest<Row> {
  const sort = query.sort ?? DEFAULT_SORT;
  const descending = sort.startsWith('-');
  const column = descending ? sort.slice(1) : sort;
  const field = fields[column];
  if (!field) throw fieldError('sort', `cannot sort by ${column}`);
  let after: PageRequest<Row>['after'];
  if (query.cursor !== undefined) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
    } catch {
      throw fieldError('cursor', 'is not a cursor returned by this API');
    }
    // Every part is checked before any query: a forged cursor is a 422 on both engines, never a 500.
    if (
      !Array.isArray(decoded) ||
      decoded.length !== 3 ||
      typeof decoded[2] !== 'string' ||
      !isUuid(decoded[2]) ||
      !validSortValue(field.kind, decoded[1])
    ) {
      throw fieldError('cursor', 'is not a cursor returned by this API');
    }
    if (decoded[0] !== sort)
      throw fieldError('cursor', `was made for sort=${String(decoded[0])}; pass the same sort as the first page`);
    after = { value: decoded[1] as string | number, id: decoded[2] };
  }
  return { column, field, descending, limit: query.limit ?? DEFAULT_PAGE_SIZE, after, columns: Object.keys(fields) };
}

/**
 * Orders by (column, id), starts after the cursor's row and fetches one row more than the page, which
 * tells whether another page follows. The cursor's condition is a range of the (account_id, column, id) index.
 * Each page size is its own SQL text (at most 100 of them).
 */
export function applyPage<DB, TB extends keyof DB, O, Row>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest<Row>,
): SelectQueryBuilder<DB, TB, O> {
  const direction = page.descending ? 'desc' : 'asc';
  const result = query.orderBy(sortKeyOf(page), direction).orderBy(sql.ref('id'), direction);
  // The page size is written into the SQL, not bound: SQLite (3.53) plans with a bound LIMIT's value, so a
  // statement whose LIMIT is bound is compiled again on every run after a bind (5 µs of a 26-row page's 21).
  return (page.after ? result.where(beyond(page, page.after, page.descending ? '<' : '>')) : result).limit(
    sql.lit(page.limit + 1),
  );
}

/** The SQL a list orders by: the sort's expression, or its column. */
export function sortKeyOf(page: PageRequest<unknown>) {
  return page.field.expression ? sql.raw(page.field.expression) : sql.ref(page.column);
}

/**
 * `(sort key, id) operator (key.value, key.id)`. On a plain column it is written so, a row-value comparison: both
 * engines read it as one range of the (account_id, column, id) index, so a cursor inside a run of equal values
 * (a million clients imported with one `created_at`) starts at its own row. SQLite uses a row-value comparison
 * as a range only on plain columns, and walked an expression index (`coalesce(number_seq, 0)`) from its start:
 * there it is written `sort key ≤ value and (sort key < value or id < key.id)` (for `<`), the first term a
 * range of any index, the rows of the cursor's own value read from the run's end.
 */
export function beyond(page: PageRequest<unknown>, key: SortKey, operator: '<' | '>' | '<=' | '>=') {
  const sortKey = sortKeyOf(page);
  if (!page.field.expression)
    return sql<boolean>`((${sortKey}, ${sql.ref('id')}) ${sql.raw(operator)} (${key.value}, ${key.id}))`;
  const strict = sql.raw(operator[0]!);
  return sql<boolean>`(${sortKey} ${strict}= ${key.value} and (${sortKey} ${strict} ${key.value} or ${sql.ref('id')} ${sql.raw(operator)} ${key.id}))`;
}

/**
 * The page from the rows a list read (one more than the page when another follows). `resumeAfter`: the
 * list stopped reading there (list-plan.ts, WALK_LIMIT), so more may follow even on a short page.
 */
export function toPage<T extends { id: string }>(rows: T[], page: PageRequest<T>, resumeAfter?: SortKey): Page<T> {
  const full = rows.length > page.limit;
  const items = full ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const sort = `${page.descending ? '-' : ''}${page.column}`;
  const cursorOf = (key: SortKey) => Buffer.from(JSON.stringify([sort, key.value, key.id])).toString('base64url');
  const next = full && last ? { value: page.field.value(last), id: last.id } : resumeAfter;
  const nextCursor = next ? cursorOf(next) : null;
  const cursorAfter = (item: T) => cursorOf({ value: page.field.value(item), id: item.id });
  return { items, hasMore: next !== undefined, nextCursor, cursorAfter };
}
