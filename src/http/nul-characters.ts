// Text that a database cannot store as given is refused in every string, in bodies and query strings, with
// a 422 naming the field: the NUL character (U+0000), which PostgreSQL's text cannot hold, and a lone
// UTF-16 surrogate (such as "\ud800"), which is no character at all (PostgreSQL's jsonb refuses it; SQLite
// would store other bytes than the API echoed). Both engines then accept exactly the same text.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { fieldError } from '../core/errors.js';
import { isStorableText } from '../core/text.js';
import { addRouteHook } from './route-hooks.js';
import { toFieldPath } from './validation.js';

/** The path of the first string (value or key) holding U+0000 or a lone surrogate, or undefined. */
export function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path || 'body';
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const child = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!isStorableText(key)) return child;
      const found = findNulCharacter(item, child);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function assertNoNulCharacter(value: unknown): void {
  const found = findNulCharacter(value);
  if (found !== undefined) throw fieldError(found === 'body' ? 'body' : toFieldPath(found), 'must be valid Unicode text without the NUL character (U+0000) or a lone surrogate');
}

/** Query strings are checked before validation; bodies are checked by the JSON parser. */
export function registerNulCharacterCheck(app: FastifyInstance): void {
  const hasQuery = (route: RouteOptions): boolean => Boolean(route.schema?.querystring);
  addRouteHook(app, hasQuery, 'preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    try {
      assertNoNulCharacter(request.query);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
