// Test harness: a real SQLite file in a temporary folder, the real app, and helpers to make accounts,
// keys with chosen scopes, and requests through app.inject.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createMigratedTestDatabase } from './database.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ManualClock, systemClock, type Clock } from '../../src/core/deps.js';
import { TestClock } from '../../src/core/test-clock.js';
import type { RateLimitStore } from '../../src/http/rate-limit/stores.js';
import { createAccount } from '../../src/modules/accounts/accounts.service.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import type { RateLimitOverrides } from '../../src/kernel/auth-context.js';
import { SYSTEM_ACTOR, type Context } from '../../src/kernel/context.js';
import { SCOPES, type Scope } from '../../src/kernel/scopes.js';
import { validateResponses } from './response-schemas.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
  /** The body's bytes (a PDF, say). */
  raw: Buffer;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** The client's IP address as the server sees it. */
  remoteAddress?: string;
}

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  /** The database's URL, for a child process (the `bms` command) to open it too. */
  databaseUrl: string;
  config: Config;
  clock: Clock;
  directory: string;
  logs: string[];
  /** A new account with an all-scopes key. */
  account(name?: string): Promise<{ accountId: string; key: string }>;
  /** Test keys get a high rate-limit override unless `rateLimits` says otherwise, so suites can go fast. */
  key(
    accountId: string,
    scopes: readonly Scope[],
    options?: { expiresAt?: Date; rateLimits?: RateLimitOverrides },
  ): Promise<{ id: string; key: string }>;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** What a service is called with when the system (a worker), not a key, acts in `accountId`. */
  systemContext(accountId: string): Context;
  close(): Promise<void>;
}

export function temporaryDirectory(prefix = 'bms-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function createTestContext(
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    rateLimitStore?: RateLimitStore;
    /** Check every JSON response against the served OpenAPI document (default true); close() fails on a mismatch. */
    validateResponses?: boolean;
    /**
     * Compile each route's request validators and response serializer when the route is first used (default true:
     * a suite uses a few of the app's routes, and compiling them all was most of a test app's start). False
     * compiles them all at start-up, as `bms serve` does.
     */
    compileOnFirstUse?: boolean;
  } = {},
): Promise<TestContext> {
  const directory = temporaryDirectory();
  const testDatabase = await createMigratedTestDatabase(directory);
  // Overload shedding is off unless a test turns it on: a CPU-starved test machine must not shed.
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: testDatabase.url,
    LOG_LEVEL: 'info',
    OUTBOX_DIR: path.join(directory, 'outbox'),
    ATTACHMENTS_DIR: path.join(directory, 'attachments'),
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    // The pool's threads at the process's priority: on a test machine shared with other processes, a lowered
    // thread would wait behind them all (test/pdf-pool-priority.test.ts checks the lowering itself).
    PDF_THREAD_NICE: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...options.env,
  });
  const database = openDatabase(config.database);
  await migrateToLatest(database.db);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const clock = options.clock ?? systemClock;
  const app = await buildApp(config, {
    database,
    clock,
    logStream,
    compileOnFirstUse: options.compileOnFirstUse ?? true,
    ...(options.rateLimitStore ? { rateLimitStore: options.rateLimitStore } : {}),
  });
  // The served document depends on the configuration (less this test's own files) and on whether the test clock's
  // routes are there; the routes are compared besides (response-schemas.ts).
  const sameDocument = JSON.stringify([
    { ...config, database: undefined, outboxDirectory: undefined },
    clock instanceof TestClock,
  ]);
  const mismatches = options.validateResponses === false ? [] : validateResponses(app, sameDocument);

  const context: TestContext = {
    app,
    database,
    databaseUrl: testDatabase.url,
    config,
    clock,
    directory,
    logs,
    async account(name = 'Test Business') {
      const account = await createAccount(database.db, clock, { name });
      const { key } = await context.key(account.id, SCOPES);
      return { accountId: account.id, key };
    },
    systemContext(accountId) {
      return {
        db: database.db,
        clock,
        links: { publicBaseUrl: config.publicBaseUrl },
        accountId,
        actor: SYSTEM_ACTOR,
      };
    },
    async key(accountId, scopes, keyOptions = {}) {
      const rateLimits = keyOptions.rateLimits ?? { burst: 1_000_000, perMinute: 1_000_000, perDay: 1_000_000_000 };
      const created = await createApiKey(database.db, clock, config.apiKeyPepper, {
        accountId,
        name: 'test',
        scopes: [...scopes],
        expiresAt: keyOptions.expiresAt,
        rateLimits,
      });
      return { id: created.id, key: created.key };
    },
    async request(method, url, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.key !== undefined) headers.authorization = `Bearer ${requestOptions.key}`;
      let payload: string | Buffer | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        payload = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await app.inject({
        method: method as never,
        url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
        ...(requestOptions.remoteAddress ? { remoteAddress: requestOptions.remoteAddress } : {}),
      });
      let body: unknown;
      try {
        body = response.body === '' ? undefined : JSON.parse(response.body);
      } catch {
        body = undefined;
      }
      return {
        status: response.statusCode,
        headers: response.headers,
        body: body as never,
        text: response.body,
        raw: response.rawPayload,
      };
    },
    async close() {
      await app.close();
      await database.close();
      await testDatabase.drop();
      fs.rmSync(directory, { recursive: true, force: true });
      if (mismatches.length > 0)
        throw new Error(
          `${mismatches.length} responses do not match their schema in the OpenAPI document:\n${[...new Set(mismatches)].join('\n')}`,
        );
    },
  };
  return context;
}

export { ManualClock };
