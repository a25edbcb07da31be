// The only body parser: JSON. Empty bodies are "no body" (so DELETE or send with a stray Content-Type
// works); prototype-pollution keys are refused rather than silently dropped.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from '../core/errors.js';
import { assertNoNulCharacter } from './nul-characters.js';

/** The largest body accepted (contract section 2: over it, 413 PAYLOAD_TOO_LARGE). */
export const BODY_LIMIT_BYTES = 1_048_576;
export const BODY_LIMIT_TEXT = '1 MiB';

/**
 * No BMS body nests beyond a few levels, has an object with more than 50 keys (metadata) or an array of
 * more than 200 items (line items): these bounds, checked before validation, keep a hostile body (say
 * 60,000 unknown fields) from costing the validator and the error answer in proportion to its size.
 */
const MAX_DEPTH = 64;
const MAX_KEYS = 200;
const MAX_ITEMS = 1000;

/** Why the body's shape is refused before validation, or undefined. Iterative: no body can exhaust the stack. */
function shapeProblem(value: unknown): string | undefined {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_DEPTH) return `must not be nested more than ${MAX_DEPTH} levels deep`;
    const children = Object.values(current);
    if (Array.isArray(current) && children.length > MAX_ITEMS) return `must not hold an array of more than ${MAX_ITEMS} items`;
    if (!Array.isArray(current) && children.length > MAX_KEYS) return `must not hold an object of more than ${MAX_KEYS} keys`;
    for (const child of children) pending.push([child, depth + 1]);
  }
  return undefined;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(new AppError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`));
    }
    const problem = shapeProblem(parsed);
    if (problem) return done(fieldError('body', problem));
    try {
      // Re-scan for __proto__ / constructor.prototype keys, which JSON.parse accepts.
      if (typeof parsed === 'object' && parsed !== null) secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(fieldError('__proto__', 'forbidden property name (__proto__ or constructor.prototype)'));
    }
    try {
      assertNoNulCharacter(parsed);
    } catch (error) {
      return done(error as Error);
    }
    return done(null, parsed);
  });
}
