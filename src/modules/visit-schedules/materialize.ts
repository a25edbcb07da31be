// Materialisation (docs/api-contract.md §18): the occurrences from today (in the schedule's zone) to its
// horizon become visit rows, at most 500 ahead, each once: a create or change makes the first 50 in its own
// transaction and the schedule worker the rest, a batch per transaction, accounts taking turns (§32). The
// schedule's row is locked first, so two instances materialising one schedule take turns and the second finds
// every key made; the unique (schedule_id, occurrence_key) of visits backs that up. A crash loses nothing: each
// batch of visits is made in one transaction, `materialized_through` moves with it (every wanted occurrence up to
// that date has its visit), and the next run makes what is missing.
// No step holds the event loop for long: the rule is expanded a few cached blocks per turn, an occurrence's
// instants are computed only when its visit is made, and visits are made a slice per turn.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Temporal } from '@js-temporal/polyfill';
import type { VisitScheduleRow } from '../../db/types.js';
import { fromJson } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import { createVisitsForJob, type NewVisit } from '../visits/index.js';
import type { Occurrence } from './recurrence-expansion.js';
import { fitsYears, occurrenceOn, prepareDates, ruleDates } from './recurrence-expansion.js';
import { occurrenceKey, type Recurrence } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import type { Template } from './visit-schedules.schemas.js';

export const MAX_AHEAD = 500;

export function ruleOf(row: Pick<VisitScheduleRow, 'recurrence'>, exdates: string[]): Recurrence {
  return { ...fromJson<Omit<Recurrence, 'exdates'>>(row.recurrence), exdates };
}

export const durationsOf = (row: Pick<VisitScheduleRow, 'duration_minutes' | 'duration_days'>) => ({
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

/** What a schedule wants made now: its occurrences from today to its horizon, neither skipped nor paused, ≤ 500. */
interface Plan {
  row: VisitScheduleRow;
  rule: Recurrence;
  through: Temporal.PlainDate;
  /** The dates and keys wanted, in order (instants are computed only for those that get a visit). */
  wanted: Array<{ date: Temporal.PlainDate; key: string }>;
}

/** Today in the schedule's zone, and the last date of its horizon. */
export function horizonOf(tx: Pick<Context, 'clock'>, row: VisitScheduleRow, rule: Pick<Recurrence, 'timezone'>) {
  const today = Temporal.Instant.fromEpochMilliseconds(tx.clock.now().getTime())
    .toZonedDateTimeISO(rule.timezone)
    .toPlainDate();
  return { today, through: today.add({ days: Number(row.horizon_days) }) };
}

async function planOf(tx: Context, row: VisitScheduleRow): Promise<Plan> {
  const exdates = (await repository.exdatesOf(tx.db, tx.accountId, [row.id])).get(row.id) ?? [];
  const rule = ruleOf(row, exdates);
  const { today, through } = horizonOf(tx, row, rule);
  // Expansion a few blocks per turn (cached after: a worker pass finds them expanded).
  await prepareDates(rule, today, through, yieldToEventLoop);
  const skipped = new Set(exdates);
  const wanted: Plan['wanted'] = [];
  for (const date of ruleDates(rule, today, through)) {
    const key = occurrenceKey(rule, date);
    if (skipped.has(key) || inPause(row, date) || !fitsYears(rule, durationsOf(row), date)) continue;
    wanted.push({ date, key });
    if (wanted.length === MAX_AHEAD) break;
  }
  return { row, rule, through, wanted };
}

async function missingOf(tx: Context, plan: Plan): Promise<Plan['wanted']> {
  const made = await repository.materializedKeys(
    tx.db,
    plan.row.id,
    plan.wanted.map((one) => one.key),
  );
  return plan.wanted.filter((one) => !made.has(one.key));
}

/** Makes the visits of `items` (their instants computed here: Temporal's zone arithmetic is the costly part). */
async function makeVisits(tx: Context, plan: Plan, items: Plan['wanted']): Promise<void> {
  if (items.length === 0) return;
  const { row, rule } = plan;
  const template = fromJson<Template>(row.template);
  const durations = durationsOf(row);
  const none = new Set<string>();
  await createVisitsForJob(
    tx,
    row.job_id,
    items.map((one) => visitInputOf(row, template, occurrenceOn(rule, durations, one.date, none))),
    { fromSchedule: true },
  );
}

/**
 * Records how far the visits are made: every wanted occurrence on or before `materialized_through` has its visit.
 * With `left` (the wanted occurrences still missing, in order), the day before the first of them; without, the
 * horizon's last date (or the 500th occurrence's).
 */
async function finish(tx: Context, plan: Plan, left: Plan['wanted'] = []): Promise<VisitScheduleRow> {
  const { row, wanted, through } = plan;
  const last = wanted.length === MAX_AHEAD ? (wanted.at(-1)?.date ?? through) : through;
  const first = left[0];
  const materialized_through = (first ? first.date.subtract({ days: 1 }) : last).toString();
  if (materialized_through === row.materialized_through) return row;
  return (
    (await repository.updateSchedule(tx.db, tx.accountId, row.id, { materialized_through })) ?? {
      ...row,
      materialized_through,
    }
  );
}

/** Visits a request makes per slice, yielding between slices: a long horizon never holds the event loop. */
const REQUEST_SLICE = 4;

/**
 * The most visits a request makes in its transaction (§32: no request holds SQLite's writer for more than one
 * batch of at most 50 visits); the schedule worker makes the rest, a batch per transaction, accounts taking turns.
 */
export const REQUEST_BATCH = 50;

/** Schedules a transaction left visits to make for: announced to the worker once it has committed. */
export type LeftBehind = string[];

/**
 * Makes the first missing visits of a schedule, at most `REQUEST_BATCH`, whose row the caller holds locked in
 * `tx` (a create or change of the schedule); answers the row with `materialized_through` moved on (to the day
 * before the first visit still missing). When visits are left to make, the schedule's id goes into `left` for
 * the worker. Ended schedules make none. A slice of visits per turn of the event loop: on SQLite other writers
 * wait for the transaction (as they would for any), but reads and everything else go on between slices.
 */
export async function materializeLocked(
  tx: Context,
  row: VisitScheduleRow,
  left: LeftBehind,
): Promise<VisitScheduleRow> {
  if (row.status === 'ended') return row;
  const plan = await planOf(tx, row);
  const missing = await missingOf(tx, plan);
  const now = missing.slice(0, REQUEST_BATCH);
  for (let at = 0; at < now.length; at += REQUEST_SLICE) {
    if (at > 0) await yieldToEventLoop();
    await makeVisits(tx, plan, now.slice(at, at + REQUEST_SLICE));
  }
  const rest = missing.slice(REQUEST_BATCH);
  if (rest.length > 0 && !left.includes(row.id)) left.push(row.id);
  return finish(tx, plan, rest);
}

/**
 * The worker's step: at most `most` of the missing visits of a schedule whose row the caller holds locked, in
 * the caller's (short) transaction; `done` says none remain. `materialized_through` moves on with every step.
 */
export async function materializeSome(
  tx: Context,
  row: VisitScheduleRow,
  most: number,
): Promise<{ row: VisitScheduleRow; done: boolean; made: number }> {
  if (row.status === 'ended') return { row, done: true, made: 0 };
  const plan = await planOf(tx, row);
  const missing = await missingOf(tx, plan);
  const now = missing.slice(0, most);
  await makeVisits(tx, plan, now);
  const rest = missing.slice(most);
  return { row: await finish(tx, plan, rest), done: rest.length === 0, made: now.length };
}

/** Who hears that a committed change left visits to make (the schedule worker of this process). */
type LeftListener = (accountId: string, scheduleIds: string[]) => void;
const leftListeners = new Set<LeftListener>();

/** Hears of schedules whose create or change left visits for the worker; answers the way to stop hearing. */
export function onVisitsLeft(listener: LeftListener): () => void {
  leftListeners.add(listener);
  return () => leftListeners.delete(listener);
}

/** Tells the worker (after the commit) which schedules have visits left to make. */
export function announceVisitsLeft(accountId: string, left: LeftBehind): void {
  if (left.length === 0) return;
  for (const listener of leftListeners) listener(accountId, [...left]);
}

/** Expands, outside any transaction, what the schedule's next materialisation will need (yielding as it goes). */
export async function prepareMaterialization(ctx: Context, row: VisitScheduleRow): Promise<void> {
  if (row.status === 'ended') return;
  const rule = ruleOf(row, []);
  const { today, through } = horizonOf(ctx, row, rule);
  await prepareDates(rule, today, through, yieldToEventLoop);
}
