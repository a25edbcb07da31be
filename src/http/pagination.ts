// The list envelope: a page of objects with `meta.pagination`, and a `Link: <...>; rel="next"` header.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_SIZE, type Page } from '../db/index.js';
import { currentOperation, type ListPage } from '../kernel/operation-scope.js';
import { envelopeJson, JSON_CONTENT_TYPE, meta } from './envelope.js';

/**
 * A list answer is bounded in bytes as well as rows (docs/api-contract.md §21: about 5 MB): past it, the page
 * ends early with has_more and the cursor of its last object, so no list builds a 50 MB answer.
 */
export const MAX_LIST_BYTES = 5 * 1024 * 1024;

/**
 * At least the bytes of `value` as JSON, without writing it: 6 per UTF-16 unit of a string (`\uXXXX`; UTF-8
 * takes at most 3), 24 per number. `limit`: the count stops once past it. Writing each object out to measure
 * it would be a visible share of a list's CPU time, so a page is written out only when this bound does not fit.
 */
export function jsonBytesAtMost(value: unknown, limit: number): number {
  switch (typeof value) {
    case 'string':
      return 6 * value.length + 2;
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return Buffer.byteLength(JSON.stringify(value) ?? '');
      let bytes = 2;
      if (Array.isArray(value)) {
        for (const item of value) {
          bytes += jsonBytesAtMost(item, limit) + 1;
          if (bytes > limit) return bytes;
        }
        return bytes;
      }
      for (const key in value) {
        bytes += 6 * key.length + 4 + jsonBytesAtMost((value as Record<string, unknown>)[key], limit);
        if (bytes > limit) return bytes;
      }
      return bytes;
    }
    default:
      // undefined and functions are left out of JSON; a bigint cannot be written (JSON.stringify throws).
      return typeof value === 'bigint' ? Number.POSITIVE_INFINITY : 0;
  }
}

/** How a page's items are measured in bytes of JSON: an upper bound that is cheap, and the exact count. */
interface JsonSize<R> {
  atMost(item: R, limit: number): number;
  exact(item: R): number;
}

/** Objects, measured by jsonBytesAtMost, and written out only when that bound does not fit. */
const OBJECT_SIZE: JsonSize<unknown> = {
  atMost: jsonBytesAtMost,
  exact: (item) => Buffer.byteLength(JSON.stringify(item) ?? ''),
};

/** JSON already written: 3 bytes of UTF-8 at most per UTF-16 unit. */
const JSON_TEXT_SIZE: JsonSize<string> = {
  atMost: (text) => 3 * text.length,
  exact: (text) => Buffer.byteLength(text),
};

/** The page's objects, as many as fit in `maxBytes` of JSON (always at least one), and the cursor after them. */
export function boundedItems<T, R>(
  page: Page<T>,
  present: (item: T) => R,
  size: JsonSize<R> = OBJECT_SIZE,
  maxBytes = MAX_LIST_BYTES,
): { data: R[]; hasMore: boolean; nextCursor: string | null } {
  const data = page.items.map(present);
  let atMost = 0;
  for (const presented of data) {
    atMost += size.atMost(presented, maxBytes) + 1;
    if (atMost > maxBytes) break;
  }
  if (atMost <= maxBytes) return { data, hasMore: page.hasMore, nextCursor: page.nextCursor };
  // It may not fit: each object measured exactly, in order, until one does not.
  let bytes = 0;
  for (let index = 0; index < data.length; index += 1) {
    bytes += size.exact(data[index]!) + 1;
    if (bytes > maxBytes && index > 0 && page.cursorAfter) {
      return { data: data.slice(0, index), hasMore: true, nextCursor: page.cursorAfter(page.items[index - 1] as T) };
    }
  }
  return { data, hasMore: page.hasMore, nextCursor: page.nextCursor };
}

/**
 * A path of letters, digits, `-`, `_` and `/` only (no dot segment, nothing percent-encoded or to encode),
 * not starting `//` (which URL reads as a host).
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_\-/]*$/;
/** A query of name=value pairs of characters that form encoding leaves as they are, or none. */
const PLAIN_QUERY = /^(?:[A-Za-z0-9_.*-]+=[A-Za-z0-9_.*-]*(?:&[A-Za-z0-9_.*-]+=[A-Za-z0-9_.*-]*)*)?$/;
/** A cursor as toPage makes them: base64url, which form encoding leaves as it is. */
const PLAIN_CURSOR = /^[A-Za-z0-9_-]*$/;

/**
 * `url` (a request's path and query) with its `cursor` parameter set to `cursor`, as WHATWG URL's
 * `searchParams.set` writes it. A plain path and query (what the API's own links and clients send) are
 * joined as text, the same bytes, without parsing a URL for every page; any other
 * goes through URL.
 */
export function withCursor(url: string, cursor: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const query = mark < 0 ? '' : url.slice(mark + 1);
  if (PLAIN_PATH.test(path) && PLAIN_QUERY.test(query) && PLAIN_CURSOR.test(cursor)) {
    const pairs = query === '' ? [] : query.split('&');
    const at = pairs.findIndex((pair) => pair.startsWith('cursor='));
    if (at < 0) pairs.push(`cursor=${cursor}`);
    else {
      pairs[at] = `cursor=${cursor}`;
      for (let index = pairs.length - 1; index > at; index -= 1)
        if (pairs[index]!.startsWith('cursor=')) pairs.splice(index, 1);
    }
    return `${path}?${pairs.join('&')}`;
  }
  const parsed = new URL(url, 'http://localhost');
  parsed.searchParams.set('cursor', cursor);
  return `${parsed.pathname}${parsed.search}`;
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
  if (nextCursor) reply.header('link', `<${withCursor(request.url, nextCursor)}>; rel="next"`);
  return {
    data,
    meta: {
      ...meta(request),
      pagination: { limit: limit ?? DEFAULT_PAGE_SIZE, has_more: hasMore, next_cursor: nextCursor },
    },
  };
}

/** A page of a list as its objects' JSON (each as the list answers it), and whether and where it goes on. */
export interface JsonPage extends ListPage {
  readonly hasMore: boolean;
}

/**
 * A page's objects as JSON (`json`, which may give an object that cannot change the JSON made for it before), as
 * many as fit in the list's byte bound: counted on the JSON itself (3 bytes per UTF-16 unit at most; exactly, only
 * when that does not fit).
 */
export function jsonPage<T, R>(page: Page<T>, present: (item: T) => R, json: (item: R) => string): JsonPage {
  return boundedItems(page, (item) => json(present(item)), JSON_TEXT_SIZE);
}

/** listResponse from a JsonPage: the envelope written around its objects' JSON, sent as it is. */
export function listJsonResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  page: JsonPage,
  limit: number | undefined,
): string {
  const { data, hasMore, nextCursor } = page;
  if (nextCursor) reply.header('link', `<${withCursor(request.url, nextCursor)}>; rel="next"`);
  reply.header('content-type', JSON_CONTENT_TYPE);
  return envelopeJson(request, `[${data.join(',')}]`, {
    limit: limit ?? DEFAULT_PAGE_SIZE,
    has_more: hasMore,
    next_cursor: nextCursor,
  });
}

/**
 * A list's answer from its page reader (`read`: the page at `cursor`, else at the query's own): the first page's
 * envelope; or, for an export (kernel/operation-scope.ts `pages`), the first page and the reader handed over, so
 * that the export pages on through the list's own code without answering each page over HTTP (`204`, no body).
 */
export async function answerList(
  request: FastifyRequest,
  reply: FastifyReply,
  limit: number | undefined,
  read: (cursor?: string) => Promise<JsonPage>,
): Promise<string | undefined> {
  const first = await read();
  const exporting = currentOperation()?.pages;
  if (!exporting) return listJsonResponse(request, reply, first, limit);
  exporting(first, read);
  reply.code(204);
  return undefined;
}
