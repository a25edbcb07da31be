// Optimistic concurrency: every single-object response carries a strong ETag (a hash of the object as
// returned), and PUT/DELETE with If-Match go ahead only while the object is unchanged (else 412). The
// check runs inside the update's transaction, on the locked row, so it cannot race the change.
// The standard resources (http/resource-routes.ts) hash the object's JSON as the response carries it, made
// once for both; the others hash JSON.stringify of the object. Each compares If-Match the way its GET answers
// (a route added beside a standard resource's uses sentJsonFingerprint).
import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { AppError, type Precondition } from '../core/errors.js';

/**
 * The ETag of an object whose JSON is `json`. SHA-1 here is a fingerprint, not a defence: the one-shot hash is
 * the cheapest strong enough.
 */
export function etagOfJson(json: string): string {
  return `"${hash('sha1', json, 'base64url')}"`;
}

/**
 * The JSON of `schema`'s objects as a response carries them: fast-json-stringify of the schema, the serializer
 * the envelope's own uses for `data` (compiled once per route by Fastify).
 */
export function sentJson(reply: FastifyReply, schema: Record<string, unknown>): (data: unknown) => string {
  return reply.compileSerializationSchema(schema) as (data: unknown) => string;
}

/**
 * If-Match's fingerprint on a route whose objects a standard resource answers (http/resource-routes.ts): the
 * ETag of the object's JSON as sent, so that an ETag from its GET matches here too.
 */
export function sentJsonFingerprint(
  reply: FastifyReply,
  schema: Record<string, unknown>,
): (current: unknown) => string {
  const serialize = sentJson(reply, schema);
  return (current) => etagOfJson(serialize(current));
}

/** The ETag of an object, from JSON.stringify of it. */
export function etagOf(item: unknown): string {
  return etagOfJson(JSON.stringify(item));
}

/** The entity tags a conditional header lists, trimmed (If-Match, If-None-Match). */
function listedTags(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header.join(',') : header).split(',').map((tag) => tag.trim());
}

/** True when an If-None-Match header lists this ETag (weak comparison, as RFC 9110 asks) or is `*`. */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  return listedTags(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}

/**
 * The precondition an If-Match header states (strong comparison; `*` matches any existing object), the current
 * object's ETag computed by `fingerprint`, as the route computes the ETag it answers.
 */
export function ifMatch(
  header: string | string[] | undefined,
  fingerprint: (current: unknown) => string = etagOf,
): Precondition | undefined {
  if (header === undefined) return undefined;
  const tags = listedTags(header);
  return (current) => {
    if (tags.includes('*') || tags.includes(fingerprint(current))) return;
    throw new AppError(
      'PRECONDITION_FAILED',
      'The object has changed since you read it: If-Match does not match its current ETag. Get it again, then retry.',
    );
  };
}

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'The ETag you last read; the change is made only if the object is unchanged (else 412).',
      example: '"mV3q0b1eJf8tWJpQ2xHc9Kp5sZ4"',
    }),
  ),
});
