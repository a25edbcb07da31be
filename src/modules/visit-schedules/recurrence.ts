// A schedule's `recurrence` (docs/api-contract.md §18, §21): read from an RFC 5545 RRULE value or from the
// structured fields (both answered; when both are sent they must agree), checked, and kept in one normal form.
// Expansion is in recurrence-expansion.ts; the English summary in recurrence-summary.ts.
import { Temporal } from '@js-temporal/polyfill';
import type { ErrorDetail } from '../../core/errors.js';
import { canonicalTimeZone } from '../../core/time.js';
import {
  FREQUENCIES,
  type Frequency,
  MAX_COUNT,
  MAX_EXDATES,
  type MonthDayOverflow,
  OVERFLOWS,
  Problems,
  type Recurrence,
  type RuleParts,
  readDate,
  readIntegers,
  readWeekdays,
  TIME_PATTERN,
  WEEKDAYS,
} from './recurrence-parts.js';
import { checkBounds } from './recurrence-expansion.js';
import { formatRrule, parseRrule } from './recurrence-rrule.js';
import { summarize } from './recurrence-summary.js';

/** The wire form of a request's `recurrence`: an `rrule` or the structured fields, or both. */
export interface RecurrenceInput {
  rrule?: string;
  frequency?: string;
  interval?: number;
  by_weekday?: string[] | null;
  by_month_day?: number[] | null;
  by_month?: number[] | null;
  by_set_position?: number[] | null;
  count?: number | null;
  until?: string | null;
  week_start?: string;
  start_date?: string;
  time?: string | null;
  timezone?: string;
  month_day_overflow?: string;
  exdates?: string[];
}

export const RULE_FIELDS = [
  'frequency',
  'interval',
  'by_weekday',
  'by_month_day',
  'by_month',
  'by_set_position',
  'count',
  'until',
  'week_start',
] as const;

/** The RFC 5545 rules between parts that neither form can state wrongly without a clear answer. */
function checkCombinations(problems: Problems, field: (name: string) => string, parts: RuleParts): void {
  if (parts.frequency === 'weekly' && parts.by_month_day !== null)
    problems.add(field('by_month_day'), 'a weekly rule cannot name days of the month (RFC 5545); use a monthly rule');
  if (parts.by_set_position !== null && !parts.by_weekday && !parts.by_month_day && !parts.by_month)
    problems.add(
      field('by_set_position'),
      'needs by_weekday, by_month_day or by_month to choose from (RFC 5545 BYSETPOS), e.g. by_weekday MO–FR with [-1]',
    );
  if (parts.count !== null && parts.until !== null)
    problems.add(field('until'), 'send either count or until, not both (RFC 5545)');
}

/** The structured fields of `input` (those present), checked; `undefined` marks a field not sent. */
function readStructured(problems: Problems, input: RecurrenceInput): Partial<Record<keyof RuleParts, unknown>> {
  const out: Partial<Record<keyof RuleParts, unknown>> = {};
  const field = (name: string) => `recurrence.${name}`;
  // Ordinals in by_weekday depend on the frequency, which may come from the rrule sent beside the fields.
  const stated = /(?:^|;|:)\s*FREQ\s*=\s*(\w+)/i.exec(input.rrule ?? '')?.[1]?.toLowerCase();
  let frequency: Frequency | undefined = (FREQUENCIES as readonly string[]).includes(stated ?? '')
    ? (stated as Frequency)
    : undefined;
  if (input.frequency !== undefined) {
    const value = String(input.frequency).toLowerCase();
    if ((FREQUENCIES as readonly string[]).includes(value)) frequency = out.frequency = value as Frequency;
    else problems.add(field('frequency'), `must be one of ${FREQUENCIES.join(', ')}`);
  }
  if (input.interval !== undefined) {
    if (Number.isInteger(input.interval) && input.interval >= 1 && input.interval <= 99) out.interval = input.interval;
    else problems.add(field('interval'), 'must be a whole number from 1 to 99');
  }
  if (input.by_weekday !== undefined)
    out.by_weekday =
      input.by_weekday === null ? null : readWeekdays(problems, field('by_weekday'), input.by_weekday, frequency);
  if (input.by_month_day !== undefined)
    out.by_month_day =
      input.by_month_day === null ? null : readIntegers(problems, field('by_month_day'), input.by_month_day, 31, true);
  if (input.by_month !== undefined)
    out.by_month =
      input.by_month === null ? null : readIntegers(problems, field('by_month'), input.by_month, 12, false);
  if (input.by_set_position !== undefined)
    out.by_set_position =
      input.by_set_position === null
        ? null
        : readIntegers(problems, field('by_set_position'), input.by_set_position, 366, true);
  if (input.count !== undefined) {
    if (input.count === null || (Number.isInteger(input.count) && input.count >= 1 && input.count <= MAX_COUNT))
      out.count = input.count;
    else problems.add(field('count'), `must be a whole number from 1 to ${MAX_COUNT}`);
  }
  if (input.until !== undefined)
    out.until = input.until === null ? null : readDate(problems, field('until'), input.until)?.toString();
  if (input.week_start !== undefined) {
    const value = String(input.week_start).toUpperCase();
    if ((WEEKDAYS as readonly string[]).includes(value)) out.week_start = value;
    else problems.add(field('week_start'), `must be one of ${WEEKDAYS.join(', ')}`);
  }
  return out;
}

const sameSet = (a: unknown, b: unknown): boolean =>
  JSON.stringify(Array.isArray(a) ? [...a].map(String).sort() : a) ===
  JSON.stringify(Array.isArray(b) ? [...b].map(String).sort() : b);

export interface ParseOptions {
  /** The zone when `recurrence.timezone` is not sent (the job's property's, else the account's). */
  defaultTimeZone: string;
  /** True when the schedule is all-day (it sends `duration_days`): `time` may then be left out. */
  allDay?: boolean;
}

/**
 * The normal form of a request's `recurrence`, or a 422 naming every wrong field. The rule is then expanded
 * once to refuse a rule that yields no occurrence or whose last occurrence lies more than 10 years after
 * `start_date`.
 */
export function parseRecurrence(input: RecurrenceInput, options: ParseOptions): Recurrence {
  const problems = new Problems();
  const field = (name: string) => `recurrence.${name}`;

  let timezone: string | undefined;
  try {
    timezone = canonicalTimeZone(field('timezone'), input.timezone ?? options.defaultTimeZone);
  } catch (error) {
    problems.details.push(...((error as { details?: ErrorDetail[] }).details ?? []));
  }
  const start = input.start_date === undefined ? undefined : readDate(problems, field('start_date'), input.start_date);
  if (input.start_date === undefined)
    problems.add(field('start_date'), 'is required: the first local date of the rule');
  let time: string | null | undefined = input.time;
  if (time === undefined) {
    if (options.allDay) time = null;
    else problems.add(field('time'), 'is required: the local time HH:MM, or null for an all-day schedule');
  } else if (time !== null && !TIME_PATTERN.test(time)) {
    problems.add(field('time'), 'must be a local time HH:MM (00:00 to 23:59), or null for an all-day schedule');
    time = undefined;
  }
  let overflow: MonthDayOverflow = 'last_day';
  if (input.month_day_overflow !== undefined) {
    if ((OVERFLOWS as readonly string[]).includes(input.month_day_overflow))
      overflow = input.month_day_overflow as MonthDayOverflow;
    else problems.add(field('month_day_overflow'), `must be one of ${OVERFLOWS.join(', ')}`);
  }

  const structured = readStructured(problems, input);
  const context = { timezone, time, start };
  let parts: Partial<RuleParts> | undefined;
  if (input.rrule !== undefined) {
    const fromRrule = parseRrule(problems, field('rrule'), input.rrule, context);
    if (fromRrule) {
      for (const name of RULE_FIELDS) {
        const sent = structured[name];
        if (sent === undefined) continue;
        const stated = fromRrule[name];
        if (!sameSet(sent, stated))
          problems.add(
            field(name),
            `does not agree with rrule (which says ${JSON.stringify(stated)}); send one form, or both saying the same`,
          );
      }
      parts = fromRrule;
    }
  } else if (structured.frequency === undefined) {
    if (input.frequency === undefined)
      problems.add(
        field('frequency'),
        'is required (or send rrule, an RFC 5545 RRULE value such as FREQ=WEEKLY;BYDAY=TU)',
      );
  } else {
    parts = {
      frequency: structured.frequency as Frequency,
      interval: (structured.interval as number | undefined) ?? 1,
      by_weekday: (structured.by_weekday as string[] | null | undefined) ?? null,
      by_month_day: (structured.by_month_day as number[] | null | undefined) ?? null,
      by_month: (structured.by_month as number[] | null | undefined) ?? null,
      by_set_position: (structured.by_set_position as number[] | null | undefined) ?? null,
      count: (structured.count as number | null | undefined) ?? null,
      until: (structured.until as string | null | undefined) ?? null,
      week_start: (structured.week_start as string | undefined) ?? 'MO',
    };
  }

  const exdates = readExdates(problems, input.exdates, time);
  if (parts && parts.until && start && Temporal.PlainDate.compare(parts.until, start) < 0)
    problems.add(field('until'), `is before start_date (${start.toString()}): the rule would have no occurrence`);
  if (parts) checkCombinations(problems, field, parts as RuleParts);
  problems.throwIfAny();

  const rule: Recurrence = {
    ...(parts as RuleParts),
    start_date: (start as Temporal.PlainDate).toString(),
    time: time as string | null,
    timezone: timezone as string,
    month_day_overflow: overflow,
    exdates: exdates as string[],
  };
  checkBounds(rule, problems, input.rrule !== undefined ? field('rrule') : 'recurrence');
  problems.throwIfAny();
  return rule;
}

/** Occurrence keys: `YYYY-MM-DDTHH:MM` for timed schedules (a bare date takes the schedule's time), dates for all-day. */
function readExdates(problems: Problems, values: readonly string[] | undefined, time: string | null | undefined) {
  if (values === undefined || values === null) return [];
  if (values.length > MAX_EXDATES) {
    problems.add('recurrence.exdates', `holds at most ${MAX_EXDATES} occurrence keys`);
    return undefined;
  }
  const keys: string[] = [];
  values.forEach((value, index) => {
    const field = `recurrence.exdates[${index}]`;
    const text = String(value);
    const date = readDate(new Problems(), field, text.slice(0, 10));
    const rest = text.slice(10);
    if (!date || (rest !== '' && !/^T([01]\d|2[0-3]):[0-5]\d$/.test(rest))) {
      problems.add(field, `'${text}' is not an occurrence key: YYYY-MM-DDTHH:MM (or the date YYYY-MM-DD for all-day)`);
      return;
    }
    if (time === undefined) return;
    if (time === null) {
      if (rest !== '')
        problems.add(field, `'${text}' has a time, but the schedule is all-day: give the date YYYY-MM-DD`);
      else keys.push(text);
    } else keys.push(rest === '' ? `${text}T${time}` : text);
  });
  return [...new Set(keys)].sort();
}

/** The answered `recurrence`: both forms (the RRULE value and the structured fields) and the English summary. */
export interface RecurrenceAnswer extends Recurrence {
  rrule: string;
  summary: string;
}

export function describeRecurrence(rule: Recurrence): RecurrenceAnswer {
  return {
    rrule: formatRrule(rule),
    frequency: rule.frequency,
    interval: rule.interval,
    by_weekday: rule.by_weekday,
    by_month_day: rule.by_month_day,
    by_month: rule.by_month,
    by_set_position: rule.by_set_position,
    count: rule.count,
    until: rule.until,
    week_start: rule.week_start,
    start_date: rule.start_date,
    time: rule.time,
    timezone: rule.timezone,
    month_day_overflow: rule.month_day_overflow,
    exdates: rule.exdates,
    summary: summarize(rule),
  };
}
