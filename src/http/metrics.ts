// Prometheus metrics (prom-client): requests by route template and status with their latency, rate-limit
// refusals, database errors, the outbox and webhook queues (depth, oldest due age) and what their workers
// did, and Node's own (event-loop delay, memory, CPU). On only when METRICS_TOKEN is set, and served at
// GET /metrics only to a request bearing it: never public by accident. One registry per app, so several apps
// in one process (the tests) keep separate counts. With WEB_CONCURRENCY workers, the worker a scrape reaches
// asks the primary, which gathers every worker's registry and sums them (prom-client's AggregatorRegistry).
import cluster from 'node:cluster';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
// Types only: prom-client itself is loaded when metrics are turned on (it costs about a tenth of start-up).
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from '../core/errors.js';
import { type Database, outboxQueueStats, type QueueStats, webhookQueueStats } from '../db/index.js';
import { sendError, isStorageUnavailable } from './error-handler.js';
import { ANSWER_UNDER_PRESSURE } from './overload.js';

/** Seconds; from a cached read (under 1 ms) to a PDF render near its time limit. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type WorkerLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
export type WorkerName = 'outbox' | 'webhooks';

/**
 * The workers' outcomes, by the message each logs (outbox-worker.ts, webhooks.worker.ts): the metrics
 * count exactly what the log says happened. test/metrics.test.ts checks each one.
 */
const OUTCOMES: Record<string, { worker: WorkerName; outcome: string }> = {
  'outbox: delivered': { worker: 'outbox', outcome: 'delivered' },
  'outbox: delivery failed, will retry': { worker: 'outbox', outcome: 'retry_scheduled' },
  'outbox: delivery failed for good': { worker: 'outbox', outcome: 'failed' },
  'webhooks: delivered': { worker: 'webhooks', outcome: 'delivered' },
  'webhooks: attempt failed, will retry': { worker: 'webhooks', outcome: 'retry_scheduled' },
  'webhooks: delivery failed for good': { worker: 'webhooks', outcome: 'failed' },
  'webhooks: endpoint disabled': { worker: 'webhooks', outcome: 'endpoint_disabled' },
};

/** A database's own error (SQLite's SQLITE_* codes, PostgreSQL's SQLSTATE), or a storage fault; else undefined. */
function databaseErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (code.startsWith('SQLITE_') || isStorageUnavailable(code)) return code;
  // pg's DatabaseError: a five-character SQLSTATE, set only on errors the server sent.
  if (/^[0-9A-Z]{5}$/.test(code) && (error as Error).constructor?.name === 'DatabaseError') return code;
  return undefined;
}

type PromClient = typeof import('prom-client');

export class Metrics {
  readonly registry: Registry;
  private readonly requests: Counter<'method' | 'route' | 'status_code'>;
  private readonly latency: Histogram<'method' | 'route' | 'status_code'>;
  private readonly rateLimited: Counter<'route' | 'limit'>;
  private readonly databaseErrors: Counter<'source' | 'code'>;
  private readonly outcomes: Counter<'worker' | 'outcome'>;

  constructor(
    client: PromClient,
    private readonly database: Database,
    private readonly clock: { now(): Date },
  ) {
    const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = client;
    this.registry = new Registry();
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'bms_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.latency = new Histogram({
      name: 'bms_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rateLimited = new Counter({
      name: 'bms_rate_limit_rejections_total',
      help: 'Requests refused with 429: limit="api_key" (the key\'s own limits) or "client_ip" (failed authentications, the client hub).',
      labelNames: ['route', 'limit'],
      registers,
    });
    this.databaseErrors = new Counter({
      name: 'bms_database_errors_total',
      help: 'Errors raised by the database, by where they were met (request, outbox, webhooks) and their code (SQLITE_*, or a PostgreSQL SQLSTATE).',
      labelNames: ['source', 'code'],
      registers,
    });
    this.outcomes = new Counter({
      name: 'bms_delivery_outcomes_total',
      help: 'What the delivery workers of this process did with each attempt: worker="outbox" (e-mails) or "webhooks"; outcome delivered, retry_scheduled, failed (no attempt left) or endpoint_disabled.',
      labelNames: ['worker', 'outcome'],
      registers,
    });
    const countError = (source: string, error: unknown) => this.countDatabaseError(source, error);
    const outbox = async () => (await this.queues()).outbox;
    const webhooks = async () => (await this.queues()).webhooks;
    // The first queue gauge starts a scrape's read of the queues and the other three share it: a registry
    // collects its metrics in the order they were made, whether asked here or by the cluster's primary.
    let first = true;
    const queue = (
      name: string,
      help: string,
      stats: () => Promise<QueueStats>,
      read: (stats: QueueStats) => number,
    ) => {
      const startsScrape = first;
      first = false;
      return new Gauge({
        name,
        help,
        registers,
        // Every worker reads the same database: across workers the figure is the same, not a sum.
        aggregator: 'max',
        collect: async function (this: Gauge) {
          if (startsScrape) snapshotReset();
          try {
            this.set(read(await stats()));
          } catch (error) {
            // The database does not answer: NaN (unknown) rather than a stale or zero value, and the error counted.
            this.set(Number.NaN);
            countError('metrics', error);
          }
        },
      });
    };
    const snapshotReset = () => {
      this.snapshot = undefined;
    };
    queue(
      'bms_outbox_queue_depth',
      'E-mails waiting to be delivered or being delivered, across every instance.',
      outbox,
      (stats) => stats.depth,
    );
    queue(
      'bms_outbox_oldest_due_age_seconds',
      'How long the most overdue e-mail has been due (0 when none is), across every instance.',
      outbox,
      (stats) => stats.oldestDueAgeSeconds,
    );
    queue(
      'bms_webhook_queue_depth',
      'Webhook attempts waiting or in flight, across every instance.',
      webhooks,
      (stats) => stats.depth,
    );
    queue(
      'bms_webhook_oldest_due_age_seconds',
      'How long the most overdue webhook attempt has been due (0 when none is), across every instance.',
      webhooks,
      (stats) => stats.oldestDueAgeSeconds,
    );
  }

  private snapshot: Promise<{ outbox: QueueStats; webhooks: QueueStats }> | undefined;

  /** The queues as the database has them, read once per scrape (not once per gauge). */
  private queues(): Promise<{ outbox: QueueStats; webhooks: QueueStats }> {
    const now = this.clock.now();
    this.snapshot ??= Promise.all([
      outboxQueueStats(this.database.db, now),
      webhookQueueStats(this.database.db, now),
    ]).then(([outbox, webhooks]) => ({ outbox, webhooks }));
    return this.snapshot;
  }

  /** The exposition text of a scrape: this process's, or in a cluster worker every worker's, summed. */
  async render(): Promise<string> {
    return cluster.isWorker ? scrapeCluster() : this.registry.metrics();
  }

  observeResponse(request: FastifyRequest, statusCode: number, elapsedMs: number): void {
    // The template (/v1/clients/:id), never the path: ids and hub tokens stay out, and the series are few.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status_code: String(statusCode) };
    this.requests.inc(labels);
    this.latency.observe(labels, elapsedMs / 1000);
    if (statusCode === 429) this.rateLimited.inc({ route, limit: request.auth ? 'api_key' : 'client_ip' });
  }

  countDatabaseError(source: string, error: unknown): void {
    const code = databaseErrorCode(error);
    if (code) this.databaseErrors.inc({ source, code });
  }

  /** A worker's logger that also counts its outcomes and database errors. */
  workerLog(worker: WorkerName, log: WorkerLog): WorkerLog {
    const observe = (object: unknown, message: unknown) => {
      const outcome = typeof message === 'string' ? OUTCOMES[message] : undefined;
      if (outcome?.worker === worker) this.outcomes.inc({ worker, outcome: outcome.outcome });
      const error = (object as { err?: unknown } | undefined)?.err;
      if (error) this.countDatabaseError(worker, error);
    };
    // The workers log as (object, message), the one form wrapped here.
    return {
      info: ((object: object, message: string) => (
        observe(object, message), log.info(object, message)
      )) as WorkerLog['info'],
      warn: ((object: object, message: string) => (
        observe(object, message), log.warn(object, message)
      )) as WorkerLog['warn'],
      error: ((object: object, message: string) => (
        observe(object, message), log.error(object, message)
      )) as WorkerLog['error'],
    };
  }
}

const SCRAPE = 'bms:metrics-scrape';
/** How long a worker waits for the primary's gathered metrics (prom-client gives each worker 5 s). */
const SCRAPE_TIMEOUT_MS = 10_000;

/** Asks the primary for every worker's metrics, summed (answered by `answerClusterScrapes`). */
function scrapeCluster(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error('the primary did not gather the metrics in time')),
      SCRAPE_TIMEOUT_MS,
    );
    const onMessage = (message: { type?: unknown; id?: unknown; text?: unknown; error?: unknown }) => {
      if (message?.type !== SCRAPE || message.id !== id) return;
      finish(typeof message.error === 'string' ? new Error(message.error) : undefined, String(message.text));
    };
    const finish = (error: Error | undefined, text = '') => {
      clearTimeout(timer);
      process.off('message', onMessage);
      if (error) reject(error);
      else resolve(text);
    };
    process.on('message', onMessage);
    process.send?.({ type: SCRAPE, id });
  });
}

/**
 * In a cluster's primary: answers the workers' scrapes with every worker's registry summed. In each worker,
 * prom-client answers the primary's request for its registry once the app's metrics exist (below).
 */
export async function answerClusterScrapes(): Promise<void> {
  const { AggregatorRegistry } = await import('prom-client');
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== SCRAPE) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: SCRAPE, id: message.id, text }),
      (error: Error) => worker.send({ type: SCRAPE, id: message.id, error: error.message }),
    );
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's Prometheus metrics, when METRICS_TOKEN turns them on. */
    metrics: Metrics | undefined;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * With a token (METRICS_TOKEN): counts every answer and database error, and serves GET /metrics to requests
 * bearing the token. Without one, nothing: no route, no hook, no cost on the hot path.
 */
export async function registerMetrics(
  app: FastifyInstance,
  options: { token: string | undefined; database: Database },
): Promise<Metrics | undefined> {
  if (options.token === undefined) {
    app.decorate('metrics', undefined);
    return undefined;
  }
  const client = await import('prom-client');
  const metrics = new Metrics(client, options.database, app.clock);
  if (cluster.isWorker) {
    // The registry the primary gathers from this worker; making an AggregatorRegistry starts the answering.
    client.AggregatorRegistry.setRegistries([metrics.registry]);
    new client.AggregatorRegistry();
  }
  app.decorate('metrics', metrics);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeResponse(request, reply.statusCode, reply.elapsedTime);
    done();
  });
  app.addHook('onError', (_request, _reply, error, done) => {
    metrics.countDatabaseError('request', error);
    done();
  });
  const expected = digest(options.token);
  app.get('/metrics', { config: ANSWER_UNDER_PRESSURE, schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer +(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      const message = match
        ? 'The metrics token is not the one configured (METRICS_TOKEN).'
        : 'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.';
      return sendError(
        request,
        reply.header('www-authenticate', 'Bearer'),
        new AppError('AUTHENTICATION_REQUIRED', message),
      );
    }
    let body: string;
    try {
      body = await metrics.render();
    } catch (error) {
      // In a cluster, a worker that did not answer the primary: no partial figures, which would read as resets.
      request.log.warn({ err: error }, 'metrics: the workers were not all gathered');
      throw new AppError('SERVICE_UNAVAILABLE', 'Not every worker answered for the metrics. Scrape again shortly.');
    }
    return reply.type(metrics.registry.contentType).send(body);
  });
  return metrics;
}
