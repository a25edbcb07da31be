// Process entry: load config -> open and migrate the database -> build the app -> listen. With
// WEB_CONCURRENCY > 1 a primary process migrates once and forks that many workers sharing the port.
// Starts the outbox and webhook workers. SIGTERM/SIGINT stop accepting, finish in-flight requests and the outbox
// delivery in progress, close the database and exit 0.
import cluster from 'node:cluster';
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { type Database, migrateToLatest, openDatabase, sqliteFiles } from './db/index.js';
import { systemClock } from './core/deps.js';
import { OutboxWorker } from './workers/outbox-worker.js';
import { PdfPool } from './mail/pdf-pool.js';
import { transportFromConfig } from './mail/transports.js';
import { bootstrapDefaultAccount } from './modules/accounts/index.js';
import { WebhookWorker } from './workers/webhook-worker.js';
import { answerClusterScrapes } from './http/metrics.js';
import { ScheduleWorker } from './workers/schedule-worker.js';
import { ReminderWorker } from './workers/reminder-worker.js';
import { RecurringInvoiceWorker } from './workers/recurring-invoice-worker.js';
import { CustomFieldPurgeWorker } from './workers/custom-field-purge-worker.js';
import { AppInstallSweeper } from './workers/app-install-sweeper.js';
import { ImportWorker } from './workers/import-worker.js';
import { AttachmentSweeperWorker } from './workers/attachment-sweeper-worker.js';
import { openAttachmentStore } from './modules/attachments/index.js';

function printBootstrapKey(key: string, accountId: string, port: number): void {
  process.stdout.write(
    [
      '',
      '  BMS created a default account and an API key with every scope.',
      `  Account: ${accountId}`,
      `  API key: ${key}`,
      '  It is shown only this once. Try:',
      `    curl -H "Authorization: Bearer ${key}" http://127.0.0.1:${port}/v1/clients`,
      '',
      '',
    ].join('\n'),
  );
}

/** Migrations and the first-run key, done once per start (by the primary when there are workers). */
async function prepareDatabase(config: Config, database: Database): Promise<void> {
  await migrateToLatest(database.db);
  if (config.bootstrapKey) {
    const created = await bootstrapDefaultAccount(database.db, systemClock, config.apiKeyPepper);
    if (created) printBootstrapKey(created.key.key, created.account.id, config.port);
  }
}

/** Serves HTTP and runs an outbox worker in this process until SIGTERM/SIGINT. */
export async function serve(config: Config, options: { prepare: boolean } = { prepare: true }): Promise<void> {
  const database = openDatabase(config.database);
  if (options.prepare) await prepareDatabase(config, database);
  // Owned here, not by the app: the outbox worker renders with it until it stops, after the app has closed.
  const pdf = new PdfPool(config.pdf);
  // Owned here too: the sweeper works on it beside the app.
  const attachmentStore = openAttachmentStore(config.attachments);
  const app = await buildApp(config, {
    database,
    pdf,
    attachmentStore,
    compileOnFirstUse: config.compileSchemas === 'on-first-use',
  });
  if (config.database.kind === 'sqlite') {
    const files = sqliteFiles(config.database.path);
    const notWritable = files.filter((file) => !file.writable).map((file) => file.path);
    if (notWritable.length > 0)
      app.log.error({ files: notWritable }, 'sqlite: these files must be writable, and are not: writes will fail');
    else app.log.info({ files: files.map((file) => file.path) }, 'sqlite: these files must stay writable');
  }

  const transport = transportFromConfig(config);
  // With METRICS_TOKEN, the workers' loggers also count their outcomes (http/metrics.ts).
  const worker = new OutboxWorker(
    database,
    transport,
    app.clock,
    { ...config.outbox, fromAddress: config.mailFrom },
    app.metrics?.workerLog('outbox', app.log) ?? app.log,
    pdf,
  );
  const webhooks = new WebhookWorker(
    database,
    app.clock,
    config.webhooks,
    app.metrics?.workerLog('webhooks', app.log) ?? app.log,
  );

  const schedules = new ScheduleWorker(database, app.clock, { publicBaseUrl: config.publicBaseUrl }, app.log);
  const recurring = new RecurringInvoiceWorker(database, app.clock, { publicBaseUrl: config.publicBaseUrl }, app.log);
  const reminders = new ReminderWorker(database, app.clock, { publicBaseUrl: config.publicBaseUrl }, app.log);
  const purge = new CustomFieldPurgeWorker(database, app.log);
  const lapsedInstalls = new AppInstallSweeper(database, app.clock, { publicBaseUrl: config.publicBaseUrl }, app.log);
  const imports = new ImportWorker(app, app.log);
  const sweeper = new AttachmentSweeperWorker(database, attachmentStore, app.clock, app.log);
  // One pass of each, for the test clock's POST /test/workers/run (served only with BMS_TEST_CLOCK=true).
  app.workerPasses.set('outbox', () => worker.runPass());
  app.workerPasses.set('webhooks', () => webhooks.runPass());
  app.workerPasses.set('schedules', () => schedules.runPass());
  app.workerPasses.set('recurring_invoices', () => recurring.runPass());
  app.workerPasses.set('reminders', () => reminders.runPass());
  app.workerPasses.set('app_installs', () => lapsedInstalls.runPass());
  app.workerPasses.set('imports', () => imports.runPass());
  app.workerPasses.set('attachments', () => sweeper.runPass());

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Node closes the connections that are idle when the listener closes, not those that go idle later: a
    // keep-alive connection whose request was in flight at the signal would hold the exit for the whole
    // keep-alive timeout (72 s), past an orchestrator's grace period (30 s in Kubernetes). Each is closed once
    // its answer is sent.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      // Before the app closes: the import worker writes through the app's routes.
      await imports.stop();
      await app.close();
      clearInterval(sweep);
      await worker.stop();
      await pdf.close();
      await webhooks.stop();
      await schedules.stop();
      await recurring.stop();
      await reminders.stop();
      await purge.stop();
      await lapsedInstalls.stop();
      await sweeper.stop();
      await attachmentStore.close();
      transport.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  worker.start();
  webhooks.start();
  schedules.start();
  recurring.start();
  reminders.start();
  purge.start();
  lapsedInstalls.start();
  imports.start();
  sweeper.start();
  app.log.info({ transport: config.smtpUrl ? 'smtp' : `files in ${config.outboxDirectory}` }, 'outbox worker started');
}

/** The primary of WEB_CONCURRENCY workers: prepares the database, forks, restarts a worker that dies. */
async function runPrimary(config: Config): Promise<void> {
  const database = openDatabase(config.database);
  await prepareDatabase(config, database);
  await database.close();
  if (config.metricsToken !== undefined) await answerClusterScrapes();
  let stopping = false;
  for (let index = 0; index < config.webConcurrency; index += 1) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(
      `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, worker: worker.process.pid, code, signal, msg: 'worker died; starting another' })}\n`,
    );
    cluster.fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    let running = workers.length;
    if (running === 0) process.exit(0);
    for (const worker of workers) {
      worker?.once('exit', () => {
        running -= 1;
        if (running === 0) process.exit(0);
      });
      worker?.process.kill('SIGTERM');
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Starts the service as configured: one process, or a primary with WEB_CONCURRENCY workers. */
export async function start(config: Config): Promise<void> {
  if (config.webConcurrency > 1 && cluster.isPrimary) return runPrimary(config);
  await serve(config, { prepare: cluster.isPrimary });
}

export async function main(): Promise<void> {
  try {
    await start(loadConfig(process.env));
  } catch (error) {
    process.stderr.write(
      `${error instanceof ConfigError ? error.message : `bms failed to start: ${(error as Error).stack ?? String(error)}`}\n`,
    );
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
