// The three ways to write a visit's time (docs/api-contract.md §17, §21 "Visit time forms"): an instant with
// its end or duration; a local date-time in a zone with its local end or duration; or whole local days. Exactly
// one form per request; all of them null unschedules. Durations are real elapsed time; a local time in the
// spring-forward gap is a 422 naming the gap, an ambiguous one takes the first instant (core/time.ts).
import { fieldError, fieldProblems, validationError, type ErrorDetail } from '../../core/errors.js';
import {
  addDaysToDate,
  addMinutes,
  canonicalTimeZone,
  checkYears,
  daysBetween,
  elapsedMinutes,
  localToInstant,
  normalizedInstant,
  startOfLocalDay,
  withinYears,
} from '../../core/time.js';
import { MAX_VISIT_MINUTES, type VisitInput } from './visits.schemas.js';

/** The longest a time may last, and what it is called in messages (availability exceptions reuse the forms). */
export interface TimeSpanLimit {
  days: number;
  noun: string;
}
const VISIT_SPAN: TimeSpanLimit = { days: MAX_VISIT_MINUTES / 1440, noun: 'visit' };

/** The stored form of a visit's time. */
export interface VisitTime {
  all_day: 0 | 1;
  timezone: string;
  start_at: string | null;
  end_at: string | null;
  start_date: string | null;
  end_date: string | null;
}

/** The fields that write a time; all of them `null` unschedules (docs/api-contract.md §21). */
export const TIME_FIELDS = [
  'start_at',
  'end_at',
  'local_start',
  'local_end',
  'duration_minutes',
  'start_date',
  'end_date',
] as const;
type TimeField = (typeof TIME_FIELDS)[number];

const FORMS: Record<'instant' | 'local' | 'days', readonly TimeField[]> = {
  instant: ['start_at', 'end_at', 'duration_minutes'],
  local: ['local_start', 'local_end', 'duration_minutes'],
  days: ['start_date', 'end_date'],
};
const FORM_HINT =
  'write the time in exactly one form: start_at with end_at or duration_minutes; local_start with local_end or duration_minutes (and timezone); or all_day: true with start_date (and end_date)';

export function touchesTime(input: Partial<VisitInput>): boolean {
  return (
    TIME_FIELDS.some((field) => input[field] !== undefined) ||
    input.all_day !== undefined ||
    input.timezone !== undefined
  );
}

/**
 * A new visit's time fields checked together (which form, which fields it needs, real local times, an end
 * after the start), for a create body the schema refused too (issue 34.17; http/field-checks.ts). The zone a
 * new visit defaults to needs the database; UTC stands in for it (a local time that exists in any zone
 * exists in UTC, so this finds nothing the service would not).
 */
export async function newVisitTimeChecks(body: unknown): Promise<ErrorDetail[]> {
  return fieldProblems(() => resolveTime(body as Partial<VisitInput>, undefined, 'UTC'));
}

/**
 * The time `input` writes, given the visit's current time (undefined when creating) and the zone a new visit
 * defaults to; undefined when the input leaves the time alone. `prefix` names the fields of a job's `visits[i]`.
 */
export function resolveTime(
  input: Partial<VisitInput>,
  current: VisitTime | undefined,
  defaultZone: string,
  prefix = '',
  span: TimeSpanLimit = VISIT_SPAN,
): VisitTime | undefined {
  const at = (field: string) => `${prefix}${field}`;
  const zone =
    input.timezone !== undefined
      ? canonicalTimeZone(at('timezone'), input.timezone)
      : (current?.timezone ?? defaultZone);
  const present = TIME_FIELDS.filter((field) => input[field] !== undefined);
  const given = present.filter((field) => input[field] !== null);

  if (present.length > 0 && given.length === 0) {
    const missing = TIME_FIELDS.filter((field) => input[field] === undefined);
    if (missing.length > 0)
      throw validationError(
        missing.map((field) => ({
          field: at(field),
          message: `must be null too: to unschedule a visit, set every time field to null (${TIME_FIELDS.join(', ')})`,
        })),
      );
    if (input.all_day === true) throw fieldError(at('start_date'), 'is required when all_day is true');
    return { all_day: 0, timezone: zone, start_at: null, end_at: null, start_date: null, end_date: null };
  }

  if (given.length === 0) {
    if (input.all_day === true) throw fieldError(at('start_date'), 'is required when all_day is true');
    if (input.all_day === false && current?.all_day === 1)
      throw fieldError(at('all_day'), `false needs a new time for the visit: ${FORM_HINT}`);
    if (input.timezone === undefined || current === undefined) return undefined;
    // The zone alone: a timed visit keeps its instants (only the mirrors change); an all-day one keeps its dates.
    if (current.all_day === 1 && current.start_date !== null && current.end_date !== null)
      return allDay(current.start_date, current.end_date, zone, at, span);
    for (const instant of [current.start_at, current.end_at])
      if (instant !== null) checkYears(at('timezone'), instant, zone);
    return { ...current, timezone: zone };
  }

  const form = given.includes('start_at')
    ? 'instant'
    : given.includes('local_start')
      ? 'local'
      : given.includes('start_date')
        ? 'days'
        : undefined;
  if (form === undefined) {
    const first = given[0] as TimeField;
    const needs = first === 'end_date' ? 'start_date' : first === 'local_end' ? 'local_start' : 'start_at';
    throw fieldError(at(first), `needs ${needs} in the same request: ${FORM_HINT}`);
  }
  const strays = given.filter((field) => !FORMS[form].includes(field));
  if (strays.length > 0)
    throw validationError(
      strays.map((field) => ({ field: at(field), message: `belongs to another form than ${given[0]}: ${FORM_HINT}` })),
    );

  if (form === 'days') {
    if (input.all_day !== true) throw fieldError(at('all_day'), 'must be true with start_date and end_date');
    const startDate = input.start_date as string;
    return allDay(startDate, input.end_date ?? startDate, zone, at, span);
  }
  if (input.all_day === true) throw fieldError(at('all_day'), 'true takes start_date (and end_date), not a start time');

  const endField = form === 'instant' ? 'end_at' : 'local_end';
  if (input[endField] != null && input.duration_minutes != null)
    throw validationError([
      { field: at(endField), message: `give ${endField} or duration_minutes, not both` },
      { field: at('duration_minutes'), message: `give ${endField} or duration_minutes, not both` },
    ]);
  if (input[endField] == null && input.duration_minutes == null)
    throw fieldError(
      at(endField),
      `or duration_minutes is required with ${form === 'instant' ? 'start_at' : 'local_start'}`,
    );

  const start =
    form === 'instant'
      ? instantOf(at('start_at'), input.start_at as string)
      : localToInstant(at('local_start'), input.local_start as string, zone);
  const end =
    input.duration_minutes != null
      ? addMinutes(start, input.duration_minutes)
      : form === 'instant'
        ? instantOf(at('end_at'), input.end_at as string)
        : localToInstant(at('local_end'), input.local_end as string, zone);
  checkYears(at(form === 'instant' ? 'start_at' : 'local_start'), start, zone);
  checkYears(input.duration_minutes != null ? at('duration_minutes') : at(endField), end, zone);
  checkSpan(start, end, input.duration_minutes != null ? at('duration_minutes') : at(endField), span);
  return { all_day: 0, timezone: zone, start_at: start, end_at: end, start_date: null, end_date: null };
}

function instantOf(field: string, value: string): string {
  try {
    return normalizedInstant(value);
  } catch {
    throw fieldError(field, 'must be an RFC 3339 instant with an offset, such as 2026-03-08T09:00:00-07:00');
  }
}

function checkSpan(start: string, end: string, field: string, span: TimeSpanLimit): void {
  const minutes = elapsedMinutes(start, end);
  if (minutes <= 0) throw fieldError(field, `must make the ${span.noun} end after it starts`);
  if (minutes > span.days * 1440) throw fieldError(field, `must make the ${span.noun} last at most ${span.days} days`);
}

/** Whole local days: 00:00 of the first day to 00:00 after the last, in `zone`. */
function allDay(
  startDate: string,
  endDate: string,
  zone: string,
  at: (field: string) => string,
  span: TimeSpanLimit,
): VisitTime {
  const problems: ErrorDetail[] = [];
  const days = daysBetween(startDate, endDate) + 1;
  if (days < 1) problems.push({ field: at('end_date'), message: 'must not be before start_date' });
  else if (days > span.days)
    problems.push({ field: at('end_date'), message: `must make the ${span.noun} last at most ${span.days} days` });
  if (problems.length > 0) throw validationError(problems);
  const start = startOfLocalDay(startDate, zone);
  const end = endDate >= '9999-12-31' ? null : startOfLocalDay(addDaysToDate(endDate, 1), zone);
  checkYears(at('start_date'), start, zone);
  if (end === null || !withinYears(end, zone))
    throw fieldError(
      at(startDate === endDate ? 'start_date' : 'end_date'),
      `must keep the visit within the years 0001 to 9999${zone === 'UTC' ? '' : `, in UTC and in ${zone}`}: an all-day visit ends at 00:00 after its last day`,
    );
  return {
    all_day: 1,
    timezone: zone,
    start_at: start,
    end_at: end,
    start_date: startDate,
    end_date: endDate,
  };
}
