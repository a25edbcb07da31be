// Service request rules: the status table, and conversion when a quote or job is made from a request.
import { accountTable } from '../../db/account-table.js';
import type { Db, Executor } from '../../db/database.js';
import type { ServiceRequestRow } from '../../db/types.js';
import { fromJson, toIso } from '../../db/values.js';
import type { Clock } from '../../deps.js';
import { newId } from '../../deps.js';
import type { Precondition } from '../../http/etag.js';
import { fieldError, invalidState } from '../../http/errors.js';
import { pageRequest, timestampSorts, toPage, type Page } from '../../http/pagination.js';
import { applyDocumentFilters } from '../documents/list-filters.js';
import { requireReference, requireRow } from '../documents/references.js';
import { assertTransition, type TransitionTable } from '../documents/state-machine.js';
import {
  REQUEST_STATUSES,
  type CreateServiceRequestInput,
  type ListServiceRequestsInput,
  type RequestStatus,
  type ServiceRequest,
  type UpdateServiceRequestInput,
} from './service-requests.schemas.js';

/** Moves a client may make with PUT. `converted` is reached only by making a quote or job, and is final. */
export const REQUEST_TRANSITIONS: TransitionTable<RequestStatus> = {
  new: ['assessed', 'archived'],
  assessed: ['new', 'archived'],
  archived: ['new'],
  converted: [],
};

const requests = accountTable('service_requests');

export function presentServiceRequest(row: ServiceRequestRow): ServiceRequest {
  return {
    id: row.id,
    object: 'service_request',
    client_id: row.client_id,
    status: row.status,
    title: row.title,
    description: row.description,
    source: row.source as ServiceRequest['source'],
    preferred_date: row.preferred_date,
    converted_at: toIso(row.converted_at),
    metadata: fromJson(row.metadata),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

export async function createServiceRequest(db: Db, clock: Clock, accountId: string, input: CreateServiceRequestInput): Promise<ServiceRequest> {
  return db.transaction().execute(async (trx) => {
    await requireReference(trx, 'clients', accountId, input.client_id, 'client_id');
    const now = clock.now().toISOString();
    const row: ServiceRequestRow = {
      id: newId(),
      account_id: accountId,
      client_id: input.client_id,
      status: 'new',
      title: input.title,
      description: input.description ?? null,
      source: input.source ?? 'other',
      preferred_date: input.preferred_date ?? null,
      converted_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await requests.insert(trx, row);
    return presentServiceRequest(row);
  });
}

export async function getServiceRequest(db: Executor, accountId: string, id: string): Promise<ServiceRequest> {
  return presentServiceRequest(await requireRow(db, 'service_requests', accountId, id));
}

export async function updateServiceRequest(db: Db, clock: Clock, accountId: string, id: string, input: UpdateServiceRequestInput, precondition?: Precondition): Promise<ServiceRequest> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'service_requests', accountId, id, true);
    precondition?.(presentServiceRequest(current));
    if (input.status !== undefined) assertTransition('service request', REQUEST_TRANSITIONS, current.status as RequestStatus, input.status);
    if (input.client_id !== undefined) await requireReference(trx, 'clients', accountId, input.client_id, 'client_id');
    const { metadata, ...fields } = input;
    if (Object.keys(input).length === 0) return presentServiceRequest(current);
    const updated = await requests.update(trx, accountId, current.id, {
      ...fields,
      ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}),
      updated_at: clock.now().toISOString(),
    });
    return presentServiceRequest(updated ?? current);
  });
}

/**
 * Marks a request converted when a quote or job is made from it (inside the caller's transaction). The
 * request must belong to the same client; an archived one must be reopened first (409); one already
 * converted stays as it is, so a quote and then its job may both name it.
 */
export async function convertServiceRequest(trx: Executor, clock: Clock, accountId: string, requestId: string, clientId: string): Promise<void> {
  const request = await requireReference(trx, 'service_requests', accountId, requestId, 'request_id');
  if (request.client_id !== clientId) throw fieldError('request_id', 'belongs to another client');
  if (request.status === 'archived') throw invalidState("This service request is 'archived'; move it back to 'new' before making a quote or job from it.");
  if (request.status === 'converted') return;
  const now = clock.now().toISOString();
  await requests.update(trx, accountId, request.id, { status: 'converted', converted_at: now, updated_at: now });
}

export async function listServiceRequests(db: Executor, accountId: string, query: ListServiceRequestsInput): Promise<Page<ServiceRequestRow>> {
  const page = pageRequest(query, timestampSorts<ServiceRequestRow>());
  const rows = await requests.list(db, accountId, page, (select) => applyDocumentFilters(select, query, REQUEST_STATUSES));
  return toPage(rows, page);
}
