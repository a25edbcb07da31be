// Waits that tolerate a loaded machine. A test waits for a condition, never for a fixed time, and its deadline
// is generous and scaled by how loaded the machine is when the test starts: a fast machine ends the wait as soon
// as the condition holds, a busy one gets more time. No test asserts a throughput (those are in bench/).
import os from 'node:os';

/** The 1-minute load per core when this process started, between 1 and 8: how much more time to allow. */
export const SLOWDOWN = Math.min(8, Math.max(1, os.loadavg()[0]! / os.availableParallelism()));

/** `ms` scaled by the machine's load. */
export const patient = (ms: number): number => Math.round(ms * SLOWDOWN);

/** Polls `check` until it answers true; throws `message()` when `timeoutMs` (scaled by the load) has passed. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  message: () => string | Promise<string>,
  timeoutMs = 60_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + patient(timeoutMs);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${await message()} (waited ${patient(timeoutMs)} ms)`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
