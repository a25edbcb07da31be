// Expanding a recurrence (docs/api-contract.md §18): the rule is expanded by `rrule-temporal` (RFC 5545) on
// local dates — the library is handed the rule as floating local dates in UTC, where no day has a gap — and
// only then is each occurrence placed in the schedule's zone: 09:00 stays 09:00 across daylight saving, a time
// in the spring-forward gap moves forward by the gap, an ambiguous time takes its first instant.
import { Temporal } from '@js-temporal/polyfill';
import { type RRuleOptions, RRuleTemporal } from 'rrule-temporal';
import { Lru } from '../../core/lru.js';
import { MAX_YEARS, occurrenceKey, occurrenceStart, type Problems, type Recurrence } from './recurrence-parts.js';

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

/**
 * The rule as one or more library rules whose union is its occurrences. RFC 5545 takes a monthly or yearly
 * rule's missing day (and a yearly rule's month) from DTSTART; that is made explicit here. With `last_day`,
 * a month day beyond a month's length means that month's last day (RFC 7529 SKIP=BACKWARD): the rule is split
 * by month length, each part stating its days with -1 for the overflowing ones. A monthly rule's BYSETPOS works
 * within one month, so one part per month keeps it exact; a yearly rule with BYSETPOS is refused in that case.
 */
function libraryRules(rule: Recurrence): RRuleTemporal[] {
  const start = Temporal.PlainDate.from(rule.start_date);
  let byMonthDay = rule.by_month_day;
  let byMonth = rule.by_month;
  if ((rule.frequency === 'monthly' || rule.frequency === 'yearly') && !byMonthDay && !rule.by_weekday) {
    byMonthDay = [start.day];
    if (rule.frequency === 'yearly' && !byMonth) byMonth = [start.month];
  }
  const base: ManualOptions = {
    freq: rule.frequency.toUpperCase() as ManualOptions['freq'],
    interval: rule.interval,
    dtstart: floating(start),
    wkst: rule.week_start,
    ...(rule.by_weekday ? { byDay: rule.by_weekday } : {}),
    ...(byMonth ? { byMonth } : {}),
    ...(rule.by_set_position ? { bySetPos: rule.by_set_position } : {}),
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
function libraryDates(rules: RRuleTemporal[], from: Temporal.PlainDate, to: Temporal.PlainDate): Temporal.PlainDate[] {
  if (Temporal.PlainDate.compare(from, to) > 0) return [];
  return mergeDates(rules.map((one) => one.between(floating(from), floating(to), true).map(dateOf)));
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
interface Block {
  dates: Temporal.PlainDate[];
  days: number[];
}
const blockCache = new Lru<string, Block>(MAX_BLOCKS);

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 (setUTCFullYear, unlike Date.UTC, takes years below 100 as they are). */
const dayOf = (date: Temporal.PlainDate) => new Date(0).setUTCFullYear(date.year, date.month - 1, date.day) / DAY_MS;
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
    const dates = libraryDates(cachedRules(rule, identity), blockStart(run), blockStart(block).subtract({ days: 1 }));
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
  const [lo, hi] = [dayOf(from), dayOf(to)];
  if (lo > hi) return [];
  const identity = ruleIdentity(rule);
  const first = Math.floor(lo / BLOCK_DAYS);
  const last = Math.floor(hi / BLOCK_DAYS);
  const found: Temporal.PlainDate[] = [];
  for (let block = first; block <= last; block++) {
    let cached = blockCache.get(`${identity}|${block}`);
    if (cached === undefined) {
      fillBlocks(rule, identity, block, last);
      cached = blockCache.get(`${identity}|${block}`) ?? { dates: [], days: [] };
    }
    const { dates, days } = cached;
    for (let at = 0; at < dates.length; at++)
      if ((days[at] as number) >= lo && (days[at] as number) <= hi) found.push(dates[at] as Temporal.PlainDate);
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
  if (rule.count !== null) {
    lo = start;
    hi = tenYearsAfter(rule);
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

/** A COUNT rule's dates: the first `count` from start_date (at most 10 years of them; longer rules are refused). */
function countedDates(rule: Recurrence): Temporal.PlainDate[] {
  const start = Temporal.PlainDate.from(rule.start_date);
  const end = tenYearsAfter(rule);
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
  let hi = to;
  if (rule.until !== null && Temporal.PlainDate.compare(rule.until, hi) < 0) hi = Temporal.PlainDate.from(rule.until);
  if (rule.count === null) return rawDates(rule, lo, hi);
  return countedDates(rule).filter(
    (date) => Temporal.PlainDate.compare(date, lo) >= 0 && Temporal.PlainDate.compare(date, hi) <= 0,
  );
}

/** The first date at or after `from` of any of `rules`, or null (a library error means none it can find). */
function firstDate(rules: RRuleTemporal[], from: Temporal.PlainDate): Temporal.PlainDate | null {
  let first: Temporal.PlainDate | null = null;
  for (const one of rules) {
    let found: Temporal.PlainDate | null = null;
    try {
      const next = one.next(floating(from), true);
      found = next ? dateOf(next) : null;
    } catch {
      found = null;
    }
    if (found && (!first || Temporal.PlainDate.compare(found, first) < 0)) first = found;
  }
  return first;
}

/**
 * The 422s that need the rule expanded: no occurrence at all, a bounded rule whose last occurrence lies more than
 * 10 years after `start_date`, an unbounded rule with none in its first 10 years (§18, §21), and the one
 * combination `last_day` cannot express.
 */
export function checkBounds(rule: Recurrence, problems: Problems): void {
  if (splitsSetPosition(rule)) {
    problems.add(
      'recurrence.month_day_overflow',
      'last_day cannot be combined with by_set_position in a yearly rule on a month day above 28; use skip, or a monthly rule',
    );
    return;
  }
  const start = Temporal.PlainDate.from(rule.start_date);
  const limit = tenYearsAfter(rule);
  const rules = libraryRules(rule);
  const first = firstDate(rules, start);
  const bound = rule.until !== null && Temporal.PlainDate.compare(rule.until, limit) < 0 ? rule.until : limit;
  if (!first || Temporal.PlainDate.compare(first, bound) > 0) {
    problems.add(
      'recurrence',
      rule.until === null && rule.count === null
        ? `the rule yields no occurrence in the ${MAX_YEARS} years from start_date ${rule.start_date}`
        : `the rule yields no occurrence from start_date ${rule.start_date}${rule.until ? ` to until ${rule.until}` : ''}`,
    );
    return;
  }
  const tooLong = `spans more than ${MAX_YEARS} years: its last occurrence must be on or before ${limit.toString()}`;
  if (rule.count !== null) {
    const counted = countedDates(rule);
    if (counted.length < rule.count && firstDate(rules, limit.add({ days: 1 })) !== null)
      problems.add('recurrence.count', `the rule ${tooLong} (${rule.count} occurrences do not fit)`);
  } else if (rule.until !== null && Temporal.PlainDate.compare(rule.until, limit) > 0) {
    const after = firstDate(rules, limit.add({ days: 1 }));
    if (after && Temporal.PlainDate.compare(after, rule.until) <= 0)
      problems.add('recurrence.until', `the rule ${tooLong}`);
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
  return ruleDates(rule, from, to).map((date) => occurrenceOn(rule, durations, date, skipped));
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
  const end = rule.until !== null ? Temporal.PlainDate.from(rule.until) : null;
  // A window at a time; an exdate-heavy or sparse rule may take a few. Beyond 11 years there is none to find.
  for (let window = 0; window < 12; window++) {
    if (end && Temporal.PlainDate.compare(from, end) > 0) return null;
    const to = from.add({ days: 365 });
    const dates =
      rule.count === null
        ? rawDates(rule, from, end && Temporal.PlainDate.compare(end, to) < 0 ? end : to)
        : ruleDates(rule, from, to);
    for (const date of dates) {
      const one = occurrenceOn(rule, durations, date, skipped);
      if (!one.skipped && Temporal.Instant.compare(one.start.toInstant(), now) >= 0) return one;
    }
    from = to.add({ days: 1 });
  }
  return null;
}
