// The calendar's `include_projected` (docs/api-contract.md §17, §18): the occurrences of open visit schedules
// that overlap a window and have no visit yet, shaped as visits with `projected: true` and `id: null`, carrying
// `schedule_id` and `occurrence_key` (§21). Skipped and paused occurrences are not projected.
import { Temporal } from '@js-temporal/polyfill';
import { Lru } from '../../core/lru.js';
import { fromJson } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import type { CalendarProjector, ProjectedVisit } from '../visits/index.js';
import { durationsOf, inPause, ruleOf } from './materialize.js';
import { dayOf, fitsYearsOnDay, occurrenceOn, ruleDays } from './recurrence-expansion.js';
import { occurrenceKey, type Recurrence } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import type { Template } from './visit-schedules.schemas.js';

const text = (instant: Temporal.Instant) => instant.toString({ smallestUnit: 'millisecond' });
const local = (value: Temporal.ZonedDateTime) => value.toPlainDateTime().toString({ smallestUnit: 'minute' });

/** A projected item's place in the calendar's order: (start_at, schedule_id), as a visit's is (start_at, id). */
const placeOf = (item: ProjectedVisit) => ({ value: item.start_at as string, id: item.schedule_id as string });
const beyond = (item: ProjectedVisit, after: { value: string; id: string }) => {
  const place = placeOf(item);
  return place.value > after.value || (place.value === after.value && place.id > after.id);
};

/** The first span of starts a page projects; each next span is twice as long, until the page is full. */
const FIRST_SPAN_HOURS = 8 * 24;

/** Outside a transaction, other requests run between every this many schedules or occurrences of a span. */
const TURN = 100;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An occurrence's instants and local times, as the projection shows them. */
interface Times {
  /** Epoch milliseconds (compared as numbers: the polyfill's comparisons are slow). */
  start: number;
  end: number;
  start_at: string;
  end_at: string;
  local_start: string;
  local_end: string;
  start_date: string | null;
  end_date: string | null;
  duration_minutes: number;
}

/**
 * The times of occurrences, by zone, local date, time of day and length: a pure function of its key (the
 * zone's rules are the runtime's, fixed while it runs), so never stale. Schedules share zones, dates and
 * times, and the polyfill's zone arithmetic is most of a projection's cost.
 */
const timesCache = new Lru<string, Times>(20_000);

export function timesOf(
  rule: Recurrence,
  durations: ReturnType<typeof durationsOf>,
  date: Temporal.PlainDate,
  day: number,
): Times {
  const key = `${rule.timezone}|${day}|${rule.time}|${durations.duration_minutes}|${durations.duration_days}`;
  let times = timesCache.get(key);
  if (times === undefined) {
    const one = occurrenceOn(rule, durations, date, NONE);
    const start = one.start.toInstant();
    const end = one.end.toInstant();
    const allDay = durations.duration_days !== null;
    times = {
      start: start.epochMilliseconds,
      end: end.epochMilliseconds,
      start_at: text(start),
      end_at: text(end),
      local_start: local(one.start),
      local_end: local(one.end),
      start_date: allDay ? one.date.toString() : null,
      end_date: allDay ? one.end.toPlainDate().subtract({ days: 1 }).toString() : null,
      duration_minutes: Math.round(start.until(end).total('minutes')),
    };
    timesCache.set(key, times);
  }
  return times;
}
const NONE: ReadonlySet<string> = new Set();

/**
 * The first `page.limit` projected items in the calendar's order (start_at, then schedule_id) after `page.after`,
 * starting at or before `page.startsUpTo` when given. The starts are projected a span at a time (8 days, then
 * twice as long each time) and projection stops once the page has its items: a page costs what it holds, not
 * what the window holds.
 */
export const projectOccurrences: CalendarProjector = async (ctx: Context, window, filters, page) => {
  if (page.limit <= 0) return [];
  const schedules = await repository.schedulesToProject(ctx.db, ctx.accountId, filters);
  if (schedules.length === 0) return [];
  const exdates = await repository.exdatesOf(
    ctx.db,
    ctx.accountId,
    schedules.map((row) => row.id),
  );
  const rules = schedules.map((row) => ({ row, rule: ruleOf(row, exdates.get(row.id) ?? []) }));
  const from = Temporal.Instant.from(window.from);
  const to = Temporal.Instant.from(window.to);
  // An occurrence that started up to its length before the window overlaps it (an all-day one: a day longer or
  // shorter across a change of offset).
  const longestHours = Math.max(
    ...schedules.map((row) =>
      row.duration_days !== null ? Number(row.duration_days) * 24 + 2 : Number(row.duration_minutes) / 60 + 1,
    ),
  );
  const earliest = from.subtract({ hours: Math.ceil(longestHours) });
  const after = page.after ? Temporal.Instant.from(page.after.value) : undefined;
  let lo = after && Temporal.Instant.compare(after, earliest) > 0 ? after : earliest;
  // Starts at or before `startsUpTo` (the page's last visit), and before the window's end.
  const bound = page.startsUpTo !== undefined ? Temporal.Instant.from(page.startsUpTo).add({ milliseconds: 1 }) : to;
  const upper = Temporal.Instant.compare(bound, to) < 0 ? bound : to;
  const found: ProjectedVisit[] = [];
  let span = FIRST_SPAN_HOURS;
  while (Temporal.Instant.compare(lo, upper) < 0 && found.length < page.limit) {
    const spanEnd = lo.add({ hours: span });
    const hi = Temporal.Instant.compare(spanEnd, upper) < 0 ? spanEnd : upper;
    const items = await projectSpan(ctx, rules, lo, hi, from);
    const { after: cursor } = page;
    found.push(...(cursor ? items.filter((item) => beyond(item, cursor)) : items));
    lo = hi;
    span *= 2;
  }
  return found.slice(0, page.limit);
};

/** The projected items starting in [lo, hi) that overlap the window (end after `from`), in the calendar's order. */
async function projectSpan(
  ctx: Context,
  rules: Array<{ row: repository.ProjectableSchedule; rule: Recurrence }>,
  lo: Temporal.Instant,
  hi: Temporal.Instant,
  from: Temporal.Instant,
): Promise<ProjectedVisit[]> {
  // First the dates and keys that may start in the span (cached expansion, no zone arithmetic), neither skipped
  // nor paused; then, in one read, which have a visit; only the others' instants are computed.
  const candidates: Array<{
    row: repository.ProjectableSchedule;
    rule: Recurrence;
    date: Temporal.PlainDate;
    day: number;
    key: string;
  }> = [];
  const inTurns = !ctx.db.isTransaction;
  // A local date's occurrence starts within a day of that date's midnight in any zone: the dates, per zone.
  const daysByZone = new Map<string, [number, number]>();
  for (const [index, { row, rule }] of rules.entries()) {
    if (inTurns && index % TURN === TURN - 1) await yieldTurn();
    const skipped = new Set(rule.exdates);
    let days = daysByZone.get(rule.timezone);
    if (days === undefined) {
      days = [dayOf(lo.toZonedDateTimeISO(rule.timezone)) - 1, dayOf(hi.toZonedDateTimeISO(rule.timezone)) + 1];
      daysByZone.set(rule.timezone, days);
    }
    const found = ruleDays(rule, days[0], days[1]);
    for (const [at, date] of found.dates.entries()) {
      const key = occurrenceKey(rule, date);
      const day = found.days[at] as number;
      if (!skipped.has(key) && !inPause(row, date) && fitsYearsOnDay(rule, durationsOf(row), date, day))
        candidates.push({ row, rule, date, day, key });
    }
  }
  if (candidates.length === 0) return [];
  const made = await repository.materializedAmong(
    ctx.db,
    [...new Set(candidates.map((one) => one.row.id))],
    candidates.map((one) => one.key),
  );
  const items: ProjectedVisit[] = [];
  const [loMs, hiMs, fromMs] = [lo.epochMilliseconds, hi.epochMilliseconds, from.epochMilliseconds];
  for (const [index, { row, rule, date, day, key }] of candidates.entries()) {
    if (inTurns && index % TURN === TURN - 1) await yieldTurn();
    if (made.has(`${row.id}|${key}`)) continue;
    const times = timesOf(rule, durationsOf(row), date, day);
    const { start, end } = times;
    if (start < loMs || start >= hiMs || end <= fromMs) continue;
    const template = fromJson<Template>(row.template);
    const allDay = row.duration_days !== null;
    items.push({
      id: null,
      projected: true,
      object: 'visit',
      job_id: row.job_id,
      client_id: row.client_id,
      property_id: row.property_id,
      title: template.title ?? row.job_title,
      instructions: template.instructions,
      status: 'scheduled',
      all_day: allDay,
      timezone: rule.timezone,
      start_at: times.start_at,
      end_at: times.end_at,
      local_start: times.local_start,
      local_end: times.local_end,
      start_date: times.start_date,
      end_date: times.end_date,
      duration_minutes: times.duration_minutes,
      arrival_window_minutes: template.arrival_window_minutes,
      assignee_ids: template.assignee_ids,
      conflicts: null,
      is_late: false,
      en_route_at: null,
      started_at: null,
      completed_at: null,
      canceled_at: null,
      cancel_reason: null,
      completion_notes: null,
      schedule_id: row.id,
      occurrence_key: key,
      is_exception: false,
      hold_id: null,
      external_id: null,
      metadata: {},
      custom_fields: {},
      tags: [],
      created_at: row.updated_at,
      updated_at: row.updated_at,
    });
  }
  return items.sort((a, b) => {
    const [x, y] = [placeOf(a), placeOf(b)];
    return x.value < y.value || (x.value === y.value && x.id < y.id) ? -1 : 1;
  });
}
