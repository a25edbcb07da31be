// Service request queries, every one scoped by account.
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { ServiceRequestPatch, ServiceRequestRow } from '../../db/types.js';
import type { RequestStatus } from './service-requests.lifecycle.js';

const COLUMNS = [
  'id',
  'account_id',
  'client_id',
  'property_id',
  'status',
  'title',
  'description',
  'source',
  'preferred_date',
  'converted_at',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface ServiceRequestFilters extends TimeBounds {
  client_id?: string | undefined;
  statuses?: RequestStatus[] | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const SERVICE_REQUEST_SORTS: SortFields<ServiceRequestRow> = timestampSorts<ServiceRequestRow>();

export async function insertServiceRequest(db: Executor, row: ServiceRequestRow): Promise<void> {
  await db.insertInto('service_requests').values(row).execute();
}

export async function findServiceRequest(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<ServiceRequestRow | undefined> {
  const query = db
    .selectFrom('service_requests')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateServiceRequest(
  db: Executor,
  accountId: string,
  id: string,
  patch: ServiceRequestPatch,
): Promise<ServiceRequestRow | undefined> {
  return db
    .updateTable('service_requests')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function listServiceRequests(
  db: Executor,
  accountId: string,
  filters: ServiceRequestFilters,
  page: PageRequest<ServiceRequestRow>,
): Promise<Listed<ServiceRequestRow>> {
  return runList(listServiceRequestsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listServiceRequestsPlan(
  db: Executor,
  accountId: string,
  filters: ServiceRequestFilters,
  page: PageRequest<ServiceRequestRow>,
) {
  const keys = keysOf({ client_id: filters.client_id });
  const among = filters.statuses && { column: 'status', values: filters.statuses };
  return listPlan(
    db,
    { table: 'service_requests', columns: COLUMNS, scope: { account_id: accountId } },
    { keys, among, conditions: [...timeBoundConditions(filters), ...(filters.custom ?? [])] },
    page,
  );
}
