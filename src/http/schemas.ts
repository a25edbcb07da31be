// Shapes shared by every resource: the envelope, errors, metadata, timestamps and list parameters.
// They drive request validation, response serialization and the OpenAPI document alike.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

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

export const MetaSchema = Type.Object(
  {
    request_id: Type.String({ description: 'Identifier of the request; also in the X-Request-Id header.', example: 'req_0c4f8e1d2b3a4c5d6e7f8091a2b3c4d5' }),
    timestamp: TimestampSchema,
  },
  { description: 'Request metadata carried by every response.' },
);

export const PaginationSchema = Type.Object({
  limit: Type.Integer({ description: 'Page size used.', example: 25 }),
  has_more: Type.Boolean({ description: 'Whether another page follows.', example: true }),
  next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` to get the next page; null on the last page.', example: 'WyItY3JlYXRlZF9hdCIsIjIwMjYtMTEtMjFUMTA6MDQ6MDUuMTIzWiIsIjAxOWEiXQ' })),
});

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable error code.', example: 'VALIDATION_ERROR' }),
      message: Type.String({ description: 'Human-readable explanation.', example: 'The request has invalid fields.' }),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.String({ description: 'Path of the offending field.', example: 'email' }),
            message: Type.String({ description: 'What is wrong with it.', example: 'must be a valid e-mail address' }),
          }),
        ),
      ),
    }),
    meta: MetaSchema,
  },
  { description: 'An error.' },
);

export function dataEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: MetaSchema });
}

export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), meta: Type.Object({ request_id: MetaSchema.properties.request_id, timestamp: TimestampSchema, pagination: PaginationSchema }) });
}

export const DeletedSchema = Type.Object({
  id: IdSchema,
  deleted: Type.Literal(true, { description: 'Always true.' }),
});

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON or request',
  401: 'Missing or invalid API key',
  403: 'The API key lacks the required scope',
  404: 'No such resource',
  409: 'Conflict with the current state',
  412: 'If-Match does not match the current ETag',
  413: 'Body larger than 1 MiB',
  415: 'Content-Type is not application/json',
  422: 'Validation failed',
  429: 'Rate limit exceeded',
  500: 'Unexpected fault',
  503: 'Overloaded or shutting down',
};

/** Error responses of an authenticated route, as a Fastify `response` map (one entry per status). */
export function errorResponses(...extra: ErrorCode[]) {
  const statuses = new Set<number>([401, 403, 429, 500, 503, ...extra.map((code) => ERROR_STATUS[code])]);
  const map: Record<number, TSchema> = {};
  for (const status of [...statuses].sort()) {
    map[status] = Type.Ref('ErrorEnvelope', { description: STATUS_DESCRIPTIONS[status] });
  }
  return map;
}

/** Query parameters shared by every list endpoint. */
export function listQueryProperties<Sort extends string>(sortFields: readonly Sort[]) {
  const sortValues = sortFields.flatMap((field) => [field, `-${field}`]);
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Page size, 1 to 100.', example: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The `next_cursor` of the previous page.' })),
    sort: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: sortValues,
        default: '-created_at',
        description: `Sort field, prefixed with - for descending. One of: ${sortValues.join(', ')}.`,
        example: '-created_at',
      }),
    ),
    created_after: Type.Optional({ ...TimestampSchema, description: 'Only objects created at or after this instant.' }),
    created_before: Type.Optional({ ...TimestampSchema, description: 'Only objects created before this instant.' }),
    updated_after: Type.Optional({ ...TimestampSchema, description: 'Only objects updated at or after this instant.' }),
  };
}

export const IdParamsSchema = Type.Object({ id: Type.String({ description: 'The object id.' }) });

/** What a POST with an Idempotency-Key can answer besides its own errors. */
export const IDEMPOTENCY_ERRORS = ['IDEMPOTENCY_KEY_REUSED', 'CONFLICT'] as const;

/** The errors any route with a JSON body can answer. */
export const BODY_ERRORS = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR'] as const;

/** A reference to a schema registered with `app.addSchema` (its `$id`), typed as the schema itself. */
export function schemaRef<T extends TSchema & { $id?: string }>(schema: T): T {
  return { $ref: schema.$id } as unknown as T;
}
