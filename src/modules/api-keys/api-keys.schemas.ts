// API key shapes (docs/api-contract.md §20): the key as every answer shows it, never with its secret but in
// the create and roll answers, and the bodies of create, PUT and roll.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, Nullable, pageQueryProperties, TimestampSchema } from '../../kernel/fields.js';
import { SCOPES, type Scope } from '../../kernel/scopes.js';

export const MAX_ALLOWED_CIDRS = 20;
export const MAX_OVERLAP_HOURS = 168;

const ScopeList = Type.Array(
  Type.Unsafe<Scope>({ type: 'string', enum: [...SCOPES], description: 'A scope, <resource>:<action>.' }),
  {
    minItems: 1,
    maxItems: SCOPES.length,
    uniqueItems: true,
    description: 'What the key may do: at most the scopes of the key that makes it.',
    example: ['clients:read', 'quotes:read'],
  },
);

/** A key's own limit. The API sets at most 999,999,999; the operator's `bms keys create` may have set more. */
const limit = (name: string, example: number, maximum?: number) =>
  Nullable(
    Type.Integer({
      minimum: 1,
      ...(maximum === undefined ? {} : { maximum }),
      description: `The key's own ${name}; null for the server's default.`,
      example,
    }),
  );

const rateLimits = (maximum?: number) =>
  Type.Object(
    {
      per_minute: limit('refill per minute', 60, maximum),
      per_day: limit('quota per UTC day', 10_000, maximum),
      burst: limit('burst (bucket capacity)', 100, maximum),
    },
    {
      description: 'Per-key rate limits; null fields follow the server default (60 a minute, 10,000 a day, burst 100).',
    },
  );

const RateLimitsSchema = rateLimits();

const RateLimitsInput = Type.Partial(rateLimits(999_999_999), { additionalProperties: false });

const CidrList = Type.Array(
  Type.String({
    minLength: 2,
    maxLength: 64,
    description: 'An IPv4 or IPv6 network in CIDR notation (a bare address means that address alone).',
    example: '203.0.113.0/24',
  }),
  {
    maxItems: MAX_ALLOWED_CIDRS,
    description: `Where the key may be used from: up to ${MAX_ALLOWED_CIDRS} networks; empty for anywhere. A request from elsewhere is 401 INVALID_API_KEY.`,
    example: ['203.0.113.0/24', '2001:db8::/32'],
  },
);

const KeyName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'What the key is for.',
  example: 'Zapier integration',
});

export const ApiKeySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('api_key', { description: 'Always "api_key".' }),
    name: KeyName,
    prefix: Type.String({
      description: 'The first 12 characters of the secret, for recognising it.',
      example: 'bms_4Fq9xT2a',
    }),
    scopes: ScopeList,
    expires_at: Nullable({ ...TimestampSchema, description: 'When the key stops working; null for never.' }),
    rate_limits: RateLimitsSchema,
    allowed_cidrs: CidrList,
    created_by: Type.Object(
      {
        type: Type.Unsafe<'cli' | 'api_key'>({
          type: 'string',
          enum: ['cli', 'api_key'],
          description: 'cli: the `bms` command (or the first-run key); api_key: another key, through the API.',
          example: 'api_key',
        }),
        id: Nullable({ ...IdSchema, description: 'The key that made this one; null for cli.' }),
      },
      { description: 'Who made the key.' },
    ),
    last_used_at: Nullable({
      ...TimestampSchema,
      description: 'The last authenticated request, to within a minute; null if never used.',
    }),
    previous_secret_expires_at: Nullable({
      ...TimestampSchema,
      description: 'After a roll with an overlap: when the secret before it stops working; null otherwise.',
    }),
    revoked_at: Nullable({ ...TimestampSchema, description: 'When the key was revoked; null while it is not.' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'ApiKey', description: 'An API key. Its secret is answered once, by create and roll, and never stored.' },
);

export const ApiKeyWithSecretSchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    secret: Type.String({
      description: 'The key itself, shown this once: store it safely. Send it as `Authorization: Bearer <secret>`.',
      example: 'bms_4Fq9xT2aK7pLm3Nq8Rs5Tv1Wx6Yz0Ab2Cd4Ef6Gh',
    }),
  },
  { description: 'The key with its secret: only the create and roll answers carry it.' },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: KeyName,
    scopes: ScopeList,
    expires_at: Type.Optional(
      Nullable({
        ...TimestampSchema,
        description: 'When the key stops working (in the future, and no later than the calling key’s own expiry).',
      }),
    ),
    rate_limits: Type.Optional(RateLimitsInput),
    allowed_cidrs: Type.Optional(CidrList),
  },
  { additionalProperties: false },
);

export const UpdateApiKeyBody = Type.Object(
  {
    name: Type.Optional(KeyName),
    scopes: Type.Optional(ScopeList),
    expires_at: Type.Optional(Nullable({ ...TimestampSchema, description: 'A new expiry; null for never.' })),
    rate_limits: Type.Optional(RateLimitsInput),
    allowed_cidrs: Type.Optional(CidrList),
  },
  { additionalProperties: false },
);

export const RollApiKeyBody = Type.Object(
  {
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_HOURS,
        default: 0,
        description: `How long the old secret keeps working beside the new one, 0 to ${MAX_OVERLAP_HOURS} hours (default 0: it stops at once).`,
        example: 24,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListApiKeysQuery = Type.Object(
  {
    ...pageQueryProperties,
    created_after: Type.Optional({ ...TimestampSchema, description: 'Only keys created at or after this instant.' }),
    created_before: Type.Optional({ ...TimestampSchema, description: 'Only keys created before this instant.' }),
  },
  { additionalProperties: false },
);

export type ApiKey = Static<typeof ApiKeySchema>;
export type ApiKeyWithSecret = Static<typeof ApiKeyWithSecretSchema>;
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;
export type UpdateApiKeyInput = Static<typeof UpdateApiKeyBody>;
export type RollApiKeyInput = Static<typeof RollApiKeyBody>;
export type ListApiKeysInput = Static<typeof ListApiKeysQuery>;
