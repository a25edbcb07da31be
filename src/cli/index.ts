// The `bms` command: accounts, API keys, apps, migrations, backups and the server. `--json` prints one JSON object.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { type Database, migrateToLatest, openDatabase } from '../db/index.js';
import { systemClock } from '../core/deps.js';
import { accountExists, createAccount, setAccountLimits } from '../modules/accounts/index.js';
import { createApiKey, listAccountApiKeys, revokeApiKey } from '../modules/api-keys/index.js';
import { setInstallLimits, suspend, unsuspend } from '../modules/apps/index.js';
import { parseScopeList } from '../kernel/scopes.js';
import { runFileCommand } from './backup.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: bms <command> [options]

Commands:
  accounts create --name NAME [--currency USD]
  accounts set-limits ID [--webhook-endpoints N|default] [--recurring-invoices N|default] [--attachment-bytes N|default]
  keys create --account ID --name NAME --scopes LIST [--expires-at ISO] [--per-minute N] [--per-day N] [--burst N]
  keys list --account ID
  keys revoke ID
  apps set-limits INSTALL_ID [--per-minute N|default] [--per-day N|default] [--burst N|default]
  apps suspend ID                 an app (every install of it uninstalled, no new one) or one install
  apps unsuspend APP_ID           an app may be installed again (its installs stay uninstalled)
  migrate
  backup --to FILE [--force]      a consistent copy of the SQLite database, while servers run
  restore --from FILE [--force]   a backup into DATABASE_URL's file (no server may hold it), migrated
  serve

LIST is comma-separated scopes (e.g. clients:read,clients:write) or "all".
Every command but serve takes --json to print one JSON object instead of prose.
The database is the one DATABASE_URL names (default: ./data/bms.sqlite).`;

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  currency: { type: 'string' },
  account: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  burst: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  force: { type: 'boolean' },
  'webhook-endpoints': { type: 'string' },
  'recurring-invoices': { type: 'string' },
  'attachment-bytes': { type: 'string' },
} as const;

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value;
}

function positiveInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new UsageError(`--${flag} must be a whole number from 1 to 999999999`);
  return Number(value);
}

/** A limit the operator sets: a whole number, `default` (null: §4's default), or absent (unchanged). */
function limitOrDefault(value: string | undefined, flag: string): number | null | undefined {
  return value === 'default' ? null : positiveInteger(value, flag);
}

/** A number of bytes: a whole number from 0 (nothing more may be uploaded) to 2^53 − 1. */
function byteCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${flag} must be a whole number of bytes, e.g. 10737418240 for 10 GiB`);
  return Number(value);
}

function timestamp(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new UsageError(`--${flag} must be an ISO 8601 timestamp, e.g. 2027-01-01T00:00:00Z`);
  return date;
}

/** What the operator's app commands act with: the database, the clock, and the links events may name. */
function operatorRuntime(database: Database) {
  return { db: database.db, clock: systemClock, links: { publicBaseUrl: loadConfig(process.env).publicBaseUrl } };
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

async function run(
  command: string,
  values: Values,
  positionals: string[],
  database: Database,
): Promise<{ json: object; text: string }> {
  const { db } = database;
  switch (command) {
    case 'migrate': {
      const applied = await migrateToLatest(db);
      return {
        json: { applied },
        text: applied.length
          ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
          : 'The database is up to date.',
      };
    }
    case 'accounts create': {
      await migrateToLatest(db);
      const account = await createAccount(db, systemClock, {
        name: required(values.name, 'name'),
        currency: values.currency,
      });
      return {
        json: { id: account.id, name: account.name, currency: account.currency },
        text: `Created account ${account.id} (${account.name}).`,
      };
    }
    case 'accounts set-limits': {
      await migrateToLatest(db);
      const id = positionals[2];
      if (!id) throw new UsageError('accounts set-limits needs the account id');
      const endpoints = values['webhook-endpoints'];
      const webhookEndpoints = endpoints === 'default' ? null : positiveInteger(endpoints, 'webhook-endpoints');
      const templates = values['recurring-invoices'];
      const recurringInvoices = templates === 'default' ? null : positiveInteger(templates, 'recurring-invoices');
      const bytes = values['attachment-bytes'];
      const attachmentBytes = bytes === 'default' ? null : byteCount(bytes, 'attachment-bytes');
      if (!(await accountExists(db, id).catch(() => false))) throw new UsageError(`No account with id ${id}`);
      const limits = await setAccountLimits(db, id, { webhookEndpoints, recurringInvoices, attachmentBytes });
      return {
        json: { id, limits },
        text: `Account ${id}: at most ${limits?.webhook_endpoints} webhook endpoints, ${limits?.recurring_invoices} recurring invoices not ended and ${limits?.attachment_bytes} bytes of attachments.`,
      };
    }
    case 'keys create': {
      await migrateToLatest(db);
      const accountId = required(values.account, 'account');
      const scopes = parseScopeList(required(values.scopes, 'scopes'));
      const rateLimits = {
        perMinute: positiveInteger(values['per-minute'], 'per-minute'),
        perDay: positiveInteger(values['per-day'], 'per-day'),
        burst: positiveInteger(values.burst, 'burst'),
      };
      const expiresAt = timestamp(values['expires-at'], 'expires-at');
      if (!(await accountExists(db, accountId).catch(() => false)))
        throw new UsageError(`No account with id ${accountId}`);
      const key = await createApiKey(db, systemClock, loadConfig(process.env).apiKeyPepper, {
        accountId,
        name: required(values.name, 'name'),
        scopes,
        expiresAt,
        rateLimits,
      });
      return {
        json: { id: key.id, key: key.key, prefix: key.prefix, scopes: key.scopes },
        text: `Created key ${key.id} with scopes ${key.scopes.join(',')}.\nAPI key (shown only now, store it safely): ${key.key}`,
      };
    }
    case 'keys list': {
      await migrateToLatest(db);
      const keys = await listAccountApiKeys(db, required(values.account, 'account'));
      const lines = keys.map(
        (key) =>
          `${key.id}  ${key.prefix}…  ${key.name}  ${key.revoked_at ? 'revoked' : 'active'}  ${key.scopes.join(',')}`,
      );
      return { json: { keys }, text: lines.length ? lines.join('\n') : 'No keys.' };
    }
    case 'keys revoke': {
      await migrateToLatest(db);
      const id = positionals[2];
      if (!id) throw new UsageError('keys revoke needs the key id');
      const key = await revokeApiKey(db, systemClock, id);
      if (!key) throw new UsageError(`No key with id ${id}`);
      return { json: { id: key.id, revoked_at: key.revoked_at }, text: `Revoked key ${key.id}.` };
    }
    case 'apps set-limits': {
      await migrateToLatest(db);
      const id = positionals[2];
      if (!id) throw new UsageError('apps set-limits needs the install id');
      const limits = {
        perMinute: limitOrDefault(values['per-minute'], 'per-minute'),
        perDay: limitOrDefault(values['per-day'], 'per-day'),
        burst: limitOrDefault(values.burst, 'burst'),
      };
      const install = await setInstallLimits(operatorRuntime(database), id, limits);
      if (!install) throw new UsageError(`No app install with id ${id}`);
      const shown = (value: number | null) => (value === null ? 'the default' : String(value));
      const { per_minute, per_day, burst } = install.rate_limits;
      return {
        json: install,
        text: `Install ${id}: ${shown(per_minute)} a minute, ${shown(per_day)} a day, burst ${shown(burst)}.`,
      };
    }
    case 'apps suspend': {
      await migrateToLatest(db);
      const id = positionals[2];
      if (!id) throw new UsageError('apps suspend needs the id of an app or an app install');
      const suspension = await suspend(operatorRuntime(database), id);
      if (!suspension) throw new UsageError(`No app or app install with id ${id}`);
      const count = suspension.uninstalled.length;
      return {
        json: suspension,
        text:
          suspension.object === 'app'
            ? `Suspended app ${id}: ${count} install(s) uninstalled; it cannot be installed or authorized again.`
            : `Suspended install ${id}: ${count === 1 ? 'uninstalled' : 'it was already uninstalled'}.`,
      };
    }
    case 'apps unsuspend': {
      await migrateToLatest(db);
      const id = positionals[2];
      if (!id) throw new UsageError('apps unsuspend needs the id of an app');
      const unsuspension = await unsuspend(operatorRuntime(database), id);
      if (!unsuspension) throw new UsageError(`No app with id ${id}`);
      if (unsuspension.object === 'app_install')
        throw new UsageError(
          `${id} is an app install: its suspension uninstalled it, which is final; the business installs the app anew once the app is unsuspended`,
        );
      return {
        json: unsuspension,
        text: unsuspension.lifted
          ? `Unsuspended app ${id}: it can be installed and authorized again; its installs stay uninstalled.`
          : `App ${id} was not suspended.`,
      };
    }
    default:
      throw new UsageError(`Unknown command: ${command || '(none)'}`);
  }
}

export async function runCli(
  argv: string[],
  output: Output = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  },
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = ['serve', 'migrate', 'backup', 'restore'].includes(positionals[0] ?? '')
    ? positionals[0]!
    : positionals.slice(0, 2).join(' ');
  if (values.help || positionals.length === 0) {
    output.out(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'serve') {
    // The server's modules are loaded only to serve: the other commands start in a fraction of the time.
    const { start } = await import('../main.js');
    await start(loadConfig(process.env));
    return 0;
  }
  let database: Database | undefined;
  try {
    const config = loadConfig(process.env);
    // Backup and restore work on the file itself: opening it here would create it, or hold it.
    if (command === 'backup' || command === 'restore') {
      const result = await runFileCommand(command, values, config.database);
      output.out(values.json ? JSON.stringify(result.json) : result.text);
      return 0;
    }
    database = openDatabase(config.database);
    const result = await run(command, values, positionals, database);
    output.out(values.json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (error) {
    const message =
      error instanceof ConfigError || error instanceof UsageError || error instanceof Error
        ? error.message
        : String(error);
    output.err(
      values.json
        ? JSON.stringify({ error: message })
        : `bms: ${message}${error instanceof UsageError ? `\n\n${USAGE}` : ''}`,
    );
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await database?.close();
  }
}
