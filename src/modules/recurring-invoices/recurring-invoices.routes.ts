// Recurring invoice endpoints (docs/api-contract.md §23): list, create, get, PUT; DELETE answering the ended
// template; skip, unskip, pause, resume (each 200 with it); the occurrences of a window of dates. Setting
// auto_send: true also takes invoices:send, naming a job jobs:read (checked once the body is valid).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf, requireScope } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { etagOf, ifMatch, IfMatchHeaders, sentJsonFingerprint } from '../../http/etag.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { dataEnvelope, errorResponses, IdParamsSchema, schemaRef } from '../../http/schemas.js';
import {
  CreateRecurringInvoiceBody,
  EmptyBody,
  ListRecurringInvoicesQuery,
  OccurrenceDateBody,
  OccurrenceSchema,
  OccurrencesQuery,
  PauseBody,
  RecurringInvoiceSchema,
  UpdateRecurringInvoiceBody,
} from './recurring-invoices.schemas.js';
import * as service from './recurring-invoices.service.js';
import { LINE_REFERENCES, type ReferenceChecks, referenceChecks } from '../shared/index.js';

const PATH = '/v1/recurring-invoices';
const tags = ['Recurring invoices'];

const topReferences = referenceChecks({
  client_id: { table: 'clients', kind: 'client' },
  property_id: { table: 'properties', kind: 'property' },
  job_id: { table: 'jobs', kind: 'job', scope: 'jobs:read' },
});
const lineReferences = referenceChecks({}, LINE_REFERENCES);
/** The ids a body names, its template's lines' under `invoice.`: one 422 names every unknown one. */
const templateReferences: ReferenceChecks = async (ctx, body, scopes) => [
  ...(await topReferences(ctx, body, scopes)),
  ...(await lineReferences(ctx, (body as { invoice?: unknown } | null)?.invoice, scopes)).map((detail) => ({
    ...detail,
    field: `invoice.${detail.field}`,
  })),
];

const standard = resourceRoutes({
  path: PATH,
  names: ['recurring invoice', 'recurring invoices'],
  scopes: { read: 'recurring_invoices:read', write: 'recurring_invoices:write' },
  schemas: {
    item: RecurringInvoiceSchema,
    create: CreateRecurringInvoiceBody,
    update: UpdateRecurringInvoiceBody,
    list: ListRecurringInvoicesQuery,
  },
  stateErrors: ['INVALID_STATE', 'CONFLICT'],
  referenceChecks: templateReferences,
  service: {
    list: service.listRecurringInvoices,
    present: (item) => item,
    create: service.createRecurringInvoice,
    get: service.getRecurringInvoice,
    update: service.updateRecurringInvoice,
  },
  actions: [
    {
      name: 'skip',
      operationId: 'skipRecurringInvoice',
      scope: 'recurring_invoices:write',
      summary: 'Skip one occurrence',
      description:
        'Adds the date to the rule’s exdates: no invoice is made for it (it still counts toward count). A date the rule does not give is 422; one already made is 409 (void its invoice instead).',
      body: OccurrenceDateBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) =>
        service.skipOccurrence(ctx, id, (body as { occurrence_date: string }).occurrence_date, false),
    },
    {
      name: 'unskip',
      operationId: 'unskipRecurringInvoice',
      scope: 'recurring_invoices:write',
      summary: 'Undo a skip',
      description: 'Removes the date from exdates: it is made at its time, or caught up while within catch_up_days.',
      body: OccurrenceDateBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) =>
        service.skipOccurrence(ctx, id, (body as { occurrence_date: string }).occurrence_date, true),
    },
    {
      name: 'pause',
      operationId: 'pauseRecurringInvoice',
      scope: 'recurring_invoices:write',
      summary: 'Pause a recurring invoice',
      description:
        'Local dates from `from` (default today) to `until` (inclusive; absent or null: until resumed) are never made, nor caught up later. After paused_until the worker resumes it (event recurring_invoice.resumed, actor system).',
      body: PauseBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => service.pauseRecurringInvoice(ctx, id, body as { from?: string; until?: string | null }),
    },
    {
      name: 'resume',
      operationId: 'resumeRecurringInvoice',
      scope: 'recurring_invoices:write',
      summary: 'Resume a paused recurring invoice',
      description: 'Active again from now: the occurrences whose time came during the pause are not made.',
      body: EmptyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id) => service.resumeRecurringInvoice(ctx, id),
    },
  ],
});

export const recurringInvoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Scopes of what a valid body asks for beyond the template: sending each invoice, reading the job it names.
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith(PATH) || (request.method !== 'POST' && request.method !== 'PUT')) return;
    const body = request.body as { auto_send?: unknown; job_id?: unknown } | undefined;
    if (body?.auto_send === true) requireScope(request, 'invoices:send');
    if (typeof body?.job_id === 'string') requireScope(request, 'jobs:read');
  });
  await app.register(standard);
  const item = schemaRef(RecurringInvoiceSchema);

  app.delete(
    `${PATH}/:id`,
    {
      config: { scope: 'recurring_invoices:write' },
      schema: {
        tags,
        operationId: 'deleteRecurringInvoice',
        summary: 'End a recurring invoice',
        description:
          'It ends (status ended, still readable) and makes nothing more; the invoices it made are unchanged. Ending one already ended answers it as it is.',
        params: IdParamsSchema,
        headers: IfMatchHeaders,
        response: {
          200: dataEnvelope(item),
          ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PRECONDITION_FAILED'),
        },
      },
    },
    async (request, reply) =>
      ok(
        request,
        await service.endRecurringInvoice(
          contextOf(request),
          request.params.id,
          ifMatch(request.headers['if-match'], sentJsonFingerprint(reply, item)),
        ),
      ),
  );

  app.get(
    `${PATH}/:id/occurrences`,
    {
      config: { scope: 'recurring_invoices:read' },
      schema: {
        tags,
        operationId: 'listRecurringInvoiceOccurrences',
        summary: 'The occurrences of a window of dates',
        description:
          'The rule’s dates in [from, to] (at most 366 days), each with its run moment (send_time in the account’s zone), its status (upcoming, due, made, skipped, paused, missed) and the invoice made for it. Dates whose time came before the template was created are not listed.',
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
