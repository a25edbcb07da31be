// Makes recurring invoices (docs/api-contract.md §23, §32): each minute it reads the templates whose next run has
// come (every account's, a page at a time) and lets their accounts take turns (schedule-worker.ts's AccountTurns):
// each turn makes one occurrence of the next account's first template, in its own transaction under the template's
// row lock (making.ts), and that account goes to the back. So every invoice is made within a minute or two of its
// run moment (the contract allows 15), and an account with many templates due delays only itself. Instances running
// side by side take turns on the lock; the unique (recurring_invoice_id, occurrence_date) of invoices backs it up.
// Events carry actor system.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type HostedLinks, SYSTEM_ACTOR } from '../kernel/context.js';
import { dueTemplates, makeNextOccurrence } from '../modules/recurring-invoices/index.js';
import { AccountTurns } from './schedule-worker.js';
import { WorkerLoop } from './worker-loop.js';

export interface RecurringInvoiceWorkerOptions {
  /** The rest between two passes (default a minute). */
  intervalMs?: number;
  /** Templates read per page of a pass (default 100). */
  pageSize?: number;
}

export class RecurringInvoiceWorker {
  private readonly loop: WorkerLoop;
  private readonly intervalMs: number;
  private readonly pageSize: number;
  /** Invoices made since the start (tests). */
  made = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly links: HostedLinks,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
    options: RecurringInvoiceWorkerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.pageSize = options.pageSize ?? 100;
    this.loop = new WorkerLoop(
      'recurring invoices',
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

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * One pass now: every template whose run has come takes turns until none has anything due; resolves with the
   * number of invoices made. A template whose occurrence failed (last_error) waits for the next pass.
   */
  async runPass(): Promise<number> {
    const made = this.made;
    const now = this.clock.now().toISOString();
    const done = new Set<string>();
    for (;;) {
      const page = (await dueTemplates(this.database.db, now, this.pageSize + done.size)).filter(
        (one) => !done.has(one.id),
      );
      if (page.length === 0) break;
      const turns = new AccountTurns();
      for (const template of page) turns.add(template.account_id, template.id);
      for (let next = turns.peek(); next !== undefined; next = turns.peek()) {
        const { accountId, schedule: template } = next;
        let keep = false;
        try {
          const turn = await makeNextOccurrence(
            { db: this.database.db, clock: this.clock, links: this.links, accountId, actor: SYSTEM_ACTOR },
            template.id,
          );
          if (turn.state === 'made') this.made++;
          keep = turn.more;
        } catch (error) {
          // One template's fault must not stop the others; it is tried again at the next pass.
          this.log.warn({ err: error, recurring_invoice_id: template.id }, 'recurring invoices: making failed');
        }
        if (!keep) done.add(template.id);
        turns.turnTaken(accountId, keep);
        await yieldToEventLoop();
      }
    }
    return this.made - made;
  }
}
