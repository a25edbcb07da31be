// GET /v1/visits (docs/api-contract.md §17): with a window (`from`/`to` instants, or `from_date`/`to_date` whole
// local days in a zone) it is the calendar, in (start_at, id) order; without one, an ordinary keyset list.
import { isUuid } from '../../core/deps.js';
import { fieldError } from '../../core/errors.js';
import { addDaysToDate, canonicalTimeZone, daysBetween, normalizedInstant, startOfLocalDay } from '../../core/time.js';
import { mapPage, type Page, pageRequest, toPage } from '../../db/index.js';
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
    if (new Date(window.to).getTime() - new Date(window.from).getTime() > MAX_OPEN_WINDOW_DAYS * DAY_MS)
      assertBounded(query, 'to');
    return window;
  }
  if (!dates) return undefined;
  if (query.from_date === undefined) throw fieldError('from_date', 'is required with to_date');
  if (query.to_date === undefined) throw fieldError('to_date', 'is required with from_date');
  const days = daysBetween(query.from_date, query.to_date) + 1;
  if (days < 1) throw fieldError('to_date', 'must not be before from_date');
  if (days > MAX_OPEN_WINDOW_DAYS) assertBounded(query, 'to_date');
  const zone =
    query.timezone !== undefined
      ? canonicalTimeZone('timezone', query.timezone)
      : await findAccountTimezone(ctx.db, ctx.accountId);
  // Whole local days: a daylight-saving day is 23 or 25 hours long; to_date is inclusive.
  return { from: startOfLocalDay(query.from_date, zone), to: startOfLocalDay(addDaysToDate(query.to_date, 1), zone) };
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

/**
 * The not yet materialised occurrences of visit schedules that overlap a window, in start_at order (§18's
 * `include_projected`). Passed in by the composition: visit schedules stand above visits in the module order.
 */
export type CalendarProjector = (
  ctx: Context,
  window: CalendarWindow,
  filters: ProjectionFilters,
) => Promise<ProjectedVisit[]>;

/**
 * The projected items a page of the calendar holds: those starting after the page's cursor (the whole window
 * on the first page) and up to its last visit's start (to the window's end on the last page), so each lands on
 * exactly one page, in start_at order among the visits. A page may so hold more than `limit` items.
 */
async function withProjected(
  ctx: Context,
  page: Page<Visit>,
  after: string | undefined,
  window: CalendarWindow,
  filters: ProjectionFilters,
  project: CalendarProjector,
): Promise<Page<Visit | ProjectedVisit>> {
  const last = page.items.at(-1)?.start_at ?? undefined;
  // Only the part of the window this page can hold is projected: from its cursor to its last visit's start.
  const bounds = {
    from: after !== undefined && after > window.from ? after : window.from,
    to: page.hasMore && last ? new Date(new Date(last).getTime() + 1).toISOString() : window.to,
  };
  const projected = (await project(ctx, bounds, filters)).filter(
    (item) =>
      (after === undefined || (item.start_at as string) > after) &&
      (!page.hasMore || last === undefined || (item.start_at as string) <= last),
  );
  if (projected.length === 0) return widened(page);
  const items: Array<Visit | ProjectedVisit> = [...page.items, ...projected];
  items.sort((a, b) => ((a.start_at as string) < (b.start_at as string) ? -1 : a.start_at === b.start_at ? 0 : 1));
  // No early end by bytes among projected items: a page of visits and occurrences is far below the bound.
  return { items, hasMore: page.hasMore, nextCursor: page.nextCursor };
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
  const filters: repository.VisitFilters = {
    ...query,
    statuses: parseStatusFilter(query.status, VISIT_STATUSES),
    assignee_ids: parseAssignees(query.assignee_id),
    unassigned: query.unassigned === true,
    late_at: query.late === true ? ctx.clock.now().toISOString() : undefined,
  };
  const longest = window ? await repository.longestVisitMinutes(ctx.db, ctx.accountId) : 0;
  const listed = window
    ? { rows: await runCalendar(calendarReads(ctx.db, ctx.accountId, { ...window, longest }, filters, page), page) }
    : await repository.listVisits(ctx.db, ctx.accountId, filters, page);
  const rowsPage = toPage(listed.rows, page, 'resumeAfter' in listed ? listed.resumeAfter : undefined);
  const visits = mapPage(rowsPage, await presentVisits(ctx, rowsPage.items, query.include === 'conflicts'));
  // Projected occurrences are scheduled, never late, and belong to no visit status but `scheduled`.
  const projectable =
    query.include_projected === true &&
    window !== undefined &&
    project !== undefined &&
    query.late !== true &&
    query.external_id === undefined &&
    (filters.statuses === undefined || filters.statuses.includes('scheduled'));
  if (!projectable) return widened(visits);
  const after = page.after === undefined ? undefined : String(page.after.value);
  return withProjected(ctx, visits, after, window, filters, project);
}
