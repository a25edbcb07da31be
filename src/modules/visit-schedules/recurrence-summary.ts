// The read-only English `summary` of a recurrence (docs/api-contract.md §18): "Every 2 weeks on Tuesday at
// 09:00 (America/Denver)". Its wording is not fixed (§21); it always states the time and the zone.
import type { Recurrence } from './recurrence-parts.js';

const DAY_NAMES: Record<string, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const UNITS = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' } as const;
const EVERY_ONE = { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly', yearly: 'Yearly' } as const;

function ordinal(n: number): string {
  if (n === -1) return 'last';
  if (n < -1) return `${ordinal(-n)} to last`;
  if (n % 100 >= 11 && n % 100 <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

function joinAnd(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function weekdayPhrase(token: string): string {
  const match = /^(-?\d+)?([A-Z]{2})$/.exec(token);
  const name = DAY_NAMES[match?.[2] ?? ''] ?? token;
  return match?.[1] ? `the ${ordinal(Number(match[1]))} ${name}` : name;
}

const isWorkweek = (days: string[]) =>
  days.length === 5 && ['MO', 'TU', 'WE', 'TH', 'FR'].every((day) => days.includes(day));

function dayPhrase(rule: Recurrence): string {
  const parts: string[] = [];
  const weekdays = rule.by_weekday;
  if (rule.by_set_position && (weekdays || rule.by_month_day)) {
    const positions = joinAnd(rule.by_set_position.map((n) => ordinal(n)));
    const pool = weekdays
      ? isWorkweek(weekdays)
        ? 'weekday'
        : `of ${joinAnd(weekdays.map(weekdayPhrase))}`
      : `of days ${joinAnd((rule.by_month_day ?? []).map(String))}`;
    const period =
      rule.frequency === 'yearly'
        ? 'year'
        : rule.frequency === 'monthly'
          ? 'month'
          : rule.frequency === 'weekly'
            ? 'week'
            : 'day';
    parts.push(`on the ${positions} ${pool} of the ${period}`);
  } else {
    if (weekdays) parts.push(`on ${isWorkweek(weekdays) ? 'weekdays' : joinAnd(weekdays.map(weekdayPhrase))}`);
    if (rule.by_month_day) {
      const days = rule.by_month_day.map((n) => (n === -1 ? 'last day' : ordinal(n)));
      const overflow =
        rule.month_day_overflow === 'last_day' && rule.by_month_day.some((n) => n > 28)
          ? ' (or the last day of a shorter month)'
          : '';
      parts.push(`on the ${joinAnd(days)}${overflow}`);
    }
  }
  if (rule.by_month) parts.push(`in ${joinAnd(rule.by_month.map((n) => MONTH_NAMES[n - 1] as string))}`);
  return parts.join(' ');
}

/** "Every 2 weeks on Tuesday at 09:00 (America/Denver)", with the rule's end when it has one. */
export function summarize(rule: Recurrence): string {
  const head = rule.interval === 1 ? EVERY_ONE[rule.frequency] : `Every ${rule.interval} ${UNITS[rule.frequency]}s`;
  const days = dayPhrase(rule);
  const when = rule.time === null ? 'all day' : `at ${rule.time}`;
  const ending =
    rule.count !== null
      ? `, ${rule.count} time${rule.count === 1 ? '' : 's'}`
      : rule.until !== null
        ? `, until ${rule.until}`
        : '';
  const from = `, from ${rule.start_date}`;
  return `${[head, days, when].filter(Boolean).join(' ')} (${rule.timezone})${from}${ending}`;
}
