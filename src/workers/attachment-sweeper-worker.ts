// Removes the attachment store's orphans (docs/api-contract.md §30): the files deletes queued, every 5 minutes;
// files no row names once 24 hours old, and staged uploads left behind, every hour (a walk of the whole store).
// `POST /test/workers/run {worker: "attachments"}` runs a whole pass.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type AttachmentStore, removeQueued, sweepOrphans } from '../modules/attachments/index.js';
import { WorkerLoop } from './worker-loop.js';

const QUEUE_INTERVAL_MS = 300_000;

export class AttachmentSweeperWorker {
  private readonly loop: WorkerLoop;
  private lastSweep = 0;

  constructor(
    private readonly database: Database,
    private readonly store: AttachmentStore,
    private readonly clock: Clock,
    log: Pick<FastifyBaseLogger, 'error'>,
    private readonly intervalMs = 3_600_000,
  ) {
    const every = Math.min(intervalMs, QUEUE_INTERVAL_MS);
    this.loop = new WorkerLoop(
      'attachment sweeper',
      async () => {
        if (Date.now() - this.lastSweep >= this.intervalMs) await this.runPass();
        else await removeQueued(this.database.db, this.store, this.clock.now());
        return every;
      },
      every,
      log,
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: how many files it removed. */
  runPass(): Promise<number> {
    this.lastSweep = Date.now();
    return sweepOrphans(this.database.db, this.store, this.clock.now());
  }
}
