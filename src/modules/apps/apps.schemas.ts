// App, install link and install shapes (docs/api-contract.md §25): the app as its publisher reads it (secrets only
// in the create and roll answers), the one-time install link, and the install as the installing account reads it.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, MetadataSchema, Nullable, pageQueryProperties, TimestampSchema } from '../../kernel/fields.js';
import { SCOPES, type Scope } from '../../kernel/scopes.js';

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2000;
export const MAX_OVERLAP_HOURS = 168;

const ScopeItem = Type.Unsafe<Scope>({
  type: 'string',
  enum: [...SCOPES],
  description: 'A scope, <resource>:<action>.',
});

const ScopeList = (description: string) =>
  Type.Array(ScopeItem, {
    minItems: 1,
    maxItems: SCOPES.length,
    uniqueItems: true,
    description,
    example: ['clients:read', 'invoices:read'],
  });

const HttpsUrl = (description: string, example: string) =>
  Type.String({ minLength: 9, maxLength: 2000, description, example });

const EventPatterns = Type.Array(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'An event type, `invoice.*`, or `*`.',
  }),
  {
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    description: 'Which of the installing account’s events reach webhook_url: ["*"] or types (`invoice.*` allowed).',
    example: ['invoice.*'],
  },
);

const appFields = {
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'The app’s name, shown on the consent page.',
    example: 'Route planner',
  }),
  description: Nullable(
    Type.String({ maxLength: 1000, description: 'What the app does.', example: 'Plans the day’s visits.' }),
  ),
  website: Nullable(HttpsUrl('The app’s site (https).', 'https://routes.example.com')),
  redirect_uris: Type.Array(
    Type.String({ minLength: 1, maxLength: MAX_REDIRECT_URI_LENGTH, example: 'https://routes.example.com/callback' }),
    {
      minItems: 1,
      maxItems: MAX_REDIRECT_URIS,
      uniqueItems: true,
      description:
        'Where codes may be sent, matched as exact strings: https://, or http:// on 127.0.0.1 or [::1], whose port alone may vary. No fragment.',
    },
  ),
  install_url: HttpsUrl(
    'Where an opened install link sends the browser (https): the app starts the authorization from there.',
    'https://routes.example.com/install',
  ),
  scopes: ScopeList(
    'The scopes the app asks for: grantable ones only (no api_keys:*, webhooks:*, apps:*, app_installs:*).',
  ),
  visibility: Type.Unsafe<'private' | 'public'>({
    type: 'string',
    enum: ['private', 'public'],
    description: 'private: only its own account may install it; public: every account of this server.',
    example: 'private',
  }),
  webhook_url: Nullable(
    HttpsUrl(
      'Where the installing accounts’ events are delivered (§9’s rules); null for none.',
      'https://routes.example.com/webhooks',
    ),
  ),
  webhook_events: EventPatterns,
  metadata: MetadataSchema,
};

export const AppSchema = Type.Object(
  {
    id: { ...IdSchema, description: 'The app’s id, which is also its OAuth client_id.' },
    object: Type.Literal('app', { description: 'Always "app".' }),
    ...appFields,
    has_logo: Type.Boolean({ description: 'Whether the app has a logo.' }),
    client_type: Type.Unsafe<'confidential' | 'public'>({
      type: 'string',
      enum: ['confidential', 'public'],
      description:
        'confidential: it authenticates with its client_secret; public: by client_id alone. Fixed at creation.',
      example: 'confidential',
    }),
    webhook_status: Type.Unsafe<'enabled' | 'disabled'>({
      type: 'string',
      enum: ['enabled', 'disabled'],
      description: 'Whether deliveries to webhook_url are made.',
      example: 'enabled',
    }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'App', description: 'A third-party app published by this account: an OAuth client of this server.' },
);

export const AppWithSecretsSchema = Type.Object(
  {
    ...AppSchema.properties,
    client_secret: Nullable(
      Type.String({
        description: 'The client secret (confidential apps), shown in this answer only.',
        example: 'bmscs_…',
      }),
    ),
    webhook_secret: Type.String({
      description: 'The webhook signing secret, shown in this answer only.',
      example: 'whsec_…',
    }),
  },
  { description: 'An app with its secrets, answered once.' },
);

export const CreateAppBody = Type.Object(
  {
    name: appFields.name,
    description: Type.Optional(appFields.description),
    website: Type.Optional(appFields.website),
    client_type: Type.Optional(AppSchema.properties.client_type),
    redirect_uris: appFields.redirect_uris,
    install_url: appFields.install_url,
    scopes: appFields.scopes,
    visibility: Type.Optional(appFields.visibility),
    webhook_url: Type.Optional(appFields.webhook_url),
    webhook_events: Type.Optional(appFields.webhook_events),
    metadata: Type.Optional(appFields.metadata),
  },
  { additionalProperties: false },
);

export const UpdateAppBody = Type.Object(
  {
    name: Type.Optional(appFields.name),
    description: Type.Optional(appFields.description),
    website: Type.Optional(appFields.website),
    redirect_uris: Type.Optional(appFields.redirect_uris),
    install_url: Type.Optional(appFields.install_url),
    scopes: Type.Optional(appFields.scopes),
    visibility: Type.Optional(appFields.visibility),
    webhook_url: Type.Optional(appFields.webhook_url),
    webhook_events: Type.Optional(appFields.webhook_events),
    webhook_status: Type.Optional(AppSchema.properties.webhook_status),
    metadata: Type.Optional(appFields.metadata),
  },
  { additionalProperties: false },
);

export const RollAppSecretBody = Type.Object(
  {
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_HOURS,
        default: 0,
        description: `How long the old client secret keeps working beside the new one, 0 to ${MAX_OVERLAP_HOURS} hours.`,
        example: 24,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListAppsQuery = Type.Object({ ...pageQueryProperties }, { additionalProperties: false });

export const InstallLinkSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('app_install_link', { description: 'Always "app_install_link".' }),
    app_id: IdSchema,
    scopes: ScopeList('What the consent may grant: within the calling key’s scopes and the app’s.'),
    url: Type.String({
      description: 'Open it once in a browser to approve the install; shown in this answer only.',
      example: 'https://bms.example.com/oauth/install/3kP…',
    }),
    expires_at: TimestampSchema,
  },
  {
    $id: 'AppInstallLink',
    description: 'A one-time link that hands this key’s authority to approve one install to a browser.',
  },
);

export const CreateInstallLinkBody = Type.Object(
  {
    app_id: { ...IdSchema, description: 'The app to install: this account’s own, or a public one.' },
    scopes: Type.Optional(ScopeList('What the consent may grant; default the app’s scopes.')),
    expires_in_minutes: Type.Optional(
      Type.Integer({
        minimum: 5,
        maximum: 60,
        default: 15,
        description: 'How long the link works, 5 to 60 minutes.',
        example: 15,
      }),
    ),
  },
  { additionalProperties: false },
);

const LimitField = (name: string, example: number) =>
  Nullable(
    Type.Integer({ minimum: 1, description: `The install’s own ${name}; null for the server’s default.`, example }),
  );

const InstallRateLimits = Type.Object(
  {
    per_minute: LimitField('refill per minute', 60),
    per_day: LimitField('quota per UTC day', 10_000),
    burst: LimitField('burst', 100),
  },
  {
    description:
      'The install’s own bucket and quota; null fields follow the server default (60 a minute, 10,000 a day, burst 100).',
  },
);

export const AppInstallSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('app_install', { description: 'Always "app_install".' }),
    app: Type.Object(
      {
        id: IdSchema,
        name: Type.String({ description: 'The app’s name.' }),
        website: Nullable(Type.String({ description: 'The app’s site.' })),
        has_logo: Type.Boolean({ description: 'Whether the app has a logo.' }),
        publisher_name: Type.String({ description: 'The name of the account that publishes the app.' }),
      },
      { description: 'The app installed.' },
    ),
    scopes: ScopeList('What the install granted.'),
    status: Type.Unsafe<'active' | 'uninstalled'>({
      type: 'string',
      enum: ['active', 'uninstalled'],
      description: 'Uninstalled is final.',
      example: 'active',
    }),
    rate_limits: InstallRateLimits,
    installed_by: Type.Object(
      {
        type: Type.Unsafe<'api_key' | 'cli'>({
          type: 'string',
          enum: ['api_key', 'cli'],
          description: 'What made the install link.',
        }),
        id: Nullable({ ...IdSchema, description: 'The key that made the install link.' }),
      },
      { description: 'Whose authority approved the install.' },
    ),
    installed_at: TimestampSchema,
    last_used_at: Nullable({
      ...TimestampSchema,
      description: 'When a token of the install was last used (to the minute).',
    }),
    uninstalled_at: Nullable(TimestampSchema),
    uninstalled_reason: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: ['business', 'app', 'app_deleted', 'token_reuse', 'expired', 'suspended', null],
      description: 'Who or what ended it; null while active.',
    }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'AppInstall', description: 'An app connected to this account through OAuth, and what it may do.' },
);

export const UpdateInstallBody = Type.Object(
  {
    rate_limits: Type.Partial(
      Type.Object({
        per_minute: LimitField('refill per minute', 30),
        per_day: LimitField('quota per UTC day', 5_000),
        burst: LimitField('burst', 50),
      }),
      { additionalProperties: false, description: 'Lower limits (never above the server’s defaults: 422).' },
    ),
  },
  { additionalProperties: false },
);

export const ListInstallsQuery = Type.Object(
  {
    ...pageQueryProperties,
    status: Type.Optional(
      Type.Unsafe<'active' | 'uninstalled'>({
        type: 'string',
        enum: ['active', 'uninstalled'],
        description: 'Only installs in this status.',
      }),
    ),
    app_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only installs of this app.' })),
  },
  { additionalProperties: false },
);

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const AppDeliverySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('webhook_delivery', { description: 'Always "webhook_delivery".' }),
    account_id: { ...IdSchema, description: 'The installing account whose event this is.' },
    event_id: { ...IdSchema, description: 'The event (also the webhook-id header).' },
    event_type: Type.String({ description: 'The event type.', example: 'invoice.paid' }),
    attempt: Type.Integer({ description: 'Attempt number for this event, from 1.', example: 1 }),
    status: Type.Unsafe<(typeof DELIVERY_STATUSES)[number]>({
      type: 'string',
      enum: [...DELIVERY_STATUSES],
      description: 'pending (not yet made, or in flight), succeeded (2xx), failed.',
      example: 'succeeded',
    }),
    next_attempt_at: Nullable({ ...TimestampSchema, description: 'When a pending attempt is due; null once made.' }),
    response_status: Nullable(Type.Integer({ description: 'The HTTP status webhook_url answered.', example: 200 })),
    error: Nullable(
      Type.String({
        description: 'Why the attempt failed (timeout, connection, refused address, redirect, status).',
        example: 'the endpoint answered 500',
      }),
    ),
    duration_ms: Nullable(Type.Integer({ description: 'How long the attempt took.', example: 83 })),
    response_body: Nullable(Type.String({ description: 'The first 1 KB of the response body.', example: 'ok' })),
    created_at: TimestampSchema,
  },
  {
    $id: 'AppWebhookDelivery',
    description: 'One attempt to deliver an installing account’s event to the app’s webhook_url.',
  },
);

export const ListAppDeliveriesQuery = Type.Object(
  {
    ...pageQueryProperties,
    status: Type.Optional(
      Type.Unsafe<(typeof DELIVERY_STATUSES)[number]>({
        type: 'string',
        enum: [...DELIVERY_STATUSES],
        description: 'Only attempts in this status.',
        example: 'failed',
      }),
    ),
    event_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Only attempts of this event.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
  },
  { additionalProperties: false },
);

export type App = Static<typeof AppSchema>;
export type AppDelivery = Static<typeof AppDeliverySchema>;
export type ListAppDeliveriesInput = Static<typeof ListAppDeliveriesQuery>;
export type AppWithSecrets = Static<typeof AppWithSecretsSchema>;
export type CreateAppInput = Static<typeof CreateAppBody>;
export type UpdateAppInput = Static<typeof UpdateAppBody>;
export type InstallLink = Static<typeof InstallLinkSchema>;
export type CreateInstallLinkInput = Static<typeof CreateInstallLinkBody>;
export type AppInstall = Static<typeof AppInstallSchema>;
export type UpdateInstallInput = Static<typeof UpdateInstallBody>;
export type ListInstallsInput = Static<typeof ListInstallsQuery>;
