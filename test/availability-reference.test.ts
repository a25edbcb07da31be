// GET /v1/availability against a reference written here from contract §28's rules alone: random accounts (hours,
// zones with daylight-saving changes, step, notice, buffer, straight-line travel), members with their own hours or
// the account's, extra hours and time off, visits (some canceled) at properties near and far or without a
// location, and random queries (length, step, crew, named members, a property, a zone, a page size followed by
// its cursors) over windows across the changes. Every page, followed to the end, must equal the reference.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Temporal } from '@js-temporal/polyfill';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
let context: TestContext;
before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());

const MINUTE = 60_000;
const ZONES = ['America/Denver', 'Europe/Berlin', 'UTC', 'Asia/Kolkata', 'Australia/Lord_Howe'];
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
/** Days around the changes of 2030: Denver's 10 March and 3 November, Berlin's 31 March and 27 October. */
const FIRST_DAYS = ['2030-03-08', '2030-03-29', '2030-04-05', '2030-06-12', '2030-10-25', '2030-11-01'];

/** A small seeded generator (mulberry32), so that a failing case can be run again. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof generator>;

interface Interval {
  start: number;
  end: number;
}
type Hours = Array<{ day: string; start: string; end: string }>;

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Up to two intervals on some days, on half hours, `24:00` allowed. */
function randomHours(random: Random): Hours {
  const hours: Hours = [];
  for (const day of WEEKDAYS) {
    if (random.next() < 0.25) continue;
    let from = random.int(0, 20) * 30;
    for (let count = random.int(1, 2); count > 0 && from < 1440; count--) {
      const to = Math.min(1440, from + random.int(2, 16) * 30);
      hours.push({ day, start: hhmm(from), end: hhmm(to) });
      from = to + random.int(1, 6) * 30;
    }
  }
  return hours;
}

// The reference: §14's conversions through Temporal, §28's rules as written.
const plainDate = (date: string) => Temporal.PlainDate.from(date);
const midnightOf = (date: Temporal.PlainDate, zone: string) =>
  date.toZonedDateTime({ timeZone: zone }).epochMilliseconds;
/** A working-hours bound as §14 converts it: in a gap, moved forward by it; ambiguous, the first instant. */
function boundOf(date: Temporal.PlainDate, time: string, zone: string): number {
  if (time === '24:00') return boundOf(date.add({ days: 1 }), '00:00', zone);
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return date.toPlainDateTime({ hour, minute }).toZonedDateTime(zone, { disambiguation: 'compatible' })
    .epochMilliseconds;
}
/** Whether [start, end) is covered by the union of `intervals` (so lies in one stretch of it, merged). */
function covered(intervals: Interval[], start: number, end: number): boolean {
  let at = start;
  for (let moved = true; moved && at < end; ) {
    moved = false;
    for (const one of intervals)
      if (one.start <= at && one.end > at) {
        at = one.end;
        moved = true;
      }
  }
  return at >= end;
}
const overlaps = (a: Interval, start: number, end: number) => a.start < end && a.end > start;

function haversineKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }) {
  const rad = (degrees: number) => (degrees * Math.PI) / 180;
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface Member {
  id: string;
  zone: string;
  hours: Hours | null;
  extra: Interval[];
  off: Interval[];
  visits: Array<Interval & { property: string | null }>;
}
interface Booking {
  zone: string;
  hours: Hours;
  step: number;
  notice: number;
  buffer: number;
  travel: { mode: 'none' | 'straight_line'; speed_kmh: number; unknown_location_minutes: number };
}
interface Query {
  duration: number;
  step: number | undefined;
  crew: number;
  named: string[] | undefined;
  property: string | undefined;
  zone: string | undefined;
  fromDate: string;
  toDate: string;
  limit: number;
}

function expectedSlots(
  booking: Booking,
  members: Member[],
  places: Map<string, { zone: string; location: { lat: number; lng: number } | null }>,
  query: Query,
  now: number,
) {
  const zone = query.zone ?? (query.property ? places.get(query.property)?.zone : undefined) ?? booking.zone;
  const step = query.step ?? booking.step;
  const from = midnightOf(plainDate(query.fromDate), zone);
  const to = midnightOf(plainDate(query.toDate).add({ days: 1 }), zone);
  const earliest = now + booking.notice * MINUTE;
  const here = query.property ? places.get(query.property) : undefined;
  const gapTo = (property: string | null) => {
    let travel = 0;
    if (booking.travel.mode === 'straight_line' && !(property !== null && property === (query.property ?? null))) {
      const there = property === null ? null : (places.get(property)?.location ?? null);
      const location = here?.location ?? null;
      travel =
        there === null || location === null
          ? booking.travel.unknown_location_minutes
          : Math.ceil((haversineKm(there, location) / booking.travel.speed_kmh) * 60);
    }
    return (booking.buffer + travel) * MINUTE;
  };
  const bookable = (member: Member) => {
    const hours: Interval[] = [...member.extra];
    const first = plainDate(query.fromDate).subtract({ days: 3 });
    for (let date = first; Temporal.PlainDate.compare(date, plainDate(query.toDate).add({ days: 3 })) <= 0; ) {
      const weekday = WEEKDAYS[date.dayOfWeek - 1];
      for (const one of member.hours ?? booking.hours)
        if (one.day === weekday)
          hours.push({ start: boundOf(date, one.start, member.zone), end: boundOf(date, one.end, member.zone) });
      date = date.add({ days: 1 });
    }
    return hours;
  };
  const pool = query.named
    ? query.named.map((id) => members.find((member) => member.id === id) as Member)
    : [...members];
  const hoursOf = new Map(pool.map((member) => [member.id, bookable(member)]));
  const free = (member: Member, start: number, end: number) =>
    covered(hoursOf.get(member.id) as Interval[], start, end) &&
    !member.off.some((off) => overlaps(off, start, end)) &&
    member.visits.every((visit) => {
      const gap = gapTo(visit.property);
      return visit.end + gap <= start || end + gap <= visit.start;
    });
  const slots: Array<Record<string, unknown>> = [];
  for (let date = plainDate(query.fromDate); Temporal.PlainDate.compare(date, plainDate(query.toDate)) <= 0; ) {
    const dayStart = midnightOf(date, zone);
    const dayEnd = midnightOf(date.add({ days: 1 }), zone);
    const order = query.named
      ? pool
      : pool
          .map((member) => ({
            member,
            load: member.visits.reduce(
              (sum, visit) => sum + Math.max(0, Math.min(visit.end, dayEnd) - Math.max(visit.start, dayStart)),
              0,
            ),
          }))
          .sort((a, b) => a.load - b.load || (a.member.id < b.member.id ? -1 : 1))
          .map((one) => one.member);
    for (let minutes = 0; minutes < 1440; minutes += step) {
      const wall = date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
      const first = wall.toZonedDateTime(zone, { disambiguation: 'earlier' });
      if (!first.toPlainDateTime().equals(wall)) continue; // in the spring-forward gap: no start
      const start = first.epochMilliseconds;
      if (start < from || start >= to || start < earliest) continue;
      const end = start + query.duration * MINUTE;
      const ids = order.filter((member) => free(member, start, end)).map((member) => member.id);
      if (ids.length < query.crew) continue;
      slots.push({
        object: 'slot',
        start_at: new Date(start).toISOString(),
        end_at: new Date(end).toISOString(),
        local_start: wall.toString().slice(0, 16),
        local_end: Temporal.Instant.fromEpochMilliseconds(end)
          .toZonedDateTimeISO(zone)
          .toPlainDateTime()
          .toString()
          .slice(0, 16),
        timezone: zone,
        team_member_ids: ids.slice(0, query.crew),
        available_team_member_ids: ids,
      });
    }
    date = date.add({ days: 1 });
  }
  return slots;
}

async function runCase(seed: number) {
  const random = generator(seed);
  const { key } = await context.account(`Reference ${seed}`);
  const api = async (method: string, url: string, body?: unknown) => {
    const response = await context.request(method, url, { key, body });
    assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.text}`);
    return response.body.data;
  };
  const booking: Booking = {
    zone: random.pick(ZONES),
    hours: randomHours(random),
    step: random.pick([15, 20, 30, 60]),
    notice: random.pick([0, 60, 600]),
    buffer: random.pick([0, 0, 10, 45]),
    travel: {
      mode: random.pick(['none', 'straight_line'] as const),
      speed_kmh: random.pick([30, 60]),
      unknown_location_minutes: random.pick([0, 20]),
    },
  };
  await api('PUT', '/v1/account', {
    timezone: booking.zone,
    working_hours: booking.hours,
    booking: {
      slot_step_minutes: booking.step,
      min_notice_minutes: booking.notice,
      buffer_minutes: booking.buffer,
      travel: booking.travel,
    },
  });
  const client = await api('POST', '/v1/clients', { name: 'Reference client' });
  const places = new Map<string, { zone: string; location: { lat: number; lng: number } | null }>();
  const jobs: Array<{ id: string; property: string | null }> = [
    { id: (await api('POST', '/v1/jobs', { client_id: client.id, title: 'Nowhere' })).id, property: null },
  ];
  for (const location of [{ lat: 39.74, lng: -104.99 }, { lat: 39.9, lng: -104.6 }, null]) {
    const zone = random.pick(ZONES);
    const property = await api('POST', '/v1/properties', {
      client_id: client.id,
      address: { line1: '1 Test Road', country: 'US' },
      timezone: zone,
      ...(location ? { location } : {}),
    });
    places.set(property.id, { zone, location });
    const job = await api('POST', '/v1/jobs', { client_id: client.id, title: 'Here', property_id: property.id });
    jobs.push({ id: job.id, property: property.id });
  }
  const firstDay = random.pick(FIRST_DAYS);
  const days = random.int(1, 10);
  const lastDay = plainDate(firstDay)
    .add({ days: days - 1 })
    .toString();
  const around = midnightOf(plainDate(firstDay), 'UTC');
  const members: Member[] = [];
  for (let count = random.int(2, 4); count > 0; count--) {
    const zone = random.pick(ZONES);
    const hours = random.next() < 0.4 ? null : randomHours(random);
    const made = await api('POST', '/v1/team-members', {
      name: `Member ${count}`,
      timezone: zone,
      working_hours: hours,
      bookable: true,
    });
    members.push({ id: made.id, zone, hours, extra: [], off: [], visits: [] });
  }
  const at = (dayOffset: number, minutes: number) => around + dayOffset * 86_400_000 + minutes * MINUTE;
  for (const member of members) {
    for (let count = random.int(0, 2); count > 0; count--) {
      const start = at(random.int(-1, days), random.int(0, 95) * 15);
      const kind = random.pick(['time_off', 'extra_hours'] as const);
      const made = await api('POST', '/v1/availability-exceptions', {
        team_member_id: member.id,
        kind,
        start_at: new Date(start).toISOString(),
        end_at: new Date(start + random.int(1, 40) * 30 * MINUTE).toISOString(),
      });
      (kind === 'time_off' ? member.off : member.extra).push({
        start: Date.parse(made.start_at),
        end: Date.parse(made.end_at),
      });
    }
  }
  for (let count = random.int(2, 10); count > 0; count--) {
    const job = random.pick(jobs);
    const start = at(random.int(-1, days), random.int(0, 95) * 15);
    const crew = members.filter(() => random.next() < 0.5);
    const visit = await api('POST', '/v1/visits', {
      job_id: job.id,
      start_at: new Date(start).toISOString(),
      end_at: new Date(start + random.int(2, 30) * 15 * MINUTE).toISOString(),
      assignee_ids: crew.map((member) => member.id),
    });
    if (random.next() < 0.2) {
      await api('PUT', `/v1/visits/${visit.id}`, { status: 'canceled' });
      continue;
    }
    for (const member of crew)
      member.visits.push({ start: Date.parse(visit.start_at), end: Date.parse(visit.end_at), property: job.property });
  }
  clock.set(new Date(at(random.int(-1, 1), random.int(0, 95) * 15)));

  for (let asked = 0; asked < 3; asked++) {
    const named = random.next() < 0.4 ? members.filter(() => random.next() < 0.7).reverse() : undefined;
    const query: Query = {
      duration: random.pick([15, 30, 45, 60, 120, 240]),
      step: random.next() < 0.5 ? random.pick([5, 15, 30, 45, 90]) : undefined,
      crew: random.int(1, 2),
      named: named && named.length > 0 ? named.map((member) => member.id) : undefined,
      property: random.next() < 0.5 ? random.pick([...places.keys()]) : undefined,
      zone: random.next() < 0.4 ? random.pick(ZONES) : undefined,
      fromDate: firstDay,
      toDate: lastDay,
      limit: random.pick([7, 25, 100]),
    };
    if (query.named && query.crew > query.named.length) query.crew = query.named.length;
    const parameters = new URLSearchParams({
      duration_minutes: String(query.duration),
      from_date: query.fromDate,
      to_date: query.toDate,
      crew_size: String(query.crew),
      limit: String(query.limit),
    });
    if (query.step !== undefined) parameters.set('step_minutes', String(query.step));
    if (query.named) parameters.set('team_member_id', query.named.join(','));
    if (query.property) parameters.set('property_id', query.property);
    if (query.zone) parameters.set('timezone', query.zone);
    const answered: unknown[] = [];
    for (let cursor: string | null = null, pages = 0; pages === 0 || cursor !== null; pages++) {
      const url: string = `/v1/availability?${parameters}${cursor === null ? '' : `&cursor=${cursor}`}`;
      const response: { status: number; text: string; body: any } = await context.request('GET', url, { key });
      assert.equal(response.status, 200, `${url}: ${response.text}`);
      answered.push(...response.body.data);
      cursor = response.body.meta.pagination.next_cursor;
      assert.ok(pages < 1000);
    }
    const expected = expectedSlots(booking, members, places, query, clock.now().getTime());
    assert.deepEqual(answered, expected, `seed ${seed}, query ${asked}: ${JSON.stringify(query)}`);
  }
}

test('random accounts, members, hours, exceptions and visits: every page followed to its end equals the reference', async () => {
  const first = Number(process.env.AVAILABILITY_REFERENCE_SEED ?? 1);
  for (let seed = first; seed < first + 25; seed++) await runCase(seed);
});
