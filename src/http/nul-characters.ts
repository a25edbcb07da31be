// The NUL character (U+0000) is refused in every string, in bodies and query strings: PostgreSQL's text
// cannot hold it, and no business field needs it. Found by testing hostile input; a 422 names the field.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { fieldError } from '../core/errors.js';
import { addRouteHook } from './route-hooks.js';
import { toFieldPath } from './validation.js';

/** The path of the first string (value or key) containing U+0000, or undefined. */
export function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : undefined;
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
      if (key.includes('\u0000')) return child;
      const found = findNulCharacter(item, child);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function assertNoNulCharacter(value: unknown): void {
  const found = findNulCharacter(value);
  if (found !== undefined) throw fieldError(found === 'body' ? 'body' : toFieldPath(found), 'must not contain the NUL character (U+0000)');
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
