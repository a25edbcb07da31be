// Event endpoints: list and get (events:read), and resend one event to one endpoint (webhooks:write).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auth, contextOf } from '../../http/auth.js';
import { etagOf } from '../../http/etag.js';
import { ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { listResponse } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IdParamsSchema,
  IDEMPOTENCY_ERRORS,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { RequeuedSchema, ResendBody } from './webhooks.schemas.js';
import { resendEvent } from './webhooks.service.js';
import { EventSchema, ListEventsQuery, type ListEventsInput } from './events.schemas.js';
import * as service from './events.service.js';

const tags = ['Events'];

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const event = schemaRef(EventSchema);

  app.get(
    '/v1/events',
    {
      config: { scope: 'events:read' },
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events',
        description: 'Newest first. Events are kept at least 90 days.',
        querystring: ListEventsQuery,
        response: { 200: listEnvelope(event), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) => {
      const query = request.query as ListEventsInput;
      return listResponse(
        request,
        reply,
        await service.listEvents(contextOf(request), query, auth(request).eventSubscriptions),
        query.limit,
        service.presentEvent,
      );
    },
  );

  app.get(
    '/v1/events/:id',
    {
      config: { scope: 'events:read' },
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Get an event',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(event), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const found = await service.getEvent(contextOf(request), request.params.id, auth(request).eventSubscriptions);
      reply.header('etag', etagOf(found));
      return ok(request, found);
    },
  );

  app.post(
    '/v1/events/:id/resend',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        operationId: 'resendEvent',
        summary: 'Resend an event to an endpoint',
        description: 'Queues the event to the endpoint again; answers 202.',
        params: IdParamsSchema,
        headers: IdempotencyHeaders,
        body: ResendBody,
        response: {
          202: dataEnvelope(RequeuedSchema),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(request, await resendEvent(contextOf(request), request.params.id, request.body.endpoint_id));
    },
  );
};
