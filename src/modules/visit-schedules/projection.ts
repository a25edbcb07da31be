// The calendar's `include_projected` (docs/api-contract.md §17, §18): the occurrences of open visit schedules
// that overlap a window and have no visit yet, shaped as visits with `projected: true` and `id: null`, carrying
// `schedule_id` and `occurrence_key` (§21). Skipped and paused occurrences are not projected.
import { Temporal } from '@js-temporal/polyfill';
import { fromJson } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import type { CalendarProjector, ProjectedVisit } from '../visits/index.js';
import { durationsOf, inPause, ruleOf } from './materialize.js';
import { occurrenceOn, ruleDates } from './recurrence-expansion.js';
import { occurrenceKey, type Recurrence } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import type { Template } from './visit-schedules.schemas.js';

const text = (instant: Temporal.Instant) => instant.toString({ smallestUnit: 'millisecond' });
const local = (value: Temporal.ZonedDateTime) => value.toPlainDateTime().toString({ smallestUnit: 'minute' });

export const projectOccurrences: CalendarProjector = async (ctx: Context, window, filters) => {
  const schedules = await repository.schedulesToProject(ctx.db, ctx.accountId, filters);
  if (schedules.length === 0) return [];
  const exdates = await repository.exdatesOf(
    ctx.db,
    ctx.accountId,
    schedules.map((row) => row.id),
  );
  const from = Temporal.Instant.from(window.from);
  const to = Temporal.Instant.from(window.to);
  // The window's local dates, once per zone (most schedules of an account share one).
  const dates = new Map<string, { first: Temporal.PlainDate; last: Temporal.PlainDate }>();
  const datesIn = (zone: string) => {
    let found = dates.get(zone);
    if (!found) {
      found = {
        first: from.toZonedDateTimeISO(zone).toPlainDate(),
        last: to.toZonedDateTimeISO(zone).toPlainDate(),
      };
      dates.set(zone, found);
    }
    return found;
  };
  // First the dates and keys that may overlap the window (cached expansion, no zone arithmetic), neither skipped
  // nor paused; then, in one read, which have a visit; only the others' instants are computed.
  const candidates: Array<{
    row: repository.ProjectableSchedule;
    rule: Recurrence;
    date: Temporal.PlainDate;
    key: string;
  }> = [];
  for (const row of schedules) {
    const rule = ruleOf(row, exdates.get(row.id) ?? []);
    const skipped = new Set(rule.exdates);
    const { first, last } = datesIn(rule.timezone);
    // An occurrence that started up to its length (and a day for the zone) before the window overlaps it.
    const margin = (row.duration_days === null ? 1 : Number(row.duration_days)) + 1;
    for (const date of ruleDates(rule, first.subtract({ days: margin }), last.add({ days: 1 }))) {
      const key = occurrenceKey(rule, date);
      if (!skipped.has(key) && !inPause(row, date)) candidates.push({ row, rule, date, key });
    }
  }
  if (candidates.length === 0) return [];
  const made = await repository.materializedAmong(
    ctx.db,
    [...new Set(candidates.map((one) => one.row.id))],
    candidates.map((one) => one.key),
  );
  const items: ProjectedVisit[] = [];
  const none = new Set<string>();
  for (const { row, rule, date, key } of candidates) {
    if (made.has(`${row.id}|${key}`)) continue;
    const one = occurrenceOn(rule, durationsOf(row), date, none);
    const template = fromJson<Template>(row.template);
    const allDay = row.duration_days !== null;
    const start = one.start.toInstant();
    const end = one.end.toInstant();
    if (Temporal.Instant.compare(start, to) >= 0 || Temporal.Instant.compare(end, from) <= 0) continue;
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
      start_at: text(start),
      end_at: text(end),
      local_start: local(one.start),
      local_end: local(one.end),
      start_date: allDay ? one.date.toString() : null,
      end_date: allDay ? one.end.toPlainDate().subtract({ days: 1 }).toString() : null,
      duration_minutes: Math.round(start.until(end).total('minutes')),
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
      occurrence_key: one.occurrence_key,
      is_exception: false,
      external_id: null,
      metadata: {},
      created_at: row.updated_at,
      updated_at: row.updated_at,
    });
  }
  return items.sort((a, b) => String(a.start_at).localeCompare(String(b.start_at)));
};
