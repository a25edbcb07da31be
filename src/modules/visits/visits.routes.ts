// Visit endpoints (docs/api-contract.md §17): the five operations (the list is also the calendar), and an
// assignee added or removed alone, so that two dispatchers never overwrite each other's list.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
import { etagOf, ifMatch, IfMatchHeaders, sentJson } from '../../http/etag.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { answerList, jsonPage } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  DeletedSchema,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { type CalendarProjector, listVisits } from './calendar.service.js';
import {
  AddAssigneeBody,
  AssigneeParams,
  CreateVisitBody,
  ListVisitsQuery,
  OnConflictQuery,
  UpdateVisitBody,
  VisitListItemSchema,
  VisitSchema,
  type CreateVisitInput,
  type ListVisitsInput,
  type Visit,
} from './visits.schemas.js';
import { newVisitTimeChecks } from './visit-time.js';
import * as service from './visits.service.js';
import { referenceChecks } from '../shared/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { tagSeam } from '../tags/index.js';
import { patternFiltersDescription } from '../../http/resource-definition.js';
import { tagRoutes } from '../../http/tag-routes.js';

const PATH = '/v1/visits';
const tags = ['Visits'];
const ASSIGNEES = { table: 'team_members', kind: 'team member' } as const;
/** Every unknown id of a visit's body joins a 422 (its job, its assignees). */
const newVisitReferences = referenceChecks({ job_id: { table: 'jobs', kind: 'job' }, assignee_ids: ASSIGNEES });
const visitReferences = referenceChecks({ assignee_ids: ASSIGNEES });

/**
 * A booking from an availability hold (docs/api-contract.md §28): the availability module's, which stands above
 * visits in the module order, so app.ts passes it in.
 */
export type HoldBooker = (
  ctx: ReturnType<typeof contextOf>,
  input: CreateVisitInput & { hold_id: string },
  options: service.VisitWriteOptions,
) => Promise<Visit>;

/**
 * `project`: the visit schedules' projection for `include_projected` (§18); `book`: booking from a hold (§28).
 * app.ts passes both in.
 */
export const visitRoutes: FastifyPluginAsyncTypebox<{ project?: CalendarProjector; book?: HoldBooker }> = async (
  app,
  options,
) => {
  const visit = schemaRef(VisitSchema);
  const listItem = schemaRef(VisitListItemSchema);
  /** A visit's answers carry every custom field defined (modules/custom-fields: the seam). */
  const seam = customFieldSeam('visit');
  /** If-Match against the current visit as its answers show it (completed; a copy). */
  const matching = (header: string | string[] | undefined, complete: <T>(item: T) => T) =>
    ifMatch(header, (current) => etagOf(complete({ ...(current as object) })));

  app.get(
    PATH,
    {
      config: { scope: 'visits:read' },
      schema: {
        tags,
        operationId: 'listVisits',
        summary: 'List visits, or a calendar window',
        description: `With from and to (instants) the visits that overlap [from, to); with from_date and to_date (inclusive) whole local days in timezone (default the account’s). A window is in start_at, id order and never holds unscheduled visits; longer than 62 days it needs assignee_id, job_id, client_id or property_id. Without a window, an ordinary list (sort, default -created_at). ${patternFiltersDescription(ListVisitsQuery).description}`,
        querystring: ListVisitsQuery,
        response: { 200: listEnvelope(listItem), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) => {
      const query = request.query as ListVisitsInput;
      const ctx = contextOf(request);
      const json = sentJson(reply, listItem);
      /** The page at `cursor` (else the query's own), each visit's JSON as the envelope's schema writes it. */
      const read = async (cursor?: string) => {
        const page = await listVisits(ctx, cursor === undefined ? query : { ...query, cursor }, options.project);
        return jsonPage(page, await seam.answers(ctx), json);
      };
      // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
      return (await answerList(request, reply, query.limit, read)) as never;
    },
  );

  app.post(
    PATH,
    {
      config: {
        scope: 'visits:write',
        fieldChecks: newVisitTimeChecks,
        referenceChecks: seam.checks(true, newVisitReferences),
      },
      schema: {
        tags,
        operationId: 'createVisit',
        summary: 'Create a visit',
        description:
          'Of a job that is not completed or canceled (409 otherwise). With no time it is unscheduled. ?on_conflict=reject refuses an overlap with another visit of an assignee (409 CONFLICT, the overlaps in details). With hold_id (an availability hold of this key) it takes the hold’s time, zone and crew: 409 INVALID_STATE for a spent, released or expired hold, 409 CONFLICT when the time was taken meanwhile.',
        headers: IdempotencyHeaders,
        querystring: OnConflictQuery,
        body: CreateVisitBody,
        response: {
          201: dataEnvelope(visit),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'INVALID_STATE', 'CONFLICT'),
        },
      },
    },
    async (request, reply) => {
      const { hold_id: holdId } = request.body;
      const writeOptions = { onConflict: request.query.on_conflict };
      const ctx = contextOf(request);
      const made =
        holdId !== undefined && options.book
          ? await options.book(ctx, { ...request.body, hold_id: holdId }, writeOptions)
          : await service.createVisit(ctx, request.body, writeOptions);
      const item = (await seam.answers(ctx))(made);
      reply.header('etag', etagOf(item));
      return created(request, reply, PATH, item);
    },
  );

  app.get(
    `${PATH}/:id`,
    {
      config: { scope: 'visits:read' },
      schema: {
        tags,
        operationId: 'getVisit',
        summary: 'Get a visit',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(visit), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const item = (await seam.answers(ctx))(await service.getVisit(ctx, request.params.id));
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  );

  app.put(
    `${PATH}/:id`,
    {
      config: { scope: 'visits:write', referenceChecks: seam.checks(false, visitReferences) },
      schema: {
        tags,
        operationId: 'updateVisit',
        summary: 'Update a visit (partial: absent fields are kept, null clears)',
        description:
          'Changes its time (one form; every time field null unschedules), status (one move, stamping its *_at, which may be back-dated), assignees (the list replaced) or other fields. One event per change.',
        params: IdParamsSchema,
        headers: IfMatchHeaders,
        querystring: OnConflictQuery,
        body: UpdateVisitBody,
        response: {
          200: dataEnvelope(visit),
          ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'PRECONDITION_FAILED', 'INVALID_STATE', 'CONFLICT'),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const complete = await seam.answers(ctx);
      const item = complete(
        await service.updateVisit(
          ctx,
          request.params.id,
          request.body,
          matching(request.headers['if-match'], complete),
          { onConflict: request.query.on_conflict },
        ),
      );
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  );

  app.delete(
    `${PATH}/:id`,
    {
      config: { scope: 'visits:delete' },
      schema: {
        tags,
        operationId: 'deleteVisit',
        summary: 'Delete a visit',
        params: IdParamsSchema,
        headers: IfMatchHeaders,
        response: { 200: dataEnvelope(DeletedSchema), ...errorResponses('NOT_FOUND', 'PRECONDITION_FAILED') },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const complete = await seam.answers(ctx);
      return ok(
        request,
        await service.deleteVisit(ctx, request.params.id, matching(request.headers['if-match'], complete)),
      );
    },
  );

  tagRoutes(app, {
    path: PATH,
    singular: 'visit',
    tags,
    scope: 'visits:write',
    item: visit,
    seam: tagSeam('visit'),
    get: (tx, id) => service.getVisit(tx, id),
    answer: async (request, reply, ctx, done) => {
      const item = (await seam.answers(ctx))(done);
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  });

  app.post(
    `${PATH}/:id/assignees`,
    {
      config: { scope: 'visits:write' },
      schema: {
        tags,
        operationId: 'addVisitAssignee',
        summary: 'Add an assignee to a visit',
        description:
          'Adds one active team member: 201 with the visit when added (visit.reassigned), 200 when already there (no event).',
        params: IdParamsSchema,
        headers: IdempotencyHeaders,
        body: AddAssigneeBody,
        response: {
          200: dataEnvelope(visit),
          201: dataEnvelope(visit),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { visit, added } = await service.addVisitAssignee(ctx, request.params.id, request.body.team_member_id);
      const item = (await seam.answers(ctx))(visit);
      reply.header('etag', etagOf(item));
      if (added) reply.code(201);
      return ok(request, item);
    },
  );

  app.delete(
    `${PATH}/:id/assignees/:team_member_id`,
    {
      config: { scope: 'visits:write' },
      schema: {
        tags,
        operationId: 'removeVisitAssignee',
        summary: 'Remove an assignee from a visit',
        description: 'Answers the visit (visit.reassigned); 404 when the member is not on it.',
        params: AssigneeParams,
        response: { 200: dataEnvelope(visit), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const removed = await service.removeVisitAssignee(ctx, request.params.id, request.params.team_member_id);
      const item = (await seam.answers(ctx))(removed);
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  );
};
