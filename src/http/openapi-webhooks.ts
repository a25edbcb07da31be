// The OpenAPI 3.1 `webhooks` section: one entry per event type, whose body is the event with `data.object`
// typed as that resource's schema, and the Standard Webhooks headers every delivery carries.
import type { OpenAPIV3_1 } from 'openapi-types';
import { EVENT_TYPES, eventObjectSchema } from '../kernel/event-types.js';

const HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event id: the same on every retry, so receivers de-duplicate on it.',
    example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was signed, in Unix seconds; refuse one more than 5 minutes off.',
    example: '1763719445',
  },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per active secret (two during a rotation).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

type Webhooks = Record<string, OpenAPIV3_1.PathItemObject>;

export function webhookDocumentation(): Webhooks {
  // The plugin's types are OpenAPI 3.0's, which have no `const`; the document itself is 3.1.
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const objectSchema = eventObjectSchema(type);
      const schema = {
        type: 'object',
        required: ['id', 'object', 'type', 'created_at', 'account_id', 'data'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'The event id (also the webhook-id header).' },
          object: { const: 'event' },
          type: { const: type },
          created_at: { type: 'string', format: 'date-time' },
          account_id: { type: 'string', format: 'uuid' },
          data: {
            type: 'object',
            required: ['object'],
            properties: {
              object: {
                description: `The ${objectSchema}; only its id and object when truncated is true.`,
                $ref: `#/components/schemas/${objectSchema}`,
              },
              previous_attributes: {
                type: 'object',
                additionalProperties: true,
                description: 'The changed fields with their values before the change (updates and status changes).',
              },
              source: { const: 'hub', description: 'Present when the client made the change on the hosted page.' },
              truncated: {
                const: true,
                description:
                  'Present when the event would exceed 64 KB: previous_attributes left out, then object reduced to its id and object.',
              },
            },
          },
        },
      };
      const item = {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: `The ${type} event`,
          description: `Sent to every enabled endpoint whose enabled_events match \`${type}\`. Answer 2xx within 10 s; anything else is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). \`data.object\` is the ${objectSchema}.`,
          tags: ['Webhooks'],
          // We send these requests, signed (webhook-signature), rather than receive them with an API key.
          security: [],
          parameters: HEADERS.map(({ name, description, example }) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
            example,
          })),
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: {
            '200': { description: 'Any 2xx within 10 seconds acknowledges the event.' },
            '410': { description: 'Gone: disables the endpoint.' },
          },
        },
      };
      return [type, item];
    }),
  ) as Webhooks;
}
