// Job rules: numbered at creation, made from an approved quote or a service request (converting them in
// the same transaction), the status table, schedule order, and delete refused while invoiced.
import { sql } from 'kysely';
import { accountTable } from '../../db/account-table.js';
import type { Db, Executor } from '../../db/database.js';
import type { JobRow } from '../../db/types.js';
import { coalesceSort, SORT_SENTINELS } from '../../db/sort-sentinels.js';
import { fromJson, normalizeInstant, toIso } from '../../db/values.js';
import type { Clock } from '../../deps.js';
import { newId } from '../../deps.js';
import type { Precondition } from '../../http/etag.js';
import { conflict, fieldError } from '../../http/errors.js';
import { pageRequest, timestampSorts, toPage, type Page, type SortFields } from '../../http/pagination.js';
import { copyLineItems } from '../documents/line-items.js';
import { applyDocumentFilters } from '../documents/list-filters.js';
import { nextNumber } from '../documents/numbering.js';
import { accountCurrency, lineItemsOf, presentPriced, pricedColumns } from '../documents/priced.js';
import { requireReference, requireRow } from '../documents/references.js';
import { assertTransition, type TransitionTable } from '../documents/state-machine.js';
import { convertQuote } from '../quotes/quotes.service.js';
import { convertServiceRequest } from '../service-requests/service-requests.service.js';
import { JOB_STATUSES, type CreateJobInput, type Job, type JobStatus, type ListJobsInput, type UpdateJobInput } from './jobs.schemas.js';

export const JOB_TRANSITIONS: TransitionTable<JobStatus> = {
  scheduled: ['in_progress', 'completed', 'canceled'],
  in_progress: ['scheduled', 'completed', 'canceled'],
  completed: ['in_progress'],
  canceled: ['scheduled'],
};

const jobs = accountTable('jobs');

export function presentJob(row: JobRow): Job {
  return {
    id: row.id,
    object: 'job',
    number: row.number as string,
    client_id: row.client_id,
    quote_id: row.quote_id,
    request_id: row.request_id,
    title: row.title,
    description: row.description,
    ...presentPriced(row),
    scheduled_start: toIso(row.scheduled_start),
    scheduled_end: toIso(row.scheduled_end),
    status: row.status,
    completed_at: toIso(row.completed_at),
    metadata: fromJson(row.metadata),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

function assertScheduleOrder(start: string | null, end: string | null): void {
  if (start !== null && end !== null && new Date(end).getTime() < new Date(start).getTime()) {
    throw fieldError('scheduled_end', 'must not be before scheduled_start');
  }
}

const instantOrNull = (value: string | null | undefined) => (value === null || value === undefined ? null : (normalizeInstant(value) as string));

export async function createJob(db: Db, clock: Clock, accountId: string, input: CreateJobInput): Promise<Job> {
  return db.transaction().execute(async (trx) => {
    const quote = input.quote_id === undefined ? undefined : await convertQuote(trx, clock, accountId, input.quote_id, input.client_id);
    const clientId = input.client_id ?? quote?.client_id;
    if (clientId === undefined) throw fieldError('client_id', 'is required unless quote_id is given');
    await requireReference(trx, 'clients', accountId, clientId, 'client_id');
    const title = input.title ?? quote?.title ?? (quote?.number ? `Job for quote ${quote.number}` : undefined);
    if (title === undefined) throw fieldError('title', 'is required unless the job is made from a quote');
    const requestId = input.request_id ?? quote?.request_id ?? undefined;
    if (requestId) await convertServiceRequest(trx, clock, accountId, requestId, clientId);
    const start = instantOrNull(input.scheduled_start);
    const end = instantOrNull(input.scheduled_end);
    assertScheduleOrder(start, end);

    const lines = input.line_items ?? (quote ? copyLineItems(lineItemsOf(quote)) : []);
    const priced = pricedColumns(lines);
    const { number, sequence } = await nextNumber(trx, accountId, 'job');
    const now = clock.now().toISOString();
    const row: JobRow = {
      id: newId(),
      account_id: accountId,
      number,
      number_seq: sequence,
      client_id: clientId,
      quote_id: quote?.id ?? null,
      request_id: requestId ?? null,
      title,
      description: input.description ?? null,
      currency: input.currency ?? quote?.currency ?? (await accountCurrency(trx, accountId)),
      ...priced,
      scheduled_start: start,
      scheduled_end: end,
      status: 'scheduled',
      completed_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await jobs.insert(trx, row);
    return presentJob(row);
  });
}

export async function getJob(db: Executor, accountId: string, id: string): Promise<Job> {
  return presentJob(await requireRow(db, 'jobs', accountId, id));
}

export async function updateJob(db: Db, clock: Clock, accountId: string, id: string, input: UpdateJobInput, precondition?: Precondition): Promise<Job> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'jobs', accountId, id, true);
    precondition?.(presentJob(current));
    const from = current.status as JobStatus;
    if (input.status !== undefined) assertTransition('job', JOB_TRANSITIONS, from, input.status);
    if (input.client_id !== undefined) await requireReference(trx, 'clients', accountId, input.client_id, 'client_id');
    if (Object.keys(input).length === 0) return presentJob(current);

    const { status, metadata, line_items: lineItems, scheduled_start: start, scheduled_end: end, ...fields } = input;
    const now = clock.now().toISOString();
    const patch: Partial<JobRow> = { ...fields, updated_at: now };
    const scheduledStart = start !== undefined ? instantOrNull(start) : toIso(current.scheduled_start);
    const scheduledEnd = end !== undefined ? instantOrNull(end) : toIso(current.scheduled_end);
    assertScheduleOrder(scheduledStart, scheduledEnd);
    if (start !== undefined) patch.scheduled_start = scheduledStart;
    if (end !== undefined) patch.scheduled_end = scheduledEnd;
    if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
    if (lineItems !== undefined) Object.assign(patch, pricedColumns(lineItems));
    if (status !== undefined && status !== from) {
      patch.status = status;
      patch.completed_at = status === 'completed' ? now : null;
    }
    return presentJob((await jobs.update(trx, accountId, current.id, patch)) ?? current);
  });
}

export async function deleteJob(db: Db, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'jobs', accountId, id, true);
    precondition?.(presentJob(current));
    const invoices = await accountTable('invoices').count(trx, accountId, 'job_id', current.id);
    if (invoices > 0) throw conflict(`This job cannot be deleted while ${invoices} invoice${invoices === 1 ? '' : 's'} refer to it.`);
    await jobs.delete(trx, accountId, current.id);
    return { id: current.id, deleted: true as const };
  });
}

const SORTS: SortFields<JobRow> = {
  ...timestampSorts<JobRow>(),
  scheduled_start: { expression: coalesceSort('scheduled_start', 'timestamp'), value: (row) => toIso(row.scheduled_start) ?? SORT_SENTINELS.timestamp },
};

export async function listJobs(db: Executor, accountId: string, query: ListJobsInput): Promise<Page<JobRow>> {
  const page = pageRequest(query, SORTS);
  const rows = await jobs.list(db, accountId, page, (select) => {
    let filtered = applyDocumentFilters(select, query, JOB_STATUSES);
    if (query.request_id !== undefined) filtered = filtered.where(sql.ref('request_id'), '=', query.request_id);
    if (query.quote_id !== undefined) filtered = filtered.where(sql.ref('quote_id'), '=', query.quote_id);
    if (query.scheduled_from !== undefined) filtered = filtered.where(sql.ref('scheduled_start'), '>=', normalizeInstant(query.scheduled_from));
    if (query.scheduled_to !== undefined) filtered = filtered.where(sql.ref('scheduled_start'), '<', normalizeInstant(query.scheduled_to));
    return filtered;
  });
  return toPage(rows, page);
}
