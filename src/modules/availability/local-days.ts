// Local clock ↔ instants for availability (docs/api-contract.md §14, §28), fast on ordinary days: a local day
// with no change of offset is 24 hours from its midnight, so its times are that midnight plus minutes; only a
// day with a transition asks the Temporal polyfill for each time. What it asks the polyfill is kept for the
// process (docs/architecture.md "Kept copies"): a pure function of the zone and the date or instant, since the
// zone's rules are the runtime's, fixed while it runs.
import { Temporal } from '@js-temporal/polyfill';
import { Lru } from '../../core/lru.js';

const MINUTE = 60_000;
/** The day after 9999-12-31: later than every date as text, and the end of the last day (§32's years). */
const AFTER_LAST_DATE = '9999-12-32';
const AFTER_LAST_MILLIS = Date.parse('+010000-01-01T00:00:00.000Z');

interface DayInfo {
  /** Epoch ms of the day's first instant. */
  midnight: number;
  /** Whether the offset stays the same through the day (every time is midnight + minutes). */
  regular: boolean;
  date: Temporal.PlainDate;
}

/** Each zone's local days: a few years of a few zones. */
const keptDays = new Lru<string, DayInfo>(20_000);
/** The local date of an instant (a span's edges, the notice): a week of a thousand queries' edges. */
const keptDates = new Lru<string, string>(20_000);
/** The offset from UTC in each zone and quarter hour: a month of a zone is about 3,000. */
const keptOffsets = new Lru<string, number>(100_000);

export class LocalDays {
  private info(zone: string, date: string): DayInfo {
    const key = `${zone}|${date}`;
    let found = keptDays.peek(key);
    if (found === undefined && date === AFTER_LAST_DATE)
      return { midnight: AFTER_LAST_MILLIS, regular: true, date: Temporal.PlainDate.from('9999-12-31') };
    if (found === undefined) {
      const plain = Temporal.PlainDate.from(date);
      const start = plain.toZonedDateTime({ timeZone: zone });
      const next = plain.add({ days: 1 }).toZonedDateTime({ timeZone: zone });
      const midnight = start.epochMilliseconds;
      const regular =
        next.epochMilliseconds - midnight === 1440 * MINUTE &&
        start.toPlainTime().equals(Temporal.PlainTime.from('00:00')) &&
        start.offsetNanoseconds === next.offsetNanoseconds;
      found = { midnight, regular, date: plain };
      keptDays.set(key, found);
    }
    return found;
  }

  /**
   * The instant of `minutes` after local midnight on `date` as a start (§28): undefined in a spring-forward
   * gap (no start); an ambiguous fall-back time is its first instant.
   */
  start(zone: string, date: string, minutes: number): number | undefined {
    const day = this.info(zone, date);
    if (day.regular) return day.midnight + minutes * MINUTE;
    const wanted = day.date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
    const earlier = wanted.toZonedDateTime(zone, { disambiguation: 'earlier' });
    return earlier.toPlainDateTime().equals(wanted) ? earlier.epochMilliseconds : undefined;
  }

  /**
   * The instant of a working-hours bound (§28, as §14 converts): a bound in a gap moves forward by the gap; an
   * ambiguous one is the first instant. 1,440 minutes is the next day's midnight.
   */
  bound(zone: string, date: string, minutes: number): number {
    if (minutes >= 1440) return this.bound(zone, this.nextDate(date), minutes - 1440);
    const day = this.info(zone, date);
    if (day.regular) return day.midnight + minutes * MINUTE;
    return day.date
      .toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 })
      .toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
  }

  /** The instant a local date begins (its first instant). */
  midnight(zone: string, date: string): number {
    return this.info(zone, date).midnight;
  }

  /** 1 (Monday) to 7 (Sunday). */
  weekday(zone: string, date: string): number {
    return this.info(zone, date).date.dayOfWeek;
  }

  /** The calendar date after `date` (plain date arithmetic: no zone is involved). */
  nextDate(date: string): string {
    if (date >= '9999-12-31') return AFTER_LAST_DATE;
    const next = new Date(Date.parse(`${date}T00:00:00.000Z`) + 1440 * MINUTE).toISOString();
    return next.slice(0, 10);
  }

  /** The local date of an instant in `zone`. */
  dateOf(zone: string, at: number): string {
    const key = `${zone}|${at}`;
    let found = keptDates.peek(key);
    if (found === undefined) {
      found = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone).toPlainDate().toString();
      keptDates.set(key, found);
    }
    return found;
  }

  /**
   * `YYYY-MM-DDTHH:MM` of an instant in `zone`. Offsets change only at whole quarter hours, so one offset per zone
   * and quarter hour is read from the polyfill and the rest is arithmetic.
   */
  localOf(zone: string, at: number): string {
    const key = `${zone}|${Math.floor(at / (15 * MINUTE))}`;
    let offset = keptOffsets.peek(key);
    if (offset === undefined) {
      offset = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone).offsetNanoseconds / 1e6;
      keptOffsets.set(key, offset);
    }
    return new Date(at + offset).toISOString().slice(0, 16);
  }
}
