// The list envelope: a page of objects with `meta.pagination`, and a `Link: <...>; rel="next"` header.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_SIZE, type Page } from '../db/keyset.js';
import { meta } from './envelope.js';

/**
 * A list answer is bounded in bytes as well as rows (docs/api-contract.md §21: about 5 MB): past it, the page
 * ends early with has_more and the cursor of its last object, so no list builds a 50 MB answer.
 */
export const MAX_LIST_BYTES = 5 * 1024 * 1024;

/** The page's objects, as many as fit in `maxBytes` of JSON (always at least one), and the cursor after them. */
export function boundedItems<T, R>(
  page: Page<T>,
  present: (item: T) => R,
  maxBytes = MAX_LIST_BYTES,
): { data: R[]; hasMore: boolean; nextCursor: string | null } {
  const data: R[] = [];
  let bytes = 0;
  for (const item of page.items) {
    const presented = present(item);
    bytes += Buffer.byteLength(JSON.stringify(presented) ?? '') + 1;
    if (bytes > maxBytes && data.length > 0 && page.cursorAfter) {
      const last = page.items[data.length - 1] as T;
      return { data, hasMore: true, nextCursor: page.cursorAfter(last) };
    }
    data.push(presented);
  }
  return { data, hasMore: page.hasMore, nextCursor: page.nextCursor };
}

/** The list envelope, plus a `Link: <...>; rel="next"` header that repeats the query with the new cursor. */
export function listResponse<T, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  limit: number | undefined,
  present: (item: T) => R,
) {
  const { data, hasMore, nextCursor } = boundedItems(page, present);
  if (nextCursor) {
    const url = new URL(request.url, 'http://localhost');
    url.searchParams.set('cursor', nextCursor);
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return {
    data,
    meta: {
      ...meta(request),
      pagination: { limit: limit ?? DEFAULT_PAGE_SIZE, has_more: hasMore, next_cursor: nextCursor },
    },
  };
}
