// Each member's bookable stretches and commitments over a span (docs/api-contract.md §28), read once per query
// or hold: weekly hours (the member's, else the account's) on the member's clock ∪ extra hours − time off; their
// visits that are not canceled, the projected occurrences of schedules naming them, and active holds. The
// commitments are widened by the gap to the slot's place (buffer + travel) and taken out of the stretches, so
// that a slot's check is one binary search, and a day's free starts are found a free interval at a time.
import { storedInstantMs } from '../../core/time.js';
import { fromJsonShared, readsTogether } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import type { BookingSettings } from '../accounts/index.js';
import { findPropertyPlaces } from '../properties/index.js';
import type { WorkingHours } from '../shared/index.js';
import type { BookingMember } from '../team-members/index.js';
import { projectedCommitments, type ScheduleReads } from '../visit-schedules/index.js';
import * as repository from './availability.repository.js';
import { exceptionsOfMembers } from './exceptions.repository.js';
import { type Interval, merge, type Place, subtract, travelMinutes, weeklyHours, widened } from './free-time.js';
import type { LocalDays } from './local-days.js';

/**
 * Most projected occurrences one span counts, set above what a span can hold so that none is ever left out (a
 * member left out of one would look free): at most 1,000 schedules are read (`schedulesToKeep`), a rule makes at
 * most one occurrence a day, a span covers at most 31 days and a day each side, and an occurrence of up to 31
 * days may start that long before it: 1,000 × 65. A month of a thousand weekly schedules is about 4,500.
 */
const MAX_PROJECTED = 65_000;
const DAY = 86_400_000;
const MINUTE = 60_000;

export type CommitmentKind = 'visit' | 'hold';

export interface Commitment extends Interval {
  kind: CommitmentKind;
  /** The visit's id (null for a projected occurrence), or the hold's. */
  id: string | null;
  property_id: string | null;
  /** Minutes kept free on each side of it for the slot's place: buffer + travel. */
  gap: number;
}

export interface MemberTime {
  member: BookingMember;
  /** Bookable time: hours ∪ extra hours − time off, merged. */
  stretches: Interval[];
  /** Hours ∪ extra hours before time off: tells time_off from outside_hours in a 409. */
  hours: Interval[];
  /** Commitments, each with its own interval (not widened), by start. */
  commitments: Commitment[];
  /** The longest commitment's length in ms: none that starts longer before an instant runs at it. */
  longest: number;
  /** Free time: the stretches without the commitments widened by their gap to the slot's place. */
  free: Interval[];
}

export interface Span {
  from: number;
  to: number;
}

/**
 * The time of each member over `span` (instants that slots may touch), at `place`. `skipHold` leaves one hold
 * out (a booking rechecks its time with its own hold aside); `visitIds`, each visit with its id (a 409 names the
 * visit in the way; a query's slots need none); `schedules` is what the query has read of the
 * members' schedules for its earlier spans (one object per query); `longestVisit`, the account's longest visit in
 * minutes, read once per query (else visits are looked for as far back as the longest any visit lasts).
 */
export async function memberTimes(
  ctx: Context,
  members: BookingMember[],
  accountHours: WorkingHours,
  settings: BookingSettings,
  place: Place,
  span: Span,
  days: LocalDays,
  options: { skipHold?: string | undefined; visitIds?: boolean; schedules?: ScheduleReads; longestVisit?: number } = {},
): Promise<Map<string, MemberTime>> {
  const { skipHold, visitIds = false, schedules, longestVisit } = options;
  const ids = members.map((member) => member.id);
  const from = new Date(span.from).toISOString();
  const to = new Date(span.to).toISOString();
  // Commitments a gap away may still touch the span: with a buffer or travel, read a day around it (a gap of
  // more than a day, a straight line of thousands of km, is not looked for); with neither, only what overlaps it.
  const margin = settings.buffer_minutes > 0 || settings.travel.mode !== 'none' ? DAY : 0;
  const readFrom = new Date(span.from - margin).toISOString();
  const readTo = new Date(span.to + margin).toISOString();
  const now = ctx.clock.now().toISOString();
  const read = { places: settings.travel.mode !== 'none', ids: visitIds };
  // On PostgreSQL the reads share one round trip (a pipeline), not one each; on SQLite other requests run
  // between them.
  const [exceptions, visits, holds, projected] = await readsTogether(ctx.db, [
    () => exceptionsOfMembers(ctx.db, ctx.accountId, ids, from, to),
    () =>
      repository.visitsOfMembers(
        ctx.db,
        ctx.accountId,
        ids,
        { from: readFrom, to: readTo, longest: longestVisit },
        read,
      ),
    () => repository.holdsOfMembers(ctx.db, ctx.accountId, ids, readFrom, readTo, now),
    () =>
      projectedCommitments(
        ctx,
        ids,
        { from: span.from - margin, to: span.to + margin },
        { limit: MAX_PROJECTED, places: read.places },
        schedules,
      ),
  ]);
  const byMember = new Map<string, Commitment[]>(ids.map((id) => [id, []]));
  const add = (memberId: string, commitment: Commitment) => byMember.get(memberId)?.push(commitment);
  // The visits come a member at a time: that member's list is looked up once.
  let visitsOf: { memberId: string; list: Commitment[] | undefined } | undefined;
  repository.eachVisit(visits, read, (memberId, start, end, id, propertyId) => {
    if (visitsOf?.memberId !== memberId) visitsOf = { memberId, list: byMember.get(memberId) };
    visitsOf.list?.push({ start, end, kind: 'visit', id, property_id: propertyId, gap: 0 });
  });
  for (const hold of holds)
    if (hold.hold_id !== skipHold)
      add(hold.team_member_id, {
        start: storedInstantMs(hold.start_at),
        end: storedInstantMs(hold.end_at),
        kind: 'hold',
        id: hold.hold_id,
        property_id: hold.property_id,
        gap: 0,
      });
  for (const item of projected)
    for (const memberId of item.assignee_ids)
      add(memberId, {
        start: item.start,
        end: item.end,
        kind: 'visit',
        id: null,
        property_id: item.property_id,
        gap: 0,
      });

  // The places of every commitment, for travel to and from the slot's place.
  const propertyIds = new Set<string>();
  if (settings.travel.mode !== 'none')
    for (const list of byMember.values())
      for (const commitment of list) if (commitment.property_id !== null) propertyIds.add(commitment.property_id);
  const places = await findPropertyPlaces(ctx.db, ctx.accountId, [...propertyIds]);
  // Without buffer or travel every gap stays 0.
  const gapped = settings.buffer_minutes !== 0 || settings.travel.mode !== 'none';
  const gapOf = (commitment: Commitment) =>
    settings.buffer_minutes +
    travelMinutes(settings.travel, place, {
      property_id: commitment.property_id,
      location: commitment.property_id === null ? null : (places.get(commitment.property_id)?.location ?? null),
    });

  const result = new Map<string, MemberTime>();
  // Members on one clock with the same weekly hours (the account's, or the same list) share their instants.
  const weeklyByShape = new Map<string, Interval[]>();
  for (const [index, member] of members.entries()) {
    // Outside a transaction (a query, not a hold or booking), other requests run between every ten members.
    if (!ctx.db.isTransaction && index % 10 === 9) await new Promise<void>((resolve) => setImmediate(resolve));
    const zone = member.timezone;
    const hoursOf = member.working_hours === null ? accountHours : fromJsonShared<WorkingHours>(member.working_hours);
    // The local dates of the span on the member's clock, a day each side (hours past midnight, zones apart).
    const first = days.dateOf(zone, span.from - DAY);
    const last = days.dateOf(zone, span.to + DAY);
    const own = exceptions.filter((one) => one.team_member_id === member.id);
    const interval = (one: { start_at: string; end_at: string }) => ({
      start: storedInstantMs(one.start_at),
      end: storedInstantMs(one.end_at),
    });
    const shape = `${zone}|${member.working_hours ?? ''}`;
    let weekly = weeklyByShape.get(shape);
    if (weekly === undefined) {
      weekly = merge(weeklyHours(hoursOf, zone, first, last, days));
      weeklyByShape.set(shape, weekly);
    }
    // Without extra hours or time off, a member's hours and stretches are the shape's own (read, never changed).
    const extra = own.filter((one) => one.kind === 'extra_hours');
    const hours = extra.length === 0 ? weekly : merge([...weekly, ...extra.map(interval)]);
    const timeOff = merge(own.filter((one) => one.kind === 'time_off').map(interval));
    const commitments = (byMember.get(member.id) ?? []).sort((a, b) => a.start - b.start);
    let longest = 0;
    for (const commitment of commitments) {
      if (gapped) commitment.gap = gapOf(commitment);
      longest = Math.max(longest, commitment.end - commitment.start);
    }
    const stretches = timeOff.length === 0 ? hours : subtract(hours, timeOff);
    const free = subtract(stretches, busyOf(commitments));
    result.set(member.id, { member, hours, stretches, commitments, longest, free });
  }
  return result;
}

/**
 * The commitments (by start) widened by their gaps, merged: in one pass while the widened starts stay in order
 * (always without buffer or travel), else through `merge`.
 */
function busyOf(commitments: Commitment[]): Interval[] {
  const busy: Interval[] = [];
  let last: Interval | undefined;
  for (const one of commitments) {
    const start = one.start - one.gap * MINUTE;
    const end = one.end + one.gap * MINUTE;
    if (end <= start) continue;
    if (last !== undefined && start < last.start) return merge(commitments.map((each) => widened(each, each.gap)));
    if (last !== undefined && start <= last.end) last.end = Math.max(last.end, end);
    else {
      last = { start, end };
      busy.push(last);
    }
  }
  return busy;
}

/** Minutes of commitments of `time` within [dayStart, dayEnd): how busy the member is that local day. */
export function committedMinutes(time: MemberTime, dayStart: number, dayEnd: number): number {
  const { commitments } = time;
  // The first that may still run at dayStart (a binary search: a query asks this of every member every day).
  let at = 0;
  let above = commitments.length;
  while (at < above) {
    const middle = (at + above) >> 1;
    if ((commitments[middle] as Commitment).start < dayStart - time.longest) at = middle + 1;
    else above = middle;
  }
  let total = 0;
  for (; at < commitments.length; at++) {
    const commitment = commitments[at] as Commitment;
    if (commitment.start >= dayEnd) break;
    const overlap = Math.min(commitment.end, dayEnd) - Math.max(commitment.start, dayStart);
    if (overlap > 0) total += overlap;
  }
  return total / 60_000;
}

/** Where a slot or hold is: its property and that property's location. */
export async function placeOf(ctx: Context, propertyId: string | null | undefined): Promise<Place> {
  if (propertyId === null || propertyId === undefined) return { property_id: null, location: null };
  const found = (await findPropertyPlaces(ctx.db, ctx.accountId, [propertyId])).get(propertyId);
  return { property_id: propertyId, location: found?.location ?? null };
}
