// Idempotency-Key on POST (Stripe's semantics, the IETF idempotency-key draft's status codes): the first
// response (status and body) is kept per API key and key string for 24 hours and replayed for a retry
// with the same request; the same key with another request is 422 IDEMPOTENCY_KEY_REUSED; a retry
// while the first is still running is 409 CONFLICT. Validation failures and server faults are not kept,
// so they can be retried with the same key.
import { hash as digest } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  completeIdempotencyKey,
  type Db,
  deleteExpiredIdempotencyKeys,
  deleteIdempotencyKey,
  findIdempotencyKey,
  type IdempotencyKeyRow,
  insertIdempotencyKey,
} from '../db/index.js';
import { AppError } from '../core/errors.js';
import { addRouteHook, isReplayablePost } from './route-hooks.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A request holds its key this long; a process that died holding it releases it by timing out. */
const LEASE_MS = 60_000;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes a retried POST safe: the first response is replayed for 24 hours for the same request with the same key.',
      example: 'f2c1a7e0-5b7d-4c3e-9a61-0d6a2b8f9e14',
    }),
  ),
});

/** The same JSON with its keys in a fixed order, so a retry that reorders fields is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  return value;
}

type Claim = { claimed: true } | { claimed: false; row: IdempotencyKeyRow };

async function claim(db: Db, apiKeyId: string, key: string, hash: string, now: Date): Promise<Claim> {
  const nowIso = now.toISOString();
  const lockedUntil = new Date(now.getTime() + LEASE_MS).toISOString();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const inserted = await insertIdempotencyKey(db, {
      api_key_id: apiKeyId,
      key,
      request_hash: hash,
      status: 'running',
      response_status: null,
      response_body: null,
      response_location: null,
      response_etag: null,
      locked_until: lockedUntil,
      expires_at: new Date(now.getTime() + RETENTION_MS).toISOString(),
      created_at: nowIso,
    });
    if (inserted) return { claimed: true };
    const row = await findIdempotencyKey(db, apiKeyId, key);
    if (!row) continue;
    const expired = String(row.expires_at) <= nowIso;
    const abandoned = row.status === 'running' && String(row.locked_until) <= nowIso;
    if (!expired && !abandoned) return { claimed: false, row };
    // An expired record, or one whose request died: start afresh (only one retry wins the delete).
    await deleteIdempotencyKey(db, apiKeyId, key, row.created_at);
  }
  throw stillRunning('Another request with this Idempotency-Key is being processed; retry it.');
}

export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotencyKey', undefined);
  app.decorateRequest('transaction', undefined);
  let claims = 0;

  addRouteHook(app, isReplayablePost, 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (!request.auth || typeof header !== 'string' || header === '') return;
    const now = app.clock.now();
    // No body, null and {} ask for the same thing (a send without a message).
    const body = request.body === undefined || request.body === null ? {} : request.body;
    const hash = digest('sha256', `${request.method} ${request.url}\n${JSON.stringify(canonical(body))}`, 'hex');
    // Now and then, forget records past their 24 hours.
    if (++claims % 500 === 0) await deleteExpiredIdempotencyKeys(db, now.toISOString());
    const result = await claim(db, request.auth.keyId, header, hash, now);
    if (result.claimed) {
      request.idempotencyKey = header;
      // The request runs in one transaction from here until its response is kept (onSend below): its writes,
      // events, outbox rows and webhook deliveries, and its kept response commit together or not at all.
      if (!request.routeOptions.config.ownTransaction) request.transaction = await db.startTransaction().execute();
      return;
    }
    const { row } = result;
    if (row.request_hash !== hash)
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      );
    if (row.status === 'running')
      throw stillRunning('The first request with this Idempotency-Key is still being processed; retry shortly.');
    reply
      .code(row.response_status ?? 200)
      .type('application/json; charset=utf-8')
      .header('idempotent-replayed', 'true');
    if (row.response_location) reply.header('location', row.response_location);
    if (row.response_etag) reply.header('etag', row.response_etag);
    return reply.send(row.response_body);
  });

  addRouteHook(
    app,
    isReplayablePost,
    'onSend',
    async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const key = request.idempotencyKey;
      const transaction = request.transaction;
      request.transaction = undefined;
      if (!key || !request.auth) {
        await transaction?.rollback().execute();
        return payload;
      }
      request.idempotencyKey = undefined;
      const location = reply.getHeader('location');
      const etag = reply.getHeader('etag');
      const kept = {
        response_status: reply.statusCode,
        response_body: String(payload),
        response_location: typeof location === 'string' ? location : null,
        response_etag: typeof etag === 'string' ? etag : null,
      };
      if (transaction && reply.statusCode < 400) {
        // A success: its response is kept in the request's own transaction, and nobody is answered before
        // both are committed (and, on SQLite, durable). A failure to commit answers 500 and frees the key.
        try {
          await completeIdempotencyKey(transaction, request.auth.keyId, key, kept);
          await transaction.commit().execute();
        } catch (error) {
          await transaction
            .rollback()
            .execute()
            .catch(() => {});
          await deleteIdempotencyKey(db, request.auth.keyId, key);
          throw error;
        }
        return payload;
      }
      // A refusal or a fault: whatever the request wrote is undone, and its answer kept (or not) on its own.
      await transaction?.rollback().execute();
      const failedValidation =
        reply.statusCode === 422 && typeof payload === 'string' && payload.includes('"VALIDATION_ERROR"');
      if (reply.statusCode >= 500 || failedValidation) {
        await deleteIdempotencyKey(db, request.auth.keyId, key);
      } else {
        await completeIdempotencyKey(db, request.auth.keyId, key, kept);
      }
      return payload;
    },
  );
}

/** 409 while the first request with the key runs; its Retry-After tells clients (and the SDKs) to retry it. */
function stillRunning(message: string): AppError {
  return new AppError('CONFLICT', message, undefined, { 'retry-after': '1' });
}
