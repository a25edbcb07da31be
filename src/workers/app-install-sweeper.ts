// Ends the installs whose refresh token lapsed (docs/api-contract.md §25: `expired`), a batch at a time, each
// install in its own transaction (modules/apps, uninstallLapsed); every ten minutes, and at once while a batch was
// full. Events carry actor system. Instances side by side may look at the same install: its uninstall locks it,
// and an install already ended is left as it is.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import type { HostedLinks } from '../kernel/context.js';
import { uninstallLapsed } from '../modules/apps/index.js';
import { WorkerLoop } from './worker-loop.js';

const BATCH = 100;

export class AppInstallSweeper {
  private readonly loop: WorkerLoop;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly links: HostedLinks,
    log: Pick<FastifyBaseLogger, 'error'>,
    private readonly intervalMs = 600_000,
  ) {
    this.loop = new WorkerLoop(
      'app installs',
      async () => ((await this.batch()) === BATCH ? 0 : this.intervalMs),
      this.intervalMs,
      log,
    );
  }

  private batch(): Promise<number> {
    return uninstallLapsed({ db: this.database.db, clock: this.clock, links: this.links }, BATCH);
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Every lapsed install now (the test clock's POST /test/workers/run); resolves with how many it looked at. */
  async runPass(): Promise<number> {
    let total = 0;
    for (;;) {
      const found = await this.batch();
      total += found;
      if (found < BATCH) return total;
    }
  }
}
