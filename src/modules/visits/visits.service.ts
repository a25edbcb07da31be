// Visit rules (docs/api-contract.md §17, §21): a visit belongs to a job that is not completed or canceled when
// it is added; its time is written in one form (visit-time.ts); its status moves by the table of
// visits.lifecycle.ts, each move stamping its `*_at`; its assignees are distinct active members; every change
// records exactly one event (a status move names its status; else a time change is `visit.rescheduled`; else
// an assignee change `visit.reassigned`; else `visit.updated`), and keeps the job's summary and mirrors.
import { newId } from '../../core/deps.js';
import {
  AppError,
  conflict,
  fieldError,
  invalidState,
  validationError,
  type ErrorDetail,
  type Precondition,
} from '../../core/errors.js';
import { elapsedMinutes, instantToLocal } from '../../core/time.js';
import type { VisitPatch, VisitRow } from '../../db/types.js';
import { fromJson } from '../../db/index.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { EventType } from '../../kernel/event-types.js';
import { findAccountTimezone } from '../accounts/index.js';
import {
  createdCustomFields,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, storedTags, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf } from '../attachments/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { findExternalIdHolder, guardExternalId, requireReference, requireRow } from '../shared/index.js';
import { findPropertyTimezone } from '../properties/index.js';
import { findMembers } from '../team-members/index.js';
import { resolveTime, touchesTime, type VisitTime } from './visit-time.js';
import {
  isOpen,
  LATE_STATUSES,
  moveEvent,
  STAMP_FIELDS,
  VISIT_MOVES,
  VISIT_STAMPS,
  type VisitStamp,
  type VisitStatus,
} from './visits.lifecycle.js';
import * as repository from './visits.repository.js';
import type { JobOfVisit } from './visits.repository.js';
import type { UpdateVisitInput, Visit, VisitConflict, VisitInput } from './visits.schemas.js';

/** How a write treats overlaps with an assignee's other visits: `reject` makes them a 409 CONFLICT. */
export type OnConflict = 'allow' | 'reject';

/**
 * Books a visit from an availability hold (docs/api-contract.md §28), in the visit's transaction: checks the
 * hold and its crew's time, and answers the visit to make (the hold's time, zone and crew) and what spends the
 * hold once it is made. The availability module's, which stands above visits; callers pass it in.
 */
export type HoldResolver = (
  tx: Context,
  input: NewVisit & { hold_id: string },
  job: { id: string; property_id: string | null },
  prefix: string,
) => Promise<{ visit: NewVisit; spend: (visitId: string) => Promise<void> }>;

export interface VisitWriteOptions {
  onConflict?: OnConflict | undefined;
  /** How a visit with hold_id is booked; without it, hold_id is refused. */
  holds?: HoldResolver | undefined;
  /**
   * The write is a visit schedule's own (docs/api-contract.md §18): it does not mark a materialised visit
   * `is_exception`, as a change of its time or assignees through the API does.
   */
  fromSchedule?: boolean | undefined;
}

/** A visit to create: the input of `POST /v1/visits` (without job_id), and a schedule's occurrence. */
export type NewVisit = VisitInput & {
  schedule_id?: string | undefined;
  occurrence_key?: string | undefined;
  /** A booking's hold (docs/api-contract.md §28), checked and spent by the availability module. */
  hold_id?: string | undefined;
};

export function presentVisit(
  row: VisitRow,
  assigneeIds: string[],
  conflicts: VisitConflict[] | null,
  now: Date,
): Visit {
  const scheduled = row.start_at !== null && row.end_at !== null;
  const allDay = Number(row.all_day) === 1;
  return {
    id: row.id,
    object: 'visit',
    job_id: row.job_id,
    client_id: row.client_id,
    property_id: row.property_id,
    title: row.title,
    instructions: row.instructions,
    status: row.status as VisitStatus,
    all_day: allDay,
    timezone: row.timezone,
    start_at: row.start_at,
    end_at: row.end_at,
    local_start: scheduled ? instantToLocal(row.start_at as string, row.timezone) : null,
    local_end: scheduled ? instantToLocal(row.end_at as string, row.timezone) : null,
    start_date: allDay ? row.start_date : null,
    end_date: allDay ? row.end_date : null,
    duration_minutes: scheduled ? Math.round(elapsedMinutes(row.start_at as string, row.end_at as string)) : null,
    arrival_window_minutes: row.arrival_window_minutes,
    assignee_ids: assigneeIds,
    conflicts,
    is_late:
      (LATE_STATUSES as readonly string[]).includes(row.status) &&
      row.end_at !== null &&
      new Date(row.end_at).getTime() < now.getTime(),
    en_route_at: row.en_route_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    canceled_at: row.canceled_at,
    cancel_reason: row.cancel_reason,
    completion_notes: row.completion_notes,
    schedule_id: row.schedule_id,
    occurrence_key: row.occurrence_key,
    is_exception: Number(row.is_exception) === 1,
    hold_id: row.hold_id ?? null,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    tags: storedTags(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Runs `write`, its 422's details moved under `prefix` (a job's `visits[i].`). */
async function withFieldPrefix<T>(prefix: string, write: () => Promise<T>): Promise<T> {
  if (prefix === '') return write();
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError && error.details)
      throw validationError(error.details.map((detail) => ({ ...detail, field: `${prefix}${detail.field}` })));
    throw error;
  }
}

/** The conflicts of one visit: none while it has no time or is canceled. */
export async function conflictsOf(ctx: Context, row: VisitRow, assigneeIds: string[]): Promise<VisitConflict[]> {
  if (row.start_at === null || row.end_at === null || row.status === 'canceled' || assigneeIds.length === 0) return [];
  return repository.overlapping(ctx.db, ctx.accountId, row.id, assigneeIds, row.start_at, row.end_at);
}

/** A visit as a single read or write answers it: its assignees and its conflicts. */
async function loadVisit(ctx: Context, row: VisitRow): Promise<Visit> {
  const assignees = (await repository.assigneesOf(ctx.db, ctx.accountId, [row.id])).get(row.id) ?? [];
  return presentVisit(row, assignees, await conflictsOf(ctx, row, assignees), ctx.clock.now());
}

/** Visits of a list: their assignees in one read; conflicts only when asked for. */
export async function presentVisits(ctx: Context, rows: VisitRow[], withConflicts: boolean): Promise<Visit[]> {
  const assignees = await repository.assigneesOf(
    ctx.db,
    ctx.accountId,
    rows.map((row) => row.id),
  );
  const now = ctx.clock.now();
  const visits: Visit[] = [];
  for (const row of rows) {
    const ids = assignees.get(row.id) ?? [];
    visits.push(presentVisit(row, ids, withConflicts ? await conflictsOf(ctx, row, ids) : null, now));
  }
  return visits;
}

function getRow(ctx: Context, id: string, lock = false): Promise<VisitRow> {
  return requireRow('visit', id, (found) => repository.findVisit(ctx.db, ctx.accountId, found, lock));
}

/** 409 CONFLICT listing each overlap (docs/api-contract.md §21), when `onConflict` is reject and there is one. */
function assertNoConflicts(visit: Visit, onConflict: OnConflict | undefined): void {
  if (onConflict !== 'reject' || !visit.conflicts || visit.conflicts.length === 0) return;
  const details = visit.conflicts.map((found) => ({
    field: 'assignee_ids',
    message: `team member ${found.team_member_id} is also on visit ${found.visit_id} from ${found.start_at} to ${found.end_at}`,
    ...found,
  }));
  throw new AppError(
    'CONFLICT',
    `The visit overlaps ${details.length} other visit${details.length === 1 ? '' : 's'} of its assignees (on_conflict=reject).`,
    details as ErrorDetail[],
  );
}

/**
 * The members of `ids`, checked: distinct, of the account, and active unless already on the visit (`kept`): an
 * inactive member stays on the visits it had but is never newly assigned (docs/api-contract.md §15).
 */
async function checkAssignees(ctx: Context, ids: readonly string[], kept: readonly string[], field: string) {
  const members = await findMembers(
    ctx.db,
    ctx.accountId,
    ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id)),
  );
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    const at = `${field}[${index}]`;
    if (seen.has(id)) problems.push({ field: at, message: `names team member ${id} a second time` });
    else if (!members.has(id))
      problems.push({ field: at, message: `no team member with id '${id}' exists in this account` });
    else if (!members.get(id) && !kept.includes(id))
      problems.push({ field: at, message: `team member ${id} is inactive and cannot be newly assigned` });
    seen.add(id);
  });
  if (problems.length > 0) throw validationError(problems);
}

/** The zone a new visit of the job defaults to: its property's, else the account's. */
async function defaultZoneOf(ctx: Context, job: JobOfVisit): Promise<string> {
  const zone = job.property_id ? await findPropertyTimezone(ctx.db, ctx.accountId, job.property_id) : undefined;
  return zone ?? findAccountTimezone(ctx.db, ctx.accountId);
}

function assertJobTakesVisits(job: JobOfVisit): void {
  if (job.status === 'completed' || job.status === 'canceled')
    throw invalidState(`This job is '${job.status}': a visit cannot be added to it. Reopen the job first.`);
}

/** The job a body's job_id names (422 when none), locked: its summary changes in this transaction. */
export function requireJobOfVisit(tx: Context, jobId: string, field = 'job_id'): Promise<JobOfVisit> {
  return requireReference(field, 'job', jobId, (id) => repository.findJobOfVisit(tx.db, tx.accountId, id, true));
}

/**
 * Creates visits of a job in the caller's transaction (POST /v1/visits, POST /v1/jobs `visits`, a schedule's
 * materialisation): each a `visit.created`, the job's summary and mirrors refreshed once. `fieldPrefix` names
 * the fields of a job's `visits[i]` in errors (`visits[2].`); the job must take visits (not completed or canceled).
 */
export async function createVisitsForJob(
  ctx: Context,
  jobId: string,
  inputs: readonly NewVisit[],
  options: VisitWriteOptions & {
    fieldPrefix?: (index: number) => string;
    jobField?: string;
    /** Materialisation: an occurrence (schedule_id, occurrence_key) that already has its visit is skipped. */
    skipExistingOccurrences?: boolean;
  } = {},
): Promise<Visit[]> {
  return inTransaction(ctx, async (tx) => {
    const job = await requireJobOfVisit(tx, jobId, options.jobField);
    assertJobTakesVisits(job);
    const zone = await defaultZoneOf(tx, job);
    const visits: Visit[] = [];
    for (const [index, given] of inputs.entries()) {
      const prefix = options.fieldPrefix?.(index) ?? '';
      let input = given;
      let spend: ((visitId: string) => Promise<void>) | undefined;
      if (given.hold_id !== undefined) {
        if (options.holds === undefined) throw fieldError(`${prefix}hold_id`, 'cannot book a visit here');
        ({ visit: input, spend } = await options.holds(tx, { ...given, hold_id: given.hold_id }, job, prefix));
      }
      if (
        options.skipExistingOccurrences &&
        input.schedule_id !== undefined &&
        input.occurrence_key !== undefined &&
        (await repository.findOccurrence(tx.db, tx.accountId, input.schedule_id, input.occurrence_key)) !== undefined
      )
        continue;
      const time = resolveTime(input, undefined, zone, prefix) ?? {
        all_day: 0,
        timezone: zone,
        start_at: null,
        end_at: null,
        start_date: null,
        end_date: null,
      };
      const assignees = input.assignee_ids ?? [];
      await checkAssignees(tx, assignees, [], `${prefix}assignee_ids`);
      if (input.external_id != null && prefix !== '') {
        // Among several visits the shared guard (409 naming the holder) cannot tell which one: each is checked here.
        const holder = await findExternalIdHolder(tx.db, 'visits', tx.accountId, input.external_id);
        if (holder !== undefined)
          throw new AppError(
            'CONFLICT',
            `external_id '${input.external_id}' is already the external_id of visit ${holder}.`,
            [{ field: `${prefix}external_id`, message: `is already the external_id of visit ${holder}` }],
          );
      }
      const now = tx.clock.now().toISOString();
      const row: VisitRow = {
        id: newId(),
        account_id: tx.accountId,
        job_id: job.id,
        client_id: job.client_id,
        property_id: job.property_id,
        title: input.title ?? job.title,
        instructions: input.instructions ?? null,
        status: time.start_at === null ? 'unscheduled' : 'scheduled',
        ...time,
        arrival_window_minutes: input.arrival_window_minutes ?? null,
        assignee_count: 0,
        en_route_at: null,
        started_at: null,
        completed_at: null,
        canceled_at: null,
        cancel_reason: null,
        completion_notes: input.completion_notes ?? null,
        schedule_id: input.schedule_id ?? null,
        occurrence_key: input.occurrence_key ?? null,
        is_exception: 0,
        hold_id: input.hold_id ?? null,
        external_id: input.external_id ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        custom_fields: '{}',
        tags: '[]',
        created_at: now,
        updated_at: now,
      };
      // A schedule's visit is made by BMS: no one could give it a required field's value.
      row.custom_fields = await withFieldPrefix(prefix, () =>
        createdCustomFields(tx, 'visit', row, input.custom_fields, input.schedule_id !== undefined),
      );
      row.tags = (await writeTags(tx, 'visit', row, input.tags, undefined, `${prefix}tags`)) ?? '[]';
      await repository.insertVisit(tx.db, row);
      if (row.start_at !== null && row.end_at !== null)
        await repository.noteVisitSpan(tx.db, tx.accountId, elapsedMinutes(row.start_at, row.end_at));
      if (assignees.length > 0) await repository.replaceAssignees(tx.db, row, assignees, now);
      const visit = await loadVisit(tx, { ...row, assignee_count: assignees.length });
      assertNoConflicts(visit, options.onConflict);
      await spend?.(row.id);
      await recordEvent(tx, 'visit.created', visit);
      visits.push(visit);
    }
    await repository.refreshJobOfVisits(tx.db, tx.accountId, job.id);
    return visits;
  });
}

export async function createVisit(
  ctx: Context,
  input: VisitInput & { job_id: string; hold_id?: string | undefined },
  options: VisitWriteOptions = {},
): Promise<Visit> {
  const { job_id: jobId, ...visit } = input;
  return guardExternalId(ctx, 'visits', input.external_id, async () => {
    const [created] = await createVisitsForJob(ctx, jobId, [visit], options);
    return created as Visit;
  });
}

export async function getVisit(ctx: Context, id: string): Promise<Visit> {
  return loadVisit(ctx, await getRow(ctx, id));
}

const TIME_COLUMNS = ['all_day', 'timezone', 'start_at', 'end_at', 'start_date', 'end_date'] as const;
const timeOf = (row: VisitRow): VisitTime => ({
  all_day: Number(row.all_day) === 1 ? 1 : 0,
  timezone: row.timezone,
  start_at: row.start_at,
  end_at: row.end_at,
  start_date: row.start_date,
  end_date: row.end_date,
});

/** The status and stamps a PUT leads to, from the visit's status and its time after the PUT. */
function statusChange(current: VisitRow, input: UpdateVisitInput, time: VisitTime, now: string): VisitPatch {
  const from = current.status as VisitStatus;
  const timed = time.start_at !== null;
  // Setting a time schedules an unscheduled visit; clearing it unschedules a scheduled one.
  let base: VisitStatus = from;
  if (from === 'unscheduled' && timed) base = 'scheduled';
  if (!timed && current.start_at !== null) {
    if (from === 'scheduled') base = 'unscheduled';
    else if (from !== 'canceled' && from !== 'unscheduled')
      throw invalidState(`This visit is '${from}': its time can be changed but not cleared.`);
  }
  const to = input.status ?? base;
  if (to !== base && !VISIT_MOVES[base].includes(to)) {
    const allowed = VISIT_MOVES[base];
    const hint = allowed.length > 0 ? `From '${base}' it can move to: ${allowed.join(', ')}.` : '';
    const how =
      to === 'scheduled' || to === 'unscheduled'
        ? ' A visit is scheduled by giving it a time and unscheduled by clearing it.'
        : '';
    throw invalidState(`This visit is '${base}' and cannot change to '${to}'. ${hint}${how}`.trim());
  }
  if (from === 'canceled' && to === 'scheduled' && !timed)
    throw invalidState('This canceled visit has no time: reopen it with a time (start_at, local_start or start_date).');

  const patch: VisitPatch = {};
  if (to !== from) patch.status = to;
  const problems: ErrorDetail[] = [];
  const entered = to !== from ? (VISIT_STAMPS as Partial<Record<VisitStatus, VisitStamp>>)[to] : undefined;
  for (const stamp of STAMP_FIELDS) {
    const given = input[stamp];
    if (given === undefined) continue;
    if (given === null) {
      problems.push({ field: stamp, message: 'is set by the status; it cannot be cleared' });
      continue;
    }
    const at = new Date(given);
    if (Number.isNaN(at.getTime()) || !/(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(given))
      problems.push({ field: stamp, message: 'must be an RFC 3339 instant with an offset' });
    else if (at.getTime() > new Date(now).getTime())
      problems.push({ field: stamp, message: 'must not be in the future' });
    else if (stamp !== entered && current[stamp] === null)
      problems.push({
        field: stamp,
        message: `can be given only with the move that sets it, or to correct it once set`,
      });
    else patch[stamp] = at.toISOString();
  }
  if (problems.length > 0) throw validationError(problems);
  if (entered !== undefined && patch[entered] === undefined) {
    // Reopening a completed visit keeps when its work started.
    if (!(entered === 'started_at' && from === 'completed' && current.started_at !== null)) patch[entered] = now;
  }
  if (from === 'completed' && to === 'in_progress') patch.completed_at = null;
  if (from === 'canceled' && to === 'scheduled')
    Object.assign(patch, {
      en_route_at: null,
      started_at: null,
      completed_at: null,
      canceled_at: null,
      cancel_reason: null,
    });
  if (input.cancel_reason !== undefined) {
    if (to !== 'canceled' && input.cancel_reason !== null)
      throw fieldError('cancel_reason', 'can be given only for a canceled visit (or with status: canceled)');
    patch.cancel_reason = input.cancel_reason;
  }
  return patch;
}

/** The one event of a change (docs/api-contract.md §17). */
function eventOf(before: Visit, after: Visit): EventType | undefined {
  if (before.status !== after.status) {
    const moved = moveEvent(before.status, after.status);
    if (moved) return moved;
  }
  const timeChanged = (['all_day', 'timezone', 'start_at', 'end_at', 'start_date', 'end_date'] as const).some(
    (field) => before[field] !== after[field],
  );
  if (timeChanged) return 'visit.rescheduled';
  if (JSON.stringify(before.assignee_ids) !== JSON.stringify(after.assignee_ids)) return 'visit.reassigned';
  return 'visit.updated';
}

/** Records the change's event; nothing when nothing visible changed (conflicts and is_late are not the visit's). */
async function recordVisitChange(ctx: Context, before: Visit, after: Visit): Promise<void> {
  const strip = ({ conflicts: _c, is_late: _l, ...rest }: Visit) => rest;
  const changed = previousAttributes(strip(before), strip(after));
  if (Object.keys(changed).length === 0) return;
  const type = eventOf(before, after);
  if (type) await recordEvent(ctx, type, after, { previous_attributes: changed });
}

export async function updateVisit(
  ctx: Context,
  id: string,
  input: UpdateVisitInput,
  precondition?: Precondition,
  options: VisitWriteOptions = {},
): Promise<Visit> {
  return guardExternalId(
    ctx,
    'visits',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        // The job first, then the visit: every visit write locks in that order.
        const found = await getRow(tx, id);
        const job = await repository.findJobOfVisit(tx.db, tx.accountId, found.job_id, true);
        const current = await getRow(tx, id, true);
        const assigneesBefore = (await repository.assigneesOf(tx.db, tx.accountId, [current.id])).get(current.id) ?? [];
        const before = presentVisit(current, assigneesBefore, null, tx.clock.now());
        precondition?.({ ...before, conflicts: await conflictsOf(tx, current, assigneesBefore) });
        const now = tx.clock.now().toISOString();

        const zone = job ? await defaultZoneOf(tx, job) : current.timezone;
        const time = touchesTime(input) ? resolveTime(input, timeOf(current), zone) : undefined;
        const patch: VisitPatch = { ...(time ?? {}), ...statusChange(current, input, time ?? timeOf(current), now) };
        if (input.title !== undefined) patch.title = input.title;
        if (input.instructions !== undefined) patch.instructions = input.instructions;
        if (input.arrival_window_minutes !== undefined) patch.arrival_window_minutes = input.arrival_window_minutes;
        if (input.completion_notes !== undefined) patch.completion_notes = input.completion_notes;
        if (input.external_id !== undefined) patch.external_id = input.external_id;
        if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
        const values = await updatedCustomFields(tx, 'visit', current, input.custom_fields, current.custom_fields);
        if (values !== undefined) patch.custom_fields = values;
        const tags = await writeTags(tx, 'visit', current, input.tags, current.tags);
        if (tags !== undefined) patch.tags = tags;
        if (input.assignee_ids !== undefined)
          await checkAssignees(tx, input.assignee_ids, assigneesBefore, 'assignee_ids');
        const timeChanged = time !== undefined && TIME_COLUMNS.some((column) => time[column] !== current[column]);
        const assigneesChanged =
          input.assignee_ids !== undefined && JSON.stringify(input.assignee_ids) !== JSON.stringify(assigneesBefore);
        if (current.schedule_id !== null && !options.fromSchedule && (timeChanged || assigneesChanged))
          patch.is_exception = 1;

        let row = current;
        if (Object.keys(patch).length > 0 || assigneesChanged) {
          row =
            (await repository.updateVisit(tx.db, tx.accountId, current.id, { ...patch, updated_at: now })) ?? current;
          if (timeChanged && row.start_at !== null && row.end_at !== null)
            await repository.noteVisitSpan(tx.db, tx.accountId, elapsedMinutes(row.start_at, row.end_at));
          if (assigneesChanged) await repository.replaceAssignees(tx.db, row, input.assignee_ids ?? [], now);
          else await repository.copyTimeToAssignees(tx.db, row);
          if (job) await repository.refreshJobOfVisits(tx.db, tx.accountId, job.id);
        }
        const after = await loadVisit(tx, row);
        assertNoConflicts(after, options.onConflict);
        await recordVisitChange(tx, before, { ...after, updated_at: row.updated_at });
        return after;
      }),
    id,
  );
}

export async function deleteVisit(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const found = await getRow(tx, id);
    await repository.findJobOfVisit(tx.db, tx.accountId, found.job_id, true);
    const current = await getRow(tx, id, true);
    const visit = await loadVisit(tx, current);
    precondition?.(visit);
    const entries = await repository.countTimeEntriesOfVisit(tx.db, tx.accountId, current.id);
    if (entries > 0)
      throw conflict(
        `This visit cannot be deleted while ${entries} time entr${entries === 1 ? 'y names' : 'ies name'} it.`,
      );
    await deleteCustomFieldValues(tx.db, tx.accountId, 'visit', current.id);
    await deleteObjectTags(tx, 'visit', current.id);
    await deleteAttachmentsOf(tx, 'visit', current.id);
    await repository.deleteVisit(tx.db, tx.accountId, current.id);
    // docs/api-contract.md §18: deleting a materialised visit adds its key to its schedule's exdates.
    if (current.schedule_id !== null && current.occurrence_key !== null)
      await repository.addScheduleExdate(tx.db, current, tx.clock.now().toISOString());
    await repository.refreshJobOfVisits(tx.db, tx.accountId, current.job_id);
    await recordEvent(tx, 'visit.deleted', visit);
    return { id: current.id, deleted: true as const };
  });
}

/** Adds one member (docs/api-contract.md §17): `added: false` when it was already there (no event). */
export async function addVisitAssignee(
  ctx: Context,
  id: string,
  memberId: string,
): Promise<{ visit: Visit; added: boolean }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    const assignees = (await repository.assigneesOf(tx.db, tx.accountId, [current.id])).get(current.id) ?? [];
    if (assignees.includes(memberId)) return { visit: await loadVisit(tx, current), added: false };
    if (assignees.length >= 20) throw fieldError('team_member_id', 'cannot be added: a visit has at most 20 assignees');
    await checkAssignees(tx, [memberId], [], 'team_member_id').catch((error: unknown) => {
      if (error instanceof AppError && error.details)
        throw validationError(error.details.map((detail) => ({ ...detail, field: 'team_member_id' })));
      throw error;
    });
    const before = presentVisit(current, assignees, null, tx.clock.now());
    const added = await repository.addAssignee(tx.db, current, memberId, tx.clock.now().toISOString());
    if (!added) return { visit: await loadVisit(tx, current), added: false };
    const row = await touch(tx, current);
    const after = await loadVisit(tx, row);
    await recordVisitChange(tx, before, after);
    return { visit: after, added: true };
  });
}

/** Removes one member; 404 when the member is not on the visit. */
export async function removeVisitAssignee(ctx: Context, id: string, memberId: string): Promise<Visit> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    const assignees = (await repository.assigneesOf(tx.db, tx.accountId, [current.id])).get(current.id) ?? [];
    const before = presentVisit(current, assignees, null, tx.clock.now());
    if (!assignees.includes(memberId) || !(await repository.removeAssignee(tx.db, current, memberId)))
      throw new AppError('NOT_FOUND', `Team member '${memberId}' is not assigned to this visit.`);
    const row = await touch(tx, current);
    const after = await loadVisit(tx, row);
    await recordVisitChange(tx, before, after);
    return after;
  });
}

/** updated_at now, and is_exception for a materialised visit whose assignees the API changed. */
async function touch(tx: Context, current: VisitRow): Promise<VisitRow> {
  const patch: VisitPatch = { updated_at: tx.clock.now().toISOString() };
  if (current.schedule_id !== null) patch.is_exception = 1;
  return (await repository.updateVisit(tx.db, tx.accountId, current.id, patch)) ?? current;
}

// --- what the job does to its visits ---

/** A job is deleted: its visits go with it, each recording `visit.deleted`. */
export async function deleteVisitsOfJob(tx: Context, jobId: string): Promise<void> {
  for (const row of await repository.visitsOfJob(tx.db, tx.accountId, jobId)) {
    const visit = await loadVisit(tx, row);
    await deleteCustomFieldValues(tx.db, tx.accountId, 'visit', row.id);
    await deleteObjectTags(tx, 'visit', row.id);
    await deleteAttachmentsOf(tx, 'visit', row.id);
    await repository.deleteVisit(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'visit.deleted', visit);
  }
}

/** A job's client or property changed: its visits answer the job's (no visit event: the job's says it). */
export async function moveVisitsWithJob(
  tx: Context,
  jobId: string,
  to: { client_id: string; property_id: string | null },
): Promise<void> {
  await repository.moveVisitsOfJob(tx.db, tx.accountId, jobId, to);
}

export { isOpen };
