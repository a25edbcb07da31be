// Webhook endpoint and delivery-attempt shapes.
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../kernel/event-types.js';
import {
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  pageQueryProperties,
  TimestampSchema,
} from '../../kernel/fields.js';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed: https:// (http:// only in development or with WEBHOOK_ALLOW_HTTP). Its host must not resolve to a private, loopback or link-local address.',
  example: 'https://example.com/bms/webhooks',
});
const description = Nullable(
  Type.String({ maxLength: 500, description: 'What the endpoint is for.', example: 'Accounting sync' }),
);
const enabledEvents = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  description: `Event types to send: ["*"] for all, a type such as "invoice.paid", or "invoice.*" for every type of a resource. Types: ${EVENT_TYPES.join(', ')}.`,
  example: ['invoice.*', 'payment.created'],
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('webhook_endpoint', { description: 'Always "webhook_endpoint".' }),
    url: { ...url, description: 'Where events are POSTed.' },
    description,
    enabled_events: enabledEvents,
    status: Type.Unsafe<(typeof ENDPOINT_STATUSES)[number]>({
      type: 'string',
      enum: [...ENDPOINT_STATUSES],
      description: 'enabled, or disabled (by you, by a 410 Gone answer, or after 3 days of failed attempts).',
      example: 'enabled',
    }),
    disabled_reason: Nullable(
      Type.String({
        description: 'Why the endpoint is disabled; null while enabled.',
        example: 'the endpoint answered 410 Gone',
      }),
    ),
    secret: Type.Optional(
      Type.String({
        description: 'The signing secret (whsec_…): only in the responses of create and rotate-secret. Keep it.',
        example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      }),
    ),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'WebhookEndpoint', description: 'A URL that receives the account’s events, signed (Standard Webhooks).' },
);

export const CreateWebhookEndpointBody = Type.Object(
  {
    url,
    description: Type.Optional(description),
    enabled_events: enabledEvents,
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(url),
    description: Type.Optional(description),
    enabled_events: Type.Optional(enabledEvents),
    status: Type.Optional(
      Type.Unsafe<(typeof ENDPOINT_STATUSES)[number]>({
        type: 'string',
        enum: [...ENDPOINT_STATUSES],
        description: 'disabled stops deliveries; enabled resumes them (and clears disabled_reason).',
        example: 'enabled',
      }),
    ),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const ListWebhookEndpointsQuery = Type.Object(
  { ...listQueryProperties(['created_at', 'updated_at'] as const) },
  { additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('webhook_delivery', { description: 'Always "webhook_delivery".' }),
    endpoint_id: { ...IdSchema, description: 'The endpoint.' },
    event_id: { ...IdSchema, description: 'The event (also the webhook-id header).' },
    event_type: Type.String({ description: 'The event type.', example: 'invoice.paid' }),
    attempt: Type.Integer({ description: 'Attempt number for this event and endpoint, from 1.', example: 1 }),
    status: Type.Unsafe<(typeof DELIVERY_STATUSES)[number]>({
      type: 'string',
      enum: [...DELIVERY_STATUSES],
      description: 'pending (not yet made, or in flight), succeeded (2xx), failed.',
      example: 'succeeded',
    }),
    next_attempt_at: Nullable({ ...TimestampSchema, description: 'When a pending attempt is due; null once made.' }),
    response_status: Nullable(Type.Integer({ description: 'The HTTP status the endpoint answered.', example: 200 })),
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
  { $id: 'WebhookDelivery', description: 'One attempt to deliver an event to an endpoint.' },
);

export const ListWebhookDeliveriesQuery = Type.Object(
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

export const RecoverBody = Type.Object(
  {
    since: {
      ...TimestampSchema,
      description: 'Re-queue every delivery to this endpoint that failed for good at or after this instant.',
    },
  },
  { additionalProperties: false },
);

export const ResendBody = Type.Object(
  {
    endpoint_id: Type.String({
      format: 'uuid',
      description: 'The endpoint to deliver the event to again.',
      example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    }),
  },
  { additionalProperties: false },
);

export const RequeuedSchema = Type.Object({
  requeued: Type.Integer({ description: 'How many deliveries were queued again.', example: 3 }),
});

export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;
export type CreateWebhookEndpointInput = Static<typeof CreateWebhookEndpointBody>;
export type UpdateWebhookEndpointInput = Static<typeof UpdateWebhookEndpointBody>;
export type ListWebhookEndpointsInput = Static<typeof ListWebhookEndpointsQuery>;
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
export type ListWebhookDeliveriesInput = Static<typeof ListWebhookDeliveriesQuery>;
