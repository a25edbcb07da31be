// Two validators: bodies are checked strictly (no type coercion, unknown fields rejected), query strings
// coerce text to numbers and booleans. Ajv's errors become the contract's `details`, one per field.
import { COMMA_LIST, REQUIRED_ONE_OF } from './openapi-document.js';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../core/errors.js';
import { canonicalTimeZone } from '../core/time.js';
import { toFieldPath } from './field-path.js';
import { findControlCharacters } from './storable-text.js';

export { toFieldPath };

// Fields the server owns: naming them in a body is an error with a clearer message than "unknown field".
const READ_ONLY_FIELDS = new Set([
  'id',
  'number',
  'created_at',
  'updated_at',
  'subtotal_amount',
  'tax_amount',
  'total_amount',
  'amount',
  'amount_due',
  'amount_paid',
  'is_overdue',
  'sent_at',
  'approved_at',
  'declined_at',
  'converted_at',
  'completed_at',
  'paid_at',
  'voided_at',
  'object',
  'payments',
  'payments_count',
  'amount_refunded',
  'refunds',
  'refunds_count',
  'property_ids',
  // Links are set when a document is created from another one, and cannot be changed afterwards.
  'quote_id',
  'job_id',
  'request_id',
]);

function buildAjv(coerceTypes: boolean) {
  const ajv = new Ajv.default({
    allErrors: true,
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: true,
    strictTypes: false,
    allowUnionTypes: true,
  });
  addFormats.default(ajv, ['date-time', 'date', 'email', 'uuid', 'uri']);
  // Both engines store exactly the years 0001 to 9999 (PostgreSQL has no year 0; SQLite's text would sort
  // a five-digit year wrongly): a date, or a timestamp once converted to UTC, outside them is refused.
  const fullDate = ajv.formats.date as { validate: (text: string) => boolean };
  const fullDateTime = ajv.formats['date-time'] as { validate: (text: string) => boolean };
  ajv.addFormat('date', { type: 'string', validate: (text: string) => fullDate.validate(text) && storableDate(text) });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => fullDateTime.validate(text) && storableInstant(text),
  });
  ajv.addFormat('currency', { type: 'string', validate: (text: string) => CURRENCIES.has(text) });
  // docs/api-contract.md §14, §21: an IANA name that follows local time (the service stores its canonical form).
  ajv.addFormat('time-zone', {
    type: 'string',
    validate: (text: string) => {
      try {
        canonicalTimeZone('timezone', text);
        return true;
      } catch {
        return false;
      }
    },
  });
  // docs/api-contract.md §21: single-line text refuses control characters; multi-line text allows line feeds and tabs.
  ajv.addFormat('single-line', { type: 'string', validate: (text: string) => !/[\u0000-\u001f\u007f]/.test(text) });
  ajv.addFormat('multi-line', {
    type: 'string',
    validate: (text: string) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text),
  });
  ajv.addKeyword({ keyword: 'example', metaSchema: {} });
  // Markers checked by the services, which the published document rewrites as standard OpenAPI
  // (http/openapi-document.ts): a comma-separated query list, and one of several required fields.
  ajv.addKeyword({ keyword: COMMA_LIST, metaSchema: { type: 'object' } });
  ajv.addKeyword({ keyword: REQUIRED_ONE_OF, metaSchema: { type: 'array', items: { type: 'string' } } });
  return ajv;
}

/** ISO 4217 codes, as the runtime's Intl knows them. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function storableDate(text: string): boolean {
  return !text.startsWith('0000');
}

function storableInstant(text: string): boolean {
  const time = Date.parse(text);
  if (Number.isNaN(time)) return false;
  const year = new Date(time).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

const bodyAjv = buildAjv(false);
const queryAjv = buildAjv(true);

/**
 * A body's validator: the schema, and the control characters of its text fields (docs/api-contract.md §21),
 * reported together, so that one 422 names every wrong field.
 */
export const schemaCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  // Many routes take the same query, params or body (the same id, the same list filters): each distinct
  // schema is compiled once (Ajv's own cache knows only the same object again). Start-up: ~0.3 s less.
  const compiled = httpPart === 'body' ? compiledBodies : compiledOthers;
  const key = JSON.stringify(schema);
  let validator = compiled.get(key);
  if (validator === undefined) {
    validator = httpPart === 'body' ? bodyValidator(schema as object) : queryAjv.compile(schema as object);
    compiled.set(key, validator);
  }
  return validator;
};

const compiledBodies = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();
const compiledOthers = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();

function bodyValidator(schema: object) {
  const validate = bodyAjv.compile(schema);
  const checked = (data: unknown): boolean => {
    const valid = validate(data);
    // A body that is text itself (an import's CSV file, §26) holds lines; its cells are checked as each row goes
    // through its own route.
    const text = typeof data === 'string' ? [] : findControlCharacters(data);
    if (valid && text.length === 0) return true;
    checked.errors = [
      ...(valid ? [] : (validate.errors ?? [])),
      ...text.map(
        ({ path, multiLine }): ErrorObject => ({
          keyword: CONTROL_CHARACTERS,
          instancePath: path === 'body' ? '' : path,
          schemaPath: '#',
          params: { multiLine },
        }),
      ),
    ];
    return false;
  };
  checked.errors = null as ErrorObject[] | null;
  return checked;
}

/** The keyword of the control-character errors the body validator adds to the schema's. */
const CONTROL_CHARACTERS = 'controlCharacters';

/** What a pattern of our schemas asks for, said for a person; a pattern not listed here gets a plain sentence. */
const PATTERN_MESSAGES: Record<string, string> = {
  '\\S': 'must not be blank',
  '^[A-Z]{2}$': 'must be a two-letter country code in capitals (ISO 3166-1 alpha-2), e.g. US',
  '^[A-Z]{3}$': 'must be a three-letter code in capitals, e.g. USD',
  '^https?://': 'must start with http:// or https://',
  '^#[0-9A-Fa-f]{6}$': 'must be a colour written #RRGGBB, e.g. #1A73E8',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/** A JSON value as a person reads it in a message: strings quoted, at most 60 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * One Ajv error as the contract's detail: the field's path and a sentence for a person. Every
 * keyword our request schemas use has its own sentence; Ajv's own phrases never reach a caller.
 */
function describe(error: ErrorObject): { field: string; message: string } {
  const params = error.params as Record<string, unknown>;
  const field = toFieldPath(error.instancePath);
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'required':
      return { field: toFieldPath(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const readOnly = error.instancePath === '' && READ_ONLY_FIELDS.has(name);
      return {
        field: toFieldPath(error.instancePath, name),
        message: readOnly ? 'is read-only and cannot be set' : 'is not a known field',
      };
    }
    case 'propertyNames':
      return {
        field: toFieldPath(error.instancePath, String(params.propertyName)),
        message: 'key must be 1 to 40 characters',
      };
    case 'format':
      return { field, message: formatMessage(String(params.format)) };
    case 'enum':
      return {
        field,
        message: `must be one of: ${(params.allowedValues as unknown[]).map((value) => String(value)).join(', ')}`,
      };
    case 'const':
      return { field, message: `must be ${shown(params.allowedValue)}` };
    case 'type': {
      const types = (Array.isArray(params.type) ? params.type : String(params.type).split(',')) as string[];
      return { field, message: `must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}` };
    }
    case 'pattern':
      return { field, message: PATTERN_MESSAGES[String(params.pattern)] ?? 'is not written in the accepted form' };
    case 'minLength':
      return { field, message: limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character')}` };
    case 'maxLength':
      return { field, message: `must be at most ${plural(limit, 'character')}` };
    case 'minimum':
      return { field, message: `must be ${limit} or more` };
    case 'maximum':
      return { field, message: `must be ${limit} or less` };
    case 'exclusiveMinimum':
      return { field, message: `must be more than ${limit}` };
    case 'exclusiveMaximum':
      return { field, message: `must be less than ${limit}` };
    case 'multipleOf':
      return { field, message: `must be a multiple of ${String(params.multipleOf)}` };
    case 'minItems':
      return { field, message: limit === 1 ? 'must not be empty' : `must hold at least ${plural(limit, 'item')}` };
    case 'maxItems':
      return { field, message: `must hold at most ${plural(limit, 'item')}` };
    case 'uniqueItems':
      return {
        field,
        message: `must not repeat an item (items ${Number(params.j) + 1} and ${Number(params.i) + 1} are the same)`,
      };
    case 'minProperties':
      return { field, message: `must hold at least ${plural(limit, 'key')}` };
    case 'maxProperties':
      return { field, message: `must hold at most ${plural(limit, 'key')}` };
    case CONTROL_CHARACTERS:
      return {
        field: field || 'body',
        message: params.multiLine
          ? 'may hold line feeds and tabs, but no other control characters (such as a carriage return or an escape)'
          : 'must be a single line of text, without line breaks, tabs or other control characters',
      };
    default:
      // anyOf, oneOf, not, if and the like: which branch failed says nothing useful to a person.
      return { field, message: 'is not a value this field accepts (see its description in the API reference)' };
  }
}

function formatMessage(format: string): string {
  switch (format) {
    case 'email':
      return 'must be a valid e-mail address';
    case 'date-time':
      return 'must be an ISO 8601 timestamp between the years 0001 and 9999, e.g. 2026-11-21T10:04:05.123Z';
    case 'date':
      return 'must be a calendar date, YYYY-MM-DD, between the years 0001 and 9999';
    case 'currency':
      return 'must be an ISO 4217 currency code, e.g. USD';
    case 'uuid':
      return 'must be a UUID';
    case 'time-zone':
      return 'must be an IANA time-zone name such as America/Denver or UTC; offsets (+02:00), abbreviations (MST) and fixed-offset zones (Etc/GMT+7) do not follow daylight saving';
    case 'single-line':
      return 'must be one line of text, without control characters';
    case 'multi-line':
      return 'must be text whose only control characters are line feeds and tabs';
    case 'uri':
      return 'must be an absolute URL, e.g. https://example.com/path';
    default:
      return 'is not written in the accepted form';
  }
}

// Errors that only explain why one branch of a nullable union failed; the sibling error says it better.
const UNION_NOISE = new Set(['anyOf', 'oneOf']);

/** One detail per offending field, most specific message first. */
export function toDetails(errors: ErrorObject[], prefix = ''): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  for (const error of errors) {
    if (UNION_NOISE.has(error.keyword)) continue;
    // A bad key is reported twice: by the key's own schema and by `propertyNames`, which names the key.
    if ((error as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue;
    // In `X | null` unions Ajv reports "must be null" for the null branch as well; the other branch is the useful one.
    if (error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null') continue;
    const { field, message } = describe(error);
    const path = prefix && field ? `${prefix}.${field}` : field || prefix || 'body';
    if (!byField.has(path)) byField.set(path, { field: path, message });
  }
  if (byField.size === 0 && errors[0]) {
    const { field, message } = describe(errors[0]);
    byField.set(field || 'body', { field: field || 'body', message });
  }
  return [...byField.values()];
}

/**
 * `compiler` deferred: each schema is compiled when its route first validates a request, not at start-up
 * (AppDependencies.compileOnFirstUse: the tests' apps, and `COMPILE_SCHEMAS=on-first-use`): a process that serves
 * a few of its hundreds of routes checks their requests by the same validators, compiled from the same schemas.
 */
export function compiledOnFirstUse(compiler: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    let validate: ReturnType<FastifySchemaCompiler<unknown>> | undefined;
    const deferred = (data: unknown) => {
      validate ??= compiler(route);
      const result = validate(data);
      deferred.errors = (validate as { errors?: unknown }).errors ?? null;
      return result;
    };
    deferred.errors = null as unknown;
    return deferred as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
