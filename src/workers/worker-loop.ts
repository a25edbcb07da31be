// The loop both background workers run: a step, then a pause of the length the step asks for (none when it
// found work), until stop(); a failing step is logged and the loop goes on. stop() wakes a pause at once
// and resolves when the step in progress has finished.
import type { FastifyBaseLogger } from 'fastify';
import { Pause } from '../core/pause.js';

/** How long to wait before the next step: 0 to go on at once. */
export type Step = () => Promise<number>;

export class WorkerLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly pause = new Pause();

  constructor(
    private readonly name: string,
    private readonly step: Step,
    /** The wait after a step that threw. */
    private readonly pollMs: number,
    private readonly log: Pick<FastifyBaseLogger, 'error'>,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Ends the pause in progress: there is work again (or room for it). */
  wake(): void {
    this.pause.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let wait = this.pollMs;
      try {
        wait = await this.step();
      } catch (error) {
        this.log.error({ err: error }, `${this.name}: worker step failed`);
      }
      if (wait > 0 && this.running) await this.pause.sleep(wait);
    }
  }
}
