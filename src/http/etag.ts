// Optimistic concurrency: every single-object response carries a strong ETag (a hash of the object as
// returned), and PUT/DELETE with If-Match go ahead only while the object is unchanged (else 412). The
// check runs inside the update's transaction, on the locked row, so it cannot race the change.
import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { AppError, type Precondition } from '../core/errors.js';

/** SHA-1 here is a fingerprint, not a defence: the one-shot hash is the cheapest strong enough. */
export function etagOf(item: unknown): string {
  return `"${hash('sha1', JSON.stringify(item), 'base64url')}"`;
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

/** The precondition an If-Match header states (strong comparison; `*` matches any existing object). */
export function ifMatch(header: string | string[] | undefined): Precondition | undefined {
  if (header === undefined) return undefined;
  const tags = listedTags(header);
  return (current) => {
    if (tags.includes('*') || tags.includes(etagOf(current))) return;
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
