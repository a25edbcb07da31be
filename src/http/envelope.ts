// The response envelope of the seed: every body carries meta {request_id, timestamp}.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timestampOf } from '../core/deps.js';

export interface Meta {
  request_id: string;
  timestamp: string;
}

export function meta(request: FastifyRequest): Meta {
  return { request_id: request.id, timestamp: timestampOf(request.server.clock) };
}

export function ok<T>(request: FastifyRequest, data: T) {
  return { data, meta: meta(request) };
}

/** The content type Fastify gives a JSON answer; a string answer with it is sent as it is. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A list's `meta.pagination`. */
export interface Pagination {
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The envelope as the JSON its route's serializer writes, from the JSON of `data` already made (so that the ETag
 * hashes the same bytes and an object is serialized once): `{data, meta: {request_id, timestamp}}`, and a list's
 * `pagination` in its meta. The same bytes as the envelope's schema serializes (test/envelope.test.ts). The
 * request id (`req_` and hex digits, http/connections.ts) and the ISO timestamp have nothing to escape.
 */
export function envelopeJson(request: FastifyRequest, dataJson: string, pagination?: Pagination): string {
  const page =
    pagination === undefined
      ? ''
      : `,"pagination":{"limit":${pagination.limit},"has_more":${pagination.has_more},"next_cursor":${pagination.next_cursor === null ? 'null' : JSON.stringify(pagination.next_cursor)}}`;
  return `{"data":${dataJson},"meta":{"request_id":"${request.id}","timestamp":"${timestampOf(request.server.clock)}"${page}}}`;
}

/** 201 with the Location of the new object. */
export function created<T extends { id: string }>(
  request: FastifyRequest,
  reply: FastifyReply,
  collectionPath: string,
  data: T,
) {
  reply.code(201).header('location', `${collectionPath}/${data.id}`);
  return ok(request, data);
}
