// Visit schedule endpoints (docs/api-contract.md §18, §21): list, create, get, PUT; DELETE answering the ended
// schedule (?keep_visits=true keeps its visits, detached); skip, unskip, pause, resume; split (201, both
// schedules); the occurrences of a window.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { etagOf, ifMatch, IfMatchHeaders, sentJsonFingerprint } from '../../http/etag.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  schemaRef,
} from '../../http/schemas.js';
import { Type } from '@sinclair/typebox';
import {
  CreateVisitScheduleBody,
  DeleteScheduleQuery,
  EmptyBody,
  ListVisitSchedulesQuery,
  OccurrenceSchema,
  OccurrencesQuery,
  PauseBody,
  SkipBody,
  SplitBody,
  SplitResultSchema,
  UpdateVisitScheduleBody,
  VisitScheduleSchema,
} from './visit-schedules.schemas.js';
import * as service from './visit-schedules.service.js';

const PATH = '/v1/visit-schedules';
const tags = ['Visit schedules'];

const standard = resourceRoutes({
  path: PATH,
  names: ['visit schedule', 'visit schedules'],
  scopes: { read: 'schedules:read', write: 'schedules:write' },
  schemas: {
    item: VisitScheduleSchema,
    create: CreateVisitScheduleBody,
    update: UpdateVisitScheduleBody,
    list: ListVisitSchedulesQuery,
  },
  stateErrors: ['INVALID_STATE'],
  fieldChecks: { create: service.newScheduleFieldChecks },
  service: {
    list: service.listSchedules,
    present: (item) => item,
    create: service.createSchedule,
    get: service.getSchedule,
    update: service.updateSchedule,
  },
  actions: [
    {
      name: 'skip',
      operationId: 'skipVisitSchedule',
      scope: 'schedules:write',
      summary: 'Skip one occurrence',
      description:
        'Adds the key to exdates; a materialised visit that has not started is canceled (cancel_reason skipped).',
      body: SkipBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) =>
        service.skipOccurrence(ctx, id, (body as { occurrence_key: string }).occurrence_key, false),
    },
    {
      name: 'unskip',
      operationId: 'unskipVisitSchedule',
      scope: 'schedules:write',
      summary: 'Undo a skip',
      description:
        'Removes the key from exdates and reopens the visit the skip canceled, when its start is still ahead.',
      body: SkipBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) =>
        service.skipOccurrence(ctx, id, (body as { occurrence_key: string }).occurrence_key, true),
    },
    {
      name: 'pause',
      operationId: 'pauseVisitSchedule',
      scope: 'schedules:write',
      summary: 'Pause a schedule',
      description:
        'From a local date (until one, inclusive, or until resumed): the visits in the range that have not started are canceled (cancel_reason paused).',
      body: PauseBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => service.pauseSchedule(ctx, id, body as { from: string; until?: string | null }),
    },
    {
      name: 'resume',
      operationId: 'resumeVisitSchedule',
      scope: 'schedules:write',
      summary: 'Resume a paused schedule',
      description: 'Active again: the visits the pause canceled reopen when their start is still ahead.',
      body: EmptyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id) => service.resumeSchedule(ctx, id),
    },
  ],
});

export const visitScheduleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(standard);
  const schedule = schemaRef(VisitScheduleSchema);

  app.delete(
    `${PATH}/:id`,
    {
      config: { scope: 'schedules:write' },
      schema: {
        tags,
        operationId: 'deleteVisitSchedule',
        summary: 'End a visit schedule',
        description:
          'The schedule ends (it stays readable, status ended) and its future visits that have not started are canceled; keep_visits=true keeps every visit, detached (schedule_id null).',
        params: IdParamsSchema,
        querystring: DeleteScheduleQuery,
        headers: IfMatchHeaders,
        response: {
          200: dataEnvelope(schedule),
          ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PRECONDITION_FAILED'),
        },
      },
    },
    async (request, reply) =>
      ok(
        request,
        await service.deleteSchedule(
          contextOf(request),
          request.params.id,
          request.query.keep_visits === true,
          // Compared with the ETag the standard GET answers (the schedule's JSON as sent).
          ifMatch(request.headers['if-match'], sentJsonFingerprint(reply, schedule)),
        ),
      ),
  );

  app.post(
    `${PATH}/:id/split`,
    {
      config: { scope: 'schedules:write' },
      schema: {
        tags,
        operationId: 'splitVisitSchedule',
        summary: 'Split a schedule: this occurrence and the following',
        description:
          'The schedule ends the day before from_occurrence_key (its visits from there that have not started are canceled, cancel_reason split); a new schedule (previous_schedule_id set) starts at that occurrence with the changes.',
        params: IdParamsSchema,
        headers: IdempotencyHeaders,
        body: SplitBody,
        response: {
          201: dataEnvelope(SplitResultSchema),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', 'INVALID_STATE'),
        },
      },
    },
    async (request, reply) => {
      const result = await service.splitSchedule(contextOf(request), request.params.id, request.body);
      reply.code(201).header('location', `${PATH}/${result.next.id}`);
      return ok(request, result);
    },
  );

  app.get(
    `${PATH}/:id/occurrences`,
    {
      config: { scope: 'schedules:read' },
      schema: {
        tags,
        operationId: 'listVisitScheduleOccurrences',
        summary: 'The occurrences of a window',
        description:
          'Occurrences starting in [from, to) (at most 366 days, past or future), each with its key, instants, visit_id when materialised, and skipped.',
        params: IdParamsSchema,
        querystring: OccurrencesQuery,
        response: {
          200: dataEnvelope(Type.Array(OccurrenceSchema)),
          ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const items = await service.listOccurrences(
        contextOf(request),
        request.params.id,
        request.query.from,
        request.query.to,
      );
      reply.header('etag', etagOf({ id: request.params.id, items }));
      return ok(request, items);
    },
  );
};
