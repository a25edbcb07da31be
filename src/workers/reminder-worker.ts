// Sends payment reminders (docs/api-contract.md §23): each minute, for every account whose schedule is on, the
// sent invoices with money due that a step can be owed get the latest step due now, each in its own transaction
// under the invoice's lock (invoices' sendDueReminder). Instances running side by side take turns on the lock; the
// unique (invoice, step) of the steps sent backs it up. Events carry actor system.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/deps.js';
import type { Database } from '../db/index.js';
import { type HostedLinks, SYSTEM_ACTOR } from '../kernel/context.js';
import { listAccountsWithReminders } from '../modules/accounts/index.js';
import { sendAccountReminders } from '../modules/invoices/index.js';
import { WorkerLoop } from './worker-loop.js';

export interface ReminderWorkerOptions {
  /** The rest between two passes (default a minute). */
  intervalMs?: number;
}

export class ReminderWorker {
  private readonly loop: WorkerLoop;
  private readonly intervalMs: number;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly links: HostedLinks,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
    options: ReminderWorkerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.loop = new WorkerLoop(
      'reminders',
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

  /** One pass now over every account with a schedule; resolves with the number of reminders sent. */
  async runPass(): Promise<number> {
    let sent = 0;
    for (const { id: accountId } of await listAccountsWithReminders(this.database.db)) {
      try {
        sent += await sendAccountReminders({
          db: this.database.db,
          clock: this.clock,
          links: this.links,
          accountId,
          actor: SYSTEM_ACTOR,
        });
      } catch (error) {
        // One account's fault must not stop the others; its invoices are looked at again next pass.
        this.log.warn({ err: error, account_id: accountId }, 'reminders: a pass over the account failed');
      }
      await yieldToEventLoop();
    }
    return sent;
  }
}
