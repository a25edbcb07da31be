// What an operation runs with: the database (or the transaction already open), the clock, the caller's
// account, who is acting, and where the client hub's links point. Routes build one per request; services pass it on,
// inside a transaction as `{ ...ctx, db: trx }` (see `inTransaction`).
import type { Clock } from '../core/deps.js';
import type { Executor } from '../db/index.js';
import type { Origin } from './operation-scope.js';

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

/**
 * Who caused a change, as every event records it (docs/api-contract.md §20): an API key over /v1, the same key
 * through the MCP server, the client on the hub, or the server's own work (`id` null but for keys).
 */
export interface Actor {
  readonly type: 'api_key' | 'mcp' | 'hub' | 'system' | 'app';
  readonly id: string | null;
  /** The app whose token acted (docs/api-contract.md §25): then `id` is its install's. Absent: null. */
  readonly app_id?: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };
export const HUB_ACTOR: Actor = { type: 'hub', id: null };

export interface Context extends Runtime {
  readonly accountId: string;
  /** Who is acting: set once where the request enters (contextOf, the hub, the MCP server, the workers). */
  readonly actor: Actor;
  /** The change set or import the operation is part of, which its events record (docs/api-contract.md §26). */
  readonly origin?: Origin | undefined;
}

/** Runs `work` in a transaction: the one `ctx` already holds, else a new one that commits when it resolves. */
export function inTransaction<C extends Runtime, T>(ctx: C, work: (tx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx }));
}
