// Time zones and local time (docs/api-contract.md §14), on the Temporal polyfill: zone names checked and
// answered in their IANA primary form, local date-times turned into instants (a gap refused, an ambiguous time
// taking its first instant, RFC 5545 §3.3.5), and instants turned into a zone's local date. No offset
// arithmetic is written here: the polyfill reads the runtime's time-zone database.
import { createRequire } from 'node:module';
import { Temporal } from '@js-temporal/polyfill';
import { fieldError } from './errors.js';

/** IANA's tables as JSON (the `tzdata` package): each link name maps to its target, each zone to its rules. */
const tzdata = createRequire(import.meta.url)('tzdata') as { zones: Record<string, unknown> };

/** Every IANA name, by its lower-case form: names are matched case-insensitively, as the runtime matches them. */
const NAMES = new Map(Object.keys(tzdata.zones).map((name) => [name.toLowerCase(), name]));

/**
 * Names that the database keeps only for compatibility and that do not follow one place's local time:
 * POSIX-style abbreviations (now links to a city whose rules they merely resemble) and GMT, which in
 * everyday use often means London time (which keeps summer time) rather than UTC.
 */
const LEGACY = new Set(['EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT', 'CET', 'EET', 'MET', 'WET']);

const EXAMPLE = 'an IANA time-zone name such as America/Denver or Europe/Berlin';

/** The IANA primary name a link leads to (`US/Mountain` → `America/Denver`), or undefined for an unknown name. */
function primaryName(name: string): string | undefined {
  let current = NAMES.get(name.toLowerCase());
  for (let hops = 0; current !== undefined && hops < 5; hops++) {
    const target = tzdata.zones[current];
    if (typeof target !== 'string') return current;
    current = NAMES.get(target.toLowerCase());
  }
  return undefined;
}

function runtimeKnows(name: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone named by `value` in its primary form, or a 422 on `field`: `US/Mountain` → `America/Denver`,
 * `Asia/Calcutta` → `Asia/Kolkata`, `Etc/UTC` → `UTC`. Offsets (`+02:00`), abbreviations (`MST`) and
 * fixed-offset names (`Etc/GMT+7`) are refused: none of them follows daylight saving.
 */
export function canonicalTimeZone(field: string, value: string): string {
  const name = value.trim();
  if (/^(?:[+\-\u2212]|(?:UTC|GMT)\s*[+\-\u2212]\s*\d)/i.test(name))
    throw fieldError(field, `'${value}' is a fixed offset, which does not follow daylight saving; give ${EXAMPLE}`);
  const primary = primaryName(name);
  const known = primary ?? (runtimeKnows(name) ? name : undefined);
  if (known === undefined)
    throw fieldError(
      field,
      /^[A-Z]{2,5}$/i.test(name)
        ? `'${value}' looks like an abbreviation, which does not say which daylight-saving rules apply; give ${EXAMPLE}`
        : `'${value}' is not a time zone this server knows; give ${EXAMPLE}`,
    );
  if (known === 'Etc/UTC') return 'UTC';
  if (LEGACY.has(known) || LEGACY.has(name.toUpperCase()) || known.startsWith('Etc/') || known === 'Factory')
    throw fieldError(
      field,
      `'${value}' is an abbreviation or fixed-offset name, which does not follow a place's daylight saving; give ${EXAMPLE} (or UTC)`,
    );
  if (runtimeKnows(known)) return known;
  // The package's tables are newer than the runtime's: answer the name the runtime can compute with.
  if (runtimeKnows(name)) return Temporal.Now.zonedDateTimeISO(name).timeZoneId;
  throw fieldError(field, `'${value}' is not a time zone this server knows; give ${EXAMPLE}`);
}

/** `YYYY-MM-DDTHH:MM`, a wall-clock time with no offset: the form of every `local_*` field. */
export const LOCAL_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$';

/** `2026-03-08T02:30` as a Temporal value, or a 422 on `field` for a day or time that no calendar has. */
function parseLocal(field: string, local: string): Temporal.PlainDateTime {
  if (!new RegExp(LOCAL_DATE_TIME_PATTERN).test(local))
    throw fieldError(field, 'must be a local date and time YYYY-MM-DDTHH:MM, without an offset');
  if (local.startsWith('0000')) throw fieldError(field, 'must be a local date and time in the years 0001 to 9999');
  try {
    return Temporal.PlainDateTime.from(local, { overflow: 'reject' });
  } catch {
    throw fieldError(field, `'${local}' is not a real date and time`);
  }
}

const FIRST_INSTANT = Temporal.Instant.from('0001-01-01T00:00:00Z');
const AFTER_LAST_INSTANT = Temporal.Instant.from('+010000-01-01T00:00:00Z');
const FIRST_MILLIS = Date.parse('0001-01-01T00:00:00.000Z');
const AFTER_LAST_MILLIS = Date.parse('+010000-01-01T00:00:00.000Z');

/** `2026-03-08T16:00:00.000Z`: an instant as the API answers and stores it. */
const ANSWERED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The epoch milliseconds of an instant written as the API answers it (every stored instant is), else undefined:
 * such a value needs no parsing by the Temporal polyfill, the costliest part of making a schedule's visits.
 */
function answeredMillis(value: string): number | undefined {
  if (!ANSWERED.test(value)) return undefined;
  const millis = Date.parse(value);
  // Written back, it must be the value itself: a day no calendar has (02-30) is not an answered instant.
  return Number.isNaN(millis) || new Date(millis).toISOString() !== value ? undefined : millis;
}

/**
 * Whether an instant, and its local time in `zone`, both lie in the years 0001–9999 (docs/api-contract.md §32
 * "Years": both engines store exactly those years, and a five-digit year would sort wrongly as text).
 */
export function withinYears(instant: string | Temporal.Instant, zone: string): boolean {
  const millis = typeof instant === 'string' ? answeredMillis(instant) : undefined;
  if (millis !== undefined) {
    if (millis < FIRST_MILLIS || millis >= AFTER_LAST_MILLIS) return false;
    // A zone is less than a day from UTC: an instant of the years 0002–9998 is within 0001–9999 in every zone.
    const year = new Date(millis).getUTCFullYear();
    if (year >= 2 && year <= 9998) return true;
  }
  const at = typeof instant === 'string' ? Temporal.Instant.from(instant) : instant;
  if (Temporal.Instant.compare(at, FIRST_INSTANT) < 0 || Temporal.Instant.compare(at, AFTER_LAST_INSTANT) >= 0)
    return false;
  const year = at.toZonedDateTimeISO(zone).year;
  return year >= 1 && year <= 9999;
}

/**
 * The instant a local date begins in `zone`, kept within the years 0001–9999 (a calendar window's edge: the day
 * after 9999-12-31 begins at 9999-12-31T23:59:59.999Z as far as any stored time can tell).
 */
export function windowEdge(date: string, zone: string): string {
  const at = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone }).toInstant();
  if (Temporal.Instant.compare(at, FIRST_INSTANT) < 0) return instantText(FIRST_INSTANT);
  if (Temporal.Instant.compare(at, AFTER_LAST_INSTANT) >= 0)
    return instantText(AFTER_LAST_INSTANT.subtract({ milliseconds: 1 }));
  return instantText(at);
}

/** A 422 on `field` unless `instant` (a start or end) lies in the years 0001–9999, in UTC and in `zone`. */
export function checkYears(field: string, instant: string, zone: string): void {
  if (!withinYears(instant, zone))
    throw fieldError(
      field,
      zone === 'UTC'
        ? `must keep the time within the years 0001 to 9999 (it would be ${instant})`
        : `must keep the time within the years 0001 to 9999, in UTC and in ${zone} (it would be ${instantToLocal(instant, zone)} there, ${instant} in UTC)`,
    );
}

const wallClock = (value: Temporal.PlainDateTime) => value.toString({ smallestUnit: 'minute' });

/**
 * The instant a local date-time means in `zone` (a canonical name), as ISO 8601 UTC with milliseconds.
 * A time in the spring-forward gap does not exist: a 422 on `field` naming the gap. An ambiguous time (the
 * fall-back hour happens twice) is its first occurrence, before the clocks go back (RFC 5545 §3.3.5).
 */
export function localToInstant(field: string, local: string, zone: string): string {
  const wanted = parseLocal(field, local);
  const earlier = wanted.toZonedDateTime(zone, { disambiguation: 'earlier' });
  if (!earlier.toPlainDateTime().equals(wanted)) {
    // `earlier` fell back before the gap: the transition after it is where the clocks jumped.
    const transition = earlier.getTimeZoneTransition('next');
    if (transition === null) throw fieldError(field, `'${local}' does not exist in ${zone}`);
    const before = transition.subtract({ nanoseconds: 1 }).toPlainDateTime().round({ smallestUnit: 'minute' });
    const after = transition.toPlainDateTime();
    throw fieldError(
      field,
      `${local} does not exist in ${zone}: on ${after.toPlainDate().toString()} the clocks move forward from ` +
        `${wallClock(before).slice(11)} to ${wallClock(after).slice(11)}, so local times from ` +
        `${wallClock(before).slice(11)} up to ${wallClock(after).slice(11)} are skipped`,
    );
  }
  return instantText(earlier.toInstant());
}

/** An instant as the API answers it: UTC, milliseconds, `Z`. */
function instantText(instant: Temporal.Instant): string {
  return instant.toString({ smallestUnit: 'millisecond' });
}

/** The local date-time (`YYYY-MM-DDTHH:MM`) of an instant in `zone`: how a `local_*` mirror is answered. */
export function instantToLocal(instant: string | Date, zone: string): string {
  return wallClock(toInstant(instant).toZonedDateTimeISO(zone).toPlainDateTime());
}

/** The calendar date (`YYYY-MM-DD`) in `zone` at an instant: "today" for an account or a member. */
export function localDate(instant: string | Date, zone: string): string {
  return toInstant(instant).toZonedDateTimeISO(zone).toPlainDate().toString();
}

/** Minutes of real time between two instants (a local 01:00–03:00 on a fall-back day is 180). */
export function elapsedMinutes(start: string, end: string): number {
  const from = answeredMillis(start);
  const to = answeredMillis(end);
  if (from !== undefined && to !== undefined) return (to - from) / 60_000;
  return toInstant(start).until(toInstant(end)).total('minutes');
}

function toInstant(value: string | Date): Temporal.Instant {
  if (value instanceof Date) return Temporal.Instant.fromEpochMilliseconds(value.getTime());
  const millis = answeredMillis(value);
  return millis === undefined ? Temporal.Instant.from(value) : Temporal.Instant.fromEpochMilliseconds(millis);
}

/** The instant a local date begins in `zone`: its 00:00, or the first instant after a gap at midnight. */
export function startOfLocalDay(date: string, zone: string): string {
  return instantText(Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone }).toInstant());
}

/** The calendar date `days` after `date` (both `YYYY-MM-DD`); negative goes back. */
export function addDaysToDate(date: string, days: number): string {
  return Temporal.PlainDate.from(date).add({ days }).toString();
}

/** Whole days from `start` to `end` (`YYYY-MM-DD`): 0 for the same day. */
export function daysBetween(start: string, end: string): number {
  return Temporal.PlainDate.from(start).until(Temporal.PlainDate.from(end), { largestUnit: 'days' }).days;
}

/**
 * The number of a calendar date `YYYY-MM-DD` (days since 1970-01-01, proleptic Gregorian), by integer arithmetic
 * (H. Hinnant's `days_from_civil`): reports count days for thousands of items, where Temporal's polyfill costs
 * about a tenth of a millisecond a call.
 */
export function dayNumber(date: string): number {
  return daysFromCivil(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)));
}

/** Days since 1970-01-01 of a proleptic Gregorian year, month (1–12) and day, by integer arithmetic. */
function daysFromCivil(calendarYear: number, month: number, day: number): number {
  // The year from March: February's last day ends it, so that leap days fall at its end.
  const year = calendarYear - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The calendar date `YYYY-MM-DD` of a day number (`dayNumber`'s inverse; years 0–9999). */
export function dateOfDayNumber(day: number): string {
  const shifted = day + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`;
}

/** `instant` moved by a number of minutes of real elapsed time, as the API answers instants. */
export function addMinutes(instant: string, minutes: number): string {
  return instantText(toInstant(instant).add({ minutes }));
}

/** An instant written with any RFC 3339 offset, as the API answers it (UTC, milliseconds, `Z`). */
export function normalizedInstant(value: string): string {
  return answeredMillis(value) === undefined ? instantText(toInstant(value)) : value;
}

/** Epoch milliseconds as digits: years 1 to 9999 take at most 15. */
const EPOCH_DIGITS = /^-?\d{1,15}$/;

/** The digit at `at` of `text` (a character code less 48). */
const digit = (text: string, at: number) => text.charCodeAt(at) - 48;

/**
 * Epoch ms of a stored instant, `YYYY-MM-DDTHH:MM:SS.mmmZ` (how both engines answer `*_at`), at text[from, to)
 * (the whole text by default), by arithmetic (`daysFromCivil`, as `dayNumber`): about five times faster than
 * Date.parse and twice Date.UTC, and availability reads two for each of thousands
 * of visits. Epoch milliseconds as digits (db/engine.ts `joinableInstant` on PostgreSQL) as a number. Anything
 * else through Date.parse.
 */
export function storedInstantMs(text: string, from = 0, to = text.length): number {
  if (to - from !== 24 || text.charCodeAt(from + 23) !== 90 || text.charCodeAt(from + 10) !== 84) {
    const field = text.slice(from, to);
    return EPOCH_DIGITS.test(field) ? Number(field) : Date.parse(field);
  }
  const days = daysFromCivil(
    digit(text, from) * 1000 + digit(text, from + 1) * 100 + digit(text, from + 2) * 10 + digit(text, from + 3),
    digit(text, from + 5) * 10 + digit(text, from + 6),
    digit(text, from + 8) * 10 + digit(text, from + 9),
  );
  return (
    days * 86_400_000 +
    (digit(text, from + 11) * 10 + digit(text, from + 12)) * 3_600_000 +
    (digit(text, from + 14) * 10 + digit(text, from + 15)) * 60_000 +
    (digit(text, from + 17) * 10 + digit(text, from + 18)) * 1000 +
    digit(text, from + 20) * 100 +
    digit(text, from + 21) * 10 +
    digit(text, from + 22)
  );
}
