// Visit schedule rules (docs/api-contract.md §18, §21): a job's visits on a rule. Created on a job that is
// scheduled or in progress; its recurrence changes only by split; template edits reach the future visits that
// have not started and are not exceptions; skip, pause and split cancel what they take away (cancel_reason
// skipped, paused, split) and unskip and resume reopen it; ending cancels the future visits that have not started.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Temporal } from '@js-temporal/polyfill';
import { newId } from '../../core/deps.js';
import {
  fieldError,
  fieldProblems,
  invalidState,
  validationError,
  type ErrorDetail,
  type Precondition,
} from '../../core/errors.js';
import { fromJson, mapPage, oneLargeWriteAtATime, type Page, pageRequest, toPage } from '../../db/index.js';
import type { VisitScheduleRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { EventType } from '../../kernel/event-types.js';
import { findAccountTimezone } from '../accounts/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { parseStatusFilter } from '../documents/index.js';
import { requireReference, requireRow } from '../shared/index.js';
import { findPropertyTimezone } from '../properties/index.js';
import { findMembers } from '../team-members/index.js';
import { updateVisit } from '../visits/index.js';
import {
  announceVisitsLeft,
  durationsOf,
  inPause,
  type LeftBehind,
  materializeLocked,
  materializeSome,
  prepareMaterialization,
  ruleOf,
} from './materialize.js';
import { describeRecurrence, parseRecurrence, type RecurrenceInput } from './recurrence.js';
import { checkScheduleYears, fitsYears, occurrenceOn, occurrencesBetween, ruleDates } from './recurrence-expansion.js';
import { occurrenceKey, type Recurrence } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import {
  SCHEDULE_STATUSES,
  type CreateVisitScheduleInput,
  type ListVisitSchedulesInput,
  type Occurrence,
  type SplitInput,
  type Template,
  type TemplateInput,
  type UpdateVisitScheduleInput,
  type VisitSchedule,
} from './visit-schedules.schemas.js';

const instantText = (instant: Temporal.Instant) => instant.toString({ smallestUnit: 'millisecond' });
const nowInstant = (ctx: Context) => Temporal.Instant.fromEpochMilliseconds(ctx.clock.now().getTime());

/**
 * The next occurrence that is neither skipped nor paused, starting within a year from now. The dates are read in
 * order and only the first candidates' instants are computed (an occurrence's start never goes back in time as
 * its date goes forward), not a year of them.
 */
function nextOf(row: VisitScheduleRow, rule: Recurrence, now: Temporal.Instant) {
  if (row.status === 'ended') return null;
  const end = now.add({ hours: 24 * 366 });
  const skipped = new Set(rule.exdates);
  const durations = durationsOf(row);
  const from = now.toZonedDateTimeISO(rule.timezone).toPlainDate().subtract({ days: 1 });
  const to = end.toZonedDateTimeISO(rule.timezone).toPlainDate().add({ days: 1 });
  for (const date of ruleDates(rule, from, to)) {
    if (inPause(row, date) || skipped.has(occurrenceKey(rule, date)) || !fitsYears(rule, durations, date)) continue;
    const one = occurrenceOn(rule, durations, date, skipped);
    const start = one.start.toInstant();
    if (Temporal.Instant.compare(start, end) >= 0) return null;
    if (Temporal.Instant.compare(start, now) >= 0) return one;
  }
  return null;
}

export function presentSchedule(row: VisitScheduleRow, exdates: string[], now: Date): VisitSchedule {
  const rule = ruleOf(row, exdates);
  const next = nextOf(row, rule, Temporal.Instant.fromEpochMilliseconds(now.getTime()));
  return {
    id: row.id,
    object: 'visit_schedule',
    job_id: row.job_id,
    recurrence: describeRecurrence(rule),
    duration_minutes: row.duration_minutes === null ? null : Number(row.duration_minutes),
    duration_days: row.duration_days === null ? null : Number(row.duration_days),
    template: fromJson<Template>(row.template),
    horizon_days: Number(row.horizon_days),
    status: row.status as VisitSchedule['status'],
    paused_from: row.paused_from,
    paused_until: row.paused_until,
    materialized_through: row.materialized_through,
    next_occurrence_at: next ? instantText(next.start.toInstant()) : null,
    next_occurrence_key: next ? next.occurrence_key : null,
    previous_schedule_id: row.previous_schedule_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function load(ctx: Context, row: VisitScheduleRow): Promise<VisitSchedule> {
  const exdates = (await repository.exdatesOf(ctx.db, ctx.accountId, [row.id])).get(row.id) ?? [];
  return presentSchedule(row, exdates, ctx.clock.now());
}

function getRow(ctx: Context, id: string, lock = false): Promise<VisitScheduleRow> {
  return requireRow('visit schedule', id, (found) => repository.findSchedule(ctx.db, ctx.accountId, found, lock));
}

export async function getSchedule(ctx: Context, id: string): Promise<VisitSchedule> {
  return load(ctx, await getRow(ctx, id));
}

export async function listSchedules(ctx: Context, query: ListVisitSchedulesInput): Promise<Page<VisitSchedule>> {
  const page = pageRequest(query, repository.SCHEDULE_SORTS);
  const { rows, resumeAfter } = await repository.listSchedules(
    ctx.db,
    ctx.accountId,
    { ...query, statuses: parseStatusFilter(query.status, SCHEDULE_STATUSES) },
    page,
  );
  const rowsPage = toPage(rows, page, resumeAfter);
  const exdates = await repository.exdatesOf(
    ctx.db,
    ctx.accountId,
    rowsPage.items.map((row) => row.id),
  );
  const now = ctx.clock.now();
  return mapPage(
    rowsPage,
    rowsPage.items.map((row) => presentSchedule(row, exdates.get(row.id) ?? [], now)),
  );
}

/** The template with defaults, its members checked: distinct, of the account, active. */
async function readTemplate(ctx: Context, input: TemplateInput | undefined, base?: Template): Promise<Template> {
  const template: Template = {
    title: input?.title !== undefined ? input.title : (base?.title ?? null),
    instructions: input?.instructions !== undefined ? input.instructions : (base?.instructions ?? null),
    assignee_ids: input?.assignee_ids ?? base?.assignee_ids ?? [],
    arrival_window_minutes:
      input?.arrival_window_minutes !== undefined
        ? input.arrival_window_minutes
        : (base?.arrival_window_minutes ?? null),
  };
  if (input?.assignee_ids !== undefined) {
    const ids = input.assignee_ids;
    const members = await findMembers(
      ctx.db,
      ctx.accountId,
      ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id)),
    );
    const problems: ErrorDetail[] = [];
    ids.forEach((id, index) => {
      const field = `template.assignee_ids[${index}]`;
      if (ids.indexOf(id) !== index) problems.push({ field, message: `names team member ${id} a second time` });
      else if (!members.has(id))
        problems.push({ field, message: `no team member with id '${id}' exists in this account` });
      else if (!members.get(id) && !(base?.assignee_ids ?? []).includes(id))
        problems.push({ field, message: `team member ${id} is inactive and cannot be newly assigned` });
    });
    if (problems.length > 0) throw validationError(problems);
  }
  return template;
}

/**
 * A new schedule's recurrence and durations checked together, for a create body the schema refused too
 * (issue 34.17; http/field-checks.ts). The zone the schedule defaults to needs the database; UTC stands in
 * for it (a local time that exists in any zone exists in UTC, so this finds nothing the service would not).
 */
export async function newScheduleFieldChecks(body: unknown): Promise<ErrorDetail[]> {
  const input = body as { recurrence?: unknown; duration_minutes?: number; duration_days?: number };
  const recurrence = input.recurrence as RecurrenceInput | undefined;
  if (recurrence === null || typeof recurrence !== 'object' || Array.isArray(recurrence)) return [];
  const allDay = recurrence.time === null || (recurrence.time === undefined && input.duration_days !== undefined);
  return fieldProblems(() => {
    const rule = parseRecurrence(recurrence, { defaultTimeZone: 'UTC', allDay });
    checkScheduleYears(rule, readDurations(input, rule.time === null));
  });
}

/** Exactly one duration form, agreeing with `time` (null: all-day). */
function readDurations(
  input: { duration_minutes?: number | undefined; duration_days?: number | undefined },
  allDay: boolean,
): { duration_minutes: number | null; duration_days: number | null } {
  if (input.duration_minutes !== undefined && input.duration_days !== undefined)
    throw fieldError('duration_days', 'send duration_minutes (a timed schedule) or duration_days (all-day), not both');
  if (allDay) {
    if (input.duration_minutes !== undefined)
      throw fieldError('duration_minutes', 'an all-day schedule (recurrence.time null) takes duration_days');
    return { duration_minutes: null, duration_days: input.duration_days ?? 1 };
  }
  if (input.duration_days !== undefined)
    throw fieldError('duration_days', 'a timed schedule (recurrence.time HH:MM) takes duration_minutes');
  if (input.duration_minutes === undefined)
    throw fieldError(
      'duration_minutes',
      'is required for a timed schedule (or send recurrence.time null and duration_days)',
    );
  return { duration_minutes: input.duration_minutes, duration_days: null };
}

async function defaultZone(ctx: Context, job: repository.JobOfSchedule): Promise<string> {
  const zone = job.property_id ? await findPropertyTimezone(ctx.db, ctx.accountId, job.property_id) : undefined;
  return zone ?? findAccountTimezone(ctx.db, ctx.accountId);
}

function assertJobOpen(job: repository.JobOfSchedule): void {
  if (job.status !== 'scheduled' && job.status !== 'in_progress')
    throw invalidState(`This job is '${job.status}': a visit schedule needs a scheduled or in_progress job.`);
}

async function insertNew(
  tx: Context,
  input: CreateVisitScheduleInput,
  previousId: string | null,
  left: LeftBehind,
): Promise<VisitScheduleRow> {
  const job = await requireReference('job_id', 'job', input.job_id, (id) =>
    repository.findJob(tx.db, tx.accountId, id, true),
  );
  assertJobOpen(job);
  const allDay =
    input.recurrence.time === null || (input.recurrence.time === undefined && input.duration_days !== undefined);
  const rule = parseRecurrence(input.recurrence as RecurrenceInput, {
    defaultTimeZone: await defaultZone(tx, job),
    allDay,
  });
  const durations = readDurations(input, rule.time === null);
  checkScheduleYears(rule, durations);
  const template = await readTemplate(tx, input.template);
  const now = tx.clock.now().toISOString();
  const { exdates, ...stored } = rule;
  const row: VisitScheduleRow = {
    id: newId(),
    account_id: tx.accountId,
    job_id: job.id,
    recurrence: JSON.stringify(stored),
    ...durations,
    template: JSON.stringify(template),
    horizon_days: input.horizon_days ?? 120,
    status: 'active',
    paused_from: null,
    paused_until: null,
    materialized_through: null,
    previous_schedule_id: previousId,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  await repository.insertSchedule(tx.db, row);
  await repository.addExdates(tx.db, tx.accountId, row.id, exdates, now);
  await repository.replaceTemplateMembers(tx.db, tx.accountId, row.id, template.assignee_ids);
  return materializeLocked(tx, row, left);
}

/**
 * A change of schedules in one transaction. The visits a create or change makes itself are at most 50 a
 * schedule (§32); the schedules it left more to make for are announced to the worker once it has committed.
 */
async function inChange<T>(ctx: Context, work: (tx: Context, left: LeftBehind) => Promise<T>): Promise<T> {
  const left: LeftBehind = [];
  // Its first 50 visits a schedule, other writers waiting for at most one such change (§32).
  const result = await oneLargeWriteAtATime(ctx.db, () => inTransaction(ctx, (tx) => work(tx, left)));
  announceVisitsLeft(ctx.accountId, left);
  return result;
}

export async function createSchedule(ctx: Context, input: CreateVisitScheduleInput): Promise<VisitSchedule> {
  if ((input as { status?: unknown }).status !== undefined)
    throw fieldError('status', 'is set by the schedule’s actions');
  return inChange(ctx, async (tx, left) => {
    const row = await insertNew(tx, input, null, left);
    const schedule = await load(tx, row);
    await recordEvent(tx, 'visit_schedule.created', schedule);
    return schedule;
  });
}

/** Records a change's event (with what changed), nothing when nothing visible did. */
async function recordScheduleChange(tx: Context, type: EventType, before: VisitSchedule, after: VisitSchedule) {
  const changed = previousAttributes(
    { ...before, next_occurrence_at: null, next_occurrence_key: null },
    { ...after, next_occurrence_at: null, next_occurrence_key: null },
  );
  if (Object.keys(changed).length === 0 && type === 'visit_schedule.updated') return;
  await recordEvent(tx, type, after, { previous_attributes: changed });
}

/** A visit that has not started: scheduled (or unscheduled), its start ahead of now. */
const notStarted = (visit: repository.ScheduledVisit, now: string) =>
  (visit.status === 'scheduled' || visit.status === 'unscheduled') && (visit.start_at === null || visit.start_at > now);

/**
 * Visits a request changes per turn of the event loop (template edits, cancels, reopens of up to 500 visits),
 * yielding between: inside the request's transaction, as materialisation does (materialize.ts).
 */
const REQUEST_SLICE = 4;
const sliceEnd = async (index: number) => {
  if (index % REQUEST_SLICE === REQUEST_SLICE - 1) await yieldToEventLoop();
};

async function cancelVisits(tx: Context, visits: repository.ScheduledVisit[], reason: string): Promise<void> {
  for (const [index, visit] of visits.entries()) {
    await updateVisit(tx, visit.id, { status: 'canceled', cancel_reason: reason }, undefined, { fromSchedule: true });
    await sliceEnd(index);
  }
}

/** Reopens the visits an action canceled (`reason`) whose start is still ahead. */
async function reopenVisits(tx: Context, visits: repository.ScheduledVisit[], reason: string, now: string) {
  let changed = 0;
  for (const visit of visits)
    if (
      visit.status === 'canceled' &&
      visit.cancel_reason === reason &&
      visit.start_at !== null &&
      visit.start_at > now
    ) {
      await updateVisit(tx, visit.id, { status: 'scheduled' }, undefined, { fromSchedule: true });
      await sliceEnd(changed++);
    }
}

/** The locked row of an open schedule (409 when ended), and its answer before the change. */
async function openForChange(tx: Context, id: string, precondition?: Precondition) {
  const row = await getRow(tx, id, true);
  const before = await load(tx, row);
  precondition?.(before);
  if (row.status === 'ended') throw invalidState('This visit schedule has ended: it cannot be changed.');
  return { row, before };
}

export async function updateSchedule(
  ctx: Context,
  id: string,
  input: UpdateVisitScheduleInput,
  precondition?: Precondition,
): Promise<VisitSchedule> {
  if (input.recurrence !== undefined)
    throw fieldError(
      'recurrence',
      'cannot be changed in place: split the schedule (POST /v1/visit-schedules/:id/split)',
    );
  return inChange(ctx, async (tx, left) => {
    const { row, before } = await openForChange(tx, id, precondition);
    const now = tx.clock.now().toISOString();
    const allDay = row.duration_days !== null;
    if (input.duration_minutes !== undefined && allDay)
      throw fieldError('duration_minutes', 'an all-day schedule takes duration_days');
    if (input.duration_days !== undefined && !allDay)
      throw fieldError('duration_days', 'a timed schedule takes duration_minutes');
    const template = await readTemplate(tx, input.template, fromJson<Template>(row.template));
    const patch: Partial<VisitScheduleRow> = { updated_at: now, template: JSON.stringify(template) };
    if (input.duration_minutes !== undefined) patch.duration_minutes = input.duration_minutes;
    if (input.duration_days !== undefined) patch.duration_days = input.duration_days;
    if (input.horizon_days !== undefined) patch.horizon_days = input.horizon_days;
    if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
    let updated = (await repository.updateSchedule(tx.db, tx.accountId, row.id, patch)) ?? row;
    if (input.template?.assignee_ids !== undefined)
      await repository.replaceTemplateMembers(tx.db, tx.accountId, row.id, template.assignee_ids);
    if (input.template !== undefined || input.duration_minutes !== undefined || input.duration_days !== undefined) {
      // The template reaches every future visit that has not started and is not an exception.
      let changed = 0;
      for (const visit of await repository.visitsOfSchedule(tx.db, tx.accountId, row.id, now)) {
        if (!notStarted(visit, now) || Number(visit.is_exception) === 1 || visit.start_at === null) continue;
        const change: Record<string, unknown> = {};
        if (input.template?.title !== undefined) change.title = input.template.title;
        if (input.template?.instructions !== undefined) change.instructions = input.template.instructions;
        if (input.template?.assignee_ids !== undefined) change.assignee_ids = input.template.assignee_ids;
        if (input.template?.arrival_window_minutes !== undefined)
          change.arrival_window_minutes = input.template.arrival_window_minutes;
        if (input.duration_minutes !== undefined)
          Object.assign(change, { start_at: visit.start_at, duration_minutes: input.duration_minutes });
        if (input.duration_days !== undefined && visit.occurrence_key) {
          const first = Temporal.PlainDate.from(visit.occurrence_key.slice(0, 10));
          Object.assign(change, {
            all_day: true,
            start_date: first.toString(),
            end_date: first.add({ days: input.duration_days - 1 }).toString(),
          });
        }
        if (Object.keys(change).length > 0) {
          await updateVisit(tx, visit.id, change as never, undefined, { fromSchedule: true });
          await sliceEnd(changed++);
        }
      }
    }
    updated = await materializeLocked(tx, updated, left);
    const after = await load(tx, updated);
    await recordScheduleChange(tx, 'visit_schedule.updated', before, after);
    return after;
  });
}

/** Ends a schedule (DELETE, the job completed or canceled): its future visits that have not started are canceled. */
async function endLocked(tx: Context, row: VisitScheduleRow, before: VisitSchedule, keepVisits: boolean) {
  const now = tx.clock.now().toISOString();
  if (keepVisits) await repository.detachVisits(tx.db, tx.accountId, row.id);
  else {
    const visits = await repository.visitsOfSchedule(tx.db, tx.accountId, row.id, now);
    await cancelVisits(
      tx,
      visits.filter((visit) => notStarted(visit, now)),
      'schedule ended',
    );
  }
  const updated =
    (await repository.updateSchedule(tx.db, tx.accountId, row.id, { status: 'ended', updated_at: now })) ?? row;
  const after = await load(tx, updated);
  await recordScheduleChange(tx, 'visit_schedule.ended', before, after);
  return after;
}

export async function deleteSchedule(
  ctx: Context,
  id: string,
  keepVisits: boolean,
  precondition?: Precondition,
): Promise<VisitSchedule> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    const before = await load(tx, row);
    precondition?.(before);
    if (row.status === 'ended') return before;
    return endLocked(tx, row, before, keepVisits);
  });
}

/** The job was completed or canceled: its schedules end (docs/api-contract.md §18). */
export async function endSchedulesOfJob(tx: Context, jobId: string): Promise<void> {
  for (const id of await repository.openSchedulesOfJob(tx.db, tx.accountId, jobId)) {
    const row = await getRow(tx, id, true);
    await endLocked(tx, row, await load(tx, row), false);
  }
}

/** The job is being deleted: its schedules go with it (their visits are the job's, deleted by the visits module). */
export async function deleteSchedulesOfJob(tx: Context, jobId: string): Promise<void> {
  await repository.deleteSchedulesOfJob(tx.db, tx.accountId, jobId);
}

/** The date of a key the rule yields, or a 422 on `field`. */
function requireOccurrence(rule: Recurrence, key: string, field: string): Temporal.PlainDate {
  let date: Temporal.PlainDate | undefined;
  try {
    date = Temporal.PlainDate.from(key.slice(0, 10));
  } catch {
    date = undefined;
  }
  const expected = date && (rule.time === null ? date.toString() : `${date.toString()}T${rule.time}`);
  if (!date || expected !== key || ruleDates(rule, date, date).length === 0)
    throw fieldError(field, `'${key}' is not an occurrence of this schedule`);
  return date;
}

export async function skipOccurrence(ctx: Context, id: string, key: string, unskip: boolean): Promise<VisitSchedule> {
  return inChange(ctx, async (tx, left) => {
    const { row, before } = await openForChange(tx, id);
    const now = tx.clock.now().toISOString();
    requireOccurrence(ruleOf(row, []), key, 'occurrence_key');
    const visits = (await repository.visitsOfSchedule(tx.db, tx.accountId, row.id)).filter(
      (visit) => visit.occurrence_key === key,
    );
    if (unskip) {
      await repository.removeExdate(tx.db, tx.accountId, row.id, key);
      await reopenVisits(tx, visits, 'skipped', now);
    } else {
      if (before.recurrence.exdates.length >= 1000 && !before.recurrence.exdates.includes(key))
        throw fieldError('occurrence_key', 'a schedule skips at most 1,000 occurrences');
      await repository.addExdates(tx.db, tx.accountId, row.id, [key], now);
      await cancelVisits(
        tx,
        visits.filter((visit) => notStarted(visit, now)),
        'skipped',
      );
    }
    let updated = (await repository.updateSchedule(tx.db, tx.accountId, row.id, { updated_at: now })) ?? row;
    updated = await materializeLocked(tx, updated, left);
    const after = await load(tx, updated);
    await recordScheduleChange(tx, 'visit_schedule.updated', before, after);
    return after;
  });
}

export async function pauseSchedule(
  ctx: Context,
  id: string,
  input: { from: string; until?: string | null | undefined },
): Promise<VisitSchedule> {
  const problems: ErrorDetail[] = [];
  const readDate = (field: string, value: string) => {
    if (value.startsWith('0000')) {
      problems.push({ field, message: 'must be a date in the years 0001 to 9999' });
      return undefined;
    }
    try {
      return Temporal.PlainDate.from(value, { overflow: 'reject' });
    } catch {
      problems.push({ field, message: `'${value}' is not a real date` });
      return undefined;
    }
  };
  const from = readDate('from', input.from);
  const until = input.until ? readDate('until', input.until) : undefined;
  if (from && until && Temporal.PlainDate.compare(until, from) < 0)
    problems.push({ field: 'until', message: 'must not be before from' });
  if (problems.length > 0) throw validationError(problems);
  return inTransaction(ctx, async (tx) => {
    const { row, before } = await openForChange(tx, id);
    const now = tx.clock.now().toISOString();
    const range = {
      paused_from: (from as Temporal.PlainDate).toString(),
      paused_until: until ? until.toString() : null,
    };
    const visits = await repository.visitsOfSchedule(tx.db, tx.accountId, row.id, now);
    await cancelVisits(
      tx,
      visits.filter(
        (visit) =>
          notStarted(visit, now) &&
          visit.occurrence_key !== null &&
          inPause(range, Temporal.PlainDate.from(visit.occurrence_key.slice(0, 10))),
      ),
      'paused',
    );
    const updated =
      (await repository.updateSchedule(tx.db, tx.accountId, row.id, { status: 'paused', ...range, updated_at: now })) ??
      row;
    const after = await load(tx, updated);
    await recordScheduleChange(tx, 'visit_schedule.paused', before, after);
    return after;
  });
}

export async function resumeSchedule(ctx: Context, id: string): Promise<VisitSchedule> {
  return inChange(ctx, async (tx, left) => {
    const { row, before } = await openForChange(tx, id);
    if (row.status !== 'paused') throw invalidState('This visit schedule is not paused.');
    const now = tx.clock.now().toISOString();
    await reopenVisits(tx, await repository.visitsOfSchedule(tx.db, tx.accountId, row.id, now), 'paused', now);
    let updated =
      (await repository.updateSchedule(tx.db, tx.accountId, row.id, {
        status: 'active',
        paused_from: null,
        paused_until: null,
        updated_at: now,
      })) ?? row;
    updated = await materializeLocked(tx, updated, left);
    const after = await load(tx, updated);
    await recordScheduleChange(tx, 'visit_schedule.resumed', before, after);
    return after;
  });
}

/**
 * "This and following" (§18, §21): the old rule ends the day before the split occurrence (a count rule is cut to
 * the occurrences before it) and its visits from there that have not started are canceled (`split`); a new
 * schedule starts at that occurrence with the changes, and makes its own visits.
 */
export async function splitSchedule(
  ctx: Context,
  id: string,
  input: SplitInput,
): Promise<{ previous: VisitSchedule; next: VisitSchedule }> {
  return inChange(ctx, async (tx, left) => {
    const { row, before } = await openForChange(tx, id);
    const now = tx.clock.now().toISOString();
    const exdates = before.recurrence.exdates;
    const rule = ruleOf(row, exdates);
    const key = input.from_occurrence_key;
    const date = requireOccurrence(rule, key, 'from_occurrence_key');
    const dayBefore = date.subtract({ days: 1 });
    const earlier = ruleDates(rule, Temporal.PlainDate.from(rule.start_date), dayBefore).length;
    const { exdates: _kept, ...oldRule } = rule;
    const cut = rule.count !== null ? { ...oldRule, count: earlier } : { ...oldRule, until: dayBefore.toString() };
    const visits = await repository.visitsOfSchedule(tx.db, tx.accountId, row.id);
    await cancelVisits(
      tx,
      visits.filter((visit) => notStarted(visit, now) && visit.occurrence_key !== null && visit.occurrence_key >= key),
      'split',
    );
    const oldPatch: Partial<VisitScheduleRow> = { recurrence: JSON.stringify(cut), updated_at: now };
    // Split at its first occurrence, the old schedule keeps none: it ends.
    if (earlier === 0) oldPatch.status = 'ended';
    const updatedOld = (await repository.updateSchedule(tx.db, tx.accountId, row.id, oldPatch)) ?? row;

    // Without a new rule the old one goes on from that date (a COUNT rule with what remains of its count).
    const recurrence: RecurrenceInput = input.recurrence
      ? { time: rule.time, timezone: rule.timezone, ...input.recurrence }
      : {
          frequency: rule.frequency,
          interval: rule.interval,
          by_weekday: rule.by_weekday,
          by_month_day: rule.by_month_day,
          by_month: rule.by_month,
          by_set_position: rule.by_set_position,
          week_start: rule.week_start,
          count: rule.count !== null ? rule.count - earlier : null,
          until: rule.until,
          time: rule.time,
          timezone: rule.timezone,
          month_day_overflow: rule.month_day_overflow,
          exdates: exdates.filter((one) => one >= key),
        };
    const template = fromJson<Template>(row.template);
    const nextRow = await insertNew(
      tx,
      {
        job_id: row.job_id,
        recurrence: { start_date: date.toString(), ...recurrence } as CreateVisitScheduleInput['recurrence'],
        ...(row.duration_minutes !== null && input.duration_days === undefined
          ? { duration_minutes: input.duration_minutes ?? Number(row.duration_minutes) }
          : {}),
        ...(row.duration_days !== null && input.duration_minutes === undefined
          ? { duration_days: input.duration_days ?? Number(row.duration_days) }
          : {}),
        ...(input.duration_minutes !== undefined ? { duration_minutes: input.duration_minutes } : {}),
        ...(input.duration_days !== undefined ? { duration_days: input.duration_days } : {}),
        template: { ...template, ...(input.template ?? {}) },
        horizon_days: input.horizon_days ?? Number(row.horizon_days),
        metadata: input.metadata ?? fromJson<Record<string, string>>(row.metadata),
      },
      row.id,
      left,
    );
    const previous = await load(tx, updatedOld);
    await recordScheduleChange(tx, 'visit_schedule.split', before, previous);
    const next = await load(tx, nextRow);
    await recordEvent(tx, 'visit_schedule.created', next);
    return { previous, next };
  });
}

/** The occurrences starting in [from, to) (at most 366 days), each with its visit when materialised. */
export async function listOccurrences(ctx: Context, id: string, from: string, to: string): Promise<Occurrence[]> {
  const start = Temporal.Instant.from(from);
  const end = Temporal.Instant.from(to);
  if (Temporal.Instant.compare(end, start) <= 0) throw fieldError('to', 'must be after from');
  if (start.until(end).total('hours') > 366 * 24) throw fieldError('to', 'the window is at most 366 days long');
  const row = await getRow(ctx, id);
  const exdates = (await repository.exdatesOf(ctx.db, ctx.accountId, [row.id])).get(row.id) ?? [];
  const rule = ruleOf(row, exdates);
  const found = occurrencesBetween(rule, durationsOf(row), start, end);
  const made = await repository.materializedKeys(
    ctx.db,
    row.id,
    found.map((one) => one.occurrence_key),
  );
  return found.map((one) => ({
    occurrence_key: one.occurrence_key,
    start_at: instantText(one.start.toInstant()),
    end_at: instantText(one.end.toInstant()),
    local_start: one.start.toPlainDateTime().toString({ smallestUnit: 'minute' }),
    visit_id: made.get(one.occurrence_key) ?? null,
    skipped: one.skipped,
  }));
}

/**
 * Visits the worker makes per transaction (§32: at most 50). SQLite's driver is synchronous, so a transaction's
 * statements run in one turn of the event loop, and other writers wait for it: ten visits are a few tens of
 * milliseconds of the writer, so a request of another account waits at most that long for one batch.
 */
export const WORKER_BATCH = 10;

/**
 * One batch of the worker for one schedule (actor: system): at most `WORKER_BATCH` of its missing visits in one
 * transaction holding the schedule's row lock. Answers `gone` when there is no such schedule (not committed
 * yet, or deleted), `done` when none remain to make, else `more`, with the visits made.
 */
export async function materializeBatch(
  ctx: Context,
  id: string,
): Promise<{ state: 'gone' | 'done' | 'more'; made: number }> {
  const found = await repository.findSchedule(ctx.db, ctx.accountId, id);
  if (!found) return { state: 'gone', made: 0 };
  await prepareMaterialization(ctx, found);
  return inTransaction(ctx, async (tx) => {
    const row = await repository.findSchedule(tx.db, tx.accountId, id, true);
    if (!row) return { state: 'gone' as const, made: 0 };
    if (row.status === 'ended') return { state: 'done' as const, made: 0 };
    const { done, made } = await materializeSome(tx, row, WORKER_BATCH);
    return { state: done ? ('done' as const) : ('more' as const), made };
  });
}

export { nowInstant };
