// Time entry rules (docs/api-contract.md §29): an entry's job follows its visit; its currency is the job's, else the
// account's, and its rates default to the member's (required in another currency); a member's entries never overlap
// and at most one runs (a unique index settles two racing starts); an entry lasts at most 24 h. Approved entries
// and entries starting in the account's locked period cannot change (409 INVALID_STATE). The figures are computed
// as answered, from the account's current billing increment (figures.ts).
import { newId } from '../../core/deps.js';
import { AppError, type ErrorDetail, fieldError, invalidState, type Precondition } from '../../core/errors.js';
import { checkYears, localDate } from '../../core/time.js';
import { fromJson, mapPage, normalizeInstant, type Page, pageRequest, toPage } from '../../db/index.js';
import type { AccountRow, TimeEntryPatch, TimeEntryRow } from '../../db/types.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { findAccount } from '../accounts/index.js';
import { previousAttributes, recordChange, recordEvent } from '../events/index.js';
import { requireJobReference } from '../jobs/index.js';
import { externalIdConflict, guardUnique, requireReference, requireRow } from '../shared/index.js';
import { figuresOf } from './figures.js';
import * as repository from './time-entries.repository.js';
import {
  type CreateTimeEntryInput,
  type ListTimeEntriesInput,
  MAX_ENTRY_SECONDS,
  type StartTimerInput,
  type StopTimerInput,
  type TimeEntry,
  type TimeEntrySource,
  type UpdateTimeEntryInput,
} from './time-entries.schemas.js';

/** What presenting an entry needs of its account. */
export interface TimeSettings {
  currency: string;
  timezone: string;
  incrementMinutes: number;
  lockedThrough: string | null;
  /** When the lock date last moved (the account's creation if never). */
  lockUpdatedAt: string;
}

export function settingsOf(account: AccountRow): TimeSettings {
  return {
    currency: account.currency,
    timezone: account.timezone,
    incrementMinutes: Number(account.time_billing_increment_minutes ?? 3),
    lockedThrough: account.time_locked_through ?? null,
    lockUpdatedAt: account.time_lock_updated_at ?? account.created_at,
  };
}

export async function timeSettings(ctx: Context, lock = false): Promise<TimeSettings> {
  const account = await findAccount(ctx.db, ctx.accountId, lock);
  if (!account) throw new Error(`account ${ctx.accountId} not found`);
  return settingsOf(account);
}

/** Whether an entry starting at `startedAt` lies in the locked period: its local date on or before the lock date. */
export function isLocked(startedAt: string, settings: TimeSettings): boolean {
  return settings.lockedThrough !== null && localDate(startedAt, settings.timezone) <= settings.lockedThrough;
}

export function presentTimeEntry(row: TimeEntryRow, settings: TimeSettings): TimeEntry {
  const billable = Number(row.billable) === 1;
  const cost = Number(row.hourly_cost_amount);
  const rate = Number(row.hourly_rate_amount);
  const figures =
    row.ended_at === null
      ? null
      : figuresOf(
          { started_at: row.started_at, ended_at: row.ended_at, break_minutes: Number(row.break_minutes), billable },
          cost,
          rate,
          settings.incrementMinutes,
          row.billed_hundredths === null ? undefined : BigInt(row.billed_hundredths),
        );
  return {
    id: row.id,
    object: 'time_entry',
    team_member_id: row.team_member_id,
    job_id: row.job_id,
    visit_id: row.visit_id,
    started_at: row.started_at,
    ended_at: row.ended_at,
    break_minutes: Number(row.break_minutes),
    source: row.source as TimeEntrySource,
    billable,
    hourly_cost_amount: cost,
    hourly_rate_amount: rate,
    notes: row.notes,
    running: row.ended_at === null,
    duration_seconds: figures?.duration_seconds ?? null,
    currency: row.currency,
    cost_amount: figures?.cost_amount ?? null,
    billed_hours: figures?.billed_hours ?? null,
    billable_amount: figures?.billable_amount ?? null,
    approved_at: row.approved_at,
    approved_by: row.approved_by === null ? null : fromJson<{ type: string; id: string | null }>(row.approved_by),
    locked: isLocked(row.started_at, settings),
    invoice_id: row.invoice_id,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<TimeEntryRow> {
  return requireRow('time entry', id, (found) => repository.findTimeEntry(ctx.db, ctx.accountId, found, lock));
}

/** An instant as stored: UTC, to the whole second (§29: "instants to the second"), in the years 0001–9999. */
export function toSecond(field: string, value: string): string {
  const millis = Date.parse(normalizeInstant(value));
  const stored = new Date(Math.floor(millis / 1000) * 1000).toISOString();
  checkYears(field, stored, 'UTC');
  return stored;
}

function assertSpan(startedAt: string, endedAt: string, breakMinutes: number, endField = 'ended_at'): void {
  const seconds = (Date.parse(endedAt) - Date.parse(startedAt)) / 1000;
  if (seconds <= 0) throw fieldError(endField, 'must be after started_at');
  if (seconds > MAX_ENTRY_SECONDS) throw fieldError(endField, 'must be at most 24 hours after started_at');
  if (breakMinutes * 60 >= seconds) throw fieldError('break_minutes', 'must be shorter than the entry');
}

function assertUnlocked(startedAt: string, settings: TimeSettings): void {
  if (isLocked(startedAt, settings))
    throw invalidState(
      `This time entry starts on or before ${settings.lockedThrough}, a locked pay period; unlock it first (POST /v1/time-entries/unlock).`,
    );
}

function assertEditable(row: TimeEntryRow, settings: TimeSettings): void {
  assertUnlocked(row.started_at, settings);
  if (row.approved_at !== null)
    throw invalidState('This time entry is approved and cannot change; unapprove it first.');
}

/** The 409 of an entry of the member that meets [start, end), with its times in details. */
async function assertNoOverlap(
  tx: Context,
  memberId: string,
  start: string,
  end: string | null,
  except?: string,
): Promise<void> {
  const other = await repository.findOverlap(tx.db, tx.accountId, memberId, start, end, except);
  if (!other) return;
  const message = `overlaps time entry ${other.id} of the same team member (${other.started_at} to ${other.ended_at ?? 'running'})`;
  throw new AppError('CONFLICT', `This time entry ${message}.`, [
    {
      field: 'started_at',
      message,
      time_entry_id: other.id,
      started_at: other.started_at,
      ended_at: other.ended_at,
    } as ErrorDetail,
  ]);
}

function runningConflict(running: TimeEntryRow): AppError {
  const message = `already has running time entry ${running.id}; stop it first, or send stop_running: true`;
  return new AppError('CONFLICT', `This team member ${message}.`, [
    { field: 'team_member_id', message, time_entry_id: running.id, started_at: running.started_at } as ErrorDetail,
  ]);
}

/** The member, locked for the transaction (its entries' checks take turns), and the rates it gives by default. */
async function lockMember(tx: Context, memberId: string, field = 'team_member_id') {
  const member = await requireReference(field, 'team member', memberId, (id) =>
    repository.lockMember(tx.db, tx.accountId, id),
  );
  // A member's rates, where its row has them (docs/api-contract.md §28 adds them to team members): else 0.
  return {
    active: Number(member.active) === 1,
    hourly_cost_amount: Number(member.hourly_cost_amount ?? 0),
    hourly_rate_amount: Number(member.hourly_rate_amount ?? 0),
  };
}

/** The job and visit an entry names once its visit is read: the visit's job, which a job_id sent must match. */
async function resolveWork(
  tx: Context,
  jobId: string | null,
  visitId: string | null,
): Promise<{ job_id: string | null; visit_id: string | null; currency: string | null }> {
  let job = jobId;
  if (visitId !== null) {
    const visitJob = await requireReference('visit_id', 'visit', visitId, (id) =>
      repository.findVisitJob(tx.db, tx.accountId, id),
    );
    if (job !== null && job !== visitJob) throw fieldError('visit_id', `belongs to job ${visitJob}, not ${job}`);
    job = visitJob;
  }
  if (job === null) return { job_id: null, visit_id: visitId, currency: null };
  const row = await requireJobReference(tx, job);
  return { job_id: row.id, visit_id: visitId, currency: row.currency };
}

/** The rates of an entry in `currency`: the body's, else the member's in the account's currency (422 in another). */
function ratesOf(
  input: { hourly_cost_amount?: number | undefined; hourly_rate_amount?: number | undefined },
  defaults: { hourly_cost_amount: number; hourly_rate_amount: number },
  currency: string,
  settings: TimeSettings,
): { hourly_cost_amount: number; hourly_rate_amount: number } {
  if (currency !== settings.currency) {
    const missing = (['hourly_cost_amount', 'hourly_rate_amount'] as const).filter(
      (field) => input[field] === undefined,
    );
    if (missing.length > 0)
      throw new AppError(
        'VALIDATION_ERROR',
        'The request body has invalid fields.',
        missing.map((field) => ({
          field,
          message: `is required: the entry’s currency ${currency} is not the account’s (${settings.currency})`,
        })),
      );
  }
  return {
    hourly_cost_amount: input.hourly_cost_amount ?? defaults.hourly_cost_amount,
    hourly_rate_amount: input.hourly_rate_amount ?? defaults.hourly_rate_amount,
  };
}

/**
 * Runs a write that may make a running entry: a racing start that got past the checks is named in a 409. With
 * `stopping` (stop_running) a running entry found before the write is the one it stops, not a conflict.
 */
function guardRunning<T>(
  ctx: Context,
  memberId: string,
  externalId: string | null,
  write: () => Promise<T>,
  stopping = false,
) {
  let before = true;
  return guardUnique(
    ctx,
    async (tx) => {
      const checkingBefore = before;
      before = false;
      if (externalId !== null) {
        const taken = await externalIdConflict(tx, 'time_entries', externalId);
        if (taken) return taken;
      }
      if (stopping && checkingBefore) return undefined;
      const running = await repository.findRunning(tx.db, tx.accountId, memberId);
      return running ? runningConflict(running) : undefined;
    },
    write,
  );
}

export async function createTimeEntry(ctx: Context, input: CreateTimeEntryInput): Promise<TimeEntry> {
  const startedAt = toSecond('started_at', input.started_at);
  const endedAt = input.ended_at === undefined || input.ended_at === null ? null : toSecond('ended_at', input.ended_at);
  const breakMinutes = input.break_minutes ?? 0;
  if (endedAt !== null) assertSpan(startedAt, endedAt, breakMinutes);
  else if (Date.parse(startedAt) > ctx.clock.now().getTime())
    throw fieldError('started_at', 'must not be in the future for a running entry');
  const write = () =>
    inTransaction(ctx, async (tx) => {
      const settings = await timeSettings(tx);
      const member = await lockMember(tx, input.team_member_id);
      const work = await resolveWork(tx, input.job_id ?? null, input.visit_id ?? null);
      const currency = work.currency ?? settings.currency;
      const rates = ratesOf(input, member, currency, settings);
      assertUnlocked(startedAt, settings);
      if (endedAt === null) {
        const running = await repository.findRunning(tx.db, tx.accountId, input.team_member_id);
        if (running) throw runningConflict(running);
      }
      await assertNoOverlap(tx, input.team_member_id, startedAt, endedAt);
      const now = tx.clock.now().toISOString();
      const row: TimeEntryRow = {
        id: newId(),
        account_id: tx.accountId,
        team_member_id: input.team_member_id,
        job_id: work.job_id,
        visit_id: work.visit_id,
        started_at: startedAt,
        ended_at: endedAt,
        break_minutes: breakMinutes,
        source: input.source ?? 'manual',
        billable: (input.billable ?? work.job_id !== null) ? 1 : 0,
        ...rates,
        currency,
        notes: input.notes ?? null,
        approved_at: null,
        approved_by: null,
        invoice_id: null,
        billed_hundredths: null,
        external_id: input.external_id ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: now,
        updated_at: now,
      };
      await repository.insertTimeEntry(tx.db, row);
      const entry = presentTimeEntry(row, settings);
      await recordEvent(tx, 'time_entry.created', entry);
      return entry;
    });
  if (endedAt === null) return guardRunning(ctx, input.team_member_id, input.external_id ?? null, write);
  if (input.external_id == null) return write();
  const externalId = input.external_id;
  return guardUnique(ctx, (tx) => externalIdConflict(tx, 'time_entries', externalId), write);
}

export async function getTimeEntry(ctx: Context, id: string): Promise<TimeEntry> {
  const row = await getRow(ctx, id);
  return presentTimeEntry(row, await timeSettings(ctx));
}

/** The figures' fields: frozen once the entry is billed (§29). */
const FIGURE_FIELDS = [
  'started_at',
  'ended_at',
  'break_minutes',
  'billable',
  'hourly_cost_amount',
  'hourly_rate_amount',
  'job_id',
  'visit_id',
] as const;

export async function updateTimeEntry(
  ctx: Context,
  id: string,
  input: UpdateTimeEntryInput,
  precondition?: Precondition,
): Promise<TimeEntry> {
  const write = () =>
    inTransaction(ctx, async (tx) => {
      const settings = await timeSettings(tx);
      const found = await getRow(tx, id);
      const member = await lockMember(tx, found.team_member_id);
      const current = await getRow(tx, id, true);
      const before = presentTimeEntry(current, settings);
      precondition?.(before);
      assertEditable(current, settings);
      if (current.invoice_id !== null && FIGURE_FIELDS.some((field) => input[field] !== undefined))
        throw invalidState(`This time entry is billed on invoice ${current.invoice_id}: its figures cannot change.`);
      const patch: TimeEntryPatch = {};
      const startedAt = input.started_at !== undefined ? toSecond('started_at', input.started_at) : current.started_at;
      const endedAt = input.ended_at !== undefined ? toSecond('ended_at', input.ended_at) : current.ended_at;
      const breakMinutes = input.break_minutes ?? Number(current.break_minutes);
      if (endedAt !== null) assertSpan(startedAt, endedAt, breakMinutes);
      else if (Date.parse(startedAt) > tx.clock.now().getTime())
        throw fieldError('started_at', 'must not be in the future for a running entry');
      assertUnlocked(startedAt, settings);
      if (startedAt !== current.started_at) patch.started_at = startedAt;
      if (endedAt !== current.ended_at) patch.ended_at = endedAt;
      if (input.break_minutes !== undefined) patch.break_minutes = input.break_minutes;
      if (input.job_id !== undefined || input.visit_id !== undefined) {
        const visitId =
          input.visit_id !== undefined ? input.visit_id : input.job_id !== undefined ? null : current.visit_id;
        const jobId = input.job_id !== undefined ? input.job_id : visitId !== null ? null : current.job_id;
        const work = await resolveWork(tx, jobId, visitId);
        const currency = work.currency ?? settings.currency;
        Object.assign(patch, { job_id: work.job_id, visit_id: work.visit_id });
        if (currency !== current.currency) {
          Object.assign(patch, { currency, ...ratesOf(input, member, currency, settings) });
        }
      }
      if (input.billable !== undefined) patch.billable = input.billable ? 1 : 0;
      if (input.hourly_cost_amount !== undefined) patch.hourly_cost_amount = input.hourly_cost_amount;
      if (input.hourly_rate_amount !== undefined) patch.hourly_rate_amount = input.hourly_rate_amount;
      if (input.notes !== undefined) patch.notes = input.notes;
      if (input.external_id !== undefined) patch.external_id = input.external_id;
      if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
      if (patch.started_at !== undefined || patch.ended_at !== undefined)
        await assertNoOverlap(tx, current.team_member_id, startedAt, endedAt, current.id);
      if (Object.keys(patch).length === 0) return before;
      const updated = await repository.updateTimeEntry(tx.db, tx.accountId, current, {
        ...patch,
        updated_at: tx.clock.now().toISOString(),
      });
      const entry = presentTimeEntry(updated ?? current, settings);
      await recordChange(tx, { resource: 'time_entry', before, after: entry });
      return entry;
    });
  if (input.external_id == null) return write();
  const externalId = input.external_id;
  return guardUnique(ctx, (tx) => externalIdConflict(tx, 'time_entries', externalId, id), write);
}

export async function deleteTimeEntry(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    const current = await getRow(tx, id, true);
    const entry = presentTimeEntry(current, settings);
    precondition?.(entry);
    assertEditable(current, settings);
    if (current.invoice_id !== null)
      throw invalidState(`This time entry is billed on invoice ${current.invoice_id} and cannot be deleted.`);
    await repository.deleteTimeEntry(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'time_entry.deleted', entry);
    return { id: current.id, deleted: true as const };
  });
}

export async function listTimeEntries(ctx: Context, query: ListTimeEntriesInput): Promise<Page<TimeEntry>> {
  const page = pageRequest(query, repository.TIME_ENTRY_SORTS);
  const { rows, resumeAfter } = await repository.listTimeEntries(ctx.db, ctx.accountId, query, page);
  const settings = await timeSettings(ctx);
  const found = toPage(rows, page, resumeAfter);
  return mapPage(
    found,
    found.items.map((row) => presentTimeEntry(row, settings)),
  );
}

/** Starts a timer (§29): a running entry of an active member, stopping its running one with stop_running. */
export async function startTimer(ctx: Context, input: StartTimerInput): Promise<TimeEntry> {
  const nowMillis = ctx.clock.now().getTime();
  const startedAt = toSecond('started_at', input.started_at ?? ctx.clock.now().toISOString());
  if (Date.parse(startedAt) > nowMillis) throw fieldError('started_at', 'must not be in the future');
  if (nowMillis - Date.parse(startedAt) > MAX_ENTRY_SECONDS * 1000)
    throw fieldError('started_at', 'must be at most 24 hours ago');
  const write = () =>
    inTransaction(ctx, async (tx) => {
      const settings = await timeSettings(tx);
      const member = await lockMember(tx, input.team_member_id);
      if (!member.active) throw fieldError('team_member_id', 'is not an active team member');
      const work = await resolveWork(tx, input.job_id ?? null, input.visit_id ?? null);
      const currency = work.currency ?? settings.currency;
      const rates = ratesOf({}, member, currency, settings);
      assertUnlocked(startedAt, settings);
      const running = await repository.findRunning(tx.db, tx.accountId, input.team_member_id);
      if (running && input.stop_running !== true) throw runningConflict(running);
      // A running entry that starts no earlier than this start cannot be stopped at it: another start won the race.
      if (running && Date.parse(running.started_at) >= Date.parse(startedAt)) throw runningConflict(running);
      if (running) await stopRow(tx, running, startedAt, Number(running.break_minutes), settings, 'stop_running');
      await assertNoOverlap(tx, input.team_member_id, startedAt, null);
      const now = tx.clock.now().toISOString();
      const row: TimeEntryRow = {
        id: newId(),
        account_id: tx.accountId,
        team_member_id: input.team_member_id,
        job_id: work.job_id,
        visit_id: work.visit_id,
        started_at: startedAt,
        ended_at: null,
        break_minutes: 0,
        source: 'timer',
        billable: (input.billable ?? work.job_id !== null) ? 1 : 0,
        ...rates,
        currency,
        notes: input.notes ?? null,
        approved_at: null,
        approved_by: null,
        invoice_id: null,
        billed_hundredths: null,
        external_id: null,
        metadata: '{}',
        created_at: now,
        updated_at: now,
      };
      await repository.insertTimeEntry(tx.db, row);
      const entry = presentTimeEntry(row, settings);
      await recordEvent(tx, 'time_entry.started', entry);
      return entry;
    });
  // With stop_running too: a racing start that got past the checks loses to the unique index, answered 409.
  return guardRunning(ctx, input.team_member_id, null, write, input.stop_running === true);
}

async function stopRow(
  tx: Context,
  current: TimeEntryRow,
  endedAt: string,
  breakMinutes: number,
  settings: TimeSettings,
  endField = 'ended_at',
): Promise<TimeEntry> {
  assertUnlocked(current.started_at, settings);
  assertSpan(current.started_at, endedAt, breakMinutes, endField);
  const before = presentTimeEntry(current, settings);
  const updated = await repository.updateTimeEntry(tx.db, tx.accountId, current, {
    ended_at: endedAt,
    break_minutes: breakMinutes,
    updated_at: tx.clock.now().toISOString(),
  });
  const entry = presentTimeEntry(updated ?? current, settings);
  await recordEvent(tx, 'time_entry.stopped', entry, { previous_attributes: previousAttributes(before, entry) });
  return entry;
}

export async function stopTimer(ctx: Context, id: string, input: StopTimerInput): Promise<TimeEntry> {
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    const current = await getRow(tx, id, true);
    if (current.ended_at !== null) throw invalidState('This time entry is already stopped.');
    const endedAt = toSecond('ended_at', input.ended_at ?? tx.clock.now().toISOString());
    return stopRow(tx, current, endedAt, input.break_minutes ?? Number(current.break_minutes), settings);
  });
}

/** Stops the member's running entry (the MCP tool's "stop the timer of this member"): 409 when none runs. */
export async function stopMemberTimer(ctx: Context, memberId: string, input: StopTimerInput): Promise<TimeEntry> {
  const running = await repository.findRunning(ctx.db, ctx.accountId, memberId);
  if (!running) throw invalidState('This team member has no running time entry.');
  return stopTimer(ctx, running.id, input);
}
