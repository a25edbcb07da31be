// Expanding a recurrence (docs/api-contract.md §18): the rule is expanded by `rrule-temporal` (RFC 5545) on
// local dates — the library is handed the rule as floating local dates in UTC, where no day has a gap — and
// only then is each occurrence placed in the schedule's zone: 09:00 stays 09:00 across daylight saving, a time
// in the spring-forward gap moves forward by the gap, an ambiguous time takes its first instant.
import { Temporal } from '@js-temporal/polyfill';
import { type RRuleOptions, RRuleTemporal } from 'rrule-temporal';
import { fieldError } from '../../core/errors.js';
import { Lru } from '../../core/lru.js';
import { withinYears as instantWithinYears } from '../../core/time.js';
import {
  LAST_DATE,
  MAX_YEARS,
  occurrenceKey,
  occurrenceStart,
  type Problems,
  type Recurrence,
} from './recurrence-parts.js';

/** How long each occurrence lasts: minutes of real time for a timed schedule, whole local days for all-day. */
export interface Durations {
  duration_minutes: number | null;
  duration_days: number | null;
}

export interface Occurrence {
  occurrence_key: string;
  date: Temporal.PlainDate;
  start: Temporal.ZonedDateTime;
  end: Temporal.ZonedDateTime;
  skipped: boolean;
}

// The library's options use the `temporal-spec` types; the polyfill's values are the same objects at runtime.
type ManualOptions = Extract<RRuleOptions, { freq: unknown }>;
type LibraryDate = ManualOptions['dtstart'];
const floating = (date: Temporal.PlainDate): LibraryDate =>
  date.toZonedDateTime({ timeZone: 'UTC' }) as unknown as LibraryDate;
const dateOf = (value: { toString(): string }): Temporal.PlainDate =>
  Temporal.PlainDate.from(value.toString().slice(0, 10));

/** Months by their length, for `month_day_overflow: last_day`; February's 29th is its last day in a leap year. */
const MONTH_CLASSES: ReadonlyArray<{ months: number[]; last: number }> = [
  { months: [1, 3, 5, 7, 8, 10, 12], last: 31 },
  { months: [4, 6, 9, 11], last: 30 },
  { months: [2], last: 28 },
];

/** What the library is handed of a rule: its frequency and BY parts, after the rewrites below. */
interface LibraryParts {
  frequency: Recurrence['frequency'];
  interval: number;
  by_weekday: string[] | null;
  by_month_day: number[] | null;
  by_month: number[] | null;
  by_set_position: number[] | null;
}

const ALL_WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

/**
 * The rule's parts as the library expands them. A daily rule (interval 1, no BYSETPOS) that names month days or
 * months is handed over as the monthly or weekly rule with the same dates (RFC 5545: in a DAILY rule every BY
 * part limits; in a MONTHLY rule BYMONTHDAY expands and, beside it, BYDAY limits; in a WEEKLY rule BYDAY expands
 * and BYMONTH limits): the library examines such a daily rule day by day through a slow path, 30 times the work
 * of the monthly one for `BYMONTHDAY=31`.
 */
function libraryParts(rule: Recurrence): LibraryParts {
  const parts: LibraryParts = {
    frequency: rule.frequency,
    interval: rule.interval,
    by_weekday: rule.by_weekday,
    by_month_day: rule.by_month_day,
    by_month: rule.by_month,
    by_set_position: rule.by_set_position,
  };
  if (rule.frequency !== 'daily' || rule.interval !== 1 || rule.by_set_position !== null) return parts;
  if (rule.by_month_day !== null) return { ...parts, frequency: 'monthly' };
  if (rule.by_month !== null) return { ...parts, frequency: 'weekly', by_weekday: rule.by_weekday ?? ALL_WEEKDAYS };
  return parts;
}

/**
 * The rule as one or more library rules whose union is its occurrences. RFC 5545 takes a monthly or yearly
 * rule's missing day (and a yearly rule's month) from DTSTART; that is made explicit here. With `last_day`,
 * a month day beyond a month's length means that month's last day (RFC 7529 SKIP=BACKWARD): the rule is split
 * by month length, each part stating its days with -1 for the overflowing ones. A monthly rule's BYSETPOS works
 * within one month, so one part per month keeps it exact; a yearly rule with BYSETPOS is refused in that case.
 */
function libraryRules(rule: Recurrence): RRuleTemporal[] {
  const parts = libraryParts(rule);
  const start = Temporal.PlainDate.from(rule.start_date);
  let byMonthDay = parts.by_month_day;
  let byMonth = parts.by_month;
  if ((parts.frequency === 'monthly' || parts.frequency === 'yearly') && !byMonthDay && !parts.by_weekday) {
    byMonthDay = [start.day];
    if (parts.frequency === 'yearly' && !byMonth) byMonth = [start.month];
  }
  const base: ManualOptions = {
    freq: parts.frequency.toUpperCase() as ManualOptions['freq'],
    interval: parts.interval,
    dtstart: floating(start),
    wkst: rule.week_start,
    ...(parts.by_weekday ? { byDay: parts.by_weekday } : {}),
    ...(byMonth ? { byMonth } : {}),
    ...(parts.by_set_position ? { bySetPos: parts.by_set_position } : {}),
    // Sparse rules (a 29 February that is a Monday) need more periods than the library's default cap.
    maxIterations: 100_000,
  };
  const days = byMonthDay;
  if (!days) return [new RRuleTemporal(base)];
  if (rule.month_day_overflow === 'skip' || !days.some((day) => day > 28))
    return [new RRuleTemporal({ ...base, byMonthDay: days })];
  const rules: RRuleTemporal[] = [];
  for (const { months, last } of MONTH_CLASSES) {
    const chosen = months.filter((month) => !byMonth || byMonth.includes(month));
    if (chosen.length === 0) continue;
    const clamped = [...new Set(days.map((day) => (day > last ? -1 : day)))];
    rules.push(new RRuleTemporal({ ...base, byMonth: chosen, byMonthDay: clamped }));
  }
  return rules;
}

/** A weekday with an ordinal (`53MO`, `-1FR`) as [ordinal, weekday 1–7]; [0, weekday] without one. */
function ordinalOf(text: string): [number, number] {
  const match = /^([+-]?\d+)?([A-Z]{2})$/.exec(text) as RegExpExecArray;
  return [Number(match[1] ?? 0), ALL_WEEKDAYS.indexOf(match[2] as string) + 1];
}

/** Whether a yearly rule without BYMONTH names an ordinal weekday: the library places those itself (see below). */
const yearlyOrdinals = (rule: Recurrence): boolean =>
  rule.frequency === 'yearly' &&
  rule.by_month === null &&
  (rule.by_weekday ?? []).some((day) => ordinalOf(day)[0] !== 0);

/**
 * The one error of the library that RFC 5545 §3.3.10 makes visible here: in a yearly rule without BYMONTH, `53MO`
 * is the 53rd Monday of the year, which only some years have, and the library counts 52 weeks on from the first
 * Monday whatever the year (giving a date early in the next year; `-53MO` one late in the year before). Those
 * dates are dropped: a date is kept only when its own year is one of the rule's (every `interval` years from
 * start_date) and it is the named weekday with that ordinal within its year. Ordinals up to ±52 exist in every
 * year and are placed right; BYSETPOS, BYMONTHDAY or weekdays without an ordinal beside them are refused
 * (`yearlyOrdinalProblem`), since the library computes those on the wrong set.
 */
function ordinalFilter(rule: Recurrence): ((date: Temporal.PlainDate) => boolean) | null {
  if (!yearlyOrdinals(rule) || !(rule.by_weekday ?? []).some((day) => Math.abs(ordinalOf(day)[0]) === 53)) return null;
  const wanted = (rule.by_weekday ?? []).map(ordinalOf);
  const startYear = Temporal.PlainDate.from(rule.start_date).year;
  return (date) => {
    if ((date.year - startYear) % rule.interval !== 0) return false;
    const fromStart = Math.floor((date.dayOfYear - 1) / 7) + 1;
    const fromEnd = -(Math.floor((date.daysInYear - date.dayOfYear) / 7) + 1);
    return wanted.some(
      ([ordinal, weekday]) => weekday === date.dayOfWeek && (ordinal === fromStart || ordinal === fromEnd),
    );
  };
}

/** The combinations of ordinal weekdays in a yearly rule that the library cannot give exactly (refused). */
export function yearlyOrdinalProblem(rule: Recurrence): [string, string] | null {
  if (!yearlyOrdinals(rule)) return null;
  const days = rule.by_weekday ?? [];
  if (days.some((day) => ordinalOf(day)[0] === 0))
    return [
      'recurrence.by_weekday',
      'a yearly rule without by_month cannot mix weekdays with an ordinal (20MO) and without one (MO); use two schedules',
    ];
  if (rule.by_month_day !== null)
    return [
      'recurrence.by_month_day',
      'cannot be combined with an ordinal weekday (20MO) in a yearly rule without by_month; name the month with by_month',
    ];
  if (rule.by_set_position !== null && days.some((day) => Math.abs(ordinalOf(day)[0]) === 53))
    return [
      'recurrence.by_set_position',
      'cannot be combined with the 53rd weekday of the year (53MO, -53MO), which only some years have',
    ];
  return null;
}

/** Whether `last_day` would have to split a yearly BYSETPOS across month lengths (refused: see decisions). */
export function splitsSetPosition(rule: Recurrence): boolean {
  return (
    rule.month_day_overflow === 'last_day' &&
    rule.frequency === 'yearly' &&
    rule.by_set_position !== null &&
    (rule.by_month_day ?? []).some((day) => day > 28)
  );
}

function mergeDates(lists: Temporal.PlainDate[][]): Temporal.PlainDate[] {
  if (lists.length === 1) return lists[0] as Temporal.PlainDate[];
  const byText = new Map<string, Temporal.PlainDate>();
  for (const list of lists) for (const date of list) byText.set(date.toString(), date);
  return [...byText.values()].sort(Temporal.PlainDate.compare);
}

/** The rule's dates in [from, to] (inclusive) before COUNT, UNTIL and exdates, straight from the library. */
function libraryDates(
  rule: Recurrence,
  rules: RRuleTemporal[],
  from: Temporal.PlainDate,
  until: Temporal.PlainDate,
): Temporal.PlainDate[] {
  // No date after 9999-12-31 is ever an occurrence (§32 "Years").
  const to = Temporal.PlainDate.compare(until, LAST_DATE) > 0 ? LAST_DATE : until;
  if (Temporal.PlainDate.compare(from, to) > 0) return [];
  const dates = mergeDates(rules.map((one) => one.between(floating(from), floating(to), true).map(dateOf)));
  const keep = ordinalFilter(rule);
  return keep ? dates.filter(keep) : dates;
}

/**
 * Expansion is cached by what a rule's dates depend on (never its exdates, COUNT or UNTIL, applied after): the
 * library's rules, and the dates in blocks of BLOCK_DAYS local days. A schedule's rule changes only by split, so
 * the worker's hourly passes, the calendar's projection and the schedule's answers expand each block once; a
 * block of a daily rule is a few milliseconds of work, the most any single step does (materialisation warms the
 * blocks it needs one run at a time, yielding between them: `prepareDates`).
 */
const BLOCK_DAYS = 32;
const MAX_BLOCKS = 4000;
const rulesCache = new Lru<string, RRuleTemporal[]>(500);

function ruleIdentity(rule: Recurrence): string {
  return JSON.stringify([
    rule.frequency,
    rule.interval,
    rule.by_weekday,
    rule.by_month_day,
    rule.by_month,
    rule.by_set_position,
    rule.week_start,
    rule.start_date,
    rule.month_day_overflow,
  ]);
}

function cachedRules(rule: Recurrence, identity: string): RRuleTemporal[] {
  let rules = rulesCache.get(identity);
  if (!rules) {
    rules = libraryRules(rule);
    rulesCache.set(identity, rules);
  }
  return rules;
}

/** A block's dates, with their days since 1970-01-01 (compared as numbers: the polyfill's compare is slow). */
export interface Block {
  dates: Temporal.PlainDate[];
  days: number[];
}
const blockCache = new Lru<string, Block>(MAX_BLOCKS);

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 (setUTCFullYear, unlike Date.UTC, takes years below 100 as they are). */
export const dayOf = (date: { year: number; month: number; day: number }) =>
  new Date(0).setUTCFullYear(date.year, date.month - 1, date.day) / DAY_MS;
const blockOf = (date: Temporal.PlainDate) => Math.floor(dayOf(date) / BLOCK_DAYS);
function blockStart(block: number): Temporal.PlainDate {
  const at = new Date(block * BLOCK_DAYS * DAY_MS);
  return Temporal.PlainDate.from({ year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() });
}

/** Expands the blocks [first, last] that are not cached, in one call of the library per run of them. */
function fillBlocks(rule: Recurrence, identity: string, first: number, last: number): void {
  let run: number | undefined;
  for (let block = first; block <= last + 1; block++) {
    const missing = block <= last && blockCache.get(`${identity}|${block}`) === undefined;
    if (missing && run === undefined) run = block;
    if (missing || run === undefined) continue;
    const dates = libraryDates(
      rule,
      cachedRules(rule, identity),
      blockStart(run),
      blockStart(block).subtract({ days: 1 }),
    );
    for (let one = run, at = 0; one < block; one++) {
      const end = (one + 1) * BLOCK_DAYS;
      const inBlock: Block = { dates: [], days: [] };
      while (at < dates.length && dayOf(dates[at] as Temporal.PlainDate) < end) {
        inBlock.dates.push(dates[at] as Temporal.PlainDate);
        inBlock.days.push(dayOf(dates[at++] as Temporal.PlainDate));
      }
      blockCache.set(`${identity}|${one}`, inBlock);
    }
    run = undefined;
  }
}

/** The rule's dates in [from, to] (inclusive) before COUNT, UNTIL and exdates, from the cached blocks. */
function rawDates(rule: Recurrence, from: Temporal.PlainDate, to: Temporal.PlainDate): Temporal.PlainDate[] {
  return rawDays(rule, dayOf(from), dayOf(to)).dates;
}

/** The same between days since 1970-01-01, with each date's day beside it. */
function rawDays(rule: Recurrence, lo: number, hi: number): Block {
  const found: Block = { dates: [], days: [] };
  if (lo > hi) return found;
  const identity = ruleIdentity(rule);
  const first = Math.floor(lo / BLOCK_DAYS);
  const last = Math.floor(hi / BLOCK_DAYS);
  for (let block = first; block <= last; block++) {
    let cached = blockCache.get(`${identity}|${block}`);
    if (cached === undefined) {
      fillBlocks(rule, identity, block, last);
      cached = blockCache.get(`${identity}|${block}`) ?? { dates: [], days: [] };
    }
    const { dates, days } = cached;
    for (let at = 0; at < dates.length; at++)
      if ((days[at] as number) >= lo && (days[at] as number) <= hi) {
        found.dates.push(dates[at] as Temporal.PlainDate);
        found.days.push(days[at] as number);
      }
  }
  return found;
}

/**
 * Expands, ahead of a synchronous use, the blocks of [from, to] (and for a COUNT rule those from its start until
 * its count is reached) that are not cached yet: a few blocks per turn of the event loop, `pause` between them.
 */
export async function prepareDates(
  rule: Recurrence,
  from: Temporal.PlainDate,
  to: Temporal.PlainDate,
  pause: () => Promise<unknown>,
): Promise<void> {
  const identity = ruleIdentity(rule);
  const start = Temporal.PlainDate.from(rule.start_date);
  let lo = Temporal.PlainDate.compare(from, start) < 0 ? start : from;
  let hi = to;
  if (Temporal.PlainDate.compare(hi, LAST_DATE) > 0) hi = LAST_DATE;
  if (rule.count !== null) {
    lo = start;
    hi = lastCounted(rule);
  } else if (rule.until !== null && Temporal.PlainDate.compare(rule.until, hi) < 0)
    hi = Temporal.PlainDate.from(rule.until);
  if (Temporal.PlainDate.compare(lo, hi) > 0) return;
  let counted = 0;
  for (let block = blockOf(lo), last = blockOf(hi); block <= last; block += 2) {
    if (rule.count !== null && counted >= rule.count) return;
    const missing =
      blockCache.get(`${identity}|${block}`) === undefined ||
      (block + 1 <= last && blockCache.get(`${identity}|${block + 1}`) === undefined);
    if (missing) {
      fillBlocks(rule, identity, block, Math.min(block + 1, last));
      await pause();
    }
    counted +=
      (blockCache.get(`${identity}|${block}`)?.dates.length ?? 0) +
      (blockCache.get(`${identity}|${block + 1}`)?.dates.length ?? 0);
  }
}

const tenYearsAfter = (rule: Recurrence) => Temporal.PlainDate.from(rule.start_date).add({ years: MAX_YEARS });
/** The last date a rule may yield: 10 years after start_date for a COUNT rule, and never after 9999-12-31. */
const lastCounted = (rule: Recurrence) => {
  const end = tenYearsAfter(rule);
  return Temporal.PlainDate.compare(end, LAST_DATE) > 0 ? LAST_DATE : end;
};

/** A COUNT rule's dates: the first `count` from start_date (at most 10 years of them; longer rules are refused). */
function countedDates(rule: Recurrence): Temporal.PlainDate[] {
  const start = Temporal.PlainDate.from(rule.start_date);
  const end = lastCounted(rule);
  const count = rule.count ?? 0;
  const dates: Temporal.PlainDate[] = [];
  // A year of blocks at a time, until the count is reached or the 10 years are over.
  for (let from = start; dates.length < count && Temporal.PlainDate.compare(from, end) <= 0; ) {
    const to = from.add({ days: 366 });
    dates.push(...rawDates(rule, from, Temporal.PlainDate.compare(to, end) < 0 ? to : end));
    from = to.add({ days: 1 });
  }
  return dates.slice(0, count);
}

/** The dates the rule yields in [from, to], inclusive, with COUNT and UNTIL applied (exdates are not removed). */
export function ruleDates(rule: Recurrence, from: Temporal.PlainDate, to: Temporal.PlainDate): Temporal.PlainDate[] {
  const start = Temporal.PlainDate.from(rule.start_date);
  const lo = Temporal.PlainDate.compare(from, start) < 0 ? start : from;
  let hi = Temporal.PlainDate.compare(to, LAST_DATE) > 0 ? LAST_DATE : to;
  if (rule.until !== null && Temporal.PlainDate.compare(rule.until, hi) < 0) hi = Temporal.PlainDate.from(rule.until);
  if (rule.count === null) return rawDates(rule, lo, hi);
  return countedDates(rule).filter(
    (date) => Temporal.PlainDate.compare(date, lo) >= 0 && Temporal.PlainDate.compare(date, hi) <= 0,
  );
}

/** Days since 1970-01-01 of an ISO date's text (`YYYY-MM-DD`), without the polyfill. */
const dayOfText = (text: string) =>
  new Date(0).setUTCFullYear(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10))) /
  DAY_MS;
const LAST_DAY = dayOf(LAST_DATE);

/**
 * `ruleDates` between days since 1970-01-01, with each date's day beside it: for loops over many rules, where
 * the polyfill's parsing and comparisons of dates were most of the cost.
 */
export function ruleDays(rule: Recurrence, fromDay: number, toDay: number): Block {
  const lo = Math.max(fromDay, dayOfText(rule.start_date));
  let hi = Math.min(toDay, LAST_DAY);
  if (rule.until !== null) hi = Math.min(hi, dayOfText(rule.until));
  if (rule.count === null) return rawDays(rule, lo, hi);
  const found: Block = { dates: [], days: [] };
  for (const date of countedDates(rule)) {
    const day = dayOf(date);
    if (day >= lo && day <= hi) {
      found.dates.push(date);
      found.days.push(day);
    }
  }
  return found;
}

/**
 * Checking a rule costs at most a bounded amount of work per request (§32): the dates the check has the library
 * examine are estimated from the rule (never measured, so that a rule's answer does not depend on what is cached
 * or on the machine's load) and charged before each window is expanded. A rule whose check would need more is a
 * 422: its expansion cannot be shown valid within the budget. 4,000 candidate dates is 10 years of a daily rule,
 * about 10–40 ms of CPU; every rule of RFC 5545's examples and every sensible rule is far below it.
 */
export const CHECK_BUDGET = 4000;
/** What one call of the library costs beyond its candidates, in candidate dates (about 0.3 ms). */
const CALL_COST = 30;
/** A daily rule that limits by month, month day or set position goes through the library's slow path. */
const SLOW_PATH = 4;

/** An upper estimate of the candidate dates one library rule of `parts` examines in a year. */
function candidatesPerYear(parts: LibraryParts): number {
  const weekdays = parts.by_weekday ?? [];
  const perMonth = Math.max(
    1,
    parts.by_month_day?.length ?? 0,
    weekdays.reduce((sum, day) => sum + (ordinalOf(day)[0] === 0 ? 5 : 1), 0),
  );
  const every = parts.interval;
  switch (parts.frequency) {
    case 'daily': {
      const slow = parts.by_month !== null || parts.by_month_day !== null || parts.by_set_position !== null;
      return (366 / every) * (slow ? SLOW_PATH : 1);
    }
    case 'weekly':
      return (54 / every) * Math.max(1, weekdays.length);
    case 'monthly':
      return (12 / every) * perMonth;
    case 'yearly':
      return parts.by_month === null && parts.by_month_day === null && weekdays.length > 0
        ? weekdays.reduce((sum, day) => sum + (ordinalOf(day)[0] === 0 ? 53 : 1), 0)
        : 12 * perMonth;
  }
}

/**
 * An upper bound of the occurrences the rule yields in any one calendar year, from its parts alone: a COUNT that
 * 11 of them (the calendar years 10 years from start_date touch) cannot reach is refused without expanding it.
 */
function occurrencesPerYear(rule: Recurrence): number {
  const weekdays = rule.by_weekday ?? [];
  const months = rule.by_month?.length ?? 12;
  const every = rule.interval;
  const setSize = rule.by_set_position?.length ?? Number.POSITIVE_INFINITY;
  const bounds = [months * 31];
  if (rule.by_month_day !== null) bounds.push(months * rule.by_month_day.length);
  if (weekdays.length > 0) bounds.push(weekdays.reduce((sum, day) => sum + (ordinalOf(day)[0] === 0 ? 53 : months), 0));
  switch (rule.frequency) {
    case 'daily':
      bounds.push(Math.ceil(366 / every));
      break;
    case 'weekly':
      bounds.push(Math.min(53, Math.ceil(54 / every)) * Math.min(setSize, Math.max(1, weekdays.length)));
      break;
    case 'monthly':
      bounds.push(Math.ceil(12 / every) * (rule.by_month_day || weekdays.length > 0 ? setSize : 1));
      break;
    case 'yearly':
      bounds.push(rule.by_month_day || weekdays.length > 0 ? setSize : rule.by_month ? months : 1);
      break;
  }
  return Math.min(...bounds);
}

class OutOfBudget extends Error {}

/** The work of one check: each window is charged before the library expands it. */
class CheckBudget {
  private left = CHECK_BUDGET;
  private readonly perDay: number;
  private readonly calls: number;
  constructor(rule: Recurrence) {
    const parts = libraryParts(rule);
    this.calls = cachedRules(rule, ruleIdentity(rule)).length;
    this.perDay = (this.calls * candidatesPerYear(parts)) / 365;
  }
  /** The dates of [from, to] (before COUNT, UNTIL and exdates), once their estimated work is charged. */
  dates(rule: Recurrence, from: Temporal.PlainDate, to: Temporal.PlainDate): Temporal.PlainDate[] {
    const days = Temporal.PlainDate.compare(from, to) > 0 ? 0 : dayOf(to) - dayOf(from) + 1;
    this.left -= days * this.perDay + this.calls * CALL_COST;
    if (this.left < 0) throw new OutOfBudget();
    return rawDates(rule, from, to);
  }
}

const WINDOW_DAYS = 366;

/** The first date of [from, to] (before COUNT and exdates), a year at a time; null when it has none. */
function firstIn(
  rule: Recurrence,
  budget: CheckBudget,
  from: Temporal.PlainDate,
  to: Temporal.PlainDate,
): Temporal.PlainDate | null {
  for (let at = from; Temporal.PlainDate.compare(at, to) <= 0; ) {
    const end = at.add({ days: WINDOW_DAYS - 1 });
    const found = budget.dates(rule, at, Temporal.PlainDate.compare(end, to) < 0 ? end : to)[0];
    if (found) return found;
    at = end.add({ days: 1 });
  }
  return null;
}

/**
 * The 422s that need the rule expanded: no occurrence at all, a bounded rule whose last occurrence lies more than
 * 10 years after `start_date`, an unbounded rule with none in its first 10 years (§18, §21), the combinations the
 * library cannot expand exactly, and a rule whose check needs more work than CHECK_BUDGET (§32). `ruleField`
 * names the rule in the request (`recurrence.rrule` when it was sent).
 */
export function checkBounds(rule: Recurrence, problems: Problems, ruleField = 'recurrence'): void {
  if (splitsSetPosition(rule)) {
    problems.add(
      'recurrence.month_day_overflow',
      'last_day cannot be combined with by_set_position in a yearly rule on a month day above 28; use skip, or a monthly rule',
    );
    return;
  }
  const ordinalProblem = yearlyOrdinalProblem(rule);
  if (ordinalProblem) {
    problems.add(...ordinalProblem);
    return;
  }
  const start = Temporal.PlainDate.from(rule.start_date);
  const tenYears = tenYearsAfter(rule);
  // No occurrence lies beyond 9999-12-31 (§32 "Years"): a COUNT that would need one is refused.
  const pastLast = Temporal.PlainDate.compare(tenYears, LAST_DATE) > 0;
  const limit = pastLast ? LAST_DATE : tenYears;
  const tooLong = pastLast
    ? `runs past ${LAST_DATE.toString()}, the last date this API keeps`
    : `spans more than ${MAX_YEARS} years: its last occurrence must be on or before ${limit.toString()}`;
  if (rule.count !== null) {
    const most = occurrencesPerYear(rule) * (MAX_YEARS + 1);
    if (rule.count > most) {
      problems.add(
        'recurrence.count',
        `the rule ${tooLong} (${rule.count} occurrences do not fit: this rule gives at most ${most} in ${MAX_YEARS} years)`,
      );
      return;
    }
  }
  const budget = new CheckBudget(rule);
  try {
    const bound = rule.until !== null && Temporal.PlainDate.compare(rule.until, limit) < 0 ? rule.until : limit;
    const first = firstIn(rule, budget, start, Temporal.PlainDate.from(bound));
    if (!first) {
      problems.add(
        'recurrence',
        rule.until === null && rule.count === null
          ? `the rule yields no occurrence in the ${MAX_YEARS} years from start_date ${rule.start_date}`
          : `the rule yields no occurrence from start_date ${rule.start_date}${rule.until ? ` to until ${rule.until}` : ''}`,
      );
      return;
    }
    if (rule.count !== null) {
      let found = 0;
      for (let at = first; found < rule.count && Temporal.PlainDate.compare(at, limit) <= 0; ) {
        const end = at.add({ days: WINDOW_DAYS - 1 });
        found += budget.dates(rule, at, Temporal.PlainDate.compare(end, limit) < 0 ? end : limit).length;
        at = end.add({ days: 1 });
      }
      if (found < rule.count)
        problems.add('recurrence.count', `the rule ${tooLong} (${rule.count} occurrences do not fit)`);
    } else if (rule.until !== null && Temporal.PlainDate.compare(rule.until, limit) > 0) {
      if (firstIn(rule, budget, limit.add({ days: 1 }), Temporal.PlainDate.from(rule.until)))
        problems.add('recurrence.until', `the rule ${tooLong}`);
    }
  } catch (error) {
    if (!(error instanceof OutOfBudget)) throw error;
    problems.add(
      ruleField,
      `the rule is too sparse to check: finding its occurrences would take more than the ${CHECK_BUDGET.toLocaleString('en-US')} candidate dates one request may examine; ` +
        'state it with a coarser frequency (FREQ=MONTHLY;BYMONTHDAY=31 rather than FREQ=DAILY;INTERVAL=2;BYMONTHDAY=31), or with fewer occurrences',
    );
  }
}

/** The occurrence on `date`: its key (the nominal local date-time, never changed), its instants, whether skipped. */
export function occurrenceOn(
  rule: Recurrence,
  durations: Durations,
  date: Temporal.PlainDate,
  skipped: ReadonlySet<string>,
): Occurrence {
  const start = occurrenceStart(date, rule.time, rule.timezone);
  const end =
    rule.time === null
      ? date.add({ days: durations.duration_days ?? 1 }).toZonedDateTime({ timeZone: rule.timezone })
      : start.add({ minutes: durations.duration_minutes ?? 0 });
  const occurrence_key = occurrenceKey(rule, date);
  return { occurrence_key, date, start, end, skipped: skipped.has(occurrence_key) };
}

/** The occurrences on the local dates [from, to], inclusive, exdates among them marked `skipped`. */
export function occurrencesOnDates(
  rule: Recurrence,
  durations: Durations,
  from: Temporal.PlainDate,
  to: Temporal.PlainDate,
): Occurrence[] {
  const skipped = new Set(rule.exdates);
  return ruleDates(rule, from, to)
    .map((date) => occurrenceOn(rule, durations, date, skipped))
    .filter(withinYears);
}

/**
 * Whether an occurrence lies in the years 0001–9999 (§32 "Years"), its start and end in UTC and in its zone: one
 * that does not (an unbounded rule's last days of 9999) is never produced. A bounded schedule that would reach
 * one is refused when it is made (`checkScheduleYears`).
 */
export function withinYears(occurrence: Occurrence): boolean {
  return (
    instantWithinYears(occurrence.start.toInstant(), occurrence.start.timeZoneId) &&
    instantWithinYears(occurrence.end.toInstant(), occurrence.end.timeZoneId)
  );
}

/** The days at the ends of the years 0001–9999 where an occurrence (at most 31 days, ±14 h) may leave them. */
const NEAR_FIRST = Temporal.PlainDate.from('0001-01-02');
const NEAR_LAST = LAST_DATE.subtract({ days: 33 });
const NEAR_FIRST_DAY = dayOf(NEAR_FIRST);
const NEAR_LAST_DAY = dayOf(NEAR_LAST);

/** `fitsYears` given the date's day since 1970-01-01 too, so that most dates need no comparison of dates. */
export function fitsYearsOnDay(rule: Recurrence, durations: Durations, date: Temporal.PlainDate, day: number): boolean {
  return (day > NEAR_FIRST_DAY && day < NEAR_LAST_DAY) || fitsYears(rule, durations, date);
}

/** Whether the occurrence on `date` lies in the years 0001–9999 (computed only near their ends). */
export function fitsYears(rule: Recurrence, durations: Durations, date: Temporal.PlainDate): boolean {
  if (Temporal.PlainDate.compare(date, NEAR_FIRST) > 0 && Temporal.PlainDate.compare(date, NEAR_LAST) < 0) return true;
  return withinYears(occurrenceOn(rule, durations, date, new Set()));
}

/**
 * A 422 when a schedule would have an occurrence outside the years 0001–9999: its first one starting before
 * 0001-01-01 (UTC or local), or a bounded rule's last one ending after 9999-12-31. An unbounded rule is not
 * refused: its occurrences simply stop before the end of 9999 (`withinYears`).
 */
export function checkScheduleYears(rule: Recurrence, durations: Durations): void {
  const start = Temporal.PlainDate.from(rule.start_date);
  const skipped = new Set<string>();
  if (Temporal.PlainDate.compare(start, NEAR_FIRST) <= 0) {
    const first = ruleDates(rule, start, NEAR_FIRST)[0];
    if (first && !withinYears(occurrenceOn(rule, durations, first, skipped)))
      throw fieldError(
        'recurrence.start_date',
        'makes the first occurrence start before 0001-01-01 in UTC or in the schedule’s zone; every time lies in the years 0001 to 9999',
      );
  }
  const last =
    rule.count !== null ? lastCounted(rule) : rule.until !== null ? Temporal.PlainDate.from(rule.until) : null;
  if (last === null || Temporal.PlainDate.compare(last, NEAR_LAST) < 0) return;
  const dates = ruleDates(rule, start, last);
  const final = dates.at(-1);
  if (final && !withinYears(occurrenceOn(rule, durations, final, skipped)))
    throw fieldError(
      rule.count !== null ? 'recurrence.count' : 'recurrence.until',
      `makes the last occurrence (${final.toString()}) end after 9999-12-31 in UTC or in the schedule’s zone; every time lies in the years 0001 to 9999`,
    );
}

/**
 * The occurrences between two instants: those starting in [from, to), or with `overlap` those whose time
 * overlaps it (the calendar's reading, §17). Exdates are included, marked `skipped`.
 */
export function occurrencesBetween(
  rule: Recurrence,
  durations: Durations,
  from: Temporal.Instant,
  to: Temporal.Instant,
  overlap = false,
): Occurrence[] {
  const margin = overlap ? (durations.duration_days ?? 1) + 1 : 1;
  const fromDate = from.toZonedDateTimeISO(rule.timezone).toPlainDate().subtract({ days: margin });
  const toDate = to.toZonedDateTimeISO(rule.timezone).toPlainDate().add({ days: 1 });
  return occurrencesOnDates(rule, durations, fromDate, toDate).filter((one) => {
    const start = one.start.toInstant();
    const end = one.end.toInstant();
    return overlap
      ? Temporal.Instant.compare(start, to) < 0 && Temporal.Instant.compare(end, from) > 0
      : Temporal.Instant.compare(start, from) >= 0 && Temporal.Instant.compare(start, to) < 0;
  });
}

/** The first occurrence, not skipped, that starts at or after `now`; null when the rule has no more. */
export function nextOccurrence(rule: Recurrence, durations: Durations, now: Temporal.Instant): Occurrence | null {
  const skipped = new Set(rule.exdates);
  let from = now.toZonedDateTimeISO(rule.timezone).toPlainDate().subtract({ days: 1 });
  const start = Temporal.PlainDate.from(rule.start_date);
  if (Temporal.PlainDate.compare(from, start) < 0) from = start;
  const end = rule.until !== null ? Temporal.PlainDate.from(rule.until) : LAST_DATE;
  // A window at a time; an exdate-heavy or sparse rule may take a few. Beyond 11 years there is none to find.
  for (let window = 0; window < 12; window++) {
    if (Temporal.PlainDate.compare(from, end) > 0) return null;
    const to = from.add({ days: 365 });
    const dates =
      rule.count === null
        ? rawDates(rule, from, Temporal.PlainDate.compare(end, to) < 0 ? end : to)
        : ruleDates(rule, from, to);
    for (const date of dates) {
      const one = occurrenceOn(rule, durations, date, skipped);
      if (!withinYears(one)) continue;
      if (!one.skipped && Temporal.Instant.compare(one.start.toInstant(), now) >= 0) return one;
    }
    from = to.add({ days: 1 });
  }
  return null;
}
