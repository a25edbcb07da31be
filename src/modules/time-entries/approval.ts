// Approving entries and locking pay periods (docs/api-contract.md §29). Only stopped entries are approved; an
// approved entry cannot change until unapproved. A period locks once every entry starting on or before its last
// local date (the account's zone) is stopped and approved; no write may then touch an entry starting in it.
import { AppError, type ErrorDetail, fieldError, invalidState } from '../../core/errors.js';
import { addDaysToDate, windowEdge } from '../../core/time.js';
import type { TimeEntryRow } from '../../db/types.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { requireReference, requireRow } from '../shared/index.js';
import * as repository from './time-entries.repository.js';
import { type BulkApproveInput, MAX_APPROVED_PER_CALL, type TimeEntry, type TimeLock } from './time-entries.schemas.js';
import { isLocked, presentTimeEntry, type TimeSettings, timeSettings } from './time-entries.service.js';

/** A 422 on `field` for a date of the year 0000 (both engines store the years 0001–9999). */
function checkDate(field: string, date: string | null): void {
  if (date !== null && date < '0001-01-01') throw fieldError(field, 'must be in the years 0001 to 9999');
}

/** How many unsettled entries a refused lock names. */
const NAMED_UNSETTLED = 20;

function getRow(ctx: Context, id: string): Promise<TimeEntryRow> {
  return requireRow('time entry', id, (found) => repository.findTimeEntry(ctx.db, ctx.accountId, found, true));
}

function assertUnlocked(row: TimeEntryRow, settings: TimeSettings): void {
  if (isLocked(row.started_at, settings))
    throw invalidState(
      `This time entry starts on or before ${settings.lockedThrough}, a locked pay period; unlock it first (POST /v1/time-entries/unlock).`,
    );
}

async function approveRow(tx: Context, row: TimeEntryRow, settings: TimeSettings): Promise<TimeEntry> {
  const now = tx.clock.now().toISOString();
  const updated = await repository.updateTimeEntry(tx.db, tx.accountId, row, {
    approved_at: now,
    approved_by: JSON.stringify({ type: tx.actor.type, id: tx.actor.id }),
    updated_at: now,
  });
  const entry = presentTimeEntry(updated ?? row, settings);
  await recordEvent(tx, 'time_entry.approved', entry, {
    previous_attributes: previousAttributes(presentTimeEntry(row, settings), entry),
  });
  return entry;
}

export async function approveTimeEntry(ctx: Context, id: string): Promise<TimeEntry> {
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    const row = await getRow(tx, id);
    assertUnlocked(row, settings);
    if (row.ended_at === null) throw invalidState('This time entry is running and cannot be approved; stop it first.');
    if (row.approved_at !== null) return presentTimeEntry(row, settings);
    return approveRow(tx, row, settings);
  });
}

export async function unapproveTimeEntry(ctx: Context, id: string): Promise<TimeEntry> {
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    const row = await getRow(tx, id);
    assertUnlocked(row, settings);
    if (row.approved_at === null) return presentTimeEntry(row, settings);
    const before = presentTimeEntry(row, settings);
    const updated = await repository.updateTimeEntry(tx.db, tx.accountId, row, {
      approved_at: null,
      approved_by: null,
      updated_at: tx.clock.now().toISOString(),
    });
    const entry = presentTimeEntry(updated ?? row, settings);
    await recordEvent(tx, 'time_entry.unapproved', entry, { previous_attributes: previousAttributes(before, entry) });
    return entry;
  });
}

/** Approves the stopped entries starting on the local dates from_date to to_date, at most 1,000 a call. */
export async function approveTimeEntries(
  ctx: Context,
  input: BulkApproveInput,
): Promise<{ approved: number; remaining: number }> {
  checkDate('from_date', input.from_date);
  checkDate('to_date', input.to_date);
  if (input.to_date < input.from_date) throw fieldError('to_date', 'must not be before from_date');
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    if (input.team_member_id !== undefined) {
      const memberId = input.team_member_id;
      await requireReference('team_member_id', 'team member', memberId, (id) =>
        repository.lockMember(tx.db, tx.accountId, id),
      );
    }
    const range = {
      from: windowEdge(input.from_date, settings.timezone),
      to: windowEdge(addDaysToDate(input.to_date, 1), settings.timezone),
      memberId: input.team_member_id,
    };
    const rows = await repository.findApprovable(tx.db, tx.accountId, range, MAX_APPROVED_PER_CALL + 1);
    const batch = rows.slice(0, MAX_APPROVED_PER_CALL).filter((row) => !isLocked(row.started_at, settings));
    for (const row of batch) await approveRow(tx, row, settings);
    const left = await repository.findApprovable(tx.db, tx.accountId, range, MAX_APPROVED_PER_CALL + 1);
    return { approved: batch.length, remaining: left.filter((row) => !isLocked(row.started_at, settings)).length };
  });
}

function presentLock(accountId: string, lockedThrough: string | null, updatedAt: string): TimeLock {
  return { id: accountId, object: 'time_lock', locked_through: lockedThrough, updated_at: updatedAt };
}

/** Moves the account's lock date forward to through_date, once every entry through it is stopped and approved. */
export async function lockTimeEntries(ctx: Context, throughDate: string): Promise<TimeLock> {
  checkDate('through_date', throughDate);
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx, true);
    const now = tx.clock.now().toISOString();
    if (settings.lockedThrough !== null && throughDate <= settings.lockedThrough) {
      if (throughDate === settings.lockedThrough)
        return presentLock(tx.accountId, settings.lockedThrough, settings.lockUpdatedAt);
      throw invalidState(
        `Time is already locked through ${settings.lockedThrough}; unlock moves the lock back (POST /v1/time-entries/unlock).`,
      );
    }
    const end = windowEdge(addDaysToDate(throughDate, 1), settings.timezone);
    const unsettled = await repository.findUnsettled(tx.db, tx.accountId, end, NAMED_UNSETTLED);
    if (unsettled.length > 0) {
      const total = await repository.countUnsettled(tx.db, tx.accountId, end);
      const details = unsettled.map(
        (row) =>
          ({
            field: 'through_date',
            message: `time entry ${row.id} is ${row.ended_at === null ? 'running' : 'not approved'}`,
            time_entry_id: row.id,
          }) as ErrorDetail,
      );
      throw new AppError(
        'INVALID_STATE',
        `${total} time entr${total === 1 ? 'y' : 'ies'} starting on or before ${throughDate} ${total === 1 ? 'is' : 'are'} running or not approved; stop and approve them first.`,
        details,
      );
    }
    await repository.setLockedThrough(tx.db, tx.accountId, throughDate, now);
    const lock = presentLock(tx.accountId, throughDate, now);
    await recordEvent(tx, 'time_lock.locked', lock, {
      previous_attributes: { locked_through: settings.lockedThrough },
    });
    return lock;
  });
}

/** Moves the account's lock date back to through_date (null: nothing locked). */
export async function unlockTimeEntries(ctx: Context, throughDate: string | null): Promise<TimeLock> {
  checkDate('through_date', throughDate);
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx, true);
    const now = tx.clock.now().toISOString();
    if (settings.lockedThrough === throughDate) return presentLock(tx.accountId, throughDate, settings.lockUpdatedAt);
    if (settings.lockedThrough === null || (throughDate !== null && throughDate > settings.lockedThrough))
      throw invalidState(
        settings.lockedThrough === null
          ? 'No time is locked.'
          : `Time is locked through ${settings.lockedThrough}; lock moves the lock forward (POST /v1/time-entries/lock).`,
      );
    await repository.setLockedThrough(tx.db, tx.accountId, throughDate, now);
    const lock = presentLock(tx.accountId, throughDate, now);
    await recordEvent(tx, 'time_lock.unlocked', lock, {
      previous_attributes: { locked_through: settings.lockedThrough },
    });
    return lock;
  });
}
