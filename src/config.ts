// The only reader of the environment: every setting is parsed and validated once, at start-up.
import path from 'node:path';

export type DatabaseConfig =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; poolMax: number };

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
  readonly logLevel: LogLevel;
  /** Optional secret mixed into API-key hashes (HMAC-SHA256), so a stolen database alone cannot be brute-forced. */
  readonly apiKeyPepper: string | undefined;
  /** Worker processes sharing the port (node:cluster); 1 runs the server in this process. */
  readonly webConcurrency: number;
  /** Shed API requests with 503 while the event loop lags more than this (ms, mean over 250 ms); 0: never. */
  readonly overloadMaxEventLoopDelayMs: number;
  /** Behind a reverse proxy: take the client's IP from X-Forwarded-For (used to limit failed authentication). */
  readonly trustProxy: boolean;
  /** Development convenience: on an empty database, create a default account and print an all-scopes key. */
  readonly bootstrapKey: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const NODE_ENVS = ['development', 'production', 'test'] as const;
export const DEFAULT_SQLITE_PATH = './data/bms.sqlite';

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

function wholeNumber(name: string, value: string | undefined, fallback: number, minimum: number, maximum: number, problems: string[]): number {
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
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(mailFrom)) problems.push('MAIL_FROM must be a bare e-mail address, e.g. billing@example.com');

  const pepper = env.API_KEY_PEPPER === '' ? undefined : env.API_KEY_PEPPER;
  if (pepper !== undefined && pepper.length < 16) problems.push('API_KEY_PEPPER must be at least 16 characters');

  const trustProxyText = env.TRUST_PROXY ?? 'false';
  if (!['true', 'false'].includes(trustProxyText)) problems.push('TRUST_PROXY must be true or false');

  const bootstrapText = env.BMS_BOOTSTRAP_KEY ?? (nodeEnv === 'development' ? 'true' : 'false');
  if (!['true', 'false'].includes(bootstrapText)) problems.push('BMS_BOOTSTRAP_KEY must be true or false');

  const outbox = {
    pollMs: wholeNumber('OUTBOX_POLL_MS', env.OUTBOX_POLL_MS, 1000, 10, 3_600_000, problems),
    leaseMs: wholeNumber('OUTBOX_LEASE_MS', env.OUTBOX_LEASE_MS, 60_000, 100, 86_400_000, problems),
    retryBaseMs: wholeNumber('OUTBOX_RETRY_BASE_MS', env.OUTBOX_RETRY_BASE_MS, 5000, 1, 3_600_000, problems),
    maxAttempts: wholeNumber('OUTBOX_MAX_ATTEMPTS', env.OUTBOX_MAX_ATTEMPTS, 8, 1, 100, problems),
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
    logLevel,
    apiKeyPepper: pepper,
    trustProxy: trustProxyText === 'true',
    webConcurrency: wholeNumber('WEB_CONCURRENCY', env.WEB_CONCURRENCY, 1, 1, 64, problems),
    overloadMaxEventLoopDelayMs: wholeNumber('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, 200, 0, 60_000, problems),
    bootstrapKey: bootstrapText === 'true',
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
