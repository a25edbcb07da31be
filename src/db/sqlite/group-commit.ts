// Group commit for SQLite. The writes of concurrent requests that arrive in the same event-loop turn commit
// in one SQLite transaction (one fsync), each transaction of theirs inside its own SAVEPOINT, so a failure
// rolls back that transaction's work alone. Nobody is answered before the batch holding their writes is
// durable: a transaction's commit, and a write outside a transaction, resolve only once COMMIT returned and
// the write-ahead log was fdatasync'ed (off the event loop, one sync for every batch committed before it).
// The batch commits at the end of the turn after the one that opened it (two setImmediates: the poll phase
// between them reads what else has arrived), never after a fixed delay: a request alone waits for nothing
// but one more pass of an idle event loop and its own commit. Reads outside a transaction go to a second, read-only
// connection that sees committed data only, never a batch still open.
import fs from 'node:fs';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { Checkpointer } from './sqlite-checkpoint.js';
import { closeIdleSnapshots } from './sqlite-snapshot.js';
import type { RowStatement, StatementCache } from './sqlite-statements.js';

/** One SQLite transaction shared by every write of an event-loop turn. */
class Batch {
  readonly durable: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A batch nobody waits for (its only write failed) must not be an unhandled rejection.
    this.durable.catch(() => {});
  }
}

/** Statements SQLite refuses inside a transaction, or that change the connection rather than the data. */
const CONNECTION_STATEMENT = /^\s*(pragma|vacuum|attach|detach)\b/i;

/** What may be read on the read connection: queries (DDL or DML are never compiled there). */
const QUERY = /^\s*(select|with)\b/i;

/**
 * Work a module leaves to the end of each batch, in the batch's transaction (issue 36: the events and their
 * webhook fan-out, the clients' search rows), in the order registered: `setup` runs once on each writer connection (TEMP tables only: the schema may
 * not be migrated yet); requests fill the table `pending` reads (a TEMP table, or a table of the schema that
 * a trigger fills; either way a request's rollback to its savepoint takes its rows back); `apply` runs just
 * before COMMIT when `pending` finds a row, and `clear` after it. Until `pending`'s table exists (a database
 * not migrated yet), the work is skipped. Registered at import.
 */
export interface BatchWork {
  setup: string[];
  pending: string;
  /** One statement, or several run in order. */
  apply: string | string[];
  clear: string;
}

const batchWork: BatchWork[] = [];

export function registerBatchWork(work: BatchWork): void {
  batchWork.push(work);
}

/**
 * Large writes in turn: at most one of them queues for the writer at a time, the next only once the one before
 * has ended, so a write that arrived meanwhile goes before the next (`oneLargeWriteAtATime`, db/engine.ts).
 */
class Turnstile {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  async pass<T>(work: () => Promise<T>): Promise<T> {
    while (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      return await work();
    } finally {
      this.busy = false;
      this.waiting.shift()?.();
    }
  }
}

/** The writer connection, its open batch, and who is using it. */
export class GroupCommit {
  readonly largeWrites = new Turnstile();
  private batch: Batch | undefined;
  private flushQueued = false;
  private flushBlocked = false;
  private locked = false;
  private readonly waiting: Array<() => void> = [];
  /** Batches committed, for the tests and the benchmark's figures. */
  committed = 0;
  /** Keeps the FTS5 indexes in few segments after commits (db/sqlite/sqlite-index-tidy.ts); absent for `:memory:`. */
  tidy: { committed(): void; close(): Promise<void> } | undefined;

  /** Batches committed but not yet on disk, waiting for the next fdatasync of the write-ahead log. */
  private unsynced: Batch[] = [];
  private syncing = false;

  constructor(
    private readonly writer: StatementCache,
    /** Absent for `:memory:`, whose second connection would be another database. */
    private readonly reader: StatementCache | undefined,
    /** The write-ahead log's path, to fdatasync after each commit; absent for `:memory:`, which has no disk. */
    walPath: string | undefined,
    /** Checkpoints the log off the event loop after commits (db/sqlite/sqlite-checkpoint.ts); absent for `:memory:`. */
    private readonly checkpointer?: Checkpointer,
  ) {
    this.wal = walPath === undefined ? undefined : new LogFile(walPath);
    // Each request's savepoint keeps the original of every page it changes in a sub-journal, which SQLite
    // spills to a temporary file past 64 KB (temp_store's default, FILE, in this build): a create touches
    // about 25 pages (the client's table and indexes, its search index, the event's), so every request
    // wrote and read a temporary file. In memory the sub-journal costs a copy: the SQL of a durable create
    // went from 117 to 65 µs of CPU, with 3 webhook endpoints from 216 to 121 (issue 36, measured).
    // Temporary tables and large sorts live in memory too; no query of the API makes one large.
    writer.connection.pragma('temp_store = memory');
  }

  /** How many of the registered BatchWorks have their TEMP tables on the writer. */
  private batchWorkSetUp = 0;

  /** Each registered BatchWork's `pending` statement, prepared on the writer at the first batch that needs it. */
  private readonly batchStatements = new Map<BatchWork, RowStatement>();

  /** Runs the registered work whose pending table holds rows of this batch; before COMMIT, in the batch. */
  private applyBatchWork(): void {
    for (const work of batchWork) {
      if (!this.hasPending(work)) continue;
      if (typeof work.apply === 'string') this.writer.prepare(work.apply).run([]);
      else for (const statement of work.apply) this.writer.prepare(statement).run([]);
      this.writer.prepare(work.clear).run([]);
    }
  }

  /** Whether `work`'s pending table holds a row; false while the table does not exist (migrations run in batches too). */
  private hasPending(work: BatchWork): boolean {
    try {
      let pending = this.batchStatements.get(work);
      if (!pending) {
        pending = this.writer.prepare(work.pending);
        this.batchStatements.set(work, pending);
      }
      return pending.all([]).length > 0;
    } catch (error) {
      if (!/^no such table/.test((error as Error).message)) throw error;
      this.batchStatements.delete(work);
      return false;
    }
  }

  private readonly wal: LogFile | undefined;

  /** Waits for the writer; a transaction keeps it from BEGIN to its RELEASE. */
  async lock(): Promise<void> {
    while (this.locked) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.locked = true;
  }

  /**
   * Waits for the writer and commits the open batch, so that the transaction begun next opens a batch of its
   * own: a large write begins so, and the writes already in the batch are not held until it ends.
   */
  commitOpenBatch(): Promise<void> {
    return this.whileWriterIdle(async () => {});
  }

  unlock(): void {
    this.locked = false;
    // A turn's end that found the writer taken commits as soon as it is free.
    if (this.flushBlocked) {
      this.flushBlocked = false;
      this.flush();
    }
    this.waiting.shift()?.();
  }

  /** The open batch, begun now if there is none. Call it holding the writer. */
  enterBatch(): Batch {
    if (this.batch) return this.batch;
    // Outside any transaction, so a batch's rollback cannot take a TEMP table with it.
    for (; this.batchWorkSetUp < batchWork.length; this.batchWorkSetUp += 1)
      for (const statement of batchWork[this.batchWorkSetUp]!.setup) this.writer.connection.exec(statement);
    // BEGIN IMMEDIATE takes the write lock up front (waiting its turn behind another process, busy_timeout):
    // SQLite's default BEGIN would fail at once (SQLITE_BUSY_SNAPSHOT) on a read made stale by another process.
    this.writer.connection.exec('begin immediate');
    this.batch = new Batch();
    if (!this.flushQueued) {
      this.flushQueued = true;
      // Not at this turn's end but the next's: under load the next poll phase brings more requests into the
      // batch (durable create: 252–273 → 212–228 µs CPU per request, issue 36), and with nothing else to do
      // the loop comes round again at once (one connection creating in a row: ~1,000 req/s before and after).
      setImmediate(() =>
        setImmediate(() => {
          this.flushQueued = false;
          this.flush();
        }),
      );
    }
    return this.batch;
  }

  /**
   * Runs `work` holding the writer with no batch open (the open one committed first): for another connection's
   * write to this file (the FTS5 indexes' tidy, db/sqlite/sqlite-index-tidy.ts), which the server's writes then
   * wait for as for each other, never in a `BEGIN IMMEDIATE` blocking the event loop.
   */
  async whileWriterIdle<T>(work: () => Promise<T>): Promise<T> {
    await this.lock();
    try {
      this.commitBatch();
      return await work();
    } finally {
      this.unlock();
    }
  }

  /** Commits the open batch unless a transaction is in the middle of it (then when it releases the writer). */
  flush(): void {
    if (!this.batch) return;
    if (this.locked) {
      this.flushBlocked = true;
      return;
    }
    this.commitBatch();
  }

  /** Commits the open batch (none of its transactions in the middle of it). */
  private commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.applyBatchWork();
      this.writer.connection.exec('commit');
      this.committed += 1;
    } catch (error) {
      this.abandon(batch, error as Error);
      return;
    }
    this.checkpointer?.committed();
    this.tidy?.committed();
    if (!this.wal) return batch.resolve();
    this.unsynced.push(batch);
    this.sync();
  }

  /**
   * COMMIT wrote the batch to the write-ahead log (synchronous=NORMAL: no fsync on the event loop); it is
   * durable once the log is fdatasync'ed, which runs on libuv's thread pool while the next batches are
   * made. One fdatasync at a time covers every batch committed before it began.
   */
  private sync(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    this.syncing = true;
    const covered = this.unsynced;
    this.unsynced = [];
    void this.wal!.datasync()
      .then(
        () => {
          for (const batch of covered) batch.resolve();
        },
        (error: Error) => {
          for (const batch of covered) batch.reject(error);
        },
      )
      .finally(() => {
        this.syncing = false;
        this.sync();
      });
  }

  /** The batch cannot commit: everyone who wrote in it is told, and the transaction, if still open, undone. */
  private abandon(batch: Batch, error: Error): void {
    if (this.batch === batch) this.batch = undefined;
    try {
      if (this.writer.connection.inTransaction) this.writer.connection.exec('rollback');
    } catch {
      // Nothing more to undo: the rejection below carries the cause.
    }
    batch.reject(error);
  }

  /**
   * Runs one statement on the writer (held by the caller). When the statement's error made SQLite roll the
   * whole transaction back (disk full, I/O error), the batch is lost for everyone in it.
   */
  run(query: CompiledQuery): QueryResult<unknown> {
    try {
      return execute(this.writer.prepare(query.sql), query);
    } catch (error) {
      const batch = this.batch;
      if (batch && !this.writer.connection.inTransaction) this.abandon(batch, error as Error);
      throw error;
    }
  }

  /** Whether `batch` is still the open one (not committed, nor lost to an error). */
  isOpen(batch: Batch): boolean {
    return this.batch === batch;
  }

  /** Whether a statement changes nothing, asked of the writer (where there is no read connection). */
  isReadonlyOnWriter(sqlText: string): boolean {
    return this.writer.prepare(sqlText).readonly;
  }

  /** A statement that changes nothing, on the read connection, or undefined when it must go to the writer. */
  readStatement(sqlText: string): RowStatement | undefined {
    if (!this.reader || !QUERY.test(sqlText)) return undefined;
    const statement = this.reader.prepare(sqlText);
    return statement.readonly ? statement : undefined;
  }

  /** Commits what is open, waits until it is on disk, and closes both connections. */
  async close(): Promise<void> {
    await this.tidy?.close();
    this.flush();
    while (this.syncing || this.unsynced.length > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    await this.checkpointer?.close();
    await this.wal?.close();
    if (this.reader) closeIdleSnapshots(this.reader);
    this.reader?.connection.close();
    this.writer.connection.close();
  }
}

/**
 * The write-ahead log, opened once at its first sync and kept: SQLite deletes and remakes it only when its
 * last connection closes, and this process keeps its own open until it closes the database.
 */
class LogFile {
  private descriptor: Promise<number> | undefined;

  constructor(private readonly file: string) {}

  async datasync(): Promise<void> {
    this.descriptor ??= new Promise<number>((resolve, reject) =>
      fs.open(this.file, 'r', (error, fd) => (error ? reject(error) : resolve(fd))),
    ).catch((error: unknown) => {
      this.descriptor = undefined;
      throw error;
    });
    const fd = await this.descriptor;
    await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    const descriptor = this.descriptor;
    this.descriptor = undefined;
    if (descriptor) fs.closeSync(await descriptor.catch(() => -1));
  }
}

function execute(statement: RowStatement, query: CompiledQuery): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(query.parameters) };
  const { changes, lastInsertRowid } = statement.run(query.parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

/** Each request's savepoint in its batch, compiled once (not a new query node per request). */
const SAVEPOINT = CompiledQuery.raw('savepoint work');
const RELEASE = CompiledQuery.raw('release work');
const ROLLBACK_TO = CompiledQuery.raw('rollback to work');

/**
 * One use of the database as Kysely sees it (a query, or a transaction from begin to release). The writer
 * is taken only for what needs it, so reads outside a transaction never wait for a transaction.
 */
class Lease implements DatabaseConnection {
  private transaction: Batch | undefined;
  private holding = false;

  constructor(private readonly group: GroupCommit) {}

  async begin(): Promise<void> {
    await this.group.lock();
    this.holding = true;
    try {
      this.transaction = this.group.enterBatch();
      this.group.run(SAVEPOINT);
    } catch (error) {
      this.release();
      throw error;
    }
  }

  /** Releases the savepoint into the batch, frees the writer for the next request, then waits for COMMIT. */
  async commit(): Promise<void> {
    const batch = this.transaction!;
    this.group.run(RELEASE);
    this.transaction = undefined;
    this.release();
    await batch.durable;
  }

  rollback(): void {
    const batch = this.transaction;
    this.transaction = undefined;
    try {
      // Unless the failure took the whole batch with it (then the batch's writers have been told).
      if (batch && this.group.isOpen(batch)) {
        this.group.run(ROLLBACK_TO);
        this.group.run(RELEASE);
      }
    } finally {
      this.release();
    }
  }

  release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.group.unlock();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.transaction) return this.group.run(query) as QueryResult<R>;
    const reading = this.group.readStatement(query.sql);
    if (reading) return execute(reading, query) as QueryResult<R>;
    await this.group.lock();
    let batch: Batch | undefined;
    let result: QueryResult<unknown>;
    try {
      // A write outside any transaction is a transaction of one statement in the batch (SQLite undoes a
      // failed statement alone); a PRAGMA and the like run as they are.
      if (!CONNECTION_STATEMENT.test(query.sql) && !this.group.isReadonlyOnWriter(query.sql))
        batch = this.group.enterBatch();
      result = this.group.run(query);
    } finally {
      this.group.unlock();
    }
    if (batch) await batch.durable;
    return result as QueryResult<R>;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only SELECT queries');
    // Collected first: the writer is not held across the consumer's awaits.
    const { rows } = await this.executeQuery<R>(query);
    for (const row of rows) yield { rows: [row] };
  }
}

class GroupCommitDriver implements Driver {
  constructor(private readonly group: GroupCommit) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.group);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as Lease).begin();
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as Lease).commit();
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Lease).rollback();
  }
  async savepoint(): Promise<void> {
    throw new Error('nested transactions are joined (inTransaction), not savepointed');
  }
  async rollbackToSavepoint(): Promise<void> {
    throw new Error('nested transactions are joined (inTransaction), not savepointed');
  }
  async releaseSavepoint(): Promise<void> {
    throw new Error('nested transactions are joined (inTransaction), not savepointed');
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Lease).release();
  }
  async destroy(): Promise<void> {
    await this.group.close();
  }
}

const groups = new WeakMap<object, GroupCommit>();

/** How many batches a database opened by `openSqlite` has committed (undefined on PostgreSQL): tests' evidence. */
export function committedBatches(db: object): number | undefined {
  return groups.get(db)?.committed;
}

/**
 * Runs `work` in the turnstile of large writes of a database opened by `openSqlite`, after the batch open when
 * its turn came has committed; at once on PostgreSQL.
 */
export function inLargeWriteTurn<T>(db: object, work: () => Promise<T>): Promise<T> {
  const group = groups.get(db);
  if (!group) return work();
  return group.largeWrites.pass(async () => {
    await group.commitOpenBatch();
    return work();
  });
}

export function registerGroupCommit(db: object, group: GroupCommit): void {
  groups.set(db, group);
}

/** Kysely's SQLite dialect (its compiler, adapter and introspector) over the group-commit driver. */
export class GroupCommitDialect extends SqliteDialect {
  constructor(private readonly group: GroupCommit) {
    super({ database: undefined as never });
  }
  override createDriver(): Driver {
    return new GroupCommitDriver(this.group);
  }
}
