// Field schemas shared by every resource: nullable values, ids, timestamps, metadata and the list
// parameters. They drive request validation, response serialization and the OpenAPI document alike.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DEFAULT_PAGE_SIZE, DEFAULT_SORT, MAX_PAGE_SIZE } from '../db/index.js';

/**
 * `T | null` as a JSON Schema type array (`"type": ["string", "null"]`) rather than `anyOf`: valid
 * OpenAPI 3.1, and fast-json-stringify serializes it directly, where an `anyOf` made it run a validator
 * on every value to choose a branch (a measurable share of a GET's CPU time).
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') return Type.Union([schema, Type.Null()]);
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

export const TimestampSchema = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC timestamp with milliseconds.',
  example: '2026-11-21T10:04:05.123Z',
});

export const IdSchema = Type.String({
  format: 'uuid',
  description: 'Unique identifier (UUIDv7).',
  example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
});

export const MetadataSchema = Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  propertyNames: { maxLength: 40, minLength: 1 },
  description: 'Your own key-value pairs (up to 50 keys of at most 40 characters, values of at most 500 characters).',
  example: { crm_id: 'C-1042' },
});

/**
 * An object's custom field values (docs/api-contract.md §27): every key the account defines for its kind, null
 * when unset. An open object here: the account's own schema is GET /v1/custom-fields/schema.
 */
export const CustomFieldValuesSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description:
    'Your custom fields’ values by key (GET /v1/custom-fields/schema?resource=… gives their JSON Schema); null when unset.',
  example: { gate_code: '4512', tier: 'gold' },
});

/** A write's custom field values: the keys named change, null clears, the others are kept (a merge). */
export const CustomFieldValuesInputSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  maxProperties: 50,
  propertyNames: { maxLength: 40, minLength: 1 },
  description:
    'Values of your custom fields by key, checked against their definitions. A PUT changes only the keys it names; null clears one.',
  example: { tier: 'gold' },
});

/**
 * A time zone as written: checked and canonicalised by the service (core/time.ts), so that `US/Mountain`
 * is accepted and answered as `America/Denver` (docs/api-contract.md §14).
 */
export const TimeZoneInputSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'An IANA time-zone name (America/Denver), answered in its primary form (US/Mountain → America/Denver); fixed offsets (+02:00) and abbreviations (MST) are refused, since neither follows daylight saving. UTC is accepted.',
  example: 'America/Denver',
});

/** A time zone as answered: always an IANA primary name, or `UTC`. */
export const TimeZoneSchema = Type.String({
  description: 'An IANA time-zone name in its primary form, or UTC.',
  example: 'America/Denver',
});

/** The integrator's own id (docs/api-contract.md §14): unique per account and kind. */
export const ExternalIdSchema = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Your own id for this object (1–255 characters), unique among this kind of object in the account: a second object with the same one is a 409 naming the holder. Makes a sync safe to repeat.',
  example: 'crm-10442',
});

/** The `external_id=` filter of a list. */
export const externalIdFilter = Type.Optional({
  ...ExternalIdSchema,
  description: 'Only the object with this external_id (at most one).',
});

/** The paging parameters of every list: `limit` and `cursor`. */
export const pageQueryProperties = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Page size, 1 to ${MAX_PAGE_SIZE}: the most objects a page holds (it may hold fewer while has_more is true).`,
      example: DEFAULT_PAGE_SIZE,
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
};

/** Query parameters shared by every list endpoint of a resource: paging, `sort` and the time bounds. */
export function listQueryProperties<Sort extends string>(sortFields: readonly Sort[]) {
  const sortValues = sortFields.flatMap((field) => [field, `-${field}`]);
  return {
    ...pageQueryProperties,
    sort: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: sortValues,
        default: DEFAULT_SORT,
        description: `Sort field, prefixed with - for descending. One of: ${sortValues.join(', ')}.`,
        example: '-created_at',
      }),
    ),
    created_after: Type.Optional({ ...TimestampSchema, description: 'Only objects created at or after this instant.' }),
    created_before: Type.Optional({ ...TimestampSchema, description: 'Only objects created before this instant.' }),
    updated_after: Type.Optional({ ...TimestampSchema, description: 'Only objects updated at or after this instant.' }),
  };
}
