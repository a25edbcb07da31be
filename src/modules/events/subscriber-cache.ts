// Who listens to an account's events, kept in memory per process (issue 36): the account's enabled endpoints'
// subscriptions, with the version of its endpoints they were read at. The database raises that version
// (accounts.webhook_endpoints_version, by trigger) on every insert, delete and change of status or
// subscription of an endpoint, from any process, so each event reads the version (one primary-key read in
// its own transaction) and reloads the list when it moved. An event nobody subscribes to then skips the
// fan-out statement; one somebody does runs it as before, and that statement alone decides who gets a
// delivery, so a stale list can only cost a statement, never lose or invent a delivery.
import { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from '../../db/database.js';
import { fromJson } from '../../db/values.js';

interface Subscribers {
  version: number;
  /** The enabled_events of each enabled endpoint. */
  subscriptions: string[][];
}

const MAX_ACCOUNTS = 10_000;
const cache = new Map<string, Subscribers>();

const VERSION_SQL = {
  sqlite: 'select webhook_endpoints_version as version from accounts where id = ?',
  postgres: 'select webhook_endpoints_version as version from accounts where id = $1',
};
const ENDPOINTS_SQL = {
  sqlite: "select enabled_events from webhook_endpoints where account_id = ? and status = 'enabled'",
  postgres: "select enabled_events from webhook_endpoints where account_id = $1 and status = 'enabled'",
};

/**
 * Whether any enabled endpoint of the account subscribes to one of `patterns` (the event's type, its
 * `resource.*` and `*`). Call it in the event's transaction.
 */
export async function hasSubscribers(db: Executor, accountId: string, patterns: readonly string[]): Promise<boolean> {
  const dialect = dialectOf(db);
  const version = Number(
    (await db.executeQuery<{ version: number }>(CompiledQuery.raw(VERSION_SQL[dialect], [accountId]))).rows[0]
      ?.version ?? 0,
  );
  let known = cache.get(accountId);
  if (known?.version !== version) {
    const rows = (
      await db.executeQuery<{ enabled_events: string }>(CompiledQuery.raw(ENDPOINTS_SQL[dialect], [accountId]))
    ).rows;
    known = { version, subscriptions: rows.map((row) => fromJson<string[]>(row.enabled_events)) };
    cache.delete(accountId);
    if (cache.size >= MAX_ACCOUNTS) cache.delete(cache.keys().next().value as string);
    cache.set(accountId, known);
  }
  return known.subscriptions.some((events) => patterns.some((pattern) => events.includes(pattern)));
}
