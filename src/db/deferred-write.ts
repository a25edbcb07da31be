// Deferred writes: work a module leaves to the commit of the transaction that made it, engine neutral. Where
// the engine gathers the commits of an event-loop turn into one transaction (SQLite's group commit,
// db/sqlite/group-commit.ts), the write is queued in the caller's transaction (a row of a TEMP table: a
// rollback takes it back) and applied for the whole batch just before it commits; elsewhere (PostgreSQL) it is
// written at once, in the caller's transaction. Either way it commits with its transaction or not at all, and
// before anyone is answered.
import { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { registerBatchWork, type BatchWork } from './sqlite/group-commit.js';

export interface DeferredWrite<Args extends unknown[]> {
  /**
   * The write where commits are gathered: the batch's statements (`setup`, `pending`, `apply`, `clear`: see
   * BatchWork, whose SQL is SQLite's), and `queue`, the statement that queues one write in the caller's
   * transaction, with the parameters it takes from the call's arguments.
   */
  gathered: BatchWork & { queue: { sql: string; parameters: (...args: Args) => unknown[] } };
  /** The write where commits are not gathered (PostgreSQL): done at once, in the caller's transaction. */
  now: (db: Executor, ...args: Args) => Promise<void>;
  /**
   * Several such writes at once where commits are not gathered, in their order (`now` for each when absent):
   * statements of many rows rather than a few statements a write (an import's chunk of creates).
   */
  nowMany?: (db: Executor, calls: readonly Args[]) => Promise<void>;
}

/** A deferred write's call, and `many`: several calls' writes at once (each queued where commits are gathered). */
export type DeferredWriteCall<Args extends unknown[]> = ((db: Executor, ...args: Args) => Promise<void>) & {
  many(db: Executor, calls: readonly Args[]): Promise<void>;
};

/**
 * The call that makes one deferred write. Call it once, when the module is loaded: the batch's statements
 * are registered with the group commit then, in the order of the calls.
 */
export function deferredWrite<Args extends unknown[]>(write: DeferredWrite<Args>): DeferredWriteCall<Args> {
  const { queue, ...batch } = write.gathered;
  registerBatchWork(batch);
  const one = async (db: Executor, ...args: Args) => {
    if (dialectOf(db) === 'sqlite') await db.executeQuery(CompiledQuery.raw(queue.sql, queue.parameters(...args)));
    else await write.now(db, ...args);
  };
  const many = async (db: Executor, calls: readonly Args[]) => {
    if (dialectOf(db) !== 'sqlite' && write.nowMany !== undefined) return write.nowMany(db, calls);
    for (const args of calls) await one(db, ...args);
  };
  return Object.assign(one, { many });
}
