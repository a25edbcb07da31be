// Availability endpoints (docs/api-contract.md §28): the slots, and holds bound to the calling key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { listResponse } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { AvailabilityQuery, CreateHoldBody, HoldSchema, ListHoldsQuery, SlotSchema } from './availability.schemas.js';
import { listSlots } from './availability.service.js';
import { createHold, getHold, listHolds, releaseHold } from './holds.service.js';

const tags = ['Availability'];
const HOLDS = '/v1/availability/holds';

export const availabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const hold = schemaRef(HoldSchema);

  app.get(
    '/v1/availability',
    {
      config: { scope: 'availability:read' },
      schema: {
        tags,
        operationId: 'listAvailability',
        summary: 'Find bookable slots',
        description:
          'The starts on the local clock of timezone (multiples of the step from midnight; none in a spring-forward gap, a repeated fall-back time once) in the window (at most 31 days) and at least the account’s notice from now, at which crew_size members are free: within their hours and exceptions, clear of their visits, projected schedule occurrences and active holds by the buffer and travel time. One slot per start, by start_at.',
        querystring: AvailabilityQuery,
        response: { 200: listEnvelope(schemaRef(SlotSchema)), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) =>
      listResponse(
        request,
        reply,
        await listSlots(contextOf(request), request.query),
        request.query.limit,
        (slot) => slot,
      ),
  );

  app.post(
    HOLDS,
    {
      config: { scope: 'availability:write' },
      schema: {
        tags,
        operationId: 'createAvailabilityHold',
        summary: 'Hold a slot for a crew',
        description:
          'Checks the time again for those members and keeps it for this key until expires_at (60–900 s, default 600): other keys see it busy and cannot see the hold. 409 CONFLICT names each member not free and why (visit, hold, time_off, outside_hours, inactive); an 11th active hold of the key is 409 INVALID_STATE. Records no event.',
        headers: IdempotencyHeaders,
        body: CreateHoldBody,
        response: {
          201: dataEnvelope(hold),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'INVALID_STATE'),
        },
      },
    },
    async (request, reply) => {
      const item = await createHold(contextOf(request), request.body);
      return created(request, reply, HOLDS, item);
    },
  );

  app.get(
    HOLDS,
    {
      config: { scope: 'availability:read' },
      schema: {
        tags,
        operationId: 'listAvailabilityHolds',
        summary: 'List this key’s active holds',
        description: 'At most 10: those of the calling key that are not booked, released or expired.',
        querystring: ListHoldsQuery,
        response: { 200: listEnvelope(hold), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) =>
      listResponse(
        request,
        reply,
        await listHolds(contextOf(request), request.query.limit),
        request.query.limit,
        (item) => item,
      ),
  );

  app.get(
    `${HOLDS}/:id`,
    {
      config: { scope: 'availability:read' },
      schema: {
        tags,
        operationId: 'getAvailabilityHold',
        summary: 'Get a hold of this key',
        description: 'Another key’s hold is 404.',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(hold), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => ok(request, await getHold(contextOf(request), request.params.id)),
  );

  app.delete(
    `${HOLDS}/:id`,
    {
      config: { scope: 'availability:write' },
      schema: {
        tags,
        operationId: 'releaseAvailabilityHold',
        summary: 'Release a hold',
        description: 'The time is free again at once; 409 INVALID_STATE once booked.',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(hold), ...errorResponses('NOT_FOUND', 'INVALID_STATE') },
      },
    },
    async (request) => ok(request, await releaseHold(contextOf(request), request.params.id)),
  );
};
