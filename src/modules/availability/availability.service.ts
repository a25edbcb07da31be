// GET /v1/availability (docs/api-contract.md §28): the starts on the local clock of `timezone` (multiples of the
// step from midnight; none in a spring-forward gap; a repeated fall-back time once, its first instant), in the
// window and after now + notice, at which `crew_size` members are free; one slot per start, by start_at.
import { fieldError, validationError, type ErrorDetail } from '../../core/errors.js';
import { isUuid } from '../../core/deps.js';
import { addDaysToDate, canonicalTimeZone, daysBetween, normalizedInstant, windowEdge } from '../../core/time.js';
import { fromJson, fromJsonShared, type Page } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import { type BookingSettings, bookingSettings, findAccount } from '../accounts/index.js';
import { findProducts } from '../catalog/index.js';
import { findPropertyPlaces } from '../properties/index.js';
import { minutesOf, type WorkingHours } from '../shared/index.js';
import { type BookingMember, findBookingMembers } from '../team-members/index.js';
import type { ScheduleReads } from '../visit-schedules/index.js';
import { longestVisitMinutes } from '../visits/index.js';
import {
  type AvailabilityInput,
  MAX_CREW,
  MAX_NAMED_MEMBERS,
  MAX_UNNAMED_MEMBERS,
  MAX_WINDOW_DAYS,
  type Slot,
} from './availability.schemas.js';
import { eachFitting, within } from './free-time.js';
import { LocalDays } from './local-days.js';
import { committedMinutes, type MemberTime, memberTimes, placeOf } from './member-time.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * Starts are offered up to two days before the end of the year 9999: a slot's end, and the day read around it,
 * stay within the years every instant lies in (§32).
 */
const LAST_START = Date.parse('9999-12-29T00:00:00.000Z');

export interface AccountBooking {
  timezone: string;
  hours: WorkingHours;
  settings: BookingSettings;
}

export async function accountBooking(ctx: Context): Promise<AccountBooking> {
  const account = await findAccount(ctx.db, ctx.accountId);
  if (!account) throw new Error(`account ${ctx.accountId} is missing`);
  return {
    timezone: account.timezone,
    hours: fromJson<WorkingHours>(account.working_hours ?? '[]'),
    settings: bookingSettings(account.booking),
  };
}

/** The length asked for: duration_minutes, or the product's (422 when it has none); exactly one of them. */
export async function durationOf(
  ctx: Context,
  input: { duration_minutes?: number | undefined; product_id?: string | undefined },
): Promise<number> {
  if (input.duration_minutes !== undefined && input.product_id !== undefined)
    throw fieldError('product_id', 'give duration_minutes or product_id, not both');
  if (input.duration_minutes !== undefined) return input.duration_minutes;
  if (input.product_id === undefined) throw fieldError('duration_minutes', 'or product_id is required');
  const [product] = await findProducts(ctx.db, ctx.accountId, [input.product_id]);
  if (!product) throw fieldError('product_id', `no product with id '${input.product_id}' exists in this account`);
  const minutes = product.duration_minutes === null ? null : Number(product.duration_minutes);
  if (minutes === null || minutes < 5 || minutes > 1440)
    throw fieldError(
      'product_id',
      minutes === null
        ? 'names a product without duration_minutes: give duration_minutes instead'
        : 'names a product whose duration_minutes is outside 5–1,440',
    );
  return minutes;
}

/** The zone of a property (422 on property_id when the account has none such), if one is named. */
export async function propertyZone(ctx: Context, propertyId: string | null | undefined): Promise<string | undefined> {
  if (propertyId === null || propertyId === undefined) return undefined;
  const found = (await findPropertyPlaces(ctx.db, ctx.accountId, [propertyId])).get(propertyId);
  if (!found) throw fieldError('property_id', `no property with id '${propertyId}' exists in this account`);
  return found.timezone;
}

function instantOf(field: string, value: string): number {
  try {
    return Date.parse(normalizedInstant(value));
  } catch {
    throw fieldError(field, 'must be an RFC 3339 instant with an offset, such as 2030-03-10T09:00:00-06:00');
  }
}

/** The window as epoch ms [from, to): instants, or whole local days in `zone` (to_date inclusive); ≤ 31 days. */
function windowOf(query: AvailabilityInput, zone: string): { from: number; to: number } {
  const instants = query.from !== undefined || query.to !== undefined;
  const dates = query.from_date !== undefined || query.to_date !== undefined;
  if (instants && dates)
    throw fieldError('from_date', 'give either from and to (instants) or from_date and to_date (local days), not both');
  if (instants) {
    if (query.from === undefined) throw fieldError('from', 'is required with to');
    if (query.to === undefined) throw fieldError('to', 'is required with from');
    const window = { from: instantOf('from', query.from), to: instantOf('to', query.to) };
    if (window.to <= window.from) throw fieldError('to', 'must be after from');
    if (window.to - window.from > MAX_WINDOW_DAYS * DAY)
      throw fieldError('to', `makes a window longer than ${MAX_WINDOW_DAYS} days`);
    return window;
  }
  if (!dates) throw fieldError('from', 'and to (instants), or from_date and to_date (local days), are required');
  if (query.from_date === undefined) throw fieldError('from_date', 'is required with to_date');
  if (query.to_date === undefined) throw fieldError('to_date', 'is required with from_date');
  const days = daysBetween(query.from_date, query.to_date) + 1;
  if (days < 1) throw fieldError('to_date', 'must not be before from_date');
  if (days > MAX_WINDOW_DAYS) throw fieldError('to_date', `makes a window longer than ${MAX_WINDOW_DAYS} days`);
  return {
    from: Date.parse(windowEdge(query.from_date, zone)),
    to: Date.parse(windowEdge(addDaysToDate(query.to_date, 1), zone)),
  };
}

/**
 * The members a query or hold considers: named ones (any bookable; each must exist and be active), else the
 * account's active bookable ones (more than 50: 422).
 */
export async function membersOf(
  ctx: Context,
  named: string[] | undefined,
  field: string,
  lock = false,
): Promise<BookingMember[]> {
  if (named === undefined) {
    const members = await findBookingMembers(ctx.db, ctx.accountId, undefined, MAX_UNNAMED_MEMBERS + 1, lock);
    if (members.length > MAX_UNNAMED_MEMBERS)
      throw fieldError(
        field,
        `is required: the account has more than ${MAX_UNNAMED_MEMBERS} active bookable members, so name at most ${MAX_NAMED_MEMBERS}`,
      );
    return members;
  }
  const found = new Map(
    (await findBookingMembers(ctx.db, ctx.accountId, named.filter(isUuid), named.length, lock)).map((member) => [
      member.id,
      member,
    ]),
  );
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  named.forEach((id, index) => {
    const at = `${field}[${index}]`;
    const member = found.get(id);
    if (seen.has(id)) problems.push({ field: at, message: `names team member ${id} a second time` });
    else if (!member) problems.push({ field: at, message: `no team member with id '${id}' exists in this account` });
    else if (Number(member.active) !== 1 && field !== 'team_member_ids')
      problems.push({ field: at, message: `team member ${id} is inactive` });
    seen.add(id);
  });
  if (problems.length > 0) throw validationError(problems);
  return named.map((id) => found.get(id) as BookingMember);
}

/** Whether the member is free for [start, end): in one stretch of bookable time, touching no widened commitment. */
export function isFree(time: MemberTime, start: number, end: number): boolean {
  return within(time.free, start, end);
}

const cursorOf = (startAt: number) => Buffer.from(JSON.stringify(['start_at', startAt])).toString('base64url');
function afterCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [name, value] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, number];
    if (name === 'start_at' && Number.isSafeInteger(value)) return value;
  } catch {
    // Falls through to the 422.
  }
  throw fieldError('cursor', 'is not a cursor this list answered');
}

export async function listSlots(ctx: Context, query: AvailabilityInput): Promise<Page<Slot>> {
  const problems: ErrorDetail[] = [];
  const named = query.team_member_id?.split(',').map((id) => id.trim());
  if (named !== undefined && named.length > MAX_NAMED_MEMBERS)
    problems.push({ field: 'team_member_id', message: `names at most ${MAX_NAMED_MEMBERS} members` });
  const crewSize = query.crew_size ?? 1;
  if (named !== undefined && crewSize > named.length && crewSize <= MAX_CREW)
    problems.push({ field: 'crew_size', message: `is more than the ${named.length} members named` });
  if (problems.length > 0) throw validationError(problems);
  const after = afterCursor(query.cursor);
  const duration = await durationOf(ctx, query);
  const account = await accountBooking(ctx);
  const zone =
    query.timezone !== undefined
      ? canonicalTimeZone('timezone', query.timezone)
      : ((await propertyZone(ctx, query.property_id)) ?? account.timezone);
  if (query.timezone !== undefined) await propertyZone(ctx, query.property_id);
  const window = windowOf(query, zone);
  const [members, longestVisit] = await Promise.all([
    membersOf(ctx, named, 'team_member_id'),
    longestVisitMinutes(ctx.db, ctx.accountId),
  ]);
  const settings = account.settings;
  const step = query.step_minutes ?? settings.slot_step_minutes;
  const limit = query.limit ?? 25;
  const earliest = ctx.clock.now().getTime() + settings.min_notice_minutes * MINUTE;
  const first = Math.max(window.from, earliest, after === undefined ? Number.NEGATIVE_INFINITY : after + 1);
  window.to = Math.min(window.to, LAST_START);
  if (first >= window.to || members.length < crewSize) return { items: [], hasMore: false, nextCursor: null };

  const days = new LocalDays();
  const place = await placeOf(ctx, query.property_id);
  const slots: Slot[] = [];
  const schedules: ScheduleReads = {};
  // The window is read a span at a time, each ending at a local midnight, and reading stops once the page is
  // full: a page costs the commitments of the days it covers, not of the whole window. The first span is as
  // long as the members' weekly hours say the page needs (at least 7 days); the next are as long as the slots
  // found so far say the page still needs, a quarter and a day more (twice as long while none is found): a page
  // that needs the whole window reads it in two spans, not three or four. (With a day more only, a month of
  // 50 busy members read its last day in a third span, which costs a span's reads and projection again.)
  let date = days.dateOf(zone, first);
  let spanDays = firstSpanDays(members, account.hours, { limit, step, duration });
  for (let spanStart = first, daysRead = 0; spanStart < window.to && slots.length <= limit; ) {
    let endDate = date;
    for (let day = 0; day < spanDays; day++) endDate = days.nextDate(endDate);
    const spanEnd = Math.min(window.to, days.midnight(zone, endDate));
    // The members' time over the span's local days whole (a day's crew order counts its commitments all day)
    // and the last slot's end.
    const dayAfter = days.nextDate(days.dateOf(zone, spanEnd - 1));
    const times = await memberTimes(
      ctx,
      members,
      account.hours,
      settings,
      place,
      {
        from: Math.min(spanStart, days.midnight(zone, date)),
        to: Math.max(spanEnd + duration * MINUTE, days.midnight(zone, dayAfter)),
      },
      days,
      { schedules, longestVisit },
    );
    await collectSlots(
      slots,
      limit,
      { start: spanStart, end: spanEnd },
      { zone, step, duration, crewSize, named },
      members,
      times,
      days,
    );
    daysRead += spanDays;
    spanDays = Math.min(
      MAX_WINDOW_DAYS,
      slots.length === 0 ? spanDays * 2 : Math.ceil((1.25 * (limit + 1 - slots.length) * daysRead) / slots.length) + 1,
    );
    spanStart = spanEnd;
    date = endDate;
  }
  const hasMore = slots.length > limit;
  const items = slots.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    hasMore,
    nextCursor: hasMore && last ? cursorOf(Date.parse(last.start_at)) : null,
  };
}

const FIRST_SPAN_DAYS = 7;

/**
 * How many days the first span reads: enough for the page and a day more by the members' weekly hours alone, at
 * least 7 (at most the window). The starts a week of each member's hours can hold, on the busiest shape of
 * hours, say how many days give `limit + 1` slots while nobody is committed; commitments may leave the page
 * short, and the next span reads the rest. An estimate only: a span's length never changes an answer, only how
 * many spans a page is read in (each span pays the reads and the projection again).
 */
function firstSpanDays(
  members: BookingMember[],
  accountHours: WorkingHours,
  page: { limit: number; step: number; duration: number },
): number {
  let perWeek = 0;
  const seen = new Set<string | null>();
  for (const member of members) {
    if (seen.has(member.working_hours)) continue;
    seen.add(member.working_hours);
    const hours = member.working_hours === null ? accountHours : fromJsonShared<WorkingHours>(member.working_hours);
    let starts = 0;
    for (const one of hours) {
      const room = minutesOf(one.end) - minutesOf(one.start) - page.duration;
      if (room >= 0) starts += Math.floor(room / page.step) + 1;
    }
    perWeek = Math.max(perWeek, starts);
  }
  if (perWeek === 0) return FIRST_SPAN_DAYS;
  const days = Math.ceil(((page.limit + 1) * 7) / perWeek) + 1;
  return Math.min(MAX_WINDOW_DAYS, Math.max(FIRST_SPAN_DAYS, days));
}

interface SlotShape {
  zone: string;
  step: number;
  duration: number;
  crewSize: number;
  named: string[] | undefined;
}

/** Lets other requests run between a query's days: no request holds the event loop for a whole window. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Adds to `slots` the starts in [span.start, span.end), in order, until it holds one more than `limit`. */
async function collectSlots(
  slots: Slot[],
  limit: number,
  span: { start: number; end: number },
  shape: SlotShape,
  members: BookingMember[],
  times: Map<string, MemberTime>,
  days: LocalDays,
): Promise<void> {
  const { zone, step, duration, crewSize, named } = shape;
  const lastDate = days.dateOf(zone, span.end - 1);
  for (let date = days.dateOf(zone, span.start); date <= lastDate; date = days.nextDate(date)) {
    await yieldTurn();
    const dayStart = days.midnight(zone, date);
    const dayEnd = days.midnight(zone, days.nextDate(date));
    // The order the crew is chosen in that day: as named, else the least committed that local day, then by id.
    let order = members.map((member) => ({ member, time: times.get(member.id) as MemberTime, load: 0 }));
    if (named === undefined) {
      for (const one of order) one.load = committedMinutes(one.time, dayStart, dayEnd);
      order = order.sort(
        (a, b) => a.load - b.load || (a.member.id < b.member.id ? -1 : a.member.id > b.member.id ? 1 : 0),
      );
    }
    // The day's starts, in order (a later wall-clock time is a later instant: a time in a gap is none, a
    // repeated one its first instant), and at each the members free, in the crew's order.
    const wallMinutes: number[] = [];
    const starts: number[] = [];
    for (let minutes = 0; minutes < 1440; minutes += step) {
      const start = days.start(zone, date, minutes);
      if (start === undefined || start < span.start || start >= span.end) continue;
      wallMinutes.push(minutes);
      starts.push(start);
    }
    const free: string[][] = starts.map(() => []);
    for (const one of order)
      eachFitting(one.time.free, starts, duration * MINUTE, (index) => (free[index] as string[]).push(one.member.id));
    for (const [index, start] of starts.entries()) {
      const ids = free[index] as string[];
      if (ids.length < crewSize) continue;
      const minutes = wallMinutes[index] as number;
      const end = start + duration * MINUTE;
      slots.push({
        object: 'slot',
        start_at: new Date(start).toISOString(),
        end_at: new Date(end).toISOString(),
        local_start: `${date}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
        local_end: days.localOf(zone, end),
        timezone: zone,
        team_member_ids: ids.slice(0, crewSize),
        available_team_member_ids: ids,
      });
      if (slots.length > limit) return;
    }
  }
}
