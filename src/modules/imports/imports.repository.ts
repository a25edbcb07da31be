// Import queries: the import, its file and progress, the worker's claim, and the per-row report; every one scoped
// by account but the worker's claim, which finds work across accounts.
import { sql } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { ImportRecordRow, ImportReportRow, ImportsTable } from '../../db/types.js';

/** Every column but the file, which only the worker and `apply` read. */
const COLUMNS = [
  'id',
  'account_id',
  'kind',
  'dry_run',
  'mapping',
  'ignored_columns',
  'options',
  'status',
  'rows',
  'counts',
  'error',
  'created_by',
  'acting_scopes',
  'source_import_id',
  'progress_line',
  'lease_until',
  'started_at',
  'finished_at',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export type ImportListRow = Omit<ImportRecordRow, 'file'>;

export const IMPORT_SORTS: SortFields<ImportListRow> = timestampSorts<ImportListRow>();

export async function insertImport(db: Executor, row: ImportRecordRow): Promise<void> {
  await db.insertInto('imports').values(row).execute();
}

export function findImport(db: Executor, accountId: string, id: string): Promise<ImportListRow | undefined> {
  return db
    .selectFrom('imports')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findImportFile(db: Executor, accountId: string, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('imports')
    .select('file')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.file ?? null;
}

export async function updateImport(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<Omit<ImportsTable, 'id' | 'account_id'>>,
  onlyIn?: readonly string[],
): Promise<boolean> {
  let query = db.updateTable('imports').set(patch).where('account_id', '=', accountId).where('id', '=', id);
  if (onlyIn) query = query.where('status', 'in', [...onlyIn]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function listImports(
  db: Executor,
  accountId: string,
  filters: TimeBounds & { statuses?: string[] | undefined; kind?: string | undefined },
  page: PageRequest<ImportListRow>,
): Promise<Listed<ImportListRow>> {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.kind !== undefined) conditions.push({ column: 'kind', expression: sql`kind = ${filters.kind}` });
  return runList(
    listPlan(
      db,
      { table: 'imports', columns: COLUMNS, scope: { account_id: accountId } },
      {
        keys: keysOf({}),
        ...(filters.statuses ? { among: { column: 'status', values: filters.statuses } } : {}),
        conditions,
      },
      page,
    ),
  );
}

/**
 * The oldest import with work left whose lease has lapsed (a worker that died holds none for long), leased to
 * this worker until `leaseUntil`; undefined when there is none.
 */
export async function claimImport(db: Executor, now: string, leaseUntil: string): Promise<ImportListRow | undefined> {
  const candidates = await db
    .selectFrom('imports')
    .select(['id', 'account_id'])
    .where('status', 'in', ['queued', 'validating', 'running'])
    .where((where) => where.or([where('lease_until', 'is', null), where('lease_until', '<', now)]))
    .orderBy('created_at')
    .limit(5)
    .execute();
  for (const candidate of candidates) {
    const taken = await db
      .updateTable('imports')
      .set({ lease_until: leaseUntil })
      .where('id', '=', candidate.id)
      .where('status', 'in', ['queued', 'validating', 'running'])
      .where((where) => where.or([where('lease_until', 'is', null), where('lease_until', '<', now)]))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) > 0) return findImport(db, candidate.account_id, candidate.id);
  }
  return undefined;
}

/** Ends the lease, so that the next pass may take the import again at once. */
export async function releaseImport(db: Executor, id: string): Promise<void> {
  await db.updateTable('imports').set({ lease_until: null }).where('id', '=', id).execute();
}

export async function insertReportRows(db: Executor, rows: ImportReportRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 100)
    await db
      .insertInto('import_rows')
      .values(rows.slice(start, start + 100))
      .execute();
}

export async function deleteReportRows(db: Executor, importId: string): Promise<void> {
  await db.deleteFrom('import_rows').where('import_id', '=', importId).execute();
}

/** Report rows after `afterLine`, in line order, `limit` of them and one more (the next page's sign). */
export function listReportRows(
  db: Executor,
  accountId: string,
  importId: string,
  afterLine: number,
  limit: number,
  outcomes?: string[],
): Promise<ImportReportRow[]> {
  let query = db
    .selectFrom('import_rows')
    .selectAll()
    .where('import_id', '=', importId)
    .where('account_id', '=', accountId)
    .where('line', '>', afterLine);
  if (outcomes) query = query.where('outcome', 'in', outcomes);
  return query
    .orderBy('line')
    .limit(limit + 1)
    .execute();
}
