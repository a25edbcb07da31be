// What an operation runs with: the database (or the transaction already open), the clock, the caller's
// account, and where the client hub's links point. Routes build one per request; services pass it on,
// inside a transaction as `{ ...ctx, db: trx }` (see `inTransaction`).
import type { Clock } from '../core/deps.js';
import type { Executor } from '../db/database.js';

/** What issuing a hub link needs from the configuration. */
export interface HostedLinks {
  /** `PUBLIC_BASE_URL`, without a trailing slash. */
  publicBaseUrl: string;
}

/** The process's reach, before an account is known (the hub finds it from a token). */
export interface Runtime {
  readonly db: Executor;
  readonly clock: Clock;
  readonly links: HostedLinks;
}

export interface Context extends Runtime {
  readonly accountId: string;
}

/** Runs `work` in a transaction: the one `ctx` already holds, else a new one that commits when it resolves. */
export function inTransaction<C extends Runtime, T>(ctx: C, work: (tx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx }));
}
