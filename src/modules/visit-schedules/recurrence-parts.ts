// The parts every file of a recurrence shares (docs/api-contract.md §18): its normal form, the collector of a
// 422's details, the readers of dates, weekdays and number lists, and where an occurrence starts.
import { Temporal } from '@js-temporal/polyfill';
import { type ErrorDetail, validationError } from '../../core/errors.js';

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const OVERFLOWS = ['last_day', 'skip'] as const;
export type MonthDayOverflow = (typeof OVERFLOWS)[number];

/** The rule's own parts: what an RRULE value states, in the structured fields' names. */
export interface RuleParts {
  frequency: Frequency;
  interval: number;
  by_weekday: string[] | null;
  by_month_day: number[] | null;
  by_month: number[] | null;
  by_set_position: number[] | null;
  count: number | null;
  /** The last local date (inclusive). */
  until: string | null;
  week_start: string;
}

/** The normal form a schedule stores: the rule, where it starts, in which zone, and what it leaves out. */
export interface Recurrence extends RuleParts {
  start_date: string;
  /** `HH:MM`, or null for an all-day schedule. */
  time: string | null;
  timezone: string;
  month_day_overflow: MonthDayOverflow;
  /** Occurrence keys left out, sorted. */
  exdates: string[];
}

export const MAX_EXDATES = 1000;
export const MAX_COUNT = 1000;
export const MAX_YEARS = 10;
/** Every date and instant lies in the years 0001–9999 (§32 "Years"): no occurrence is ever after this date. */
export const LAST_DATE = Temporal.PlainDate.from('9999-12-31');

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
const WEEKDAY_PATTERN = /^([+-]?)(\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;

/** Collects every wrong field of one request, so a 422 names them all at once (§21). */
export class Problems {
  readonly details: ErrorDetail[] = [];
  add(field: string, message: string): void {
    this.details.push({ field, message });
  }
  get empty(): boolean {
    return this.details.length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw validationError(this.details);
  }
}

/** A real calendar date `YYYY-MM-DD`, or undefined (with a problem recorded) when it is not one. */
export function readDate(problems: Problems, field: string, value: unknown): Temporal.PlainDate | undefined {
  if (typeof value !== 'string' || !DATE_PATTERN.test(value)) {
    problems.add(field, 'must be a date YYYY-MM-DD');
    return undefined;
  }
  if (value.startsWith('0000')) {
    problems.add(field, 'must be a date in the years 0001 to 9999');
    return undefined;
  }
  try {
    return Temporal.PlainDate.from(value, { overflow: 'reject' });
  } catch {
    problems.add(field, `'${value}' is not a real date`);
    return undefined;
  }
}

/** `["MO", "2TU", "-1FR"]` in upper case, without `+`; ordinals only where RFC 5545 allows them. */
export function readWeekdays(
  problems: Problems,
  field: string,
  values: readonly string[],
  frequency: Frequency | undefined,
): string[] | undefined {
  const out: string[] = [];
  let ok = true;
  values.forEach((raw, index) => {
    const match = WEEKDAY_PATTERN.exec(String(raw).trim().toUpperCase());
    if (!match) {
      problems.add(
        `${field}[${index}]`,
        `'${raw}' is not a weekday: use MO, TU, WE, TH, FR, SA, SU, optionally with an ordinal such as 2TU or -1FR`,
      );
      ok = false;
      return;
    }
    const [, sign, digits, day] = match as unknown as [string, string, string | undefined, string];
    if (digits === undefined) {
      out.push(day);
      return;
    }
    const ordinal = Number(digits) * (sign === '-' ? -1 : 1);
    const limit = frequency === 'yearly' ? 53 : 5;
    if (frequency !== 'monthly' && frequency !== 'yearly') {
      problems.add(
        `${field}[${index}]`,
        `an ordinal weekday such as '${raw}' needs a monthly or yearly rule (RFC 5545)`,
      );
      ok = false;
    } else if (ordinal === 0 || Math.abs(ordinal) > limit) {
      problems.add(`${field}[${index}]`, `the ordinal of '${raw}' must be 1 to ${limit} or -1 to -${limit}`);
      ok = false;
    } else out.push(`${ordinal}${day}`);
  });
  return ok ? dedupe(out) : undefined;
}

function dedupe<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Integers within [min, max], zero refused when `allowZero` is false; e.g. BYMONTHDAY 1..31 and -1..-31. */
export function readIntegers(
  problems: Problems,
  field: string,
  values: readonly unknown[],
  limit: number,
  signed: boolean,
): number[] | undefined {
  let ok = true;
  const out: number[] = [];
  values.forEach((value, index) => {
    const n = typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;
    const good = typeof n === 'number' && Number.isInteger(n) && n !== 0 && Math.abs(n) <= limit && (signed || n > 0);
    if (!good) {
      problems.add(`${field}[${index}]`, signed ? `must be 1 to ${limit} or -1 to -${limit}` : `must be 1 to ${limit}`);
      ok = false;
    } else out.push(n);
  });
  if (ok && out.length === 0) {
    problems.add(field, 'must not be empty; send null (or leave it out) for none');
    return undefined;
  }
  return ok ? dedupe(out) : undefined;
}

/** The key of the occurrence on `date`: the nominal local date-time, or the date for an all-day schedule. */
export function occurrenceKey(rule: Pick<Recurrence, 'time'>, date: Temporal.PlainDate | string): string {
  const day = typeof date === 'string' ? date : date.toString();
  return rule.time === null ? day : `${day}T${rule.time}`;
}

/** The instant an occurrence on `date` starts: its time (a gap moves it forward by the gap), or 00:00 all-day. */
export function occurrenceStart(date: Temporal.PlainDate, time: string | null, zone: string): Temporal.ZonedDateTime {
  if (time === null) return date.toZonedDateTime({ timeZone: zone });
  return date.toPlainDateTime(Temporal.PlainTime.from(time)).toZonedDateTime(zone, { disambiguation: 'compatible' });
}
