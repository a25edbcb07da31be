// Service request rules: the status table, and conversion when a quote or job is made from a request.
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import type { Db, Executor } from '../../db/database.js';
import { pageRequest, toPage, type Page } from '../../db/keyset.js';
import type { ServiceRequestRow } from '../../db/types.js';
import { fromJson } from '../../db/values.js';
import { requireClientReference } from '../clients/clients.service.js';
import { assertClientKept } from '../documents/client-link.js';
import { parseStatusFilter } from '../documents/list-filters.js';
import { assertTransition } from '../documents/state-machine.js';
import { recordChange, recordEvent } from '../events/events.service.js';
import { requireReference, requireRow } from '../shared/lookup.js';
import * as repository from './service-requests.repository.js';
import { convertsOnUse, REQUEST_STATUS_EVENTS, REQUEST_STATUSES, REQUEST_TRANSITIONS, type RequestStatus } from './service-requests.lifecycle.js';
import type { CreateServiceRequestInput, ListServiceRequestsInput, ServiceRequest, UpdateServiceRequestInput } from './service-requests.schemas.js';

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
    converted_at: row.converted_at,
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(db: Executor, accountId: string, id: string, lock = false): Promise<ServiceRequestRow> {
  return requireRow('service request', id, (found) => repository.findServiceRequest(db, accountId, found, lock));
}

export async function createServiceRequest(db: Db, clock: Clock, accountId: string, input: CreateServiceRequestInput): Promise<ServiceRequest> {
  return db.transaction().execute(async (trx) => {
    await requireClientReference(trx, accountId, input.client_id);
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
    await repository.insertServiceRequest(trx, row);
    const request = presentServiceRequest(row);
    await recordEvent(trx, clock, accountId, 'service_request.created', request);
    return request;
  });
}

export async function getServiceRequest(db: Executor, accountId: string, id: string): Promise<ServiceRequest> {
  return presentServiceRequest(await getRow(db, accountId, id));
}

export async function updateServiceRequest(db: Db, clock: Clock, accountId: string, id: string, input: UpdateServiceRequestInput, precondition?: Precondition): Promise<ServiceRequest> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    precondition?.(presentServiceRequest(current));
    if (input.status !== undefined) assertTransition('service request', REQUEST_TRANSITIONS, current.status as RequestStatus, input.status);
    assertClientKept(current.client_id, input.client_id, current.status === 'converted' ? 'a quote or job was made from the request' : undefined);
    if (input.client_id !== undefined) await requireClientReference(trx, accountId, input.client_id);
    const { metadata, ...fields } = input;
    if (Object.keys(input).length === 0) return presentServiceRequest(current);
    const updated = await repository.updateServiceRequest(trx, accountId, current.id, {
      ...fields,
      ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}),
      updated_at: clock.now().toISOString(),
    });
    const request = presentServiceRequest(updated ?? current);
    await recordChange(trx, clock, accountId, 'service_request', presentServiceRequest(current), request, REQUEST_STATUS_EVENTS);
    return request;
  });
}

/**
 * Marks a request converted when a quote or job is made from it (inside the caller's transaction). The
 * request must belong to the same client; an archived one must be reopened first (409); one already
 * converted stays as it is, so a quote and then its job may both name it.
 */
export async function convertServiceRequest(trx: Executor, clock: Clock, accountId: string, requestId: string, clientId: string): Promise<void> {
  const request = await requireReference('request_id', 'service request', requestId, (id) => repository.findServiceRequest(trx, accountId, id, true));
  if (request.client_id !== clientId) throw fieldError('request_id', 'belongs to another client');
  if (!convertsOnUse(request.status as RequestStatus)) return;
  const now = clock.now().toISOString();
  const converted = await repository.updateServiceRequest(trx, accountId, request.id, { status: 'converted', converted_at: now, updated_at: now });
  if (converted) await recordChange(trx, clock, accountId, 'service_request', presentServiceRequest(request), presentServiceRequest(converted), REQUEST_STATUS_EVENTS);
}

export async function listServiceRequests(db: Executor, accountId: string, query: ListServiceRequestsInput): Promise<Page<ServiceRequestRow>> {
  const page = pageRequest(query, repository.SERVICE_REQUEST_SORTS);
  const { rows, resumeAfter } = await repository.listServiceRequests(db, accountId, { ...query, statuses: parseStatusFilter(query.status, REQUEST_STATUSES) }, page);
  return toPage(rows, page, resumeAfter);
}
