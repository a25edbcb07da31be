// Removes the attachment store's orphans (docs/api-contract.md §30): files no row names once 24 hours old, and
// staged uploads left behind. A pass every hour; `POST /test/workers/run {worker: "attachments"}` runs one.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type AttachmentStore, sweepOrphans } from '../modules/attachments/index.js';
import { WorkerLoop } from './worker-loop.js';

export class AttachmentSweeperWorker {
  private readonly loop: WorkerLoop;

  constructor(
    private readonly database: Database,
    private readonly store: AttachmentStore,
    private readonly clock: Clock,
    log: Pick<FastifyBaseLogger, 'error'>,
    private readonly intervalMs = 3_600_000,
  ) {
    this.loop = new WorkerLoop(
      'attachment sweeper',
      async () => {
        await this.runPass();
        return this.intervalMs;
      },
      this.intervalMs,
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
    return sweepOrphans(this.database.db, this.store, this.clock.now());
  }
}
