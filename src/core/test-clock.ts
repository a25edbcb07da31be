// The test clock (docs/api-contract.md §32, "Test clock"): a clock that a test suite sets forward and that runs on
// in real time from there. Only a server started with NODE_ENV=test and BMS_TEST_CLOCK=true uses it (config.ts
// refuses the setting in production); everything that reads business time reads the one `Clock` of the process,
// so setting this one moves requests, workers, events, local days and expiries together.
import type { Clock } from './deps.js';

/** How far before the clock's current time a set is still taken as "now". */
const SET_GRACE_MS = 1000;

export class TestClock implements Clock {
  /** How far the clock runs ahead of the system's, in milliseconds (0 until set). */
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /**
   * Sets the clock to `instant`, from which it advances in real time. The clock never goes back: an instant
   * before its current time is refused (false), so that nothing already stamped lies in the future. A second's
   * grace lets a suite set back the `now` it has just read (the clock ran on meanwhile): the clock then stays.
   */
  set(instant: Date): boolean {
    const now = Date.now();
    const current = now + this.offsetMs;
    if (instant.getTime() < current - SET_GRACE_MS) return false;
    this.offsetMs = Math.max(instant.getTime(), current) - now;
    return true;
  }
}
