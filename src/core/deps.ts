// Side effects the rules depend on (clock, id generation), behind small interfaces so tests can pass their own.
import { v7 as uuidv7 } from 'uuid';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

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
