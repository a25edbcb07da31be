// Job queries, every one scoped by account.
import {
  type Condition,
  coalesceSort,
  compare,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockRows,
  normalizeInstant,
  type PageRequest,
  runList,
  SORT_SENTINELS,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { JobPatch, JobRow } from '../../db/types.js';
import { tagNamesColumn } from '../tags/index.js';
import type { JobStatus } from './jobs.lifecycle.js';

const COLUMNS = [
  'id',
  'account_id',
  'external_id',
  'client_id',
  'property_id',
  'quote_id',
  'request_id',
  'number',
  'number_seq',
  'title',
  'description',
  'currency',
  'line_items',
  'subtotal_amount',
  'tax_amount',
  'total_amount',
  'prices_include_tax',
  'rounding',
  'discount',
  'discount_amount',
  'tax_breakdown',
  'scheduled_start',
  'scheduled_end',
  'status',
  'completed_at',
  'visits_total',
  'visits_open',
  'visits_completed',
  'visits_next_start_at',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface JobFilters extends TimeBounds {
  external_id?: string | undefined;
  client_id?: string | undefined;
  statuses?: JobStatus[] | undefined;
  request_id?: string | undefined;
  quote_id?: string | undefined;
  scheduled_from?: string | undefined;
  scheduled_to?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const JOB_SORTS: SortFields<JobRow> = {
  ...timestampSorts<JobRow>(),
  scheduled_start: {
    kind: 'timestamp',
    expression: coalesceSort('scheduled_start', 'timestamp'),
    value: (row) => row.scheduled_start ?? SORT_SENTINELS.timestamp,
  },
};

/** A new job's row; its tags are its links (modules/tags), written apart. */
export async function insertJob(db: Executor, row: JobRow): Promise<void> {
  const { tags: _tags, ...columns } = row;
  await db.insertInto('jobs').values(columns).execute();
}

export async function findJob(db: Executor, accountId: string, id: string, lock = false): Promise<JobRow | undefined> {
  const query = db
    .selectFrom('jobs')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'jobs'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (lock) await lockRows(db, 'jobs', { account_id: accountId, id });
  return query.executeTakeFirst();
}

export async function updateJob(
  db: Executor,
  accountId: string,
  id: string,
  patch: JobPatch,
): Promise<JobRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('jobs')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .returning(tagNamesColumn(db, 'jobs'))
    .executeTakeFirst();
}

export async function deleteJob(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('jobs').where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function listJobs(
  db: Executor,
  accountId: string,
  filters: JobFilters,
  page: PageRequest<JobRow>,
): Promise<Listed<JobRow>> {
  return runList(listJobsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listJobsPlan(db: Executor, accountId: string, filters: JobFilters, page: PageRequest<JobRow>) {
  const conditions = [...timeBoundConditions(filters), ...(filters.custom ?? [])];
  if (filters.scheduled_from !== undefined)
    conditions.push(compare('scheduled_start', '>=', normalizeInstant(filters.scheduled_from)));
  if (filters.scheduled_to !== undefined)
    conditions.push(compare('scheduled_start', '<', normalizeInstant(filters.scheduled_to)));
  const keys = keysOf({
    external_id: filters.external_id,
    client_id: filters.client_id,
    request_id: filters.request_id,
    quote_id: filters.quote_id,
  });
  const among = filters.statuses && { column: 'status', values: filters.statuses };
  return listPlan(
    db,
    {
      table: 'jobs',
      columns: COLUMNS,
      scope: { account_id: accountId },
      computed: (from) => tagNamesColumn(db, from, accountId),
    },
    { keys, among, conditions },
    page,
  );
}

/**
 * The invoices made from a job, or the recurring invoices that name it (`table`): a job is not deleted while any
 * refers to it (the reference is on their job_id).
 */
export async function countInvoicesOfJob(
  db: Executor,
  accountId: string,
  jobId: string,
  table: 'invoices' | 'recurring_invoices' | 'time_entries' = 'invoices',
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
