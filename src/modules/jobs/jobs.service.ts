// Job rules: numbered at creation, made from an approved quote or a service request (converting them in
// the same transaction), the status table, schedule order, and delete refused while invoiced.
import { newId } from '../../core/deps.js';
import { conflict, fieldError, invalidState, type Precondition } from '../../core/errors.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { fromJson, normalizeInstant, type Page, pageRequest, toPage } from '../../db/index.js';
import type { JobRow } from '../../db/types.js';
import { requireClientReference } from '../clients/index.js';
import { assertClientKept } from '../documents/index.js';
import { parseStatusFilter } from '../documents/index.js';
import { nextNumber } from '../documents/index.js';
import { accountCurrency, presentPriced, pricingForNew, pricingForUpdate, propertyAfter } from '../documents/index.js';
import { assertDeletable, assertMove, enter } from '../documents/index.js';
import { convertQuote } from '../quotes/index.js';
import { convertServiceRequest } from '../service-requests/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, storedTags, tagConditions, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf } from '../attachments/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { propertyForNewDocument, propertyOnUpdate } from '../properties/index.js';
import { guardExternalId, requireReference, requireRow } from '../shared/index.js';
import { deleteSchedulesOfJob, endSchedulesOfJob } from '../visit-schedules/index.js';
import { createVisitsForJob, deleteVisitsOfJob, type HoldResolver, moveVisitsWithJob } from '../visits/index.js';
import { JOB_LIFECYCLE, JOB_STATUSES, type JobStatus } from './jobs.lifecycle.js';
import * as repository from './jobs.repository.js';
import type { CreateJobInput, Job, ListJobsInput, UpdateJobInput } from './jobs.schemas.js';

export function presentJob(row: JobRow): Job {
  const priced = presentPriced(row);
  // Field by field, not `...presentPriced(row)`: each field after a spread is a slow definition on Node 20
  // (invoices.presenter.ts, invoiceRecord).
  return {
    id: row.id,
    object: 'job',
    external_id: row.external_id,
    number: row.number as string,
    client_id: row.client_id,
    property_id: row.property_id,
    quote_id: row.quote_id,
    request_id: row.request_id,
    title: row.title,
    description: row.description,
    currency: priced.currency,
    line_items: priced.line_items,
    prices_include_tax: priced.prices_include_tax,
    rounding: priced.rounding,
    discount: priced.discount,
    discount_amount: priced.discount_amount,
    subtotal_amount: priced.subtotal_amount,
    tax_amount: priced.tax_amount,
    total_amount: priced.total_amount,
    tax_breakdown: priced.tax_breakdown,
    scheduled_start: row.scheduled_start,
    scheduled_end: row.scheduled_end,
    status: row.status,
    completed_at: row.completed_at,
    visits_summary: {
      total: Number(row.visits_total),
      open: Number(row.visits_open),
      completed: Number(row.visits_completed),
      next_start_at: row.visits_next_start_at,
    },
    metadata: fromJson(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    tags: storedTags(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<JobRow> {
  return requireRow('job', id, (found) => repository.findJob(ctx.db, ctx.accountId, found, lock));
}

/** The job a body's `job_id` names (422 on that field when there is none), locked until the transaction ends. */
export function requireJobReference(tx: Context, jobId: string): Promise<JobRow> {
  return requireReference('job_id', 'job', jobId, (id) => repository.findJob(tx.db, tx.accountId, id, true));
}

function assertScheduleOrder(start: string | null, end: string | null): void {
  if (start !== null && end !== null && new Date(end).getTime() < new Date(start).getTime()) {
    throw fieldError('scheduled_end', 'must not be before scheduled_start');
  }
}

const instantOrNull = (value: string | null | undefined) =>
  value === null || value === undefined ? null : normalizeInstant(value);

export async function createJob(
  ctx: Context,
  input: CreateJobInput,
  options: { holds?: HoldResolver | undefined } = {},
): Promise<Job> {
  return guardExternalId(ctx, 'jobs', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      const quote = input.quote_id === undefined ? undefined : await convertQuote(tx, input.quote_id, input.client_id);
      const clientId = input.client_id ?? quote?.client_id;
      if (clientId === undefined) throw fieldError('client_id', 'is required unless quote_id is given');
      await requireClientReference(tx, clientId);
      const title = input.title ?? quote?.title ?? (quote?.number ? `Job for quote ${quote.number}` : undefined);
      if (title === undefined) throw fieldError('title', 'is required unless the job is made from a quote');
      const requestId = input.request_id ?? quote?.request_id ?? undefined;
      const request = requestId ? await convertServiceRequest(tx, requestId, clientId) : undefined;
      const propertyId = await propertyForNewDocument(
        tx,
        clientId,
        input.property_id,
        quote ? quote.property_id : request?.property_id,
      );
      const start = instantOrNull(input.scheduled_start);
      const end = instantOrNull(input.scheduled_end);
      assertScheduleOrder(start, end);
      const visits = input.visits ?? [];
      // The job's schedule is its visits' once it has one (docs/api-contract.md §17).
      if (visits.length > 0)
        for (const field of ['scheduled_start', 'scheduled_end'] as const)
          if (input[field] !== undefined) throw fieldError(field, 'is taken from the visits when visits are given');

      const currency = input.currency ?? quote?.currency ?? (await accountCurrency(tx.db, tx.accountId));
      const priced = await pricingForNew(tx, input, { currency, propertyId, source: quote });
      const numbered = await nextNumber(tx.db, tx.accountId, 'job');
      const now = tx.clock.now().toISOString();
      const row: JobRow = {
        id: newId(),
        external_id: input.external_id ?? null,
        account_id: tx.accountId,
        ...numbered,
        client_id: clientId,
        property_id: propertyId,
        quote_id: quote?.id ?? null,
        request_id: requestId ?? null,
        title,
        description: input.description ?? null,
        currency,
        ...priced,
        scheduled_start: start,
        scheduled_end: end,
        status: 'scheduled',
        completed_at: null,
        visits_total: 0,
        visits_open: 0,
        visits_completed: 0,
        visits_next_start_at: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        custom_fields: '{}',
        tags: '[]',
        created_at: now,
        updated_at: now,
      };
      row.custom_fields = await createdCustomFields(tx, 'job', row, input.custom_fields);
      row.tags = (await writeTags(tx, 'job', row, input.tags, undefined)) ?? '[]';
      await repository.insertJob(tx.db, row);
      if (visits.length > 0) {
        await createVisitsForJob(tx, row.id, visits, {
          fieldPrefix: (index) => `visits[${index}].`,
          holds: options.holds,
        });
      }
      const job = presentJob(visits.length > 0 ? await getRow(tx, row.id) : row);
      await recordEvent(tx, 'job.created', job);
      return job;
    }),
  );
}

export async function getJob(ctx: Context, id: string): Promise<Job> {
  return presentJob(await getRow(ctx, id));
}

export async function updateJob(
  ctx: Context,
  id: string,
  input: UpdateJobInput,
  precondition?: Precondition,
): Promise<Job> {
  return guardExternalId(
    ctx,
    'jobs',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentJob(current));
        const from = current.status as JobStatus;
        if (input.status !== undefined) assertMove(JOB_LIFECYCLE, from, input.status);
        assertClientKept(
          current.client_id,
          input.client_id,
          current.quote_id !== null
            ? 'the job was made from a quote'
            : current.request_id !== null
              ? 'the job was made from a service request'
              : undefined,
        );
        if (input.client_id !== undefined) await requireClientReference(tx, input.client_id);
        if (Number(current.visits_total) > 0)
          for (const field of ['scheduled_start', 'scheduled_end'] as const)
            if (input[field] !== undefined)
              throw invalidState(
                `This job has visits: its ${field} mirrors them and cannot be set. Change the visits instead.`,
              );
        const property = await propertyOnUpdate(tx, current, input);
        if (Object.keys(input).length === 0) return presentJob(current);
        const values = await updatedCustomFields(tx, 'job', current, input.custom_fields, current.custom_fields);
        const tags = await writeTags(tx, 'job', current, input.tags, current.tags);
        // Custom fields and tags named with the values they hold change nothing: no write, updated_at kept.
        if (
          values === undefined &&
          tags === undefined &&
          Object.keys(input).every((key) => key === 'custom_fields' || key === 'tags')
        )
          return presentJob(current);

        const {
          status,
          metadata,
          custom_fields: _customFields,
          tags: _tags,
          line_items: _lines,
          scheduled_start: start,
          scheduled_end: end,
          property_id: _property,
          prices_include_tax: _inclusive,
          rounding: _rounding,
          discount: _discount,
          ...fields
        } = input;
        const now = tx.clock.now().toISOString();
        const patch: Partial<JobRow> = { ...fields, ...property, updated_at: now };
        const scheduledStart = start !== undefined ? instantOrNull(start) : current.scheduled_start;
        const scheduledEnd = end !== undefined ? instantOrNull(end) : current.scheduled_end;
        assertScheduleOrder(scheduledStart, scheduledEnd);
        if (start !== undefined) patch.scheduled_start = scheduledStart;
        if (end !== undefined) patch.scheduled_end = scheduledEnd;
        if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
        if (values !== undefined) patch.custom_fields = values;
        if (tags !== undefined) patch.tags = tags;
        Object.assign(patch, await pricingForUpdate(tx, current, input, propertyAfter(current, property)));
        if (status !== undefined) Object.assign(patch, enter(JOB_LIFECYCLE, from, status, now));
        const updated = (await repository.updateJob(tx.db, tx.accountId, current.id, patch)) ?? current;
        if (updated.client_id !== current.client_id || updated.property_id !== current.property_id)
          await moveVisitsWithJob(tx, current.id, { client_id: updated.client_id, property_id: updated.property_id });
        const job = presentJob(updated);
        await recordChange(tx, {
          resource: 'job',
          before: presentJob(current),
          after: job,
          statusEvents: JOB_LIFECYCLE.events,
        });
        // docs/api-contract.md §18: completing or canceling the job ends its visit schedules.
        if (status === 'completed' || status === 'canceled') await endSchedulesOfJob(tx, current.id);
        return job;
      }),
    id,
  );
}

export async function deleteJob(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    precondition?.(presentJob(current));
    assertDeletable(JOB_LIFECYCLE, current.status as JobStatus);
    const invoices = await repository.countInvoicesOfJob(tx.db, tx.accountId, current.id);
    if (invoices > 0)
      throw conflict(`This job cannot be deleted while ${invoices} invoice${invoices === 1 ? '' : 's'} refer to it.`);
    const templates = await repository.countInvoicesOfJob(tx.db, tx.accountId, current.id, 'recurring_invoices');
    if (templates > 0)
      throw conflict(
        `This job cannot be deleted while ${templates} recurring invoice${templates === 1 ? '' : 's'} name it.`,
      );
    const entries = await repository.countInvoicesOfJob(tx.db, tx.accountId, current.id, 'time_entries');
    if (entries > 0)
      throw conflict(
        `This job cannot be deleted while ${entries} time entr${entries === 1 ? 'y names' : 'ies name'} it.`,
      );
    // Its visits go with it (each a visit.deleted), as a client's properties go with the client.
    await deleteVisitsOfJob(tx, current.id);
    await deleteSchedulesOfJob(tx, current.id);
    await deleteCustomFieldValues(tx.db, tx.accountId, 'job', current.id);
    await deleteObjectTags(tx, 'job', current.id);
    await deleteAttachmentsOf(tx, 'job', current.id);
    await repository.deleteJob(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'job.deleted', presentJob(current));
    return { id: current.id, deleted: true as const };
  });
}

export async function listJobs(ctx: Context, query: ListJobsInput): Promise<Page<JobRow>> {
  const page = pageRequest(query, repository.JOB_SORTS);
  const custom = [
    ...(await customFieldConditions(ctx.db, ctx.accountId, 'job', 'jobs', query)),
    ...(await tagConditions(ctx.db, ctx.accountId, 'job', 'jobs', query)),
  ];
  const { rows, resumeAfter } = await repository.listJobs(
    ctx.db,
    ctx.accountId,
    { ...query, statuses: parseStatusFilter(query.status, JOB_STATUSES), custom },
    page,
  );
  return toPage(rows, page, resumeAfter);
}
