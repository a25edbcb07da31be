// The only body parser: JSON. Empty bodies are "no body" (so DELETE or send with a stray Content-Type
// works); prototype-pollution keys are refused rather than silently dropped.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from '../core/errors.js';
import { assertNoNulCharacter } from './nul-characters.js';

/** The largest body accepted (contract section 2: over it, 413 PAYLOAD_TOO_LARGE). */
export const BODY_LIMIT_BYTES = 1_048_576;
export const BODY_LIMIT_TEXT = '1 MiB';

/** No BMS body nests beyond a few levels; this bounds the work (and stack) any body can demand. */
const MAX_DEPTH = 64;

function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
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
    // Measured without recursion, so no body can exhaust the stack of the checks that follow.
    if (nestingDepth(parsed) > MAX_DEPTH) return done(fieldError('body', `must not be nested more than ${MAX_DEPTH} levels deep`));
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
