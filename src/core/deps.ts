// Side effects the rules depend on (clock, id generation), behind small interfaces so tests can pass their own.
import { v7 as uuidv7 } from 'uuid';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let lastMs = Number.NaN;
let lastTimestamp = '';

/**
 * The clock's time as an ISO 8601 string (a response's `meta.timestamp`). The system clock's is formatted once
 * per millisecond, not once per request: under load several responses share a millisecond.
 */
export function timestampOf(clock: Clock): string {
  if (clock !== systemClock) return clock.now().toISOString();
  const ms = Date.now();
  if (ms !== lastMs) {
    lastTimestamp = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastTimestamp;
}

/** A clock the tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date('2026-11-21T10:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(milliseconds: number): void {
    this.current = new Date(this.current.getTime() + milliseconds);
  }
  set(date: Date): void {
    this.current = new Date(date.getTime());
  }
}

/** UUIDv7: time-ordered, so new rows land at the end of the primary-key index. */
export function newId(): string {
  return uuidv7();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
