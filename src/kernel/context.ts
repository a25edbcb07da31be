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
  /** Inside `inTransaction`'s own transaction: what `WorkOutside` did before this run, by key (see there). */
  readonly outside?: OutsideWork;
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

/** What `inTransaction` did outside the transaction before this run, and whether this run is its last. */
export interface OutsideWork {
  readonly done: ReadonlyMap<string, unknown>;
  /** No more `WorkOutside`: what is not in `done` is to be done in the transaction. */
  readonly last: boolean;
}

/**
 * Slow work a transaction needs done before it can finish, done outside any transaction so that no lock and no
 * writer is held for it (building and validating an e-invoice's files: docs/decisions.md "E-invoices: freezing
 * outside the writer"). Thrown inside `inTransaction`'s work when `tx.outside.done` has nothing under `key`: the
 * transaction rolls back, `run` runs, and the work runs again from the start with its answer under `key`. After
 * `OUTSIDE_ROUNDS` runs of `run` (what the work stands on kept changing) the next run is the last
 * (`tx.outside.last`): the thrower does in the transaction what it still misses, as in a transaction
 * `inTransaction` did not open (no `tx.outside`), so the operation always goes through.
 */
export class WorkOutside extends Error {
  constructor(
    readonly key: string,
    readonly run: (outside: Runtime) => Promise<unknown>,
  ) {
    super('work to do outside the transaction');
  }
}

const OUTSIDE_ROUNDS = 2;

/**
 * Runs `work` in a transaction: the one `ctx` already holds, else a new one that commits when it resolves (and
 * runs again after the `WorkOutside` it throws is done).
 */
export async function inTransaction<C extends Runtime, T>(ctx: C, work: (tx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  const done = new Map<string, unknown>();
  for (let round = 0; ; round += 1) {
    const outside: OutsideWork = { done, last: round === OUTSIDE_ROUNDS };
    try {
      return await ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx, outside }));
    } catch (error) {
      if (!(error instanceof WorkOutside) || outside.last) throw error;
      done.set(error.key, await error.run(ctx));
    }
  }
}
