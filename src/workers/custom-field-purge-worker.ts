// Purges the values of deleted custom fields (docs/api-contract.md §27) in batches, each its own transaction: a
// delete in this process wakes it, and a pass every few minutes picks up what another instance or a restart left.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/index.js';
import { onCustomFieldDeleted, purgeDeletedCustomFields } from '../modules/custom-fields/index.js';
import { WorkerLoop } from './worker-loop.js';

export class CustomFieldPurgeWorker {
  private readonly loop: WorkerLoop;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    log: Pick<FastifyBaseLogger, 'error'>,
    private readonly intervalMs = 300_000,
  ) {
    // A batch found work: the next goes at once; none: rest until woken or the interval ends.
    this.loop = new WorkerLoop(
      'custom field purge',
      async () => ((await purgeDeletedCustomFields(this.database.db)) ? 0 : this.intervalMs),
      this.intervalMs,
      log,
    );
  }

  start(): void {
    this.stopListening = onCustomFieldDeleted(() => this.loop.wake());
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopListening?.();
    await this.loop.stop();
  }

  /** Every pending purge now (the test clock's POST /test/workers/run). */
  async runPass(): Promise<void> {
    while (await purgeDeletedCustomFields(this.database.db)) {
      // Each batch commits on its own.
    }
  }
}
