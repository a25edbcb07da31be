// The calendar (docs/api-contract.md §17): the visits that overlap a window [from, to), in (start_at, id) order,
// a page at a time. Each read is one range of an index ending in (start_at, id): the account's, a job's, a
// client's, a property's, a schedule's, one status's, the unassigned visits' (a partial index), or one
// member's on visit_assignees. A visit lasts at most 31 days, so the range starts 31 days before `from`;
// `end_at > from` is then checked on the rows of that range. Several members or statuses: one read per value,
// each at most a page, merged here.
import { sql, type SqlBool } from 'kysely';
import { applyPage, type Executor, type PageRequest } from '../../db/index.js';
import type { VisitRow } from '../../db/types.js';
import { LATE_STATUSES, type VisitStatus } from './visits.lifecycle.js';
import { tagNamesColumn } from '../tags/index.js';
import { lookbackFrom, VISIT_COLUMNS, type VisitFilters } from './visits.repository.js';

export interface CalendarWindow {
  from: string;
  to: string;
  /** The account's longest visit in minutes (visit_spans): how far back before `from` a visit may start. */
  longest?: number | undefined;
}

/** The filters a calendar read checks on the rows of its driving range (never an index of their own). */
function residual(
  filters: VisitFilters,
  driving: string,
  accountId: string,
  alias = '',
): Array<ReturnType<typeof sql<SqlBool>>> {
  const column = (name: string) => sql.ref(`${alias}${name}`);
  const conditions: Array<ReturnType<typeof sql<SqlBool>>> = [];
  for (const key of ['job_id', 'client_id', 'property_id', 'schedule_id', 'external_id'] as const) {
    const value = filters[key];
    if (value !== undefined && key !== driving) conditions.push(sql<SqlBool>`(${column(key)} = ${value}) is true`);
  }
  if (filters.unassigned && driving !== 'unassigned')
    conditions.push(sql<SqlBool>`(${column('assignee_count')} = 0) is true`);
  if (filters.statuses !== undefined && driving !== 'status')
    conditions.push(sql<SqlBool>`(${column('status')} in (${sql.join(filters.statuses)})) is true`);
  if (filters.late_at !== undefined) conditions.push(sql<SqlBool>`(${column('end_at')} < ${filters.late_at}) is true`);
  if (filters.assignee_ids !== undefined && driving !== 'assignee_id')
    conditions.push(
      sql<SqlBool>`${column('id')} in (select visit_id from visit_assignees where visit_assignees.account_id = ${accountId} and team_member_id in (${sql.join(filters.assignee_ids)}))`,
    );
  // Custom field filters: each a probe of the value rows' index by the row's id.
  for (const condition of filters.custom ?? []) conditions.push(sql<SqlBool>`(${condition.expression}) is true`);
  return conditions;
}

/** The statuses a read is limited to: the filter's, narrowed to the late ones with late=true. */
function statusesOf(filters: VisitFilters): VisitStatus[] | undefined {
  if (filters.late_at === undefined) return filters.statuses;
  return (filters.statuses ?? [...LATE_STATUSES]).filter((status) => LATE_STATUSES.includes(status));
}

/** The reads a calendar page makes (the query-plan test explains each); their rows are merged by `runCalendar`. */
export function calendarReads(
  db: Executor,
  accountId: string,
  window: CalendarWindow,
  filters: VisitFilters,
  page: PageRequest<VisitRow>,
) {
  // A late visit ended before now, so it started before now too.
  const upper = filters.late_at !== undefined && filters.late_at < window.to ? filters.late_at : window.to;
  const lookback = lookbackFrom(window.from, window.longest);
  const statuses = statusesOf(filters);
  const effective = { ...filters, statuses };

  if (filters.assignee_ids !== undefined) {
    return [...new Set(filters.assignee_ids)].map((memberId) => {
      // Not aliased: the query-plan test finds each table's reads by name.
      let query = db
        .selectFrom('visit_assignees')
        .innerJoin('visits', 'visits.id', 'visit_assignees.visit_id')
        .select(VISIT_COLUMNS.map((column) => `visits.${column}` as const))
        .select(tagNamesColumn(db, 'visits'))
        .where('visit_assignees.account_id', '=', accountId)
        .where('visit_assignees.team_member_id', '=', memberId)
        .where('visit_assignees.start_at', '>=', lookback)
        .where('visit_assignees.start_at', '<', upper)
        .where(sql<SqlBool>`(visit_assignees.end_at > ${window.from}) is true`);
      for (const condition of residual(effective, 'assignee_id', accountId, 'visits.')) query = query.where(condition);
      if (page.after)
        query = query.where(
          sql<SqlBool>`(visit_assignees.start_at >= ${page.after.value} and (visit_assignees.start_at > ${page.after.value} or visit_assignees.visit_id > ${page.after.id}))`,
        );
      return query
        .orderBy('visit_assignees.start_at')
        .orderBy('visit_assignees.visit_id')
        .limit(page.limit + 1);
    });
  }

  const base = (equal?: (query: ReturnType<typeof start>) => ReturnType<typeof start>) => {
    let query = start();
    if (equal) query = equal(query);
    query = query
      .where('start_at', '>=', lookback)
      .where('start_at', '<', upper)
      .where(sql<SqlBool>`(end_at > ${window.from}) is true`);
    return query;
  };
  const start = () =>
    db
      .selectFrom('visits')
      .select(VISIT_COLUMNS)
      .select(tagNamesColumn(db, 'visits'))
      .where('account_id', '=', accountId);
  const driving = (['job_id', 'client_id', 'property_id', 'schedule_id'] as const).find(
    (key) => filters[key] !== undefined,
  );
  const finish = (query: ReturnType<typeof start>, drivingName: string) => {
    for (const condition of residual(effective, drivingName, accountId)) query = query.where(condition);
    return applyPage(query, page);
  };
  if (driving !== undefined)
    return [
      finish(
        base((query) => query.where(driving, '=', filters[driving] as string)),
        driving,
      ),
    ];
  if (filters.unassigned)
    return [
      finish(
        base((query) => query.where(sql<SqlBool>`assignee_count = 0`)),
        'unassigned',
      ),
    ];
  if (statuses !== undefined)
    return [...new Set(statuses)].map((status) =>
      finish(
        base((query) => query.where('status', '=', status)),
        'status',
      ),
    );
  return [finish(base(), 'none')];
}

/** Runs the reads and merges their rows in (start_at, id) order, each visit once, one more than the page. */
export async function runCalendar(
  reads: ReturnType<typeof calendarReads>,
  page: PageRequest<VisitRow>,
): Promise<VisitRow[]> {
  const rows = new Map<string, VisitRow>();
  for (const read of reads) for (const row of (await read.execute()) as VisitRow[]) rows.set(row.id, row);
  return [...rows.values()]
    .sort((a, b) =>
      (a.start_at as string) < (b.start_at as string)
        ? -1
        : (a.start_at as string) > (b.start_at as string)
          ? 1
          : a.id < b.id
            ? -1
            : a.id > b.id
              ? 1
              : 0,
    )
    .slice(0, page.limit + 1);
}
