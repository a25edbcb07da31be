// Time entry endpoints (docs/api-contract.md §29): the five standard operations; start (201) and stop; approve and
// unapprove one entry, approve a range; lock and unlock pay periods (time_entries:approve).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import type { ResourceAction } from '../../http/resource-definition.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  schemaRef,
} from '../../http/schemas.js';
import { requireScope } from '../../http/auth.js';
import type { ErrorCode } from '../../core/errors.js';
import type { Scope } from '../../kernel/scopes.js';
import { referenceChecks } from '../shared/index.js';
import * as approval from './approval.js';
import { billTime } from './billing.js';
import { BillTimeBody, type BillTimeInput, JobCostingSchema } from './billing.schemas.js';
import { jobCosting } from './costing.js';
import {
  BulkApproveBody,
  BulkApprovedSchema,
  CreateTimeEntryBody,
  EmptyBody,
  ListTimeEntriesQuery,
  LockBody,
  type StartTimerInput,
  StartTimerBody,
  StopTimerBody,
  type StopTimerInput,
  TimeEntrySchema,
  TimeLockSchema,
  UnlockBody,
  UpdateTimeEntryBody,
  type BulkApproveInput,
} from './time-entries.schemas.js';
import * as service from './time-entries.service.js';

const PATH = '/v1/time-entries';
const tags = ['Time entries'];

const references = referenceChecks({
  team_member_id: { table: 'team_members', kind: 'team member' },
  job_id: { table: 'jobs', kind: 'job' },
  visit_id: { table: 'visits', kind: 'visit' },
});

const standard = resourceRoutes({
  path: PATH,
  names: ['time entry', 'time entries'],
  scopes: { read: 'time_entries:read', write: 'time_entries:write', delete: 'time_entries:delete' },
  schemas: {
    item: TimeEntrySchema,
    create: CreateTimeEntryBody,
    update: UpdateTimeEntryBody,
    list: ListTimeEntriesQuery,
  },
  stateErrors: ['INVALID_STATE', 'CONFLICT'],
  referenceChecks: references,
  service: {
    list: service.listTimeEntries,
    present: (item) => item,
    create: service.createTimeEntry,
    get: service.getTimeEntry,
    update: service.updateTimeEntry,
    delete: service.deleteTimeEntry,
  },
  actions: [
    {
      name: 'stop',
      operationId: 'stopTimeEntry',
      scope: 'time_entries:write',
      summary: 'Stop a running time entry',
      description:
        'Sets ended_at (default now; after started_at, at most 24 h after it) and break_minutes. A stopped entry is 409 INVALID_STATE. Event time_entry.stopped.',
      body: StopTimerBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => service.stopTimer(ctx, id, (body ?? {}) as StopTimerInput),
    },
    {
      name: 'approve',
      operationId: 'approveTimeEntry',
      scope: 'time_entries:approve',
      summary: 'Approve a time entry',
      description:
        'Stamps approved_at and approved_by; an approved entry cannot change or be deleted until unapproved. A running entry, or one in a locked period, is 409 INVALID_STATE. Approving an approved entry answers it as it is.',
      body: EmptyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id) => approval.approveTimeEntry(ctx, id),
    },
    {
      name: 'unapprove',
      operationId: 'unapproveTimeEntry',
      scope: 'time_entries:approve',
      summary: 'Unapprove a time entry',
      description:
        'Clears approved_at and approved_by so that the entry can change. In a locked period: 409 INVALID_STATE.',
      body: EmptyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id) => approval.unapproveTimeEntry(ctx, id),
    },
  ],
});

interface Collection {
  name: string;
  operationId: string;
  scope: Scope;
  summary: string;
  description: string;
  body: TSchema;
  response: TSchema;
  status: 200 | 201;
  errors: ErrorCode[];
  run(ctx: ReturnType<typeof contextOf>, body: unknown): Promise<{ id: string }> | Promise<unknown>;
}

const COLLECTION: Collection[] = [
  {
    name: 'start',
    operationId: 'startTimeEntry',
    scope: 'time_entries:write',
    summary: 'Start a timer',
    description:
      'Makes a running entry (source timer) of an active member, starting at started_at (default now, at most 24 h ago). A member has at most one running entry: another start is 409 CONFLICT naming it, unless stop_running: true stops it at the new start in the same transaction. Event time_entry.started.',
    body: StartTimerBody,
    response: schemaRef(TimeEntrySchema),
    status: 201,
    errors: ['CONFLICT', 'INVALID_STATE'],
    run: (ctx, body) => service.startTimer(ctx, body as StartTimerInput),
  },
  {
    name: 'approve',
    operationId: 'bulkApproveTimeEntries',
    scope: 'time_entries:approve',
    summary: 'Approve the time entries of a range of dates',
    description:
      'Approves the stopped, unapproved entries starting on the local dates from_date to to_date (the account’s zone), the member’s if named: at most 1,000 a call, oldest first. Answers how many it approved and how many remain (call again while remaining is above 0). Running entries are left as they are.',
    body: BulkApproveBody,
    response: BulkApprovedSchema,
    status: 200,
    errors: [],
    run: (ctx, body) => approval.approveTimeEntries(ctx, body as BulkApproveInput),
  },
  {
    name: 'lock',
    operationId: 'lockTimeEntries',
    scope: 'time_entries:approve',
    summary: 'Lock a pay period',
    description:
      'Moves the account’s time_locked_through forward to through_date once every entry starting on or before it is stopped and approved (else 409 INVALID_STATE naming up to 20 of them in details). No write may then touch an entry starting in the locked period. Event time_lock.locked.',
    body: LockBody,
    response: schemaRef(TimeLockSchema),
    status: 200,
    errors: ['INVALID_STATE'],
    run: (ctx, body) => approval.lockTimeEntries(ctx, (body as { through_date: string }).through_date),
  },
  {
    name: 'unlock',
    operationId: 'unlockTimeEntries',
    scope: 'time_entries:approve',
    summary: 'Unlock pay periods',
    description:
      'Moves the account’s time_locked_through back to through_date (null: nothing locked); a date after the current one is 409 INVALID_STATE. Event time_lock.unlocked.',
    body: UnlockBody,
    response: schemaRef(TimeLockSchema),
    status: 200,
    errors: ['INVALID_STATE'],
    run: (ctx, body) => approval.unlockTimeEntries(ctx, (body as { through_date: string | null }).through_date),
  },
];

/** POST /v1/invoices/:id/time-entries, an action of the invoice routes (app.ts hands it to them). */
export const billTimeAction: ResourceAction<Awaited<ReturnType<typeof billTime>>> = {
  name: 'time-entries',
  operationId: 'billInvoiceTimeEntries',
  scope: 'invoices:write',
  alsoScopes: ['time_entries:write'],
  summary: 'Bill time entries on a draft invoice',
  description:
    'Adds a line per group of entries (group_by entry, day or team_member): quantity the billed_hours summed, unit_amount the rate, unit_code HUR, read-only time_entry_ids; the entries get invoice_id and their billed hours are frozen. Entries must be billable, stopped, unbilled, on a job of the invoice’s client, in its currency and approved unless include_unapproved (422 naming time_entry_ids[i]). An entry billed on an invoice that is not void is 409 CONFLICT; a locked one, or an invoice that is not a draft, 409 INVALID_STATE. Removing the line, deleting the draft or voiding the invoice releases the entries. Events invoice.updated and time_entry.updated.',
  body: BillTimeBody,
  errors: ['INVALID_STATE', 'CONFLICT'],
  run: (ctx, id, body) => billTime(ctx, id, body as BillTimeInput),
};

export const timeEntryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/jobs/:id/costing',
    {
      config: { scope: 'jobs:read' },
      // The second scope before anything else is read, as the first is (the contract's order of checks).
      preValidation: async (request) => requireScope(request, 'time_entries:read'),
      schema: {
        tags: ['Jobs'],
        operationId: 'getJobCosting',
        summary: 'A job’s costing',
        description:
          'Labour (the job’s stopped entries: seconds, cost, billable amounts), materials (lines with a product: Σ round(quantity × unit_cost_amount)), price (subtotal), cost, profit and margin. Price and materials come from the job’s lines until it has a sent or paid invoice, then from those invoices (another currency’s are listed in excluded_invoice_ids, not converted). Needs jobs:read and time_entries:read.',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(schemaRef(JobCostingSchema)), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => ok(request, await jobCosting(contextOf(request), (request.params as { id: string }).id)),
  );
  for (const action of COLLECTION) {
    app.post(
      `${PATH}/${action.name}`,
      {
        config: {
          scope: action.scope,
          ...(action.name === 'start' ? { referenceChecks: references } : {}),
        },
        schema: {
          tags,
          operationId: action.operationId,
          summary: action.summary,
          description: action.description,
          headers: IdempotencyHeaders,
          body: action.body,
          response: {
            [action.status]: dataEnvelope(action.response),
            ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, ...action.errors),
          },
        },
      },
      async (request, reply) => {
        const data = await action.run(contextOf(request), request.body);
        if (action.status === 201) reply.code(201).header('location', `${PATH}/${(data as { id: string }).id}`);
        return ok(request, data);
      },
    );
  }
  await app.register(standard);
};
