// The RRULE form of a recurrence (RFC 5545 §3.3.10): read into the structured parts, and written back from
// them. Only FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, COUNT, UNTIL and WKST are taken
// (docs/api-contract.md §18); any other part is a 422 naming it.
import { Temporal } from '@js-temporal/polyfill';
import {
  type Frequency,
  MAX_COUNT,
  occurrenceStart,
  Problems,
  type Recurrence,
  type RuleParts,
  readIntegers,
  readWeekdays,
  WEEKDAYS,
} from './recurrence-parts.js';
const ALLOWED = ['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'COUNT', 'UNTIL', 'WKST'];
/** The other parts RFC 5545 and RFC 7529 define: named as unsupported rather than unknown. */
const UNSUPPORTED = ['BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYYEARDAY', 'BYWEEKNO', 'RSCALE', 'SKIP'];
const FREQS: Record<string, Frequency> = { DAILY: 'daily', WEEKLY: 'weekly', MONTHLY: 'monthly', YEARLY: 'yearly' };

interface Context {
  timezone: string | undefined;
  time: string | null | undefined;
  start: Temporal.PlainDate | undefined;
}

/** The parts of an RRULE value (`FREQ=WEEKLY;INTERVAL=2;BYDAY=TU`, an `RRULE:` prefix allowed), or undefined. */
export function parseRrule(problems: Problems, field: string, text: string, context: Context): RuleParts | undefined {
  const before = problems.details.length;
  const value = String(text)
    .trim()
    .replace(/^RRULE:/i, '');
  if (value === '') {
    problems.add(field, 'must be an RFC 5545 RRULE value such as FREQ=WEEKLY;INTERVAL=2;BYDAY=TU');
    return undefined;
  }
  const parts = new Map<string, string>();
  for (const piece of value.split(';')) {
    const at = piece.indexOf('=');
    const name = (at < 0 ? piece : piece.slice(0, at)).trim().toUpperCase();
    const content = at < 0 ? '' : piece.slice(at + 1).trim();
    if (UNSUPPORTED.includes(name)) {
      problems.add(field, `${name} is not supported: a rule may use only ${ALLOWED.join(', ')}`);
      continue;
    }
    if (!ALLOWED.includes(name)) {
      problems.add(field, `'${name || piece}' is not an RRULE part this API takes: use only ${ALLOWED.join(', ')}`);
      continue;
    }
    if (at < 0 || content === '') {
      problems.add(field, `${name} has no value`);
      continue;
    }
    if (parts.has(name)) {
      problems.add(field, `${name} appears twice`);
      continue;
    }
    parts.set(name, content);
  }
  const freqText = parts.get('FREQ');
  const frequency = freqText === undefined ? undefined : FREQS[freqText.toUpperCase()];
  if (freqText === undefined) problems.add(field, 'FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY)');
  else if (frequency === undefined)
    problems.add(field, `FREQ=${freqText} is not supported: use DAILY, WEEKLY, MONTHLY or YEARLY`);

  const list = (name: string) => parts.get(name)?.split(',');
  const integer = (name: string, min: number, max: number): number | null => {
    const raw = parts.get(name);
    if (raw === undefined) return null;
    const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(n >= min && n <= max)) {
      problems.add(field, `${name} must be a whole number from ${min} to ${max}`);
      return null;
    }
    return n;
  };
  const interval = integer('INTERVAL', 1, 99) ?? 1;
  const count = integer('COUNT', 1, MAX_COUNT);
  // The list readers name a field; inside an RRULE the field is `rrule` and the part leads the message.
  const inPart = <T>(read: (sub: Problems) => T | undefined): T | null => {
    const sub = new Problems();
    const value = read(sub);
    for (const detail of sub.details) problems.add(field, `${detail.field}: ${detail.message}`);
    return value ?? null;
  };
  const byDay = list('BYDAY');
  const by_weekday = byDay ? inPart((sub) => readWeekdays(sub, 'BYDAY', byDay, frequency)) : null;
  const byMonthDay = list('BYMONTHDAY');
  const by_month_day = byMonthDay ? inPart((sub) => readIntegers(sub, 'BYMONTHDAY', byMonthDay, 31, true)) : null;
  const byMonth = list('BYMONTH');
  const by_month = byMonth ? inPart((sub) => readIntegers(sub, 'BYMONTH', byMonth, 12, false)) : null;
  const bySetPos = list('BYSETPOS');
  const by_set_position = bySetPos ? inPart((sub) => readIntegers(sub, 'BYSETPOS', bySetPos, 366, true)) : null;
  let week_start = 'MO';
  const wkst = parts.get('WKST');
  if (wkst !== undefined) {
    if ((WEEKDAYS as readonly string[]).includes(wkst.toUpperCase())) week_start = wkst.toUpperCase();
    else problems.add(field, `WKST must be one of ${WEEKDAYS.join(', ')}`);
  }
  const untilText = parts.get('UNTIL');
  const until = untilText === undefined ? null : readUntil(problems, field, untilText, context);
  if (problems.details.length > before || frequency === undefined) return undefined;
  return {
    frequency,
    interval,
    by_weekday,
    by_month_day,
    by_month,
    by_set_position,
    count,
    until: until ?? null,
    week_start,
  };
}

/**
 * UNTIL as the last local date (§21): a date (`20261231`) is that local date; a UTC date-time
 * (`20270101T065959Z`) keeps the occurrences at or before that instant, so it ends on the last local date
 * whose occurrence is not after it.
 */
function readUntil(problems: Problems, field: string, text: string, context: Context): string | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/i.exec(text);
  if (!match) {
    problems.add(field, `UNTIL=${text} must be a date (20261231) or a UTC date-time (20270101T065959Z)`);
    return undefined;
  }
  const [, y, m, d, hh, mm, ss, zulu] = match as unknown as string[];
  if (y === '0000') {
    problems.add(field, `UNTIL=${text} must be a date in the years 0001 to 9999`);
    return undefined;
  }
  let date: Temporal.PlainDate;
  try {
    date = Temporal.PlainDate.from({ year: Number(y), month: Number(m), day: Number(d) }, { overflow: 'reject' });
  } catch {
    problems.add(field, `UNTIL=${text} is not a real date`);
    return undefined;
  }
  if (hh === undefined) return date.toString();
  if (zulu === '' || zulu === undefined) {
    problems.add(field, `UNTIL=${text} has a time without Z: give a UTC date-time (…Z) or a date`);
    return undefined;
  }
  let instant: Temporal.Instant;
  try {
    instant = Temporal.Instant.from(`${date.toString()}T${hh}:${mm}:${ss}Z`);
  } catch {
    problems.add(field, `UNTIL=${text} is not a real date-time`);
    return undefined;
  }
  if (context.timezone === undefined || context.time === undefined) return undefined;
  const local = instant.toZonedDateTimeISO(context.timezone).toPlainDate();
  const first = occurrenceStart(local, context.time, context.timezone);
  return (Temporal.Instant.compare(first.toInstant(), instant) > 0 ? local.subtract({ days: 1 }) : local).toString();
}

const compact = (date: string) => date.replaceAll('-', '');

/**
 * The RRULE value of a rule, in a fixed order. UNTIL is the date for an all-day schedule and, for a timed one,
 * the UTC instant of the end of that local day (RFC 5545 §3.3.10), e.g. `20270101T065959Z` for 2026-12-31
 * in America/Denver. `month_day_overflow` is not written: RSCALE and SKIP are not parts this API takes.
 */
export function formatRrule(rule: Recurrence): string {
  const out = [`FREQ=${rule.frequency.toUpperCase()}`];
  if (rule.interval !== 1) out.push(`INTERVAL=${rule.interval}`);
  if (rule.by_month) out.push(`BYMONTH=${rule.by_month.join(',')}`);
  if (rule.by_month_day) out.push(`BYMONTHDAY=${rule.by_month_day.join(',')}`);
  if (rule.by_weekday) out.push(`BYDAY=${rule.by_weekday.join(',')}`);
  if (rule.by_set_position) out.push(`BYSETPOS=${rule.by_set_position.join(',')}`);
  if (rule.count !== null) out.push(`COUNT=${rule.count}`);
  if (rule.until !== null) {
    if (rule.time === null) out.push(`UNTIL=${compact(rule.until)}`);
    else {
      const end = Temporal.PlainDate.from(rule.until)
        .add({ days: 1 })
        .toZonedDateTime({ timeZone: rule.timezone })
        .toInstant()
        .subtract({ seconds: 1 });
      out.push(`UNTIL=${end.toString().replaceAll('-', '').replaceAll(':', '')}`);
    }
  }
  if (rule.week_start !== 'MO') out.push(`WKST=${rule.week_start}`);
  return out.join(';');
}
