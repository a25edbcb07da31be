// Delivers the webhook queue: claims due attempts under a lease (one worker per attempt across every
// instance), up to WEBHOOK_MAX_CONCURRENT at a time and WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT per endpoint,
// so a slow or dead endpoint never holds up another. Each outcome records the attempt's row, the next
// attempt on the retry schedule (Retry-After honoured), and the endpoint's state (410 Gone, or every
// attempt failing for WEBHOOK_DISABLE_AFTER_SECONDS, disables it, with an event). Claims are made a batch
// at a time and outcomes recorded a batch per transaction: every commit is a durable write (an fsync on
// SQLite), and one per delivery would take the disk from the API's own writes.
// It also prunes events older than EVENT_RETENTION_DAYS: batches of 1,000 until none is left or the run's
// time budget is spent, and again a second later while a backlog remains (issue 34.6).
import { SYSTEM_ACTOR } from '../kernel/context.js';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookConfig } from '../config.js';
import type { Clock } from '../core/deps.js';
import type { Database, Executor } from '../db/index.js';
import { WorkerLoop } from './worker-loop.js';
import type { EventRow, WebhookDeliveryRow, WebhookEndpointRow } from '../db/types.js';
import {
  attemptWebhook,
  findEventsForDelivery,
  pendingAttempt,
  presentEndpoint,
  presentEvent,
  pruneDeletedChanges,
  pruneEvents,
  recordEvent,
  signatureHeader,
  webhookQueue as repository,
  type AttemptResult,
} from '../modules/events/index.js';
import { disableAppWebhook } from '../modules/apps/index.js';

/** How often pruning looks for old events when it last found none left. */
const PRUNE_EVERY_MS = 60 * 1000;
/** One batch: one short delete, so the API's writes interleave with pruning. */
const PRUNE_BATCH = 1000;
/** A run's time budget: past it, pruning stops and comes back after PRUNE_BACKLOG_PAUSE_MS. */
const PRUNE_BUDGET_MS = 2_000;
const PRUNE_BACKLOG_PAUSE_MS = 1_000;

export class WebhookWorker {
  readonly id = `webhooks-${randomUUID()}`;
  private readonly loop: WorkerLoop;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly perAccount = new Map<string, number>();
  private nextPruneAt = 0;
  private outcomes: Array<{
    row: WebhookDeliveryRow;
    endpoint: WebhookEndpointRow;
    result: AttemptResult;
    retryable: boolean;
    recorded: () => void;
    failed: (error: unknown) => void;
  }> = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: WebhookConfig,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
  ) {
    this.loop = new WorkerLoop('webhooks', () => this.step(), config.pollMs, log);
  }

  private utilization = performance.eventLoopUtilization();

  /** Whether the event loop was busy more than 90 % of the time since the last look: the API needs the CPU. */
  private saturated(): boolean {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.utilization);
    this.utilization = now;
    return utilization > 0.9;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming and resolves once the attempts in flight are recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled(this.inFlight.values());
  }

  /** Deliveries claimed and launched since the start (a pass counts its own). */
  private launchedTotal = 0;

  /** One pass now (the test clock's `POST /test/workers/run`): claims until nothing is due, waits for them all. */
  async runPass(): Promise<number> {
    const start = this.launchedTotal;
    for (let before = -1; before !== this.launchedTotal; ) {
      before = this.launchedTotal;
      await this.step();
      await Promise.allSettled(this.inFlight.values());
    }
    return this.launchedTotal - start;
  }

  /** One round: prune when due, claim what there is room for, launch it; then how long to wait. */
  private async step(): Promise<number> {
    let claimed = 0;
    await this.pruneWhenDue();
    // Delivery is background work: while API requests saturate the process, it starts only a trickle
    // (WEBHOOK_STARTS_WHILE_SATURATED per 50 ms), so it never takes the CPU or the disk from them; the
    // queue drains at full speed once they leave room. Attempts waiting on a slow endpoint cost no CPU
    // and do not count against the trickle.
    const saturated = this.saturated();
    const room = Math.min(
      this.config.maxConcurrent - this.inFlight.size,
      saturated ? this.config.startsWhileSaturated : Infinity,
    );
    if (room > 0) {
      const cap = this.config.maxConcurrentPerEndpoint;
      const busy = [...this.perEndpoint].filter(([, count]) => count >= cap).map(([endpointId]) => endpointId);
      const share = this.config.maxConcurrentPerAccount;
      const busyAccounts = [...this.perAccount].filter(([, count]) => count >= share).map(([accountId]) => accountId);
      const now = this.clock.now();
      const rows = await repository.claimDeliveries(
        this.database.db,
        this.id,
        now.toISOString(),
        new Date(now.getTime() + this.config.leaseMs).toISOString(),
        busy,
        room,
        cap,
        busyAccounts,
        share,
      );
      const extra: string[] = [];
      // What the batch needs, in two queries: its endpoints and its events (deleted since: skipped).
      const endpoints = new Map(
        (
          await repository.findEndpointsForDelivery(this.database.db, [...new Set(rows.map((row) => row.endpoint_id))])
        ).map((endpoint) => [endpoint.id, endpoint]),
      );
      const events = new Map(
        (await findEventsForDelivery(this.database.db, [...new Set(rows.map((row) => row.event_id))])).map((event) => [
          event.id,
          event,
        ]),
      );
      for (const row of rows) {
        const endpoint = endpoints.get(row.endpoint_id);
        const event = events.get(row.event_id);
        if ((this.perEndpoint.get(row.endpoint_id) ?? 0) >= cap || (this.perAccount.get(row.account_id) ?? 0) >= share)
          extra.push(row.id);
        else if (endpoint && event) this.launch(row, endpoint, event);
      }
      await repository.releaseDeliveries(this.database.db, this.id, extra);
      claimed = rows.length - extra.length;
      this.launchedTotal += claimed;
    }
    if (claimed === 0) return this.config.pollMs;
    return saturated ? 50 : 0;
  }

  private launch(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow, event: EventRow): void {
    this.perEndpoint.set(row.endpoint_id, (this.perEndpoint.get(row.endpoint_id) ?? 0) + 1);
    this.perAccount.set(row.account_id, (this.perAccount.get(row.account_id) ?? 0) + 1);
    const task = this.deliver(row, endpoint, event)
      .catch((error: unknown) =>
        this.log.error({ err: error, deliveryId: row.id }, 'webhooks: delivery failed unexpectedly'),
      )
      .finally(() => {
        this.inFlight.delete(row.id);
        const left = (this.perEndpoint.get(row.endpoint_id) ?? 1) - 1;
        if (left === 0) this.perEndpoint.delete(row.endpoint_id);
        else this.perEndpoint.set(row.endpoint_id, left);
        const accountLeft = (this.perAccount.get(row.account_id) ?? 1) - 1;
        if (accountLeft === 0) this.perAccount.delete(row.account_id);
        else this.perAccount.set(row.account_id, accountLeft);
        this.loop.wake();
      });
    this.inFlight.set(row.id, task);
  }

  private async pruneWhenDue(): Promise<void> {
    if (this.clock.now().getTime() < this.nextPruneAt) return;
    const { pruned, done } = await this.prune();
    this.nextPruneAt = this.clock.now().getTime() + (done ? PRUNE_EVERY_MS : PRUNE_BACKLOG_PAUSE_MS);
    if (pruned > 0) this.log.info({ pruned, done }, 'webhooks: pruned old events');
  }

  /**
   * One pruning run: deletes events older than the retention, a batch at a time, until none is left (`done`)
   * or the run has taken PRUNE_BUDGET_MS; a backlog is taken up again a second later, so pruning keeps up
   * with any rate of writing without holding the database for long (issue 34.6: one batch of 1,000 per 10
   * minutes fell behind a busy account).
   */
  async prune(budgetMs = PRUNE_BUDGET_MS): Promise<{ pruned: number; done: boolean }> {
    const started = performance.now();
    const before = new Date(this.clock.now().getTime() - this.config.eventRetentionDays * 86_400_000).toISOString();
    let pruned = 0;
    for (;;) {
      const batch = await pruneEvents(this.database.db, before, PRUNE_BATCH);
      pruned += batch;
      if (batch < PRUNE_BATCH) break;
      if (performance.now() - started >= budgetMs) return { pruned, done: false };
    }
    // The change feed's deletions go after its retention too (docs/api-contract.md §26): an older cursor is refused.
    const days = this.config.changeRetentionDays ?? 90;
    const changesBefore = new Date(this.clock.now().getTime() - days * 86_400_000).toISOString();
    for (;;) {
      const batch = await pruneDeletedChanges(this.database.db, changesBefore, PRUNE_BATCH);
      pruned += batch;
      if (batch < PRUNE_BATCH) return { pruned, done: true };
      if (performance.now() - started >= budgetMs) return { pruned, done: false };
    }
  }

  /** Makes one claimed attempt and records its outcome. */
  private async deliver(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow, event: EventRow): Promise<void> {
    const attemptedAt = this.clock.now();
    let result: AttemptResult;
    if (endpoint.status !== 'enabled') {
      result = {
        ok: false,
        status: null,
        error: `the endpoint is disabled (${endpoint.disabled_reason ?? 'no reason given'})`,
        body: null,
        durationMs: 0,
        retryAfterMs: null,
      };
    } else {
      const body = JSON.stringify(presentEvent(event));
      const timestamp = Math.floor(attemptedAt.getTime() / 1000);
      const secrets = [
        endpoint.secret,
        ...(endpoint.previous_secret &&
        endpoint.previous_secret_expires_at &&
        endpoint.previous_secret_expires_at > attemptedAt.toISOString()
          ? [endpoint.previous_secret]
          : []),
      ];
      const headers = {
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
        'user-agent': 'BMS-Webhooks/1',
      };
      result = await attemptWebhook(endpoint.url, headers, body, {
        timeoutMs: this.config.timeoutMs,
        allowPrivate: this.config.allowPrivate,
      });
    }
    await new Promise<void>((recorded, failed) => {
      this.outcomes.push({ row, endpoint, result, retryable: endpoint.status === 'enabled', recorded, failed });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Records every outcome waiting, in one transaction; outcomes that arrive meanwhile wait for the next. When
   * the batch fails, each outcome is written again in a transaction of its own, so one bad row cannot undo
   * the others (issue 34.7: another account's outcome was lost and its receiver got the webhook twice).
   */
  private async flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const batch = this.outcomes;
    this.outcomes = [];
    try {
      await this.database.db.transaction().execute(async (trx) => {
        for (const outcome of batch)
          await this.record(trx, outcome.row, outcome.endpoint, outcome.result, outcome.retryable);
      });
      for (const outcome of batch) outcome.recorded();
    } catch (batchError) {
      for (const outcome of batch) {
        try {
          await this.database.db
            .transaction()
            .execute((trx) => this.record(trx, outcome.row, outcome.endpoint, outcome.result, outcome.retryable));
          outcome.recorded();
        } catch (error) {
          outcome.failed(batch.length === 1 ? batchError : error);
        }
      }
    } finally {
      this.flushing = this.outcomes.length > 0 ? this.flush() : undefined;
    }
  }

  private async record(
    trx: Executor,
    row: WebhookDeliveryRow,
    endpoint: WebhookEndpointRow,
    result: AttemptResult,
    retryable: boolean,
  ): Promise<void> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const held = await repository.completeDelivery(trx, row.id, this.id, {
      status: result.ok ? 'succeeded' : 'failed',
      response_status: result.status,
      error: result.error,
      duration_ms: result.durationMs,
      response_body: result.body,
      updated_at: nowIso,
    });
    if (!held) return; // the lease ran out and another worker took the attempt over
    if (result.ok) {
      if (endpoint.failing_since !== null)
        await repository.updateEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: null });
      this.log.info(
        {
          deliveryId: row.id,
          eventId: row.event_id,
          endpointId: row.endpoint_id,
          attempt: row.attempt,
          status: result.status,
        },
        'webhooks: delivered',
      );
      return;
    }
    if (!retryable) return;
    const failingSince = endpoint.failing_since ?? row.created_at;
    let disabledReason: string | undefined;
    if (result.status === 410) disabledReason = 'the endpoint answered 410 Gone';
    else if (now.getTime() - new Date(failingSince).getTime() >= this.config.disableAfterMs)
      disabledReason = `every attempt failed for ${Math.round(this.config.disableAfterMs / 3_600_000)} hours`;
    if (disabledReason && endpoint.app_id !== null) {
      // An app install's endpoint: the app's webhook is what failed, for every install (docs/api-contract.md §25).
      await disableAppWebhook(trx, this.clock, endpoint.app_id, disabledReason);
      this.log.warn({ appId: endpoint.app_id, reason: disabledReason }, 'webhooks: app webhook disabled');
      return;
    }
    if (disabledReason) {
      const disabled = await repository.disableEndpoint(trx, endpoint.id, disabledReason, failingSince, nowIso);
      if (disabled)
        await recordEvent(
          { db: trx, clock: this.clock, accountId: endpoint.account_id, actor: SYSTEM_ACTOR },
          'webhook_endpoint.disabled',
          presentEndpoint(disabled),
          { previous_attributes: { status: 'enabled', disabled_reason: null } },
        );
      this.log.warn({ endpointId: endpoint.id, reason: disabledReason }, 'webhooks: endpoint disabled');
      return;
    }
    if (endpoint.failing_since === null)
      await repository.updateEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: failingSince });
    const wait = this.config.retrySchedule[row.attempt - 1];
    if (wait === undefined) {
      this.log.warn(
        {
          deliveryId: row.id,
          eventId: row.event_id,
          endpointId: row.endpoint_id,
          attempt: row.attempt,
          error: result.error,
        },
        'webhooks: delivery failed for good',
      );
      return;
    }
    // A Retry-After longer than the schedule's step is honoured, up to a day.
    const delayMs = Math.max(wait * 1000, Math.min(result.retryAfterMs ?? 0, 86_400_000));
    const dueAt = new Date(now.getTime() + delayMs).toISOString();
    await repository.insertDeliveries(trx, [
      pendingAttempt(
        row.account_id,
        row.endpoint_id,
        { id: row.event_id, type: row.event_type },
        row.attempt + 1,
        nowIso,
        dueAt,
        row.app_id,
      ),
    ]);
    this.log.warn(
      {
        deliveryId: row.id,
        eventId: row.event_id,
        endpointId: row.endpoint_id,
        attempt: row.attempt,
        error: result.error,
        retryInMs: delayMs,
      },
      'webhooks: attempt failed, will retry',
    );
  }
}
