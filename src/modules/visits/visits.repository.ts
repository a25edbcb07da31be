// Visit queries, every one scoped by account: the visits, their assignees (with the visit's instants copied,
// so a member's calendar and conflicts read one index), and the little a visit reads and keeps of its job
// (its client, property, title and status; its summary and scheduled_* mirrors).
import { sql, type SqlBool } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  lockRows,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { VisitPatch, VisitRow } from '../../db/types.js';
import { addMinutes } from '../../core/time.js';
import { tagNamesColumn } from '../tags/index.js';
import { LATE_STATUSES, OPEN_STATUSES, type VisitStatus } from './visits.lifecycle.js';
import { MAX_VISIT_MINUTES } from './visits.schemas.js';

export const VISIT_COLUMNS = [
  'id',
  'account_id',
  'job_id',
  'client_id',
  'property_id',
  'title',
  'instructions',
  'status',
  'all_day',
  'timezone',
  'start_at',
  'end_at',
  'start_date',
  'end_date',
  'arrival_window_minutes',
  'assignee_count',
  'en_route_at',
  'started_at',
  'completed_at',
  'canceled_at',
  'cancel_reason',
  'completion_notes',
  'schedule_id',
  'occurrence_key',
  'is_exception',
  'hold_id',
  'external_id',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

/** The list's sorts: the two of every list, and `start_at`, the calendar's order. */
export const VISIT_SORTS: SortFields<VisitRow> = {
  ...timestampSorts<VisitRow>(),
  start_at: { kind: 'timestamp', value: (row) => row.start_at ?? '' },
};

/** What a visit needs of its job. */
export interface JobOfVisit {
  id: string;
  client_id: string;
  property_id: string | null;
  title: string;
  status: string;
}

export async function findJobOfVisit(
  db: Executor,
  accountId: string,
  jobId: string,
  lock = false,
): Promise<JobOfVisit | undefined> {
  const query = db
    .selectFrom('jobs')
    .select(['id', 'client_id', 'property_id', 'title', 'status'])
    .where('account_id', '=', accountId)
    .where('id', '=', jobId);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** The visit a schedule made for an occurrence, if any (from the unique (schedule_id, occurrence_key) index). */
export async function findOccurrence(
  db: Executor,
  accountId: string,
  scheduleId: string,
  occurrenceKey: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('visits')
    .select('id')
    .where('schedule_id', '=', scheduleId)
    .where('occurrence_key', '=', occurrenceKey)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.id;
}

/** A new visit's row; its tags are its links (modules/tags), written apart. */
export async function insertVisit(db: Executor, row: VisitRow): Promise<void> {
  const { tags: _tags, ...columns } = row;
  await db.insertInto('visits').values(columns).execute();
}

export async function findVisit(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<VisitRow | undefined> {
  const query = db
    .selectFrom('visits')
    .select(VISIT_COLUMNS)
    .select(tagNamesColumn(db, 'visits'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (lock) await lockRows(db, 'visits', { account_id: accountId, id });
  return query.executeTakeFirst();
}

export async function updateVisit(
  db: Executor,
  accountId: string,
  id: string,
  patch: VisitPatch,
): Promise<VisitRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('visits')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(VISIT_COLUMNS)
    .returning(tagNamesColumn(db, 'visits'))
    .executeTakeFirst();
}

/** The time entries that name a visit (docs/api-contract.md §29): while any does, the visit cannot be deleted. */
export async function countTimeEntriesOfVisit(db: Executor, accountId: string, visitId: string): Promise<number> {
  const row = await db
    .selectFrom('time_entries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('visit_id', '=', visitId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function deleteVisit(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('visit_assignees').where('account_id', '=', accountId).where('visit_id', '=', id).execute();
  await db.deleteFrom('visits').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The visits of a job, oldest first (from visits_job_idx). */
export async function visitsOfJob(db: Executor, accountId: string, jobId: string): Promise<VisitRow[]> {
  return db
    .selectFrom('visits')
    .select(VISIT_COLUMNS)
    .select(tagNamesColumn(db, 'visits'))
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A job's client or property changed: its visits follow (they answer the job's). */
export async function moveVisitsOfJob(
  db: Executor,
  accountId: string,
  jobId: string,
  to: { client_id: string; property_id: string | null },
): Promise<void> {
  await db.updateTable('visits').set(to).where('account_id', '=', accountId).where('job_id', '=', jobId).execute();
}

// --- assignees ---

/** The assignees of each visit, in their order. */
export async function assigneesOf(
  db: Executor,
  accountId: string,
  visitIds: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(visitIds.map((id) => [id, []]));
  if (visitIds.length === 0) return found;
  const rows = await db
    .selectFrom('visit_assignees')
    .select(['visit_id', 'team_member_id'])
    .where('account_id', '=', accountId)
    .where('visit_id', 'in', visitIds)
    .orderBy('visit_id')
    .orderBy('position')
    .orderBy('team_member_id')
    .execute();
  for (const row of rows) found.get(row.visit_id)?.push(row.team_member_id);
  return found;
}

/** Replaces a visit's assignees with `memberIds`, in that order, and keeps its count. */
export async function replaceAssignees(
  db: Executor,
  visit: VisitRow,
  memberIds: readonly string[],
  now: string,
): Promise<void> {
  await db
    .deleteFrom('visit_assignees')
    .where('account_id', '=', visit.account_id)
    .where('visit_id', '=', visit.id)
    .execute();
  if (memberIds.length > 0)
    await db
      .insertInto('visit_assignees')
      .values(
        memberIds.map((memberId, position) => ({
          account_id: visit.account_id,
          visit_id: visit.id,
          team_member_id: memberId,
          position,
          start_at: visit.start_at,
          end_at: visit.end_at,
          status: visit.status,
          created_at: now,
        })),
      )
      .execute();
  await countAssignees(db, visit.account_id, visit.id);
}

/** Adds one member at the end of the list; false when it was already there (the caller holds the visit's lock). */
export async function addAssignee(db: Executor, visit: VisitRow, memberId: string, now: string): Promise<boolean> {
  const last = await db
    .selectFrom('visit_assignees')
    .select((eb) => eb.fn.max<number | null>('position').as('position'))
    .where('account_id', '=', visit.account_id)
    .where('visit_id', '=', visit.id)
    .executeTakeFirst();
  const result = await db
    .insertInto('visit_assignees')
    .values({
      account_id: visit.account_id,
      visit_id: visit.id,
      team_member_id: memberId,
      position: last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1,
      start_at: visit.start_at,
      end_at: visit.end_at,
      status: visit.status,
      created_at: now,
    })
    .onConflict((conflict) => conflict.columns(['visit_id', 'team_member_id']).doNothing())
    .executeTakeFirst();
  const added = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  if (added) await countAssignees(db, visit.account_id, visit.id);
  return added;
}

/** Removes one member; false when it was not on the visit. */
export async function removeAssignee(db: Executor, visit: VisitRow, memberId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('visit_assignees')
    .where('account_id', '=', visit.account_id)
    .where('visit_id', '=', visit.id)
    .where('team_member_id', '=', memberId)
    .executeTakeFirst();
  const removed = Number(result.numDeletedRows) > 0;
  if (removed) await countAssignees(db, visit.account_id, visit.id);
  return removed;
}

async function countAssignees(db: Executor, accountId: string, visitId: string): Promise<void> {
  await db
    .updateTable('visits')
    .set({
      assignee_count: sql<number>`(select count(*) from visit_assignees where visit_assignees.account_id = ${accountId} and visit_assignees.visit_id = ${visitId})`,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', visitId)
    .execute();
}

/** The visit's instants and status, copied onto its assignee rows. */
export async function copyTimeToAssignees(db: Executor, visit: VisitRow): Promise<void> {
  await db
    .updateTable('visit_assignees')
    .set({ start_at: visit.start_at, end_at: visit.end_at, status: visit.status })
    .where('account_id', '=', visit.account_id)
    .where('visit_id', '=', visit.id)
    .execute();
}

/**
 * The instant a window must reach back to: no visit of the account has lasted longer than `longest` minutes
 * (at most 31 days), so none that starts earlier can overlap it.
 */
export function lookbackFrom(from: string, longest = MAX_VISIT_MINUTES): string {
  return addMinutes(from, -Math.min(MAX_VISIT_MINUTES, Math.max(0, longest)));
}

/** The longest visit the account ever had, in minutes (0 before its first). */
export async function longestVisitMinutes(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('visit_spans')
    .select('longest_minutes')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.longest_minutes ?? 0);
}

/** Raises the account's longest visit to `minutes` when it is longer: every visit write with a time calls it. */
export async function noteVisitSpan(db: Executor, accountId: string, minutes: number): Promise<void> {
  const whole = Math.ceil(minutes);
  if (whole <= (await longestVisitMinutes(db, accountId))) return;
  await db
    .insertInto('visit_spans')
    .values({ account_id: accountId, longest_minutes: whole })
    .onConflict((conflict) =>
      conflict
        .column('account_id')
        .doUpdateSet({ longest_minutes: whole })
        .where('visit_spans.longest_minutes', '<', whole),
    )
    .execute();
}

/**
 * The other visits (not canceled) of each of `memberIds` whose time overlaps [start, end), half-open: from the
 * member's index (account_id, team_member_id, start_at), reaching back at most the longest a visit lasts.
 */
export async function overlapping(
  db: Executor,
  accountId: string,
  visitId: string,
  memberIds: readonly string[],
  start: string,
  end: string,
): Promise<Array<{ team_member_id: string; visit_id: string; start_at: string; end_at: string }>> {
  const found: Array<{ team_member_id: string; visit_id: string; start_at: string; end_at: string }> = [];
  const lookback = lookbackFrom(start, await longestVisitMinutes(db, accountId));
  for (const memberId of memberIds) {
    const rows = await db
      .selectFrom('visit_assignees')
      .select(['team_member_id', 'visit_id', 'start_at', 'end_at'])
      .where('account_id', '=', accountId)
      .where('team_member_id', '=', memberId)
      .where('start_at', '>=', lookback)
      .where('start_at', '<', end)
      .where(sql<SqlBool>`(end_at > ${start}) is true`)
      .where(sql<SqlBool>`(status <> 'canceled') is true`)
      .where('visit_id', '<>', visitId)
      .orderBy('start_at')
      .orderBy('visit_id')
      .limit(100)
      .execute();
    for (const row of rows)
      found.push({
        team_member_id: row.team_member_id,
        visit_id: row.visit_id,
        start_at: row.start_at as string,
        end_at: row.end_at as string,
      });
  }
  return found;
}

// --- the job's summary and mirrors ---

/**
 * Recomputes the job's `visits_summary` columns and, once it has a visit, its scheduled_start/end mirrors
 * (earliest start, latest end of the visits that are not canceled). The caller holds the job's lock.
 */
export async function refreshJobOfVisits(db: Executor, accountId: string, jobId: string): Promise<void> {
  const open = sql.join(OPEN_STATUSES.map((status) => sql.lit(status)));
  const next = sql.join(LATE_STATUSES.map((status) => sql.lit(status)));
  const row = await db
    .selectFrom('visits')
    .select([
      sql<number | string>`count(*)`.as('total'),
      sql<number | string | null>`sum(case when status in (${open}) then 1 else 0 end)`.as('open'),
      sql<number | string | null>`sum(case when status = 'completed' then 1 else 0 end)`.as('completed'),
      sql<string | null>`min(case when status in (${next}) then start_at end)`.as('next_start_at'),
      sql<string | null>`min(case when status <> 'canceled' then start_at end)`.as('first_start'),
      sql<string | null>`max(case when status <> 'canceled' then end_at end)`.as('last_end'),
    ])
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .executeTakeFirstOrThrow();
  const total = Number(row.total);
  await db
    .updateTable('jobs')
    .set({
      visits_total: total,
      visits_open: Number(row.open ?? 0),
      visits_completed: Number(row.completed ?? 0),
      visits_next_start_at: instantText(row.next_start_at),
      ...(total > 0 ? { scheduled_start: instantText(row.first_start), scheduled_end: instantText(row.last_end) } : {}),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', jobId)
    .execute();
}

/** An aggregate of a timestamp column: PostgreSQL's driver may hand back a Date, SQLite the stored text. */
function instantText(value: string | Date | null): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

// --- the list without a window ---

export interface VisitFilters extends TimeBounds {
  external_id?: string | undefined;
  job_id?: string | undefined;
  client_id?: string | undefined;
  property_id?: string | undefined;
  schedule_id?: string | undefined;
  statuses?: VisitStatus[] | undefined;
  assignee_ids?: string[] | undefined;
  unassigned?: boolean | undefined;
  /** Late at this instant. */
  late_at?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export async function listVisits(
  db: Executor,
  accountId: string,
  filters: VisitFilters,
  page: PageRequest<VisitRow>,
): Promise<Listed<VisitRow>> {
  return runList(listVisitsPlan(db, accountId, filters, page));
}

/** The conditions of the filters that no driving index answers. */
export function residualConditions(accountId: string, filters: VisitFilters): Condition[] {
  const conditions: Condition[] = [];
  if (filters.assignee_ids !== undefined)
    conditions.push({
      column: 'assignee_id',
      expression: sql<SqlBool>`id in (select visit_id from visit_assignees where visit_assignees.account_id = ${accountId} and team_member_id in (${sql.join(filters.assignee_ids)}))`,
    });
  if (filters.unassigned) conditions.push({ column: 'assignee_count', expression: sql<SqlBool>`assignee_count = 0` });
  if (filters.late_at !== undefined)
    conditions.push({
      column: 'late',
      expression: sql<SqlBool>`status in (${sql.join(LATE_STATUSES.map((status) => sql.lit(status)))}) and end_at < ${filters.late_at}`,
    });
  return conditions;
}

/** An ordinary keyset list (no calendar window): the list plan of every other resource. */
export function listVisitsPlan(db: Executor, accountId: string, filters: VisitFilters, page: PageRequest<VisitRow>) {
  const conditions = [
    ...timeBoundConditions(filters),
    ...residualConditions(accountId, filters),
    ...(filters.custom ?? []),
  ];
  const keys = keysOf({
    external_id: filters.external_id,
    job_id: filters.job_id,
    client_id: filters.client_id,
    property_id: filters.property_id,
    schedule_id: filters.schedule_id,
  });
  const among = filters.statuses && { column: 'status', values: filters.statuses };
  return listPlan(
    db,
    {
      table: 'visits',
      columns: VISIT_COLUMNS,
      scope: { account_id: accountId },
      computed: (from) => tagNamesColumn(db, from, accountId),
    },
    { keys, among, conditions },
    page,
  );
}

/** A materialised visit was deleted: its key joins its schedule's exdates (visit_schedule_exdates, §18). */
export async function addScheduleExdate(db: Executor, visit: VisitRow, now: string): Promise<void> {
  if (visit.schedule_id === null || visit.occurrence_key === null) return;
  await db
    .insertInto('visit_schedule_exdates')
    .values({
      account_id: visit.account_id,
      schedule_id: visit.schedule_id,
      occurrence_key: visit.occurrence_key,
      created_at: now,
    })
    .onConflict((conflict) => conflict.columns(['schedule_id', 'occurrence_key']).doNothing())
    .execute();
}
