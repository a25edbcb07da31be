// Keyset pagination shared by every list: `sort` names one column, the cursor carries that column's
// value and the id of the last row, so a page deep in a million rows costs the same as the first.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type SelectQueryBuilder } from 'kysely';
import { fieldError } from './errors.js';
import { meta } from './envelope.js';

/** How a list sorts by one field: the SQL it orders by (a column by default) and that value for a row. */
export interface SortField<Row> {
  /** An SQL expression from our own code (never from input), e.g. coalesce(number_seq, 0); matches an index. */
  expression?: string;
  value(row: Row): string | number;
}

export type SortFields<Row> = Record<string, SortField<Row>>;

/** created_at and updated_at, which every list sorts by. */
export function timestampSorts<Row extends { created_at: string | Date; updated_at: string | Date }>(): SortFields<Row> {
  const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);
  return { created_at: { value: (row) => iso(row.created_at) }, updated_at: { value: (row) => iso(row.updated_at) } };
}

// `any` default: helpers that only read the sort column and limit need not know the row type.
export interface PageRequest<Row = any> {
  column: string;
  field: SortField<Row>;
  descending: boolean;
  limit: number;
  after: { value: string | number; id: string } | undefined;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Reads `sort`, `limit` and `cursor`; a cursor made for another sort order is a validation error. */
export function pageRequest<Row>(query: { sort?: string | undefined; limit?: number | undefined; cursor?: string | undefined }, fields: SortFields<Row>): PageRequest<Row> {
  const sort = query.sort ?? '-created_at';
  const descending = sort.startsWith('-');
  const column = descending ? sort.slice(1) : sort;
  const field = fields[column];
  if (!field) throw fieldError('sort', `cannot sort by ${column}`);
  let after: PageRequest['after'];
  if (query.cursor !== undefined) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
    } catch {
      throw fieldError('cursor', 'is not a cursor returned by this API');
    }
    if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[2] !== 'string' || !['string', 'number'].includes(typeof decoded[1])) {
      throw fieldError('cursor', 'is not a cursor returned by this API');
    }
    if (decoded[0] !== sort) throw fieldError('cursor', `was made for sort=${String(decoded[0])}; pass the same sort as the first page`);
    after = { value: decoded[1] as string | number, id: decoded[2] };
  }
  return { column, field, descending, limit: query.limit ?? 25, after };
}

/**
 * Orders by (column, id), starts after the cursor's row and fetches one row more than the page, which
 * tells whether another page follows. Row-value comparison lets the (account_id, column, id) index serve it.
 */
// `any`: this helper works on a select from any table; the caller's builder keeps its own types.
export function applyPage<QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: PageRequest): QB {
  const direction = page.descending ? 'desc' : 'asc';
  const sortKey = page.field.expression ? sql.raw(page.field.expression) : sql.ref(page.column);
  let result = query.orderBy(sortKey, direction).orderBy(sql.ref('id'), direction);
  if (page.after) {
    const operator = sql.raw(page.descending ? '<' : '>');
    result = result.where(sql<boolean>`(${sortKey}, ${sql.ref('id')}) ${operator} (${page.after.value}, ${page.after.id})`);
  }
  return result.limit(page.limit + 1) as QB;
}

export function toPage<T extends { id: string }>(rows: T[], page: PageRequest<T>): Page<T> {
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const sort = `${page.descending ? '-' : ''}${page.column}`;
  const nextCursor = hasMore && last ? Buffer.from(JSON.stringify([sort, page.field.value(last), last.id])).toString('base64url') : null;
  return { items, hasMore, nextCursor };
}

/** The list envelope, plus a `Link: <...>; rel="next"` header that repeats the query with the new cursor. */
export function listResponse<T, R>(request: FastifyRequest, reply: FastifyReply, page: Page<T>, limit: number, present: (item: T) => R) {
  if (page.nextCursor) {
    const url = new URL(request.url, 'http://localhost');
    url.searchParams.set('cursor', page.nextCursor);
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return {
    data: page.items.map(present),
    meta: { ...meta(request), pagination: { limit, has_more: page.hasMore, next_cursor: page.nextCursor } },
  };
}
