// The only reader of the environment: every setting is parsed and validated once, at start-up.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; poolMax: number };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly outboxDirectory: string;
  /** Delivery worker tuning: how often it looks for work, how long a claim lasts, retry backoff and limit. */
  readonly outbox: { pollMs: number; leaseMs: number; retryBaseMs: number; maxAttempts: number };
  /** The PDF renderer's worker threads, its time limit per document and how far below the API's priority it runs. */
  readonly pdf: { threads: number; timeoutMs: number; nice: number };
  readonly logLevel: LogLevel;
  /** Optional secret mixed into API-key hashes (HMAC-SHA256), so a stolen database alone cannot be brute-forced. */
  readonly apiKeyPepper: string | undefined;
  /** Worker processes sharing the port (node:cluster); 1 runs the server in this process. */
  readonly webConcurrency: number;
  /** Shed API requests with 503 while the event loop lags more than this (ms, mean over 250 ms); 0: never. */
  readonly overloadMaxEventLoopDelayMs: number;
  /**
   * Behind reverse proxies: how many (a number of hops) or which (addresses and CIDR ranges) are trusted to
   * append the client's address to X-Forwarded-For; false trusts none. The client's IP is then the address
   * the outermost trusted proxy appended, never one the client wrote (used to limit failed authentication).
   */
  readonly trustProxy: false | number | string;
  /** Development convenience: on an empty database, create a default account and print an all-scopes key. */
  readonly bootstrapKey: boolean;
  /**
   * `COMPILE_SCHEMAS`: `at-start` (default) compiles every route's request validators and response serializer
   * before the server listens, so a schema that does not compile stops it; `on-first-use` compiles each when its
   * route is first used: about half the start-up's CPU, for a process that serves a few routes and goes.
   */
  readonly compileSchemas: 'at-start' | 'on-first-use';
  /** How long a request may take to arrive, headers and body (a slow sender is answered 408 after it). */
  readonly requestTimeoutMs: number;
  /** Open connections one client address may hold (0: no cap; not applied behind a trusted proxy). */
  readonly maxConnectionsPerIp: number;
  /** Events and webhook delivery (docs/api-contract.md §9). */
  readonly webhooks: WebhookConfig;
  /** Where clients reach this server: the origin of the hub's links (`PUBLIC_BASE_URL`), without a trailing slash. */
  readonly publicBaseUrl: string;
  /** OAuth (docs/api-contract.md §25): access tokens' life and the refresh tokens' reuse grace, in seconds. */
  readonly oauth: { accessTokenTtlSeconds: number; refreshReuseGraceSeconds: number };
  /** `METRICS_TOKEN`: turns on GET /metrics (Prometheus), served only to `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** How long the change feed keeps deletions, and so how old a cursor may be (docs/api-contract.md §26). */
  readonly changeRetentionDays: number;
  /**
   * `BMS_TEST_CLOCK=true` with `NODE_ENV=test`: the process reads time from a test clock that `PUT /test/clock`
   * sets, and `/test/*` exists (docs/api-contract.md §32). Refused in production; ignored in development.
   */
  readonly testClock: boolean;
  /** Attachments (docs/api-contract.md §30): where their bytes are kept and the largest upload. */
  readonly attachments: AttachmentsConfig;
}

export interface AttachmentsConfig {
  /** `ATTACHMENTS_STORE`: `local` (a folder, default) or `s3` (any S3-compatible store, for several hosts). */
  readonly store: 'local' | 's3';
  /** `ATTACHMENTS_DIR` (./data/attachments): the local store's folder. */
  readonly directory: string;
  /** `ATTACHMENT_MAX_BYTES`: the largest upload, 25 MiB by default, at most 100 MiB. */
  readonly maxBytes: number;
  /**
   * `ATTACHMENT_SHARED_BYTES_PER_SECOND`: what uploads take together, in bytes a second, while two or more are under
   * way (64 MiB by default; 0: no limit). A lone upload is not limited.
   */
  readonly sharedBytesPerSecond: number;
  /** The S3-compatible store's settings (`S3_*`), when `store` is `s3`. */
  readonly s3: S3Config | undefined;
}

export interface S3Config {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
}

export interface WebhookConfig {
  /** Accept `http://` endpoint URLs (always accepted in development). */
  readonly allowHttp: boolean;
  /** Deliver to loopback, private and link-local addresses (development and tests only). */
  readonly allowPrivate: boolean;
  /** Seconds between attempts: attempt n + 1 waits retrySchedule[n - 1]; after the last, the delivery has failed. */
  readonly retrySchedule: readonly number[];
  /** An endpoint whose every attempt failed for this long is disabled. */
  readonly disableAfterMs: number;
  readonly eventRetentionDays: number;
  /** The change feed's deletions are pruned with the events, after this many days (`CHANGE_RETENTION_DAYS`). */
  readonly changeRetentionDays?: number;
  /** Deliveries in flight per process, and per endpoint per process. */
  readonly maxConcurrent: number;
  /** While this process's event loop is saturated (by API requests), deliveries started per 50 ms. */
  readonly startsWhileSaturated: number;
  readonly maxConcurrentPerEndpoint: number;
  /** Deliveries in flight per account per process: one account's slow receivers take at most this share. */
  readonly maxConcurrentPerAccount: number;
  readonly pollMs: number;
  /** An attempt's whole time limit (connect, send, answer). */
  readonly timeoutMs: number;
  /** How long a worker holds a claimed attempt; a worker that died releases it by this lapsing. */
  readonly leaseMs: number;
}

/** Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours in all). */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const NODE_ENVS = ['development', 'production', 'test'] as const;
export const DEFAULT_SQLITE_PATH = './data/bms.sqlite';

/**
 * `TRUST_PROXY`: false (default), a number of proxy hops, `true` (one hop: the proxy in front), or a
 * comma-separated list of the proxies' addresses or CIDR ranges.
 */
function parseTrustProxy(value: string | undefined, problems: string[]): false | number | string {
  const text = (value ?? 'false').trim();
  if (text === 'false' || text === '' || text === '0') return false;
  if (text === 'true') return 1;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    const [address, prefix, ...rest] = entry.split('/');
    return (
      rest.length === 0 &&
      address !== undefined &&
      isIP(address) !== 0 &&
      (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (isIP(address) === 4 ? 32 : 128)))
    );
  });
  if (!valid)
    problems.push(
      'TRUST_PROXY must be false, a number of proxy hops (e.g. 1), or comma-separated proxy addresses or CIDR ranges (e.g. 10.0.0.1,10.1.0.0/16)',
    );
  return entries.join(',');
}

/** Parses `DATABASE_URL`: empty for the embedded SQLite file, `sqlite:PATH`, or `postgres://…`. */
export function parseDatabaseUrl(value: string | undefined): DatabaseConfig {
  if (value === undefined || value.trim() === '') return { kind: 'sqlite', path: path.resolve(DEFAULT_SQLITE_PATH) };
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    try {
      new URL(value);
    } catch {
      throw new Error('DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: value, poolMax: 10 };
  }
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new Error('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/bms.sqlite');
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  throw new Error('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
}

function parseUrlSetting(name: string, value: string | undefined, protocols: string[], problems: string[]) {
  if (value === undefined || value === '') return undefined;
  try {
    const url = new URL(value);
    if (!protocols.includes(url.protocol)) problems.push(`${name} must use one of ${protocols.join(', ')}`);
  } catch {
    problems.push(`${name} is not a valid URL`);
  }
  return value;
}

function wholeNumber(
  name: string,
  value: string | undefined,
  fallback: number,
  minimum: number,
  maximum: number,
  problems: string[],
): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < minimum || parsed > maximum) {
    problems.push(`${name} must be a whole number from ${minimum} to ${maximum}, got "${value}"`);
    return fallback;
  }
  return parsed;
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];

  const nodeEnv = (env.NODE_ENV ?? 'development') as Config['nodeEnv'];
  if (!NODE_ENVS.includes(nodeEnv)) problems.push(`NODE_ENV must be one of ${NODE_ENVS.join(', ')}`);

  const port = wholeNumber('PORT', env.PORT, 3000, 0, 65535, problems);

  const host = env.HOST ?? '127.0.0.1';
  if (host.trim() === '') problems.push('HOST must not be empty');

  let database: DatabaseConfig = { kind: 'sqlite', path: path.resolve(DEFAULT_SQLITE_PATH) };
  try {
    database = parseDatabaseUrl(env.DATABASE_URL);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const poolMax = wholeNumber('DATABASE_POOL_MAX', env.DATABASE_POOL_MAX, 10, 1, 1000, problems);
  if (database.kind === 'postgres') database = { ...database, poolMax };

  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const mailFrom = env.MAIL_FROM ?? 'no-reply@bms.localhost';
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(mailFrom))
    problems.push('MAIL_FROM must be a bare e-mail address, e.g. billing@example.com');

  const pepper = env.API_KEY_PEPPER === '' ? undefined : env.API_KEY_PEPPER;
  if (pepper !== undefined && pepper.length < 16) problems.push('API_KEY_PEPPER must be at least 16 characters');

  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);

  const bootstrapText = env.BMS_BOOTSTRAP_KEY ?? (nodeEnv === 'development' ? 'true' : 'false');
  if (!['true', 'false'].includes(bootstrapText)) problems.push('BMS_BOOTSTRAP_KEY must be true or false');

  const booleanSetting = (name: string, value: string | undefined, fallback: boolean): boolean => {
    if (value === undefined || value === '') return fallback;
    if (!['true', 'false'].includes(value)) problems.push(`${name} must be true or false`);
    return value === 'true';
  };
  let retrySchedule = DEFAULT_RETRY_SCHEDULE;
  if (env.WEBHOOK_RETRY_SCHEDULE !== undefined && env.WEBHOOK_RETRY_SCHEDULE !== '') {
    const parts = env.WEBHOOK_RETRY_SCHEDULE.split(',').map((part) => part.trim());
    if (parts.length > 20 || !parts.every((part) => /^\d{1,6}$/.test(part)))
      problems.push(
        'WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated whole numbers of seconds, e.g. 5,300,1800',
      );
    else retrySchedule = parts.map(Number);
  }
  const changeRetentionDays = wholeNumber('CHANGE_RETENTION_DAYS', env.CHANGE_RETENTION_DAYS, 90, 1, 3650, problems);
  const webhooks: WebhookConfig = {
    changeRetentionDays,
    allowHttp: booleanSetting('WEBHOOK_ALLOW_HTTP', env.WEBHOOK_ALLOW_HTTP, nodeEnv === 'development'),
    allowPrivate: booleanSetting('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE, false),
    retrySchedule,
    disableAfterMs:
      wholeNumber(
        'WEBHOOK_DISABLE_AFTER_SECONDS',
        env.WEBHOOK_DISABLE_AFTER_SECONDS,
        259_200,
        1,
        31_536_000,
        problems,
      ) * 1000,
    eventRetentionDays: wholeNumber('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 90, 90, 3650, problems),
    maxConcurrent: wholeNumber('WEBHOOK_MAX_CONCURRENT', env.WEBHOOK_MAX_CONCURRENT, 32, 1, 1000, problems),
    startsWhileSaturated: wholeNumber(
      'WEBHOOK_STARTS_WHILE_SATURATED',
      env.WEBHOOK_STARTS_WHILE_SATURATED,
      1,
      1,
      1000,
      problems,
    ),
    maxConcurrentPerEndpoint: wholeNumber(
      'WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT',
      env.WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT,
      4,
      1,
      100,
      problems,
    ),
    maxConcurrentPerAccount: wholeNumber(
      'WEBHOOK_MAX_CONCURRENT_PER_ACCOUNT',
      env.WEBHOOK_MAX_CONCURRENT_PER_ACCOUNT,
      8,
      1,
      1000,
      problems,
    ),
    pollMs: wholeNumber('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, 500, 10, 3_600_000, problems),
    timeoutMs: wholeNumber('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000, 100, 10_000, problems),
    leaseMs: wholeNumber('WEBHOOK_LEASE_MS', env.WEBHOOK_LEASE_MS, 30_000, 200, 3_600_000, problems),
  };
  if (webhooks.leaseMs <= webhooks.timeoutMs) problems.push('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS');

  const outbox = {
    pollMs: wholeNumber('OUTBOX_POLL_MS', env.OUTBOX_POLL_MS, 1000, 10, 3_600_000, problems),
    leaseMs: wholeNumber('OUTBOX_LEASE_MS', env.OUTBOX_LEASE_MS, 60_000, 100, 86_400_000, problems),
    retryBaseMs: wholeNumber('OUTBOX_RETRY_BASE_MS', env.OUTBOX_RETRY_BASE_MS, 5000, 1, 3_600_000, problems),
    maxAttempts: wholeNumber('OUTBOX_MAX_ATTEMPTS', env.OUTBOX_MAX_ATTEMPTS, 8, 1, 100, problems),
  };

  const pdf = {
    // One core stays with the API's event loop.
    threads: wholeNumber(
      'PDF_RENDER_THREADS',
      env.PDF_RENDER_THREADS,
      Math.max(1, availableParallelism() - 1),
      1,
      64,
      problems,
    ),
    timeoutMs: wholeNumber('PDF_RENDER_TIMEOUT_MS', env.PDF_RENDER_TIMEOUT_MS, 20_000, 100, 600_000, problems),
    // Renders and e-invoice validations yield the CPU to the event loop serving requests (Linux).
    nice: wholeNumber('PDF_THREAD_NICE', env.PDF_THREAD_NICE, 10, 0, 19, problems),
  };

  const publicBaseUrl = (
    parseUrlSetting('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL, ['http:', 'https:'], problems) ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');

  // Metrics: off unless a token long enough not to be guessed is set.
  const metricsToken = env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN;
  if (metricsToken !== undefined && !/^[\x21-\x7e]{32,}$/.test(metricsToken))
    problems.push(
      'METRICS_TOKEN must be at least 32 printable characters without spaces, e.g. the output of: openssl rand -hex 32',
    );
  const testClockText = env.BMS_TEST_CLOCK ?? 'false';
  if (!['true', 'false', ''].includes(testClockText)) problems.push('BMS_TEST_CLOCK must be true or false');
  if (testClockText === 'true' && nodeEnv === 'production')
    problems.push(
      "BMS_TEST_CLOCK=true is refused with NODE_ENV=production: the test clock lets anyone move the server's time; it is for test suites only (NODE_ENV=test)",
    );
  const webConcurrency = wholeNumber('WEB_CONCURRENCY', env.WEB_CONCURRENCY, 1, 1, 64, problems);

  const compileSchemas = env.COMPILE_SCHEMAS || 'at-start';
  if (compileSchemas !== 'at-start' && compileSchemas !== 'on-first-use')
    problems.push('COMPILE_SCHEMAS must be at-start or on-first-use');

  const attachmentStore =
    env.ATTACHMENTS_STORE === undefined || env.ATTACHMENTS_STORE === '' ? 'local' : env.ATTACHMENTS_STORE;
  if (attachmentStore !== 'local' && attachmentStore !== 's3') problems.push('ATTACHMENTS_STORE must be local or s3');
  let s3: S3Config | undefined;
  if (attachmentStore === 's3') {
    const bucket = env.S3_BUCKET ?? '';
    if (bucket === '') problems.push('S3_BUCKET is required with ATTACHMENTS_STORE=s3');
    s3 = {
      endpoint: parseUrlSetting('S3_ENDPOINT', env.S3_ENDPOINT, ['http:', 'https:'], problems),
      region: env.S3_REGION || 'us-east-1',
      bucket,
      accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: booleanSetting('S3_FORCE_PATH_STYLE', env.S3_FORCE_PATH_STYLE, false),
    };
  }
  const attachments: AttachmentsConfig = {
    store: attachmentStore === 's3' ? 's3' : 'local',
    directory: path.resolve(env.ATTACHMENTS_DIR || './data/attachments'),
    maxBytes: wholeNumber(
      'ATTACHMENT_MAX_BYTES',
      env.ATTACHMENT_MAX_BYTES,
      25 * 1024 * 1024,
      1,
      100 * 1024 * 1024,
      problems,
    ),
    sharedBytesPerSecond: wholeNumber(
      'ATTACHMENT_SHARED_BYTES_PER_SECOND',
      env.ATTACHMENT_SHARED_BYTES_PER_SECOND,
      64 * 1024 * 1024,
      0,
      1024 * 1024 * 1024 * 1024,
      problems,
    ),
    s3,
  };

  const config: Config = {
    nodeEnv,
    port,
    host,
    database,
    redisUrl: parseUrlSetting('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:'], problems),
    smtpUrl: parseUrlSetting('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:'], problems),
    mailFrom,
    outboxDirectory: path.resolve(env.OUTBOX_DIR ?? './data/outbox'),
    outbox,
    pdf,
    logLevel,
    apiKeyPepper: pepper,
    trustProxy,
    requestTimeoutMs: wholeNumber('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30_000, 500, 600_000, problems),
    maxConnectionsPerIp: wholeNumber('MAX_CONNECTIONS_PER_IP', env.MAX_CONNECTIONS_PER_IP, 256, 0, 1_000_000, problems),
    webConcurrency,
    overloadMaxEventLoopDelayMs: wholeNumber(
      'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS',
      env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      200,
      0,
      60_000,
      problems,
    ),
    bootstrapKey: bootstrapText === 'true',
    compileSchemas: compileSchemas === 'on-first-use' ? 'on-first-use' : 'at-start',
    webhooks,
    publicBaseUrl,
    oauth: {
      accessTokenTtlSeconds: wholeNumber(
        'OAUTH_ACCESS_TOKEN_TTL_SECONDS',
        env.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
        3600,
        60,
        86_400,
        problems,
      ),
      refreshReuseGraceSeconds: wholeNumber(
        'OAUTH_REFRESH_REUSE_GRACE_SECONDS',
        env.OAUTH_REFRESH_REUSE_GRACE_SECONDS,
        60,
        0,
        300,
        problems,
      ),
    },
    metricsToken,
    changeRetentionDays,
    testClock: testClockText === 'true' && nodeEnv === 'test',
    attachments,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
