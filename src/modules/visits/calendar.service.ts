// GET /v1/visits (docs/api-contract.md §17): with a window (`from`/`to` instants, or `from_date`/`to_date` whole
// local days in a zone) it is the calendar, in (start_at, id) order; without one, an ordinary keyset list.
import { customFieldConditions } from '../custom-fields/index.js';
import { tagConditions } from '../tags/index.js';
import { isUuid } from '../../core/deps.js';
import { fieldError } from '../../core/errors.js';
import { addDaysToDate, canonicalTimeZone, daysBetween, normalizedInstant, windowEdge } from '../../core/time.js';
import { mapPage, type Page, type PageRequest, pageRequest, toPage } from '../../db/index.js';
import type { VisitRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { parseStatusFilter } from '../documents/index.js';
import { calendarReads, runCalendar, type CalendarWindow } from './calendar.repository.js';
import { VISIT_STATUSES } from './visits.lifecycle.js';
import * as repository from './visits.repository.js';
import type { ListVisitsInput, ProjectedVisit, Visit } from './visits.schemas.js';
import { presentVisits } from './visits.service.js';

/** A window longer than this needs a filter that bounds it (assignee_id, job_id, client_id or property_id). */
export const MAX_OPEN_WINDOW_DAYS = 62;
const DAY_MS = 86_400_000;
/** A window with `include_projected` is at most this long (§32): a year of occurrences, leap day included. */
export const MAX_PROJECTED_WINDOW_DAYS = 366;

function assertProjectable(query: ListVisitsInput, field: string, days: number): void {
  if (query.include_projected === true && days > MAX_PROJECTED_WINDOW_DAYS)
    throw fieldError(
      field,
      `makes a window longer than ${MAX_PROJECTED_WINDOW_DAYS} days, the most include_projected answers`,
    );
}

/** The window the query asks for, as instants; undefined without one. */
async function windowOf(ctx: Context, query: ListVisitsInput): Promise<CalendarWindow | undefined> {
  const instants = query.from !== undefined || query.to !== undefined;
  const dates = query.from_date !== undefined || query.to_date !== undefined;
  if (instants && dates)
    throw fieldError('from_date', 'give either from and to (instants) or from_date and to_date (local days), not both');
  if (query.timezone !== undefined && !dates) throw fieldError('timezone', 'goes with from_date and to_date');
  if (instants) {
    if (query.from === undefined) throw fieldError('from', 'is required with to');
    if (query.to === undefined) throw fieldError('to', 'is required with from');
    const window = { from: instantOf('from', query.from), to: instantOf('to', query.to) };
    if (window.to <= window.from) throw fieldError('to', 'must be after from');
    const days = (new Date(window.to).getTime() - new Date(window.from).getTime()) / DAY_MS;
    assertProjectable(query, 'to', days);
    if (days > MAX_OPEN_WINDOW_DAYS) assertBounded(query, 'to');
    return window;
  }
  if (!dates) return undefined;
  if (query.from_date === undefined) throw fieldError('from_date', 'is required with to_date');
  if (query.to_date === undefined) throw fieldError('to_date', 'is required with from_date');
  const days = daysBetween(query.from_date, query.to_date) + 1;
  if (days < 1) throw fieldError('to_date', 'must not be before from_date');
  assertProjectable(query, 'to_date', days);
  if (days > MAX_OPEN_WINDOW_DAYS) assertBounded(query, 'to_date');
  const zone =
    query.timezone !== undefined
      ? canonicalTimeZone('timezone', query.timezone)
      : await findAccountTimezone(ctx.db, ctx.accountId);
  // Whole local days: a daylight-saving day is 23 or 25 hours long; to_date is inclusive.
  return { from: windowEdge(query.from_date, zone), to: windowEdge(addDaysToDate(query.to_date, 1), zone) };
}

function instantOf(field: string, value: string): string {
  try {
    return normalizedInstant(value);
  } catch {
    throw fieldError(field, 'must be an RFC 3339 instant with an offset, such as 2026-03-08T09:00:00-07:00');
  }
}

function assertBounded(query: ListVisitsInput, field: string): void {
  if (
    query.assignee_id === undefined &&
    query.job_id === undefined &&
    query.client_id === undefined &&
    query.property_id === undefined
  )
    throw fieldError(
      field,
      `makes a window longer than ${MAX_OPEN_WINDOW_DAYS} days, which needs assignee_id, job_id, client_id or property_id`,
    );
}

function parseAssignees(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const ids = text.split(',').map((id) => id.trim());
  if (ids.length > 50 || ids.some((id) => !isUuid(id)))
    throw fieldError('assignee_id', 'must be a comma-separated list of at most 50 team member ids');
  return ids;
}

/** What a projection of visit schedules is filtered by: the calendar's filters that apply to an occurrence. */
export interface ProjectionFilters {
  job_id?: string | undefined;
  client_id?: string | undefined;
  property_id?: string | undefined;
  schedule_id?: string | undefined;
  assignee_ids?: string[] | undefined;
  unassigned?: boolean | undefined;
}

/** Which projected items a page asks for (§18's `include_projected`, paged with the visits). */
export interface ProjectionPage {
  /** Only items after this place in the calendar's order: (start_at, id), a projected item's id its schedule_id. */
  after?: { value: string; id: string } | undefined;
  /** Only items starting at or before this instant (the first visit the page does not hold). */
  startsUpTo?: string | undefined;
  /** At most this many: the first in the calendar's order. */
  limit: number;
}

/**
 * The not yet materialised occurrences of visit schedules that overlap a window, in the calendar's order (§18's
 * `include_projected`), at most `page.limit`. Passed in by the composition: visit schedules stand above visits
 * in the module order.
 */
export type CalendarProjector = (
  ctx: Context,
  window: CalendarWindow,
  filters: ProjectionFilters,
  page: ProjectionPage,
) => Promise<ProjectedVisit[]>;

/** A calendar item's place: its start and id (a projected item's: its schedule's id), as a cursor carries it. */
interface Place {
  start: string;
  id: string;
  row?: VisitRow;
  projected?: ProjectedVisit;
}

const before = (a: Place, b: Place) => a.start < b.start || (a.start === b.start && a.id < b.id);
const calendarCursor = (start: string, id: string) =>
  Buffer.from(JSON.stringify(['start_at', start, id])).toString('base64url');

/**
 * A calendar page with projected items: the page's visits (one more than the page, read after the cursor) and
 * the projected items after the cursor that come before the first visit the page cannot hold (at most one more
 * than the page), merged in (start_at, id) order and cut to `limit`. The cursor is the last item's place, a
 * visit's or a projected item's, so the next page goes on from there through both; every item may end the page
 * early (§21's bytes).
 */
async function calendarWithProjected(
  ctx: Context,
  rows: VisitRow[],
  page: PageRequest<VisitRow>,
  window: CalendarWindow,
  filters: ProjectionFilters,
  project: CalendarProjector,
  withConflicts: boolean,
): Promise<Page<Visit | ProjectedVisit>> {
  const firstLeftOut = rows.length > page.limit ? (rows[page.limit]?.start_at ?? undefined) : undefined;
  const after = page.after ? { value: String(page.after.value), id: page.after.id } : undefined;
  const projected = await project(ctx, window, filters, {
    after,
    startsUpTo: firstLeftOut,
    limit: page.limit + 1,
  });
  const places: Place[] = [
    ...rows.map((row) => ({ start: row.start_at as string, id: row.id, row })),
    ...projected.map((item) => ({ start: item.start_at as string, id: item.schedule_id as string, projected: item })),
  ].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const held = places.slice(0, page.limit);
  const visits = await presentVisits(
    ctx,
    held.flatMap((place) => (place.row ? [place.row] : [])),
    withConflicts,
  );
  let next = 0;
  const items = held.map((place) => place.projected ?? (visits[next++] as Visit));
  const last = held.at(-1);
  const hasMore = places.length > page.limit;
  return {
    items,
    hasMore,
    nextCursor: hasMore && last ? calendarCursor(last.start, last.id) : null,
    cursorAfter: (item) =>
      calendarCursor(item.start_at as string, item.id ?? ((item as ProjectedVisit).schedule_id as string)),
  };
}

/** A page of visits as a calendar page (whose items may be projected); its early-end cursor is a visit's. */
function widened(page: Page<Visit>): Page<Visit | ProjectedVisit> {
  const { items, hasMore, nextCursor, cursorAfter } = page;
  if (!cursorAfter) return { items, hasMore, nextCursor };
  return { items, hasMore, nextCursor, cursorAfter: (item) => cursorAfter(item as Visit) };
}

export async function listVisits(
  ctx: Context,
  query: ListVisitsInput,
  project?: CalendarProjector,
): Promise<Page<Visit | ProjectedVisit>> {
  const window = await windowOf(ctx, query);
  if (window && query.sort !== undefined && query.sort !== 'start_at')
    throw fieldError('sort', 'a calendar window is always in start_at order');
  if (!window && query.sort !== undefined && query.sort.endsWith('start_at'))
    throw fieldError('sort', 'start_at orders a calendar window: give from and to, or from_date and to_date');
  const page = pageRequest({ ...query, sort: window ? 'start_at' : query.sort }, repository.VISIT_SORTS);
  const custom = [
    ...(await customFieldConditions(ctx.db, ctx.accountId, 'visit', 'visits', query)),
    ...(await tagConditions(ctx.db, ctx.accountId, 'visit', 'visits', query)),
  ];
  const filters: repository.VisitFilters = {
    ...query,
    custom,
    statuses: parseStatusFilter(query.status, VISIT_STATUSES),
    assignee_ids: parseAssignees(query.assignee_id),
    unassigned: query.unassigned === true,
    late_at: query.late === true ? ctx.clock.now().toISOString() : undefined,
  };
  const longest = window ? await repository.longestVisitMinutes(ctx.db, ctx.accountId) : 0;
  const listed = window
    ? { rows: await runCalendar(calendarReads(ctx.db, ctx.accountId, { ...window, longest }, filters, page), page) }
    : await repository.listVisits(ctx.db, ctx.accountId, filters, page);
  // Projected occurrences are scheduled, never late, and belong to no visit status but `scheduled`.
  const projectable =
    query.include_projected === true &&
    window !== undefined &&
    project !== undefined &&
    query.late !== true &&
    query.external_id === undefined &&
    (filters.statuses === undefined || filters.statuses.includes('scheduled'));
  if (projectable)
    return calendarWithProjected(ctx, listed.rows, page, window, filters, project, query.include === 'conflicts');
  const rowsPage = toPage(listed.rows, page, 'resumeAfter' in listed ? listed.resumeAfter : undefined);
  return widened(mapPage(rowsPage, await presentVisits(ctx, rowsPage.items, query.include === 'conflicts')));
}
