// The HTTP shapes around every resource: the envelope, the list envelope, errors per status, and the
// path and header parameters. The resources' own fields are in modules/shared/fields.ts.
import { Type, type TSchema } from '@sinclair/typebox';
import { DEFAULT_PAGE_SIZE } from '../db/index.js';
import { BODY_LIMIT_TEXT } from './json-body.js';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { IdSchema, Nullable, TimestampSchema } from '../kernel/fields.js';

export const MetaSchema = Type.Object(
  {
    request_id: Type.String({
      description: 'Identifier of the request; also in the X-Request-Id header.',
      example: 'req_0c4f8e1d2b3a4c5d6e7f8091a2b3c4d5',
    }),
    timestamp: TimestampSchema,
  },
  { description: 'Request metadata carried by every response.' },
);

export const PaginationSchema = Type.Object({
  limit: Type.Integer({ description: 'Page size used.', example: DEFAULT_PAGE_SIZE }),
  has_more: Type.Boolean({
    description:
      'Whether another page follows. Follow `next_cursor` while it is true, even after a short or empty page: a list filtered on one field and sorted by another reads at most about 500 index entries per request.',
    example: true,
  }),
  next_cursor: Nullable(
    Type.String({
      description: 'Pass as `cursor` to get the next page; null on the last page.',
      example: 'WyItY3JlYXRlZF9hdCIsIjIwMjYtMTEtMjFUMTA6MDQ6MDUuMTIzWiIsIjAxOWEiXQ',
    }),
  ),
});

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The error envelope whose `error.code` is one of `codes` (the closed set of the contract, or a part of it). */
function errorEnvelope(codes: readonly ErrorCode[], description: string) {
  return Type.Object(
    {
      error: Type.Object({
        code: Type.Unsafe<ErrorCode>({
          type: 'string',
          enum: [...codes],
          description: 'Machine-readable error code.',
          example: codes[0],
        }),
        message: Type.String({
          description: 'Human-readable explanation.',
          example: 'The request has invalid fields.',
        }),
        details: Type.Optional(
          Type.Array(
            Type.Object({
              field: Type.String({ description: 'Path of the offending field.', example: 'email' }),
              message: Type.String({
                description: 'What is wrong with it.',
                example: 'must be a valid e-mail address',
              }),
              // A visit's conflicts (docs/api-contract.md §21): the overlapping visit, per member.
              team_member_id: Type.Optional(Type.String({ description: 'Conflicts: the member on both visits.' })),
              visit_id: Type.Optional(Type.String({ description: 'Conflicts: the other visit.' })),
              start_at: Type.Optional(Type.String({ description: 'Conflicts: when the other visit starts.' })),
              end_at: Type.Optional(Type.String({ description: 'Conflicts: when the other visit ends.' })),
              // A hold or booking refused (docs/api-contract.md §28): why the member is not free then.
              reason: Type.Optional(
                Type.String({
                  description: 'Holds and bookings: visit, hold, time_off, outside_hours or inactive.',
                  example: 'visit',
                }),
              ),
              // An e-invoice refused or invalid (docs/api-contract.md §31): EN 16931's rule id, else BMS-EI-01…07.
              rule: Type.Optional(
                Type.String({ description: 'E-invoices: the rule the document breaks.', example: 'BR-CO-26' }),
              ),
              // A time entry's overlap, a running entry or a refused lock (docs/api-contract.md §29): the other entry.
              time_entry_id: Type.Optional(Type.String({ description: 'Time entries: the entry in the way.' })),
              started_at: Type.Optional(Type.String({ description: 'Time entries: when that entry starts.' })),
              ended_at: Type.Optional(
                Nullable(Type.String({ description: 'Time entries: when that entry ends; null while running.' })),
              ),
            }),
          ),
        ),
      }),
      meta: MetaSchema,
    },
    { description },
  );
}

/** Every error the API can answer: `error.code` is one of the contract's codes. */
export const ErrorEnvelopeSchema = errorEnvelope(ERROR_CODES, 'An error.');

export function dataEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: MetaSchema });
}

export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    meta: Type.Object({
      request_id: MetaSchema.properties.request_id,
      timestamp: TimestampSchema,
      pagination: PaginationSchema,
    }),
  });
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
  413: `Body larger than the route's limit (${BODY_LIMIT_TEXT} unless its description says otherwise)`,
  415: 'Content-Type is not application/json',
  416: 'The range asked lies past the end of the file',
  422: 'Validation failed',
  429: 'Rate limit exceeded',
  500: 'Unexpected fault',
  503: 'Overloaded or shutting down',
};

/** What every authenticated route can answer, whatever it does. */
const AUTHENTICATED_ERRORS: readonly ErrorCode[] = [
  'AUTHENTICATION_REQUIRED',
  'INVALID_API_KEY',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

/**
 * Error responses of an authenticated route, as a Fastify `response` map: one entry per status, each
 * stating the codes this route can answer with that status.
 */
export function errorResponses(...extra: ErrorCode[]) {
  const codesByStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...AUTHENTICATED_ERRORS, ...extra]) {
    const status = ERROR_STATUS[code];
    codesByStatus.set(status, (codesByStatus.get(status) ?? new Set()).add(code));
  }
  const map: Record<number, TSchema> = {};
  for (const status of [...codesByStatus.keys()].sort()) {
    map[status] = errorEnvelope([...codesByStatus.get(status)!].sort(), STATUS_DESCRIPTIONS[status] ?? 'Error');
  }
  return map;
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
