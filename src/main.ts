// Process entry: load config -> open and migrate the database -> build the app -> listen.
// Starts the outbox worker. SIGTERM/SIGINT stop accepting, finish in-flight requests and the outbox
// delivery in progress, close the database and exit 0.
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './deps.js';
import { OutboxWorker } from './mail/outbox-worker.js';
import { transportFromConfig } from './mail/transports.js';
import { bootstrapDefaultAccount } from './modules/accounts/accounts.service.js';

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

export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config.database);
  await migrateToLatest(database.db);
  const app = await buildApp(config, { database });

  if (config.bootstrapKey) {
    const created = await bootstrapDefaultAccount(database.db, systemClock, config.apiKeyPepper);
    if (created) printBootstrapKey(created.key.key, created.account.id, config.port);
  }

  const transport = transportFromConfig(config);
  const worker = new OutboxWorker(database, transport, systemClock, { ...config.outbox, fromAddress: config.mailFrom }, app.log);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await app.close();
      await worker.stop();
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
  app.log.info({ transport: config.smtpUrl ? 'smtp' : `files in ${config.outboxDirectory}` }, 'outbox worker started');
}

export async function main(): Promise<void> {
  try {
    await serve(loadConfig(process.env));
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : `bms failed to start: ${(error as Error).stack ?? String(error)}`}\n`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
