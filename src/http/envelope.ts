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

/**
 * `ok(request, data)` as the JSON the route's serializer writes, from the JSON of `data` already made (so that
 * the ETag hashes the same bytes and the object is serialized once): the same bytes as `{data, meta}` serialized
 * by the envelope's schema. The request id (`req_` and hex digits, http/connections.ts) and the ISO timestamp
 * have nothing to escape.
 */
export function okJson(request: FastifyRequest, dataJson: string): string {
  return `{"data":${dataJson},"meta":{"request_id":"${request.id}","timestamp":"${timestampOf(request.server.clock)}"}}`;
}

/**
 * A list's envelope as the JSON its route's serializer writes, from its objects' JSON already made (each
 * object's once, http/resource-routes.ts): `{data, meta: {request_id, timestamp, pagination}}`.
 */
export function listJson(
  request: FastifyRequest,
  itemsJson: readonly string[],
  pagination: { limit: number; has_more: boolean; next_cursor: string | null },
): string {
  const cursor = pagination.next_cursor === null ? 'null' : JSON.stringify(pagination.next_cursor);
  return `{"data":[${itemsJson.join(',')}],"meta":{"request_id":"${request.id}","timestamp":"${timestampOf(request.server.clock)}","pagination":{"limit":${pagination.limit},"has_more":${pagination.has_more},"next_cursor":${cursor}}}}`;
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
