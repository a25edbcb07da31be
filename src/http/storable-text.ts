// Every string of a body or query string, keys included, must be text both databases store as given
// (core/text.ts: no NUL character, no lone surrogate); otherwise a 422 names the field. A body's text fields
// hold no control characters either: a single-line field none at all, a multi-line one line feeds and tabs
// only (docs/api-contract.md §21).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { fieldError, validationError } from '../core/errors.js';
import { isStorableText } from '../core/text.js';
import { addRouteHook } from './route-hooks.js';
import { toFieldPath } from './field-path.js';

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

/**
 * The fields that hold several lines (docs/api-contract.md §21: notes, descriptions, instructions, access
 * notes; the footers and reasons are the same kind of text). Every other string of a body is a single line.
 * Metadata values are the client's own text and may hold lines too; metadata keys are single-line.
 */
const MULTI_LINE_FIELDS = new Set([
  'notes',
  'description',
  'instructions',
  'payment_instructions',
  'access_notes',
  'invoice_footer',
  'quote_footer',
  'reason',
  'decline_reason',
  'cancel_reason',
  'completion_notes',
  // An attachment's caption (docs/api-contract.md §30).
  'caption',
]);

// C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F); the multi-line form spares LF (U+000A) and tab (U+0009).
const SINGLE_LINE_REFUSED = /[\u0000-\u001F\u007F-\u009F]/;
const MULTI_LINE_REFUSED = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/** Every text field of a body holding a control character it may not hold: its path and whether it is multi-line. */
export function findControlCharacters(
  value: unknown,
  path = '',
  multiLine = false,
  found: Array<{ path: string; multiLine: boolean }> = [],
): Array<{ path: string; multiLine: boolean }> {
  if (typeof value === 'string') {
    if ((multiLine ? MULTI_LINE_REFUSED : SINGLE_LINE_REFUSED).test(value))
      found.push({ path: path || 'body', multiLine });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) findControlCharacters(item, `${path}/${index}`, multiLine, found);
  } else if (value && typeof value === 'object') {
    const metadata = path.endsWith('/metadata');
    for (const [key, item] of Object.entries(value)) {
      const child = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (SINGLE_LINE_REFUSED.test(key)) found.push({ path: child, multiLine: false });
      else findControlCharacters(item, child, metadata || MULTI_LINE_FIELDS.has(key), found);
    }
  }
  return found;
}

/** 422 naming every text field of a body that holds a control character it may not hold. */
export function assertNoControlCharacters(body: unknown): void {
  const found = findControlCharacters(body);
  if (found.length === 0) return;
  throw validationError(
    found.slice(0, 100).map(({ path, multiLine }) => ({
      field: path === 'body' ? 'body' : toFieldPath(path),
      message: multiLine
        ? 'may hold line feeds and tabs, but no other control characters (such as a carriage return or an escape)'
        : 'must be a single line of text, without line breaks, tabs or other control characters',
    })),
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
