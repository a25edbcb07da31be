// Holds and booking (docs/api-contract.md §28): a hold keeps a crew's time for the key that made it (others
// never see it); booking makes a visit from it. Holds and bookings take the same locks — the crew's member rows,
// in id order — and check the time after taking them, so of two callers racing for one member's time exactly
// one wins and the other gets a 409. Holds record no events; a booking records visit.created.
import { newId } from '../../core/deps.js';
import { AppError, fieldError, invalidState, validationError, type ErrorDetail } from '../../core/errors.js';
import { canonicalTimeZone, checkYears, instantToLocal, normalizedInstant } from '../../core/time.js';
import { fromJson, type Page } from '../../db/index.js';
import type { AvailabilityHoldRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { BookingMember } from '../team-members/index.js';
import {
  createVisit,
  type HoldResolver,
  type Visit,
  type VisitInput,
  type VisitWriteOptions,
} from '../visits/index.js';
import * as repository from './availability.repository.js';
import { type CreateHoldInput, type Hold, MAX_ACTIVE_HOLDS } from './availability.schemas.js';
import { accountBooking, durationOf, isFree, membersOf, propertyZone } from './availability.service.js';
import { within } from './free-time.js';
import { LocalDays } from './local-days.js';
import { type MemberTime, memberTimes, placeOf } from './member-time.js';

const MINUTE = 60_000;

/** The key a hold is bound to: the calling API key (also through the MCP server). */
function keyOf(ctx: Context): string {
  if (ctx.actor.id === null) throw new Error('a hold needs a calling key');
  return ctx.actor.id;
}

export function presentHold(row: AvailabilityHoldRow, now: Date): Hold {
  const active = row.visit_id === null && row.released_at === null && Date.parse(row.expires_at) > now.getTime();
  return {
    id: row.id,
    object: 'availability_hold',
    start_at: row.start_at,
    end_at: row.end_at,
    local_start: instantToLocal(row.start_at, row.timezone),
    local_end: instantToLocal(row.end_at, row.timezone),
    timezone: row.timezone,
    duration_minutes: Number(row.duration_minutes),
    property_id: row.property_id,
    team_member_ids: fromJson<string[]>(row.team_member_ids),
    expires_at: row.expires_at,
    active,
    visit_id: row.visit_id,
    released_at: row.released_at,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type Reason = 'visit' | 'hold' | 'time_off' | 'outside_hours' | 'inactive';

/** Why `member` is not free for [start, end), or undefined when it is. */
function reasonOf(
  member: BookingMember,
  time: MemberTime,
  start: number,
  end: number,
): { reason: Reason; visit_id?: string } | undefined {
  if (Number(member.active) !== 1) return { reason: 'inactive' };
  if (isFree(time, start, end)) return undefined;
  if (!within(time.stretches, start, end))
    return { reason: within(time.hours, start, end) ? 'time_off' : 'outside_hours' };
  // The first commitment, by start, whose interval widened by its gap touches the slot.
  const found = time.commitments.find(
    (one) => one.start - one.gap * MINUTE < end && one.end + one.gap * MINUTE > start,
  );
  if (found?.kind === 'hold') return { reason: 'hold' };
  return found?.id ? { reason: 'visit', visit_id: found.id } : { reason: 'visit' };
}

/** 409 CONFLICT naming each member that is not free, with its reason; nothing when the whole crew is free. */
async function assertCrewFree(
  ctx: Context,
  members: BookingMember[],
  start: number,
  end: number,
  propertyId: string | null,
  skipHold?: string,
): Promise<void> {
  const account = await accountBooking(ctx);
  const times = await memberTimes(
    ctx,
    members,
    account.hours,
    account.settings,
    await placeOf(ctx, propertyId),
    { from: start, to: end },
    new LocalDays(),
    { skipHold, visitIds: true },
  );
  const details: ErrorDetail[] = [];
  for (const member of members) {
    const found = reasonOf(member, times.get(member.id) as MemberTime, start, end);
    if (found)
      details.push({
        field: 'team_member_ids',
        message: `team member ${member.id} is not free then (${found.reason.replace('_', ' ')})`,
        team_member_id: member.id,
        ...found,
      } as ErrorDetail);
  }
  if (details.length > 0)
    throw new AppError(
      'CONFLICT',
      `The time is not free for ${details.length} of the ${members.length} team member${members.length === 1 ? '' : 's'}.`,
      details,
    );
}

export async function createHold(ctx: Context, input: CreateHoldInput): Promise<Hold> {
  const keyId = keyOf(ctx);
  let start: number;
  try {
    start = Date.parse(normalizedInstant(input.start_at));
  } catch {
    throw fieldError('start_at', 'must be an RFC 3339 instant with an offset');
  }
  const duration = await durationOf(ctx, input);
  const account = await accountBooking(ctx);
  const propertyZoneFound = await propertyZone(ctx, input.property_id);
  const zone =
    input.timezone !== undefined
      ? canonicalTimeZone('timezone', input.timezone)
      : (propertyZoneFound ?? account.timezone);
  const now = ctx.clock.now();
  if (start < now.getTime() + account.settings.min_notice_minutes * MINUTE)
    throw fieldError(
      'start_at',
      `is sooner than the account's notice: the first bookable start is ${account.settings.min_notice_minutes} minutes from now`,
    );
  const end = start + duration * MINUTE;
  // The years 0001–9999 (§32), the end included.
  checkYears('start_at', new Date(start).toISOString(), zone);
  checkYears('duration_minutes', new Date(end).toISOString(), zone);
  const ids = input.team_member_ids;
  return inTransaction(ctx, async (tx) => {
    await membersOf(tx, ids, 'team_member_ids');
    // The crew's rows, locked in id order (the one order every hold and booking takes), read again once locked.
    const locked = new Map(
      (await membersOf(tx, [...ids].sort(), 'team_member_ids', true)).map((member) => [member.id, member]),
    );
    const members = ids.map((id) => locked.get(id) as BookingMember);
    const active = await repository.activeHoldsOfKey(tx.db, tx.accountId, keyId, now.toISOString(), MAX_ACTIVE_HOLDS);
    if (active.length >= MAX_ACTIVE_HOLDS)
      throw invalidState(
        `This key already has ${MAX_ACTIVE_HOLDS} active holds, the most it may have: book or release one first.`,
      );
    await assertCrewFree(tx, members, start, end, input.property_id ?? null);
    const stamp = now.toISOString();
    const row: AvailabilityHoldRow = {
      id: newId(),
      account_id: tx.accountId,
      api_key_id: keyId,
      start_at: new Date(start).toISOString(),
      end_at: new Date(end).toISOString(),
      timezone: zone,
      duration_minutes: duration,
      property_id: input.property_id ?? null,
      team_member_ids: JSON.stringify(ids),
      expires_at: new Date(now.getTime() + (input.expires_in_seconds ?? 600) * 1000).toISOString(),
      visit_id: null,
      released_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: stamp,
      updated_at: stamp,
    };
    await repository.insertHold(tx.db, row, ids);
    return presentHold(row, now);
  });
}

function requireHold(ctx: Context, id: string): Promise<AvailabilityHoldRow> {
  return repository.findHold(ctx.db, ctx.accountId, keyOf(ctx), id).then((row) => {
    if (!row) throw new AppError('NOT_FOUND', `No availability hold with id '${id}' exists.`);
    return row;
  });
}

export async function getHold(ctx: Context, id: string): Promise<Hold> {
  return presentHold(await requireHold(ctx, id), ctx.clock.now());
}

export async function listHolds(ctx: Context, limit = 25): Promise<Page<Hold>> {
  const now = ctx.clock.now();
  // A key has at most 10 active holds: one page answers them all (a smaller limit answers the soonest to expire).
  const rows = await repository.activeHoldsOfKey(ctx.db, ctx.accountId, keyOf(ctx), now.toISOString(), limit);
  return { items: rows.map((row) => presentHold(row, now)), hasMore: false, nextCursor: null };
}

/** Releases a hold: 409 INVALID_STATE once booked; releasing a released or expired one answers it as it is. */
export async function releaseHold(ctx: Context, id: string): Promise<Hold> {
  return inTransaction(ctx, async (tx) => {
    const row = await requireHold(tx, id);
    const now = tx.clock.now();
    if (row.visit_id !== null)
      throw invalidState(`This hold was booked as visit ${row.visit_id}: it cannot be released.`);
    if (row.released_at !== null) return presentHold(row, now);
    const stamp = now.toISOString();
    const ended = await repository.endHold(tx.db, tx.accountId, row.id, { released_at: stamp, updated_at: stamp });
    return presentHold(ended ?? row, now);
  });
}

/** The visit fields a booking takes beside its hold: none of the time, its zone or its people. */
const HOLD_OWNS = [
  'start_at',
  'end_at',
  'local_start',
  'local_end',
  'duration_minutes',
  'start_date',
  'end_date',
  'all_day',
  'timezone',
  'assignee_ids',
] as const;

export type BookingInput = VisitInput & { job_id: string; hold_id: string };

/**
 * Books a visit of `job_id` from the key's hold (POST /v1/visits with hold_id): createVisit with the hold
 * resolver below.
 */
export function bookHold(ctx: Context, input: BookingInput, options: VisitWriteOptions = {}): Promise<Visit> {
  return createVisit(ctx, input, { ...options, holds: resolveHold });
}

/**
 * A visit's hold, in the visit's transaction (POST /v1/visits, POST /v1/jobs `visits[i]`): 422 for a time, zone
 * or assignees beside it, an unknown hold (or another key's) or one for another property than the job's; the
 * crew's rows locked in id order; 409 INVALID_STATE for a spent, released or expired hold; 409 CONFLICT when the
 * time was taken meanwhile. Answers the visit to make (the hold's instants, zone and crew) and what spends the
 * hold once it is made.
 */
export const resolveHold: HoldResolver = async (tx, input, job, prefix) => {
  const strays = HOLD_OWNS.filter((field) => input[field] !== undefined);
  if (strays.length > 0)
    throw validationError(
      strays.map((field) => ({
        field: `${prefix}${field}`,
        message: 'comes from the hold: leave it out when booking with hold_id',
      })),
    );
  const hold = await repository.findHold(tx.db, tx.accountId, keyOf(tx), input.hold_id);
  if (!hold)
    throw fieldError(`${prefix}hold_id`, `no availability hold with id '${input.hold_id}' was made by this key`);
  if (hold.property_id !== null && hold.property_id !== job.property_id)
    throw fieldError(`${prefix}hold_id`, `holds time at property ${hold.property_id}, not at the job's property`);
  const crew = fromJson<string[]>(hold.team_member_ids);
  // The same locks as a hold: the crew's rows in id order.
  await membersOf(tx, [...crew].sort(), 'team_member_ids', true);
  const now = tx.clock.now();
  if (hold.visit_id !== null) throw invalidState(`This hold was already booked as visit ${hold.visit_id}.`);
  if (hold.released_at !== null) throw invalidState('This hold was released: hold the time again.');
  if (Date.parse(hold.expires_at) <= now.getTime())
    throw invalidState(`This hold expired at ${hold.expires_at}: hold the time again.`);
  const members = await membersOf(tx, crew, 'team_member_ids');
  await assertCrewFree(tx, members, Date.parse(hold.start_at), Date.parse(hold.end_at), hold.property_id, hold.id);
  return {
    visit: {
      ...input,
      start_at: hold.start_at,
      end_at: hold.end_at,
      timezone: hold.timezone,
      assignee_ids: crew,
      hold_id: hold.id,
    },
    spend: async (visitId) => {
      await repository.endHold(tx.db, tx.accountId, hold.id, { visit_id: visitId, updated_at: now.toISOString() });
    },
  };
};
