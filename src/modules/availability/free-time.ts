// Bookable and busy time as sorted, disjoint intervals of epoch milliseconds (docs/api-contract.md §28): a
// member's weekly hours on their clock ∪ extra hours − time off; their commitments each widened by the gap to
// the slot's place (buffer + straight-line travel). A slot [start, end) is free when it lies in one stretch of
// bookable time and overlaps no widened commitment: when it lies in one interval of the stretches less those.
import { minutesOf, WEEKDAYS, type WorkingHours } from '../shared/index.js';
import type { LocalDays } from './local-days.js';

export interface Interval {
  start: number;
  end: number;
}

const MINUTE = 60_000;
const EARTH_RADIUS_KM = 6371;

/** Sorted by start, overlapping or touching intervals joined (new intervals of start and end alone). */
export function merge(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter((one) => one.end > one.start).sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const one of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && one.start <= last.end) last.end = Math.max(last.end, one.end);
    // Two fields, not a copy of all of a commitment's (kind, id, place, gap): a few thousand a query.
    else merged.push({ start: one.start, end: one.end });
  }
  return merged;
}

/** `from` (merged) without `minus` (merged). */
export function subtract(from: Interval[], minus: Interval[]): Interval[] {
  const result: Interval[] = [];
  let index = 0;
  for (const stretch of from) {
    let start = stretch.start;
    while (index < minus.length && (minus[index] as Interval).end <= start) index++;
    let probe = index;
    while (probe < minus.length && (minus[probe] as Interval).start < stretch.end) {
      const cut = minus[probe] as Interval;
      if (cut.start > start) result.push({ start, end: cut.start });
      start = Math.max(start, cut.end);
      probe++;
    }
    if (start < stretch.end) result.push({ start, end: stretch.end });
  }
  return result;
}

/** The weekly hours as instants on each local date from `first` to `last` (inclusive) in `zone`. */
export function weeklyHours(
  hours: WorkingHours,
  zone: string,
  first: string,
  last: string,
  days: LocalDays,
): Interval[] {
  if (hours.length === 0) return [];
  const intervals: Interval[] = [];
  for (let date = first; date <= last; date = days.nextDate(date)) {
    const weekday = WEEKDAYS[days.weekday(zone, date) - 1];
    for (const one of hours)
      if (one.day === weekday)
        intervals.push({
          start: days.bound(zone, date, minutesOf(one.start)),
          end: days.bound(zone, date, minutesOf(one.end)),
        });
  }
  return intervals;
}

/** Whether [start, end) lies within one stretch of `stretches` (merged). */
export function within(stretches: Interval[], start: number, end: number): boolean {
  let lo = 0;
  let hi = stretches.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((stretches[mid] as Interval).start <= start) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && (stretches[found] as Interval).end >= end;
}

/**
 * Calls `mark(index)` for each of `starts` (instants, ascending) at which [start, start + length) lies within one
 * interval of `free` (sorted, disjoint): a binary search per interval, then only the starts that fit.
 */
export function eachFitting(free: Interval[], starts: number[], length: number, mark: (index: number) => void) {
  const first = starts[0];
  const last = starts[starts.length - 1];
  if (first === undefined || last === undefined) return;
  // The first interval that ends late enough for the first start.
  let lo = 0;
  let hi = free.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((free[mid] as Interval).end < first + length) lo = mid + 1;
    else hi = mid;
  }
  for (let at = lo, next = 0; at < free.length && next < starts.length; at++) {
    const interval = free[at] as Interval;
    if (interval.start > last) break;
    while (next < starts.length && (starts[next] as number) < interval.start) next++;
    while (next < starts.length && (starts[next] as number) + length <= interval.end) mark(next++);
  }
}

export interface Place {
  property_id: string | null;
  location: { lat: number; lng: number } | null;
}

export interface Travel {
  mode: 'none' | 'straight_line';
  speed_kmh: number;
  unknown_location_minutes: number;
}

/** The great-circle distance in km (haversine, R = 6,371 km). */
export function haversineKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = radians(b.lat - a.lat);
  const dLng = radians(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Minutes of travel between two places: 0 with mode none or at the same property; else ceil(km ÷ speed × 60)
 * over the locations, or unknown_location_minutes when either has none (a place without a property included).
 */
export function travelMinutes(travel: Travel, a: Place, b: Place): number {
  if (travel.mode === 'none') return 0;
  if (a.property_id !== null && a.property_id === b.property_id) return 0;
  if (a.location === null || b.location === null) return travel.unknown_location_minutes;
  return Math.ceil((haversineKm(a.location, b.location) / travel.speed_kmh) * 60);
}

/** A commitment widened by its gap to the slot's place on both sides (itself with no gap: merge copies). */
export function widened(commitment: Interval, gapMinutes: number): Interval {
  if (gapMinutes === 0) return commitment;
  return { start: commitment.start - gapMinutes * MINUTE, end: commitment.end + gapMinutes * MINUTE };
}
