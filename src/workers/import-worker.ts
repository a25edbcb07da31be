// Runs CSV imports (docs/api-contract.md §26): each queued import is validated, then written in batches of 500 rows
// through the routes of this process's app, a row's create or update by its route's own code without the HTTP
// machinery (`directDispatch`, http/direct-route.ts); a queued file wakes it, and a pass every few seconds
// picks up what another instance or a restart left (an import whose worker died is taken up once its lease lapses).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { directDispatch } from '../http/direct-route.js';
import { onImportQueued, runImportsPass } from '../modules/imports/index.js';
import { WorkerLoop } from './worker-loop.js';

export class ImportWorker {
  private readonly loop: WorkerLoop;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly app: FastifyInstance,
    log: Pick<FastifyBaseLogger, 'error'>,
    private readonly intervalMs = 5_000,
  ) {
    this.loop = new WorkerLoop(
      'imports',
      async () => ((await this.runPass()) > 0 ? 0 : this.intervalMs),
      this.intervalMs,
      log,
    );
  }

  start(): void {
    this.stopListening = onImportQueued(() => this.loop.wake());
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopListening?.();
    await this.loop.stop();
  }

  /** Every import with work left, to its end (the test clock's POST /test/workers/run too). */
  runPass(): Promise<number> {
    const { app } = this;
    return runImportsPass({ db: app.db, clock: app.clock, links: app.links }, directDispatch(app));
  }
}
