// Webhook endpoint endpoints: the standard five and rotate-secret, then test, the attempt log and recover.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { WebhookConfig } from '../../config.js';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { listResponse } from '../../http/pagination.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IdParamsSchema,
  IDEMPOTENCY_ERRORS,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { EventSchema } from './events.schemas.js';
import {
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  RecoverBody,
  RequeuedSchema,
  UpdateWebhookEndpointBody,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  type ListWebhookDeliveriesInput,
} from './webhooks.schemas.js';
import * as service from './webhooks.service.js';

const tags = ['Webhook endpoints'];
/** An operation that takes no body: none, `null` or `{}`. */
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], { description: 'No body.' });

export function webhookRoutes(policy: Pick<WebhookConfig, 'allowHttp' | 'allowPrivate'>): FastifyPluginAsyncTypebox {
  const standard = resourceRoutes({
    path: '/v1/webhook-endpoints',
    names: ['webhook endpoint', 'webhook endpoints'],
    scopes: { read: 'webhooks:read', write: 'webhooks:write', delete: 'webhooks:write' },
    schemas: {
      item: WebhookEndpointSchema,
      create: CreateWebhookEndpointBody,
      update: UpdateWebhookEndpointBody,
      list: ListWebhookEndpointsQuery,
    },
    service: service.endpointService(policy),
    fieldChecks: service.endpointFieldChecks(policy),
    actions: [
      {
        name: 'rotate-secret',
        operationId: 'rotateWebhookEndpointSecret',
        scope: 'webhooks:write',
        summary: 'Rotate the signing secret',
        description:
          'Answers the endpoint with its new secret. The old secret keeps signing beside the new one for 24 hours (two signatures in webhook-signature), so receivers can switch without missing a message.',
        body: NoBody,
        errors: [],
        run: (ctx, id) => service.rotateSecret(ctx, id),
      },
    ],
  });

  return async (app) => {
    await app.register(standard);
    const item = { params: IdParamsSchema, tags };

    app.post(
      '/v1/webhook-endpoints/:id/test',
      {
        config: { scope: 'webhooks:write' },
        schema: {
          ...item,
          operationId: 'testWebhookEndpoint',
          summary: 'Send a test event',
          description: 'Queues a webhook_endpoint.test event to this endpoint alone and answers 202 with the event.',
          headers: IdempotencyHeaders,
          body: NoBody,
          response: {
            202: dataEnvelope(schemaRef(EventSchema)),
            ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return ok(request, await service.testEndpoint(contextOf(request), request.params.id));
      },
    );

    app.get(
      '/v1/webhook-endpoints/:id/deliveries',
      {
        config: { scope: 'webhooks:read' },
        schema: {
          ...item,
          operationId: 'listWebhookEndpointDeliveries',
          summary: 'List delivery attempts',
          description: 'The attempt log of this endpoint, newest first: one entry per attempt.',
          querystring: ListWebhookDeliveriesQuery,
          response: {
            200: listEnvelope(schemaRef(WebhookDeliverySchema)),
            ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as ListWebhookDeliveriesInput;
        const page = await service.listEndpointDeliveries(contextOf(request), request.params.id, query);
        return listResponse(request, reply, page, query.limit, service.presentDelivery);
      },
    );

    app.post(
      '/v1/webhook-endpoints/:id/recover',
      {
        config: { scope: 'webhooks:write' },
        schema: {
          ...item,
          operationId: 'recoverWebhookEndpoint',
          summary: 'Re-queue failed deliveries',
          description:
            'Queues again every delivery to this endpoint that failed for good since `since`; answers 202 with how many.',
          headers: IdempotencyHeaders,
          body: RecoverBody,
          response: {
            202: dataEnvelope(RequeuedSchema),
            ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return ok(request, await service.recoverEndpoint(contextOf(request), request.params.id, request.body.since));
      },
    );
  };
}
