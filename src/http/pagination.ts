// The list envelope: a page of objects with `meta.pagination`, and a `Link: <...>; rel="next"` header.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_SIZE, type Page } from '../db/keyset.js';
import { meta } from './envelope.js';

/** The list envelope, plus a `Link: <...>; rel="next"` header that repeats the query with the new cursor. */
export function listResponse<T, R>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  limit: number | undefined,
  present: (item: T) => R,
) {
  if (page.nextCursor) {
    const url = new URL(request.url, 'http://localhost');
    url.searchParams.set('cursor', page.nextCursor);
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return {
    data: page.items.map(present),
    meta: {
      ...meta(request),
      pagination: { limit: limit ?? DEFAULT_PAGE_SIZE, has_more: page.hasMore, next_cursor: page.nextCursor },
    },
  };
}
