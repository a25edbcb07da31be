// Visit schedule queries, every one scoped by account (the daily worker's walk is the one exception: it lists
// the schedules of every account, then works on each in that schedule's account).
import { sql, type SqlBool } from 'kysely';
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
import type { VisitScheduleRow } from '../../db/types.js';
import type { ProjectionFilters } from '../visits/index.js';

const COLUMNS = [
  'id',
  'account_id',
  'job_id',
  'recurrence',
  'duration_minutes',
  'duration_days',
  'template',
  'horizon_days',
  'status',
  'paused_from',
  'paused_until',
  'materialized_through',
  'previous_schedule_id',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export const SCHEDULE_SORTS: SortFields<VisitScheduleRow> = timestampSorts<VisitScheduleRow>();

export interface ScheduleFilters extends TimeBounds {
  job_id?: string | undefined;
  statuses?: string[] | undefined;
}

export function listSchedulesPlan(
  db: Executor,
  accountId: string,
  filters: ScheduleFilters,
  page: PageRequest<VisitScheduleRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.statuses !== undefined)
    conditions.push({ column: 'status', expression: sql<SqlBool>`status in (${sql.join(filters.statuses)})` });
  return listPlan(
    db,
    { table: 'visit_schedules', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ job_id: filters.job_id }), conditions },
    page,
  );
}

export async function listSchedules(
  db: Executor,
  accountId: string,
  filters: ScheduleFilters,
  page: PageRequest<VisitScheduleRow>,
): Promise<Listed<VisitScheduleRow>> {
  return runList(listSchedulesPlan(db, accountId, filters, page));
}

export async function insertSchedule(db: Executor, row: VisitScheduleRow): Promise<void> {
  await db.insertInto('visit_schedules').values(row).execute();
}

export async function findSchedule(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<VisitScheduleRow | undefined> {
  const query = db
    .selectFrom('visit_schedules')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateSchedule(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<VisitScheduleRow>,
): Promise<VisitScheduleRow | undefined> {
  return db
    .updateTable('visit_schedules')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** The schedules of a job that are not ended. */
export async function openSchedulesOfJob(db: Executor, accountId: string, jobId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('visit_schedules')
    .select('id')
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .where('status', '<>', 'ended')
    .execute();
  return rows.map((row) => row.id);
}

export async function deleteSchedulesOfJob(db: Executor, accountId: string, jobId: string): Promise<void> {
  await db.deleteFrom('visit_schedules').where('account_id', '=', accountId).where('job_id', '=', jobId).execute();
}

/** The next page of schedules that are not ended, of every account, in id order: the daily worker's walk. */
export async function openSchedulesAfter(
  db: Executor,
  afterId: string | null,
  limit: number,
): Promise<Array<{ id: string; account_id: string }>> {
  let query = db
    .selectFrom('visit_schedules')
    .select(['id', 'account_id'])
    .where('status', 'in', ['active', 'paused'])
    .orderBy('id')
    .limit(limit);
  if (afterId !== null) query = query.where('id', '>', afterId);
  return query.execute();
}

// --- exdates and template members ---

/** Each schedule's skipped occurrence keys, in order; a schedule with none has no entry (callers read `?? []`). */
export async function exdatesOf(
  db: Executor,
  accountId: string,
  ids: string[] | { members: string[] },
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (Array.isArray(ids) ? ids.length === 0 : ids.members.length === 0) return found;
  const rows = await db
    .selectFrom('visit_schedule_exdates')
    .select(['schedule_id', 'occurrence_key'])
    .where('account_id', '=', accountId)
    .where('schedule_id', 'in', Array.isArray(ids) ? ids : schedulesOfMembersQuery(db, accountId, ids.members))
    .orderBy('occurrence_key')
    .execute();
  for (const row of rows) {
    const keys = found.get(row.schedule_id);
    if (keys === undefined) found.set(row.schedule_id, [row.occurrence_key]);
    else keys.push(row.occurrence_key);
  }
  return found;
}

export async function addExdates(db: Executor, accountId: string, id: string, keys: string[], now: string) {
  if (keys.length === 0) return;
  await db
    .insertInto('visit_schedule_exdates')
    .values(keys.map((key) => ({ account_id: accountId, schedule_id: id, occurrence_key: key, created_at: now })))
    .onConflict((conflict) => conflict.columns(['schedule_id', 'occurrence_key']).doNothing())
    .execute();
}

export async function removeExdate(db: Executor, accountId: string, id: string, key: string): Promise<void> {
  await db
    .deleteFrom('visit_schedule_exdates')
    .where('account_id', '=', accountId)
    .where('schedule_id', '=', id)
    .where('occurrence_key', '=', key)
    .execute();
}

export async function replaceTemplateMembers(db: Executor, accountId: string, id: string, members: string[]) {
  await db
    .deleteFrom('visit_schedule_assignees')
    .where('account_id', '=', accountId)
    .where('schedule_id', '=', id)
    .execute();
  if (members.length > 0)
    await db
      .insertInto('visit_schedule_assignees')
      .values(members.map((member) => ({ account_id: accountId, schedule_id: id, team_member_id: member })))
      .execute();
}

// --- what a schedule reads of its job, property and visits ---

export interface JobOfSchedule {
  id: string;
  status: string;
  property_id: string | null;
}

export async function findJob(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<JobOfSchedule | undefined> {
  const query = db
    .selectFrom('jobs')
    .select(['id', 'status', 'property_id'])
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export interface ScheduledVisit {
  id: string;
  occurrence_key: string | null;
  status: string;
  start_at: string | null;
  is_exception: number;
  cancel_reason: string | null;
}

/** The visits of a schedule, optionally only those starting at or after an instant. */
export async function visitsOfSchedule(
  db: Executor,
  accountId: string,
  scheduleId: string,
  startingFrom?: string,
): Promise<ScheduledVisit[]> {
  let query = db
    .selectFrom('visits')
    .select(['id', 'occurrence_key', 'status', 'start_at', 'is_exception', 'cancel_reason'])
    .where('account_id', '=', accountId)
    .where('schedule_id', '=', scheduleId);
  if (startingFrom !== undefined) query = query.where('start_at', '>=', startingFrom);
  return (await query.orderBy('start_at').execute()) as ScheduledVisit[];
}

/** The occurrence keys of a schedule that already have a visit, among `keys`. */
export async function materializedKeys(db: Executor, scheduleId: string, keys: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let at = 0; at < keys.length; at += 500) {
    const rows = await db
      .selectFrom('visits')
      .select(['id', 'occurrence_key'])
      .where('schedule_id', '=', scheduleId)
      .where('occurrence_key', 'in', keys.slice(at, at + 500))
      .execute();
    for (const row of rows) if (row.occurrence_key !== null) found.set(row.occurrence_key, row.id);
  }
  return found;
}

/**
 * Which of the occurrences `keys` of the schedules `scheduleIds` (or of the schedules naming any of `members`: one
 * statement, their ids a subquery, whatever their number) have a visit, as `schedule_id|key`: one range of the
 * unique (schedule_id, occurrence_key) per schedule, from the least key to the greatest (keys are local
 * date-times, so they sort as text).
 */
export async function materializedAmong(
  db: Executor,
  scheduleIds: string[] | { accountId: string; members: string[] },
  keys: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  if ((Array.isArray(scheduleIds) ? scheduleIds : scheduleIds.members).length === 0 || keys.length === 0) return found;
  let [least, greatest] = [keys[0] as string, keys[0] as string];
  for (const key of keys) {
    if (key < least) least = key;
    if (key > greatest) greatest = key;
  }
  // 500 schedules a statement, the statements sent together (on PostgreSQL, one round trip).
  const chunks: (string[] | { accountId: string; members: string[] })[] = [];
  if (!Array.isArray(scheduleIds)) chunks.push(scheduleIds);
  else for (let at = 0; at < scheduleIds.length; at += 500) chunks.push(scheduleIds.slice(at, at + 500));
  const reads = await Promise.all(chunks.map((chunk) => materializedAmongQuery(db, chunk, least, greatest).execute()));
  for (const rows of reads) for (const row of rows) found.add(`${row.schedule_id}|${row.occurrence_key}`);
  return found;
}

export function materializedAmongQuery(
  db: Executor,
  scheduleIds: string[] | { accountId: string; members: string[] },
  least: string,
  greatest: string,
) {
  return db
    .selectFrom('visits')
    .select(['schedule_id', 'occurrence_key'])
    .where(
      'schedule_id',
      'in',
      Array.isArray(scheduleIds)
        ? scheduleIds
        : schedulesOfMembersQuery(db, scheduleIds.accountId, scheduleIds.members),
    )
    .where('occurrence_key', '>=', least)
    .where('occurrence_key', '<=', greatest);
}

/** `keep_visits=true`: the schedule's visits stay, with schedule_id null. */
export async function detachVisits(db: Executor, accountId: string, scheduleId: string): Promise<void> {
  await db
    .updateTable('visits')
    .set({ schedule_id: null })
    .where('account_id', '=', accountId)
    .where('schedule_id', '=', scheduleId)
    .execute();
}

export interface ProjectableSchedule extends VisitScheduleRow {
  client_id: string;
  property_id: string | null;
  job_title: string;
}

/** The open schedules a calendar projection reads (docs/api-contract.md §18 `include_projected`), with their job's. */
export async function schedulesToProject(
  db: Executor,
  accountId: string,
  filters: ProjectionFilters,
): Promise<ProjectableSchedule[]> {
  let ids: string[] | undefined;
  if (filters.assignee_ids !== undefined && filters.assignee_ids.length > 0) {
    ids = (await schedulesOfMembersQuery(db, accountId, filters.assignee_ids).execute()).map((row) => row.schedule_id);
    if (ids.length === 0) return [];
  }
  return (await schedulesToProjectQuery(
    db,
    accountId,
    filters,
    ids?.slice(0, 1000),
  ).execute()) as ProjectableSchedule[];
}

/**
 * What availability's kept projection (kept-projection.ts) reads of a schedule: the fields its occurrences follow
 * from, its template (the assignees) and its job's property; nothing the calendar's projection shows besides.
 */
const KEPT_COLUMNS = [
  'id',
  'recurrence',
  'duration_minutes',
  'duration_days',
  'template',
  'paused_from',
  'paused_until',
] as const;
export type KeptScheduleRow = Pick<VisitScheduleRow, (typeof KEPT_COLUMNS)[number]> & { property_id: string | null };

/**
 * The open schedules naming any of `members` (at most 1,000, as `schedulesToProject` takes them), with those
 * columns only: one statement, the members' schedule ids a subquery (no list of a thousand ids compiled and sent).
 * Without `places`, property_id is null and the jobs are not read (a thousand reads by key fewer).
 */
export async function schedulesToKeep(
  db: Executor,
  accountId: string,
  members: string[],
  places = true,
): Promise<KeptScheduleRow[]> {
  if (members.length === 0) return [];
  return (await keptSchedulesQuery(db, accountId, members, places).execute()) as KeptScheduleRow[];
}

/**
 * The open schedules naming any of `members`, each read by its key with its job's property. The account is the
 * subquery's condition only: on the schedules' side it would let SQLite walk the account's schedules instead.
 */
export function keptSchedulesQuery(db: Executor, accountId: string, members: string[], places = true) {
  const query = db
    .selectFrom('visit_schedules')
    .select(KEPT_COLUMNS.map((column) => `visit_schedules.${column}` as const))
    .where('visit_schedules.status', '<>', 'ended')
    .where('visit_schedules.id', 'in', schedulesOfMembersQuery(db, accountId, members))
    .limit(1000);
  return places
    ? query.innerJoin('jobs', 'jobs.id', 'visit_schedules.job_id').select('jobs.property_id as property_id')
    : query.select(sql<string | null>`null`.as('property_id'));
}

/** The schedules whose template names any of `members`, from the members' index. */
export function schedulesOfMembersQuery(db: Executor, accountId: string, members: string[]) {
  return db
    .selectFrom('visit_schedule_assignees')
    .select('schedule_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('team_member_id', 'in', members);
}

/**
 * The open schedules a calendar projection reads, with their job's title, client and property; with `ids` (the
 * schedules of the asked members) each is read by its key, not found by a walk of the account's schedules.
 */
export function schedulesToProjectQuery(db: Executor, accountId: string, filters: ProjectionFilters, ids?: string[]) {
  let query = db
    .selectFrom('visit_schedules')
    .innerJoin('jobs', 'jobs.id', 'visit_schedules.job_id')
    .select(COLUMNS.map((column) => `visit_schedules.${column}` as const))
    .select(['jobs.client_id as client_id', 'jobs.property_id as property_id', 'jobs.title as job_title'])
    .where('visit_schedules.account_id', '=', accountId)
    .where('visit_schedules.status', '<>', 'ended');
  if (ids !== undefined) query = query.where('visit_schedules.id', 'in', ids);
  if (filters.schedule_id !== undefined) query = query.where('visit_schedules.id', '=', filters.schedule_id);
  if (filters.job_id !== undefined) query = query.where('visit_schedules.job_id', '=', filters.job_id);
  if (filters.client_id !== undefined) query = query.where('jobs.client_id', '=', filters.client_id);
  if (filters.property_id !== undefined) query = query.where('jobs.property_id', '=', filters.property_id);
  if (filters.unassigned === true)
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('visit_schedule_assignees')
            .select('visit_schedule_assignees.schedule_id')
            .whereRef('visit_schedule_assignees.schedule_id', '=', 'visit_schedules.id'),
        ),
      ),
    );
  return query.limit(1000);
}
