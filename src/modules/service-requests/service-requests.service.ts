// Service request rules: the status table, and conversion when a quote or job is made from a request.
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { ServiceRequestRow } from '../../db/types.js';
import { requireClientReference } from '../clients/index.js';
import { assertClientKept } from '../documents/index.js';
import { parseStatusFilter } from '../documents/index.js';
import { assertMove, enter } from '../documents/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { propertyForNewDocument, propertyOnUpdate } from '../properties/index.js';
import { requireReference, requireRow } from '../shared/index.js';
import * as repository from './service-requests.repository.js';
import {
  convertsOnUse,
  REQUEST_LIFECYCLE,
  REQUEST_STATUSES,
  type RequestStatus,
} from './service-requests.lifecycle.js';
import type {
  CreateServiceRequestInput,
  ListServiceRequestsInput,
  ServiceRequest,
  UpdateServiceRequestInput,
} from './service-requests.schemas.js';

export function presentServiceRequest(row: ServiceRequestRow): ServiceRequest {
  return {
    id: row.id,
    object: 'service_request',
    client_id: row.client_id,
    property_id: row.property_id,
    status: row.status,
    title: row.title,
    description: row.description,
    source: row.source as ServiceRequest['source'],
    preferred_date: row.preferred_date,
    converted_at: row.converted_at,
    metadata: fromJson(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<ServiceRequestRow> {
  return requireRow('service request', id, (found) =>
    repository.findServiceRequest(ctx.db, ctx.accountId, found, lock),
  );
}

export async function createServiceRequest(ctx: Context, input: CreateServiceRequestInput): Promise<ServiceRequest> {
  return inTransaction(ctx, async (tx) => {
    await requireClientReference(tx, input.client_id);
    const propertyId = await propertyForNewDocument(tx, input.client_id, input.property_id, undefined);
    const now = tx.clock.now().toISOString();
    const row: ServiceRequestRow = {
      id: newId(),
      account_id: tx.accountId,
      client_id: input.client_id,
      property_id: propertyId,
      status: 'new',
      title: input.title,
      description: input.description ?? null,
      source: input.source ?? 'other',
      preferred_date: input.preferred_date ?? null,
      converted_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      custom_fields: '{}',
      created_at: now,
      updated_at: now,
    };
    row.custom_fields = await createdCustomFields(tx, 'service_request', row, input.custom_fields);
    await repository.insertServiceRequest(tx.db, row);
    const request = presentServiceRequest(row);
    await recordEvent(tx, 'service_request.created', request);
    return request;
  });
}

export async function getServiceRequest(ctx: Context, id: string): Promise<ServiceRequest> {
  return presentServiceRequest(await getRow(ctx, id));
}

export async function updateServiceRequest(
  ctx: Context,
  id: string,
  input: UpdateServiceRequestInput,
  precondition?: Precondition,
): Promise<ServiceRequest> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    precondition?.(presentServiceRequest(current));
    const from = current.status as RequestStatus;
    if (input.status !== undefined) assertMove(REQUEST_LIFECYCLE, from, input.status);
    assertClientKept(
      current.client_id,
      input.client_id,
      current.status === 'converted' ? 'a quote or job was made from the request' : undefined,
    );
    if (input.client_id !== undefined) await requireClientReference(tx, input.client_id);
    const property = await propertyOnUpdate(tx, current, input);
    const { metadata, status, property_id: _property, custom_fields: customFields, ...fields } = input;
    const values = await updatedCustomFields(tx, 'service_request', current, customFields, current.custom_fields);
    if (Object.keys(input).length === (customFields !== undefined && values === undefined ? 1 : 0))
      return presentServiceRequest(current);
    const now = tx.clock.now().toISOString();
    const updated = await repository.updateServiceRequest(tx.db, tx.accountId, current.id, {
      ...fields,
      ...property,
      ...(status !== undefined ? { status, ...enter(REQUEST_LIFECYCLE, from, status, now) } : {}),
      ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}),
      ...(values !== undefined ? { custom_fields: values } : {}),
      updated_at: now,
    });
    const request = presentServiceRequest(updated ?? current);
    await recordChange(tx, {
      resource: 'service_request',
      before: presentServiceRequest(current),
      after: request,
      statusEvents: REQUEST_LIFECYCLE.events,
    });
    return request;
  });
}

/**
 * Marks a request converted when a quote or job is made from it (inside the caller's transaction), and
 * returns it as it was (its property is the new document's when none is named). The
 * request must belong to the same client; an archived one must be reopened first (409); one already
 * converted stays as it is, so a quote and then its job may both name it.
 */
export async function convertServiceRequest(
  tx: Context,
  requestId: string,
  clientId: string,
): Promise<ServiceRequestRow> {
  const request = await requireReference('request_id', 'service request', requestId, (id) =>
    repository.findServiceRequest(tx.db, tx.accountId, id, true),
  );
  if (request.client_id !== clientId) throw fieldError('request_id', 'belongs to another client');
  const from = request.status as RequestStatus;
  if (!convertsOnUse(from)) return request;
  const now = tx.clock.now().toISOString();
  const converted = await repository.updateServiceRequest(tx.db, tx.accountId, request.id, {
    ...enter(REQUEST_LIFECYCLE, from, 'converted', now),
    updated_at: now,
  });
  if (converted)
    await recordChange(tx, {
      resource: 'service_request',
      before: presentServiceRequest(request),
      after: presentServiceRequest(converted),
      statusEvents: REQUEST_LIFECYCLE.events,
    });
  return request;
}

export async function listServiceRequests(
  ctx: Context,
  query: ListServiceRequestsInput,
): Promise<Page<ServiceRequestRow>> {
  const page = pageRequest(query, repository.SERVICE_REQUEST_SORTS);
  const custom = await customFieldConditions(ctx.db, ctx.accountId, 'service_request', 'service_requests', query);
  const { rows, resumeAfter } = await repository.listServiceRequests(
    ctx.db,
    ctx.accountId,
    { ...query, statuses: parseStatusFilter(query.status, REQUEST_STATUSES), custom },
    page,
  );
  return toPage(rows, page, resumeAfter);
}
