// The SQLite engine (better-sqlite3): durable settings, BEGIN IMMEDIATE transactions, a statement cache
// and rows read as arrays. The default engine: one file, nothing to install.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import type { Tables } from './types.js';

/**
 * SQLite's default BEGIN takes the write lock only at the first write, and a transaction that read before
 * another process committed then fails at once (SQLITE_BUSY_SNAPSHOT) instead of waiting. Every BMS
 * transaction writes, so each starts with BEGIN IMMEDIATE: it waits its turn (busy_timeout) up front.
 */
class ImmediateTransactionDriver implements Driver {
  constructor(private readonly inner: Driver) {}
  init() {
    return this.inner.init();
  }
  acquireConnection() {
    return this.inner.acquireConnection();
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(connection);
  }
  /**
   * On some errors (disk full, I/O error, out of memory) SQLite rolls the transaction back itself; the
   * rollback then finds none, and its error must not hide the one that caused it.
   */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } catch (error) {
      if (!/no transaction is active/.test((error as Error).message)) throw error;
    }
  }
  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection(connection);
  }
  destroy() {
    return this.inner.destroy();
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new ImmediateTransactionDriver(super.createDriver());
  }
}

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares each query afresh: the
 * compile was a quarter of the CPU time of a GET. Statements are cached by SQL text (bounded, least
 * recently used out), which is safe because better-sqlite3 runs each one to completion synchronously.
 */
function withStatementCache(connection: SqliteDatabase.Database, size = 500) {
  const statements = new Map<string, RowStatement>();
  return {
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (statement) {
        statements.delete(sqlText);
      } else {
        statement = new RowStatement(connection.prepare(sqlText));
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sqlText, statement);
      return statement;
    },
    close: () => connection.close(),
  };
}

/**
 * What Kysely's SQLite driver uses of a statement. Rows are read as arrays and made into objects here:
 * better-sqlite3 builds each row object property by property, and a list of 25 clients took twice as
 * long that way (100 µs against 54 µs, measured).
 */
class RowStatement {
  readonly reader: boolean;
  private readonly names: string[] = [];

  constructor(private readonly statement: SqliteDatabase.Statement) {
    this.reader = statement.reader;
    if (this.reader) {
      statement.raw(true);
      this.names = statement.columns().map((column) => column.name);
    }
  }

  private toRow(values: unknown[]): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < this.names.length; index += 1) row[this.names[index]!] = values[index];
    return row;
  }

  all(parameters: unknown[]): Record<string, unknown>[] {
    return (this.statement.all(parameters) as unknown[][]).map((values) => this.toRow(values));
  }

  run(parameters: unknown[]): SqliteDatabase.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: unknown[]): IterableIterator<Record<string, unknown>> {
    for (const values of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield this.toRow(values);
  }
}

/**
 * The files a SQLite database needs writable (the database, its write-ahead log and shared-memory index,
 * and their folder, where SQLite creates them), each with whether it is writable now. A `-shm` file made
 * read-only kills the process with SIGBUS at its first write, so this is logged and checked at start.
 */
export function sqliteFiles(file: string): Array<{ path: string; writable: boolean }> {
  if (file === ':memory:') return [];
  return [path.dirname(file), file, `${file}-wal`, `${file}-shm`].map((entry) => {
    try {
      fs.accessSync(entry, fs.constants.W_OK);
      return { path: entry, writable: true };
    } catch (error) {
      // A file SQLite has not made yet is fine: its folder is checked.
      return { path: entry, writable: (error as NodeJS.ErrnoException).code === 'ENOENT' };
    }
  });
}

/** A SQLite file (or `:memory:`) in WAL mode with full fsync, foreign keys on, and a 5 s busy wait. */
export function openSqlite(file: string): Kysely<Tables> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new SqliteDatabase(file);
  // Durability: WAL with a full fsync on every commit, so an acknowledged write survives a power cut.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const journalMode = connection.pragma('journal_mode', { simple: true });
  if (file !== ':memory:' && journalMode !== 'wal') {
    throw new Error(`SQLite refused WAL mode (journal_mode is ${String(journalMode)})`);
  }
  // Kysely's driver calls only prepare() and close(), which the cache provides.
  return new Kysely<Tables>({
    dialect: new ImmediateSqliteDialect({
      database: withStatementCache(connection) as unknown as SqliteDatabase.Database,
    }),
  });
}
