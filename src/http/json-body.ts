// The only body parser: JSON. Empty bodies are "no body" (so DELETE or send with a stray Content-Type
// works); prototype-pollution keys are refused rather than silently dropped.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, fieldError } from '../core/errors.js';
import { assertNoControlCharacters, assertStorableText } from './storable-text.js';

/** The largest body accepted (docs/api-contract.md §2: over it, 413 PAYLOAD_TOO_LARGE). */
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
    if (Array.isArray(current) && children.length > MAX_ITEMS)
      return `must not hold an array of more than ${MAX_ITEMS} items`;
    if (!Array.isArray(current) && children.length > MAX_KEYS)
      return `must not hold an object of more than ${MAX_KEYS} keys`;
    for (const child of children) pending.push([child, depth + 1]);
  }
  return undefined;
}

/** A JSON number written out as sign, significant digits and the position of the decimal point. */
function decimalValue(text: string): string {
  const [, sign = '', whole = '', fraction = '', exponent = '0'] =
    /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text) ?? [];
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  const leading = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  return digits === '' ? '0' : `${sign}${digits}e${point}`;
}

/**
 * The first number in the body whose value a double cannot hold as written (1.00000000000000000001 would
 * be read as 1, 12345678901234567890 as …7000): refused rather than silently changed. Strings are skipped.
 */
function inexactNumber(text: string): string | undefined {
  // Most bodies hold no digit at all: nothing to tokenize then.
  if (!/\d/.test(text)) return undefined;
  for (const [token] of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (token.startsWith('"')) continue;
    if (decimalValue(token) !== decimalValue(String(Number(token)))) return token;
  }
  return undefined;
}

/**
 * A JSON body as the parser reads it: `undefined` when empty; else the value, or the AppError that refuses it. A
 * route with a body schema reports control characters with the schema's errors (`hasBodySchema`).
 */
export function parseJsonBody(text: string, hasBodySchema: boolean): unknown {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AppError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
  const problem = shapeProblem(parsed);
  if (problem) throw fieldError('body', problem);
  const inexact = inexactNumber(text);
  if (inexact !== undefined)
    throw fieldError(
      'body',
      `holds the number ${inexact.slice(0, 40)}, which cannot be kept exactly as written (at most 15 significant digits)`,
    );
  try {
    // Re-scan for __proto__ / constructor.prototype keys, which JSON.parse accepts.
    if (typeof parsed === 'object' && parsed !== null)
      secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw fieldError('__proto__', 'forbidden property name (__proto__ or constructor.prototype)');
  }
  assertStorableText(parsed);
  // A route with a body schema reports control characters with the schema's errors (issue 34.17,
  // http/validation.ts); the others (the MCP server's JSON-RPC) are checked here.
  if (!hasBodySchema) assertNoControlCharacters(parsed);
  return parsed;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseJsonBody(body as string, Boolean(request.routeOptions.schema?.body));
    } catch (error) {
      return done(error as Error);
    }
    return done(null, parsed);
  });
}
