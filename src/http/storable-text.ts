// Every string of a body or query string, keys included, must be text both databases store as given
// (core/text.ts: no NUL character, no lone surrogate); otherwise a 422 names the field.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { fieldError } from '../core/errors.js';
import { isStorableText } from '../core/text.js';
import { addRouteHook } from './route-hooks.js';
import { toFieldPath } from './validation.js';

/** The path of the first string (value or key) holding U+0000 or a lone surrogate, or undefined. */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path || 'body';
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const child = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!isStorableText(key)) return child;
      const found = findUnstorableText(item, child);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function assertStorableText(value: unknown): void {
  const found = findUnstorableText(value);
  if (found !== undefined)
    throw fieldError(
      found === 'body' ? 'body' : toFieldPath(found),
      'must be valid Unicode text without the NUL character (U+0000) or a lone surrogate',
    );
}

/** Query strings are checked before validation; bodies are checked by the JSON parser. */
export function registerStorableTextCheck(app: FastifyInstance): void {
  const hasQuery = (route: RouteOptions): boolean => Boolean(route.schema?.querystring);
  addRouteHook(
    app,
    hasQuery,
    'preValidation',
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      try {
        assertStorableText(request.query);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  );
}
