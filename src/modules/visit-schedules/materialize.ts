// Materialisation (docs/api-contract.md §18): the occurrences from today (in the schedule's zone) to its
// horizon become visit rows, at most 500 ahead, each once. The schedule's row is locked first, so two
// instances materialising one schedule take turns and the second finds every key made; the unique
// (schedule_id, occurrence_key) of visits backs that up. A crash loses nothing: each schedule's batch is one
// transaction, and the next run makes what is missing.
import { Temporal } from '@js-temporal/polyfill';
import type { VisitScheduleRow } from '../../db/types.js';
import { fromJson } from '../../db/values.js';
import type { Context } from '../../kernel/context.js';
import { createVisitsForJob, type NewVisit } from '../visits/index.js';
import type { Occurrence } from './recurrence-expansion.js';
import { occurrencesOnDates } from './recurrence-expansion.js';
import type { Recurrence } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import type { Template } from './visit-schedules.schemas.js';

export const MAX_AHEAD = 500;

export function ruleOf(row: VisitScheduleRow, exdates: string[]): Recurrence {
  return { ...fromJson<Omit<Recurrence, 'exdates'>>(row.recurrence), exdates };
}

export const durationsOf = (row: VisitScheduleRow) => ({
  duration_minutes: row.duration_minutes === null ? null : Number(row.duration_minutes),
  duration_days: row.duration_days === null ? null : Number(row.duration_days),
});

/** Whether an occurrence falls in the schedule's pause (local dates, inclusive). */
export function inPause(
  row: Pick<VisitScheduleRow, 'paused_from' | 'paused_until'>,
  date: Temporal.PlainDate,
): boolean {
  if (row.paused_from === null) return false;
  if (Temporal.PlainDate.compare(date, row.paused_from) < 0) return false;
  return row.paused_until === null || Temporal.PlainDate.compare(date, row.paused_until) <= 0;
}

/** A visit's input for one occurrence, from the template. */
export function visitInputOf(row: VisitScheduleRow, template: Template, occurrence: Occurrence): NewVisit {
  const time =
    row.duration_days !== null
      ? {
          all_day: true,
          start_date: occurrence.date.toString(),
          end_date: occurrence.date.add({ days: Number(row.duration_days) - 1 }).toString(),
        }
      : {
          start_at: occurrence.start.toInstant().toString({ smallestUnit: 'millisecond' }),
          duration_minutes: Number(row.duration_minutes),
        };
  return {
    ...time,
    timezone: occurrence.start.timeZoneId,
    ...(template.title !== null ? { title: template.title } : {}),
    ...(template.instructions !== null ? { instructions: template.instructions } : {}),
    assignee_ids: template.assignee_ids,
    ...(template.arrival_window_minutes !== null ? { arrival_window_minutes: template.arrival_window_minutes } : {}),
    schedule_id: row.id,
    occurrence_key: occurrence.occurrence_key,
  } as NewVisit;
}

/**
 * Makes the missing visits of a schedule, whose row the caller holds locked in `tx`; answers the row with
 * `materialized_through` moved on. Ended schedules make none. With `most`, at most that many visits are made
 * and `done` says whether any remain (the worker makes a schedule's visits a few per transaction).
 */
export async function materializeLocked(tx: Context, row: VisitScheduleRow): Promise<VisitScheduleRow> {
  return (await materializeSome(tx, row, Number.POSITIVE_INFINITY)).row;
}

export async function materializeSome(
  tx: Context,
  row: VisitScheduleRow,
  most: number,
): Promise<{ row: VisitScheduleRow; done: boolean }> {
  if (row.status === 'ended') return { row, done: true };
  const exdates = (await repository.exdatesOf(tx.db, tx.accountId, [row.id])).get(row.id) ?? [];
  const rule = ruleOf(row, exdates);
  const today = Temporal.Instant.fromEpochMilliseconds(tx.clock.now().getTime())
    .toZonedDateTimeISO(rule.timezone)
    .toPlainDate();
  const through = today.add({ days: Number(row.horizon_days) });
  const wanted = occurrencesOnDates(rule, durationsOf(row), today, through)
    .filter((one) => !one.skipped && !inPause(row, one.date))
    .slice(0, MAX_AHEAD);
  const made = await repository.materializedKeys(
    tx.db,
    row.id,
    wanted.map((one) => one.occurrence_key),
  );
  const missing = wanted.filter((one) => !made.has(one.occurrence_key));
  if (missing.length > most) {
    await createVisitsForJob(
      tx,
      row.job_id,
      missing.slice(0, most).map((one) => visitInputOf(row, fromJson<Template>(row.template), one)),
      { fromSchedule: true },
    );
    return { row, done: false };
  }
  const template = fromJson<Template>(row.template);
  if (missing.length > 0)
    await createVisitsForJob(
      tx,
      row.job_id,
      missing.map((one) => visitInputOf(row, template, one)),
      { fromSchedule: true },
    );
  const last = wanted.length === MAX_AHEAD ? (wanted.at(-1)?.date ?? through) : through;
  const materialized_through = last.toString();
  if (materialized_through === row.materialized_through) return { row, done: true };
  const updated = (await repository.updateSchedule(tx.db, tx.accountId, row.id, { materialized_through })) ?? {
    ...row,
    materialized_through,
  };
  return { row: updated, done: true };
}
