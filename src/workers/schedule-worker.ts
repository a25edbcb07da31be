// Materialises visit schedules (docs/api-contract.md §18, §32): the visits a create or change left to make (it
// makes the first 50 itself), and, hourly, every schedule that has not ended (today moves at a different instant
// in every zone, so passes run hourly, not at one midnight; a schedule whose visits exist writes nothing). The
// work is a queue of schedules per account, and accounts take turns: each turn makes one batch of at most
// WORKER_BATCH visits of the next account's first schedule, in its own transaction under the schedule's row lock
// (so instances running side by side take turns, and the unique (schedule_id, occurrence_key) of visits backs
// that up), then that account goes to the back. One account with a thousand schedules to fill so delays only
// itself. A change that leaves visits behind wakes the worker at once (onVisitsLeft); a pass adds the open
// schedules a page at a time, whenever the queue is empty, which also picks up what another instance or a
// restart left. Between turns the loop yields to the event loop. Events carry actor system.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type HostedLinks, SYSTEM_ACTOR } from '../kernel/context.js';
import { materializeBatch, onVisitsLeft, openSchedulesAfter } from '../modules/visit-schedules/index.js';
import { WorkerLoop } from './worker-loop.js';

export interface ScheduleWorkerOptions {
  /** The rest between two passes (default an hour). */
  intervalMs?: number;
  /** Schedules read per page of a pass (default 50). */
  pageSize?: number;
  /** Hear of the visits this process's requests leave to make (default true; false for a second worker in tests). */
  listen?: boolean;
}

/** A schedule waiting for its turn; `tries` counts the turns that did not find it (its change not committed yet). */
interface Waiting {
  id: string;
  tries: number;
}

/** A schedule that was not found is looked for again this often, this many times (a commit still on its way). */
const RETRY_MS = 500;
const RETRIES = 5;

/** Schedules with visits to make, per account; accounts take turns in the order they came. */
export class AccountTurns {
  private readonly queues = new Map<string, Waiting[]>();

  get size(): number {
    return this.queues.size;
  }

  add(accountId: string, id: string, tries = 0): void {
    const queue = this.queues.get(accountId);
    if (!queue) this.queues.set(accountId, [{ id, tries }]);
    else if (!queue.some((one) => one.id === id)) queue.push({ id, tries });
  }

  /** The next account's first schedule, or undefined when none waits. */
  peek(): { accountId: string; schedule: Waiting } | undefined {
    for (const [accountId, queue] of this.queues) {
      const schedule = queue[0];
      if (schedule) return { accountId, schedule };
    }
    return undefined;
  }

  /** After a turn: the schedule stays first of its account (`more`) or leaves; the account goes to the back. */
  turnTaken(accountId: string, keep: boolean): void {
    const queue = this.queues.get(accountId);
    if (!queue) return;
    if (!keep) queue.shift();
    this.queues.delete(accountId);
    if (queue.length > 0) this.queues.set(accountId, queue);
  }
}

export class ScheduleWorker {
  private readonly loop: WorkerLoop;
  private readonly turns = new AccountTurns();
  private after: string | null = null;
  /** When the next pass is due (ms since the epoch, by the worker's clock); the first at start. */
  private passDueAt = 0;
  private passing = false;
  private readonly intervalMs: number;
  private readonly pageSize: number;
  private readonly unlisten: (() => void) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Completed passes, schedules whose visits were brought to their horizon, and turns taken (tests, benchmarks). */
  passes = 0;
  materialized = 0;
  turnsTaken = 0;
  /** Called after each turn (tests: the order accounts take turns in). */
  onTurn: ((turn: { accountId: string; scheduleId: string; made: number }) => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly links: HostedLinks,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
    options: ScheduleWorkerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60 * 60 * 1000;
    this.pageSize = options.pageSize ?? 50;
    this.loop = new WorkerLoop('visit schedules', () => this.step(), 60_000, log);
    this.unlisten = options.listen === false ? undefined : onVisitsLeft((accountId, ids) => this.wake(accountId, ids));
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.unlisten?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.loop.stop();
  }

  /** Schedules of an account with visits left to make: they join the turns at once. */
  wake(accountId: string, ids: string[]): void {
    for (const id of ids) this.turns.add(accountId, id);
    this.loop.wake();
  }

  /** One step: a turn when a schedule waits; else the next page of a due pass; else the rest until the next pass. */
  async step(): Promise<number> {
    if (await this.turn()) return 0;
    const now = this.clock.now().getTime();
    if (!this.passing && now < this.passDueAt) return this.passDueAt - now;
    this.passing = true;
    const page = await openSchedulesAfter(this.database.db, this.after, this.pageSize);
    for (const schedule of page) this.turns.add(schedule.account_id, schedule.id);
    if (page.length === this.pageSize) {
      this.after = page.at(-1)?.id ?? null;
      return 0;
    }
    this.after = null;
    this.passing = false;
    this.passes++;
    this.passDueAt = now + this.intervalMs;
    // The last page's schedules still take their turns before the rest.
    return this.turns.size > 0 ? 0 : this.intervalMs;
  }

  /** The next account's turn: one batch of its first schedule. False when no schedule waits. */
  private async turn(): Promise<boolean> {
    const next = this.turns.peek();
    if (!next) return false;
    const { accountId, schedule } = next;
    let keep = false;
    let made = 0;
    try {
      const result = await materializeBatch(
        { db: this.database.db, clock: this.clock, links: this.links, accountId, actor: SYSTEM_ACTOR },
        schedule.id,
      );
      made = result.made;
      keep = result.state === 'more';
      if (result.state === 'done') this.materialized++;
      if (result.state === 'gone' && schedule.tries < RETRIES) this.retryLater(accountId, schedule);
    } catch (error) {
      // One schedule's fault (its job closed under it, a member gone) must not stop the others.
      this.log.warn({ err: error, schedule_id: schedule.id }, 'visit schedules: materialisation failed');
    }
    this.turns.turnTaken(accountId, keep);
    this.turnsTaken++;
    this.onTurn?.({ accountId, scheduleId: schedule.id, made });
    await yieldToEventLoop();
    return true;
  }

  /** A schedule announced before its change committed (a request in a transaction of its own) is looked for again. */
  private retryLater(accountId: string, schedule: Waiting): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.turns.add(accountId, schedule.id, schedule.tries + 1);
      this.loop.wake();
    }, RETRY_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Takes turns until no schedule waits (tests, the benchmark): what changes left behind is made. */
  async runPending(): Promise<void> {
    while (await this.turn()) {}
  }

  /**
   * A whole pass now (tests, the benchmark, the test clock): resolves when every open schedule has been
   * materialised, with the number of turns it took.
   */
  async runPass(): Promise<number> {
    const turns = this.turnsTaken;
    this.after = null;
    this.passing = true;
    const passes = this.passes;
    while (this.passes === passes) await this.step();
    await this.runPending();
    return this.turnsTaken - turns;
  }
}
