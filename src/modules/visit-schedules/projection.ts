// The calendar's `include_projected` (docs/api-contract.md §17, §18): the occurrences of open visit schedules
// that overlap a window and have no visit yet, shaped as visits with `projected: true` and `id: null`, carrying
// `schedule_id` and `occurrence_key` (§21). Skipped and paused occurrences are not projected.
import { Temporal } from '@js-temporal/polyfill';
import { fromJson } from '../../db/values.js';
import type { Context } from '../../kernel/context.js';
import type { CalendarProjector, ProjectedVisit } from '../visits/index.js';
import { durationsOf, inPause, ruleOf } from './materialize.js';
import { occurrencesBetween } from './recurrence-expansion.js';
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
  const items: ProjectedVisit[] = [];
  for (const row of schedules) {
    const rule = ruleOf(row, exdates.get(row.id) ?? []);
    const found = occurrencesBetween(rule, durationsOf(row), from, to, true).filter(
      (one) => !one.skipped && !inPause(row, one.date),
    );
    if (found.length === 0) continue;
    const made = await repository.materializedKeys(
      ctx.db,
      row.id,
      found.map((one) => one.occurrence_key),
    );
    const template = fromJson<Template>(row.template);
    const allDay = row.duration_days !== null;
    for (const one of found) {
      if (made.has(one.occurrence_key)) continue;
      const start = one.start.toInstant();
      const end = one.end.toInstant();
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
  }
  return items.sort((a, b) => String(a.start_at).localeCompare(String(b.start_at)));
};
