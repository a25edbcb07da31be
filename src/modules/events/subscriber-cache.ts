// Who listens to an account's events, kept in memory per process (issue 36): the account's enabled endpoints'
// subscriptions, with the version of its endpoints they were read at. The database gives that version
// (accounts.webhook_endpoints_version, by trigger) a new random value on every insert, delete and change of
// status or subscription of an endpoint, from any process, so each event reads the version (one primary-key
// read in its own transaction) and reloads the list when it changed. Random, so that a version read in a
// transaction that rolled back is never given again to a committed change. An event nobody subscribes to then skips the
// fan-out statement; one somebody does runs it as before, and that statement alone decides who gets a
// delivery, so a stale list can only cost a statement, never lose or invent a delivery.
// PostgreSQL's path: on SQLite an event's deliveries are made with its group-commit batch, which reads the
// endpoints once for all its events (events.repository.ts, queueEvent).
import { type Executor, fromJson } from '../../db/index.js';
import { findEndpointsVersion, listEnabledSubscriptions } from './webhooks.repository.js';

interface Subscribers {
  version: number;
  /** The enabled_events of each enabled endpoint. */
  subscriptions: string[][];
}

const MAX_ACCOUNTS = 10_000;
const cache = new Map<string, Subscribers>();

/**
 * Whether any enabled endpoint of the account subscribes to one of `patterns` (the event's type, its
 * `resource.*` and `*`). Call it in the event's transaction.
 */
export async function hasSubscribers(db: Executor, accountId: string, patterns: readonly string[]): Promise<boolean> {
  const version = Number((await findEndpointsVersion(db, accountId))[0]?.version ?? 0);
  let known = cache.get(accountId);
  if (known?.version !== version) {
    const rows = await listEnabledSubscriptions(db, accountId);
    known = { version, subscriptions: rows.map((row) => fromJson<string[]>(row.enabled_events)) };
    cache.delete(accountId);
    if (cache.size >= MAX_ACCOUNTS) cache.delete(cache.keys().next().value as string);
    cache.set(accountId, known);
  }
  return known.subscriptions.some((events) => patterns.some((pattern) => events.includes(pattern)));
}
