// Weekly working hours (docs/api-contract.md §28), of a team member or of the account: at most 28 intervals
// {day, start, end} on the local clock of the member's zone, at most 4 a day, none overlapping; `24:00` ends a
// day. One schema and one check for both owners.
import { Type, type Static } from '@sinclair/typebox';
import { validationError, type ErrorDetail } from '../../core/errors.js';

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const MAX_HOURS_INTERVALS = 28;
export const MAX_HOURS_PER_DAY = 4;

export const WorkingHoursIntervalSchema = Type.Object(
  {
    day: Type.Unsafe<Weekday>({
      type: 'string',
      enum: [...WEEKDAYS],
      description: 'The weekday: MO, TU, WE, TH, FR, SA or SU.',
      example: 'MO',
    }),
    start: Type.String({
      pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
      description: 'Local start, HH:MM.',
      example: '08:00',
    }),
    end: Type.String({
      pattern: '^(([01]\\d|2[0-3]):[0-5]\\d|24:00)$',
      description: 'Local end, HH:MM after start (24:00 allowed).',
      example: '17:00',
    }),
  },
  { additionalProperties: false },
);

export const WorkingHoursSchema = Type.Array(WorkingHoursIntervalSchema, {
  maxItems: MAX_HOURS_INTERVALS,
  description: `Weekly hours on the local clock: at most ${MAX_HOURS_INTERVALS} intervals, ${MAX_HOURS_PER_DAY} a day, none overlapping.`,
});

export type WorkingHours = Static<typeof WorkingHoursSchema>;

/** Minutes since local midnight of `HH:MM` (`24:00` is 1,440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** A 422 naming each wrong interval: an end not after its start, a fifth interval of a day, an overlap. */
export function checkWorkingHours(field: string, hours: WorkingHours): void {
  const problems: ErrorDetail[] = [];
  const byDay = new Map<string, Array<{ index: number; start: number; end: number }>>();
  hours.forEach((interval, index) => {
    const start = minutesOf(interval.start);
    const end = minutesOf(interval.end);
    if (end <= start) problems.push({ field: `${field}[${index}].end`, message: 'must be after start' });
    const day = byDay.get(interval.day) ?? [];
    day.push({ index, start, end });
    byDay.set(interval.day, day);
  });
  for (const [day, intervals] of byDay) {
    if (intervals.length > MAX_HOURS_PER_DAY)
      problems.push({
        field: `${field}[${intervals[MAX_HOURS_PER_DAY]?.index}]`,
        message: `is a fifth interval on ${day}: at most ${MAX_HOURS_PER_DAY} a day`,
      });
    const sorted = [...intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const [before, after] = [sorted[i - 1], sorted[i]];
      if (before && after && after.start < before.end)
        problems.push({
          field: `${field}[${after.index}]`,
          message: `overlaps ${field}[${before.index}] on ${day}`,
        });
    }
  }
  if (problems.length > 0) throw validationError(problems);
}
