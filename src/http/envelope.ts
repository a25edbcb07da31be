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
