// Attachment queries. Every query is scoped by account: another account's rows do not exist here.
import { sql } from 'kysely';
import {
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
import type { AttachmentPatch, AttachmentRow } from '../../db/types.js';
import type { ParentType } from './attachments.schemas.js';

export const ATTACHMENT_COLUMNS = [
  'id',
  'account_id',
  'parent_type',
  'parent_id',
  'kind',
  'filename',
  'content_type',
  'size_bytes',
  'sha256',
  'visible_on_hub',
  'caption',
  'location_removed',
  'created_by',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export const ATTACHMENT_SORTS: SortFields<AttachmentRow> = timestampSorts<AttachmentRow>();

/** The table of each parent kind (each has `id` and `account_id`). */
const PARENT_TABLES = {
  client: 'clients',
  property: 'properties',
  service_request: 'service_requests',
  quote: 'quotes',
  job: 'jobs',
  visit: 'visits',
  invoice: 'invoices',
} as const satisfies Record<ParentType, string>;

/** Whether the account holds the parent (its row locked until the transaction ends, when `lock`). */
export async function parentExists(
  db: Executor,
  accountId: string,
  type: ParentType,
  id: string,
  lock = false,
): Promise<boolean> {
  const query = db
    .selectFrom(PARENT_TABLES[type] as 'clients')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return (await lockedIf(db, query, lock).executeTakeFirst()) !== undefined;
}

export async function insertAttachment(db: Executor, row: AttachmentRow): Promise<void> {
  await db.insertInto('attachments').values(row).execute();
}

export async function findAttachment(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<AttachmentRow | undefined> {
  const query = db
    .selectFrom('attachments')
    .select(ATTACHMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateAttachment(
  db: Executor,
  accountId: string,
  id: string,
  patch: AttachmentPatch,
): Promise<AttachmentRow | undefined> {
  return db
    .updateTable('attachments')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(ATTACHMENT_COLUMNS)
    .executeTakeFirst();
}

export async function deleteAttachment(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('attachments').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Every attachment of a parent, whatever its kind (the parent is being deleted). */
export function attachmentsOfParent(
  db: Executor,
  accountId: string,
  type: ParentType,
  id: string,
): Promise<AttachmentRow[]> {
  return db
    .selectFrom('attachments')
    .select(ATTACHMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('parent_type', '=', type)
    .where('parent_id', '=', id)
    .execute();
}

/** Queues the files of deleted rows for the sweeper, in the delete's transaction (a file queued twice is once). */
export async function queueRemovals(db: Executor, accountId: string, sha256s: string[], at: string): Promise<void> {
  if (sha256s.length === 0) return;
  await db
    .insertInto('attachment_removals')
    .values([...new Set(sha256s)].map((sha256) => ({ account_id: accountId, sha256, queued_at: at })))
    .onConflict((conflict) => conflict.columns(['account_id', 'sha256']).doNothing())
    .execute();
}

/** Up to `limit` queued removals, oldest first. */
export function queuedRemovals(
  db: Executor,
  limit: number,
): Promise<Array<{ account_id: string; sha256: string; queued_at: string }>> {
  return db
    .selectFrom('attachment_removals')
    .select(['account_id', 'sha256', 'queued_at'])
    .orderBy('queued_at')
    .orderBy('account_id')
    .orderBy('sha256')
    .limit(limit)
    .execute();
}

export async function dropRemoval(db: Executor, accountId: string, sha256: string): Promise<void> {
  await db.deleteFrom('attachment_removals').where('account_id', '=', accountId).where('sha256', '=', sha256).execute();
}

/** How many files a parent has (at most 200 are allowed, so the count stops just past it). */
export async function countOfParent(db: Executor, accountId: string, type: ParentType, id: string): Promise<number> {
  const rows = await db
    .selectFrom('attachments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('parent_type', '=', type)
    .where('parent_id', '=', id)
    .limit(201)
    .execute();
  return rows.length;
}

/**
 * Takes `bytes` of the account's quota, or nothing when that would pass it: one statement, so that two
 * uploads at once cannot both take the last bytes. True when taken.
 */
export async function takeQuota(
  db: Executor,
  accountId: string,
  bytes: number,
  defaultQuota: number,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ attachment_bytes: sql`attachment_bytes + ${bytes}` })
    .where('id', '=', accountId)
    .where(sql`attachment_bytes + ${bytes}`, '<=', sql`coalesce(max_attachment_bytes, ${defaultQuota})`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseQuota(db: Executor, accountId: string, bytes: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ attachment_bytes: sql`attachment_bytes - ${bytes}` })
    .where('id', '=', accountId)
    .execute();
}

export async function findStorage(
  db: Executor,
  accountId: string,
): Promise<{ used: number; quota: number | null } | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['attachment_bytes', 'max_attachment_bytes'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row
    ? {
        used: Number(row.attachment_bytes),
        quota: row.max_attachment_bytes === null ? null : Number(row.max_attachment_bytes),
      }
    : undefined;
}

/** Whether any of the account's attachments names these bytes (the sweeper keeps the file then). */
export async function isNamed(db: Executor, accountId: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('attachments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface AttachmentFilters extends TimeBounds {
  parent_type: string;
  parent_id?: string | undefined;
}

export function listAttachments(
  db: Executor,
  accountId: string,
  filters: AttachmentFilters,
  page: PageRequest<AttachmentRow>,
): Promise<Listed<AttachmentRow>> {
  return runList(listAttachmentsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listAttachmentsPlan(
  db: Executor,
  accountId: string,
  filters: AttachmentFilters,
  page: PageRequest<AttachmentRow>,
) {
  // The kind of parent is the list's scope, as the account is (its sort indexes lead with both: it names many
  // rows); one parent is a key (at most 200 rows, read by its index and sorted).
  return listPlan(
    db,
    {
      table: 'attachments',
      columns: ATTACHMENT_COLUMNS,
      scope: { account_id: accountId, parent_type: filters.parent_type },
    },
    { keys: keysOf({ parent_id: filters.parent_id }), conditions: timeBoundConditions(filters) },
    page,
  );
}

/** The hub's files: the `visible_on_hub` uploads on these parents, oldest first (at most 200 each). */
export async function visibleOnHub(
  db: Executor,
  accountId: string,
  parents: ReadonlyArray<{ type: ParentType; id: string }>,
): Promise<AttachmentRow[]> {
  if (parents.length === 0) return [];
  const rows: AttachmentRow[] = [];
  for (const parent of parents)
    rows.push(
      ...(await db
        .selectFrom('attachments')
        .select(ATTACHMENT_COLUMNS)
        .where('account_id', '=', accountId)
        .where('parent_type', '=', parent.type)
        .where('parent_id', '=', parent.id)
        .where('visible_on_hub', '=', 1)
        .orderBy('created_at')
        .orderBy('id')
        .limit(200)
        .execute()),
    );
  return rows;
}

/**
 * The objects whose `visible_on_hub` files a quote's or invoice's hub page lists (docs/api-contract.md §30): the
 * document, its job (a quote's: the job made from it; an invoice's: `job_id`) and that job's visits; never a
 * client's, property's or request's. Reads `jobs.quote_id` and `visits.job_id` by their indexes.
 */
export async function hubParents(
  db: Executor,
  accountId: string,
  document: { kind: 'quote' | 'invoice'; id: string; jobId: string | null },
): Promise<Array<{ type: ParentType; id: string }>> {
  const parents: Array<{ type: ParentType; id: string }> = [{ type: document.kind, id: document.id }];
  let jobIds: string[] = document.jobId ? [document.jobId] : [];
  if (document.kind === 'quote')
    jobIds = (
      await db
        .selectFrom('jobs')
        .select('id')
        .where('account_id', '=', accountId)
        .where('quote_id', '=', document.id)
        .limit(10)
        .execute()
    ).map((row) => row.id);
  for (const jobId of jobIds) {
    parents.push({ type: 'job', id: jobId });
    const visits = await db
      .selectFrom('visits')
      .select('id')
      .where('account_id', '=', accountId)
      .where('job_id', '=', jobId)
      .limit(500)
      .execute();
    for (const visit of visits) parents.push({ type: 'visit', id: visit.id });
  }
  return parents;
}
