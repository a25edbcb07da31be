// Materialises visit schedules (docs/api-contract.md §18): a pass over every schedule that has not ended, in id
// order, a page at a time, each schedule in its own transaction under its row's lock (so instances running
// side by side take turns, and the unique (schedule_id, occurrence_key) of visits backs that up), then a rest
// until the next pass. Today moves at a different instant in every zone, so passes run hourly, not at one
// midnight; a pass whose visits already exist writes nothing. Between schedules the loop yields to the event
// loop, so a pass over thousands of schedules never holds the API up for long. Events carry actor system.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type HostedLinks, SYSTEM_ACTOR } from '../kernel/context.js';
import { materializeSchedule, openSchedulesAfter } from '../modules/visit-schedules/index.js';
import { WorkerLoop } from './worker-loop.js';

export interface ScheduleWorkerOptions {
  /** The rest between two passes (default an hour). */
  intervalMs?: number;
  /** Schedules read per page of a pass (default 50). */
  pageSize?: number;
}

export class ScheduleWorker {
  private readonly loop: WorkerLoop;
  private after: string | null = null;
  private readonly intervalMs: number;
  private readonly pageSize: number;
  /** Completed passes, and schedules materialised in the current one (for tests and the benchmark). */
  passes = 0;
  materialized = 0;

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
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One page of the pass: 0 to go on, or the rest until the next pass. */
  async step(): Promise<number> {
    const page = await openSchedulesAfter(this.database.db, this.after, this.pageSize);
    for (const schedule of page) {
      try {
        await materializeSchedule(
          {
            db: this.database.db,
            clock: this.clock,
            links: this.links,
            accountId: schedule.account_id,
            actor: SYSTEM_ACTOR,
          },
          schedule.id,
        );
        this.materialized++;
      } catch (error) {
        // One schedule's fault (its job closed under it, a member gone) must not stop the others.
        this.log.warn({ err: error, schedule_id: schedule.id }, 'visit schedules: materialisation failed');
      }
      await yieldToEventLoop();
    }
    if (page.length === this.pageSize) {
      this.after = page.at(-1)?.id ?? null;
      return 0;
    }
    this.after = null;
    this.passes++;
    return this.intervalMs;
  }

  /** A whole pass now (tests, the benchmark, `bms`): resolves when every open schedule has been materialised. */
  async runPass(): Promise<void> {
    this.after = null;
    const passes = this.passes;
    while (this.passes === passes) await this.step();
  }
}
