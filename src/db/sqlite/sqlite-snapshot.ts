// A read snapshot on SQLite (docs/api-contract.md §26, exports): a connection of its own, read-only, in a read
// transaction begun by its first read. WAL keeps what it saw for as long as it lasts while writers go on, and the
// shared read connection (db/sqlite/sqlite.ts) is never held in a transaction by one long reader.
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Tables } from '../types.js';
import { readStatements, StatementCache } from './sqlite-statements.js';

/**
 * Snapshot connections kept between snapshots, per database (by its read connection's statements), with their
 * compiled statements: opening a connection, reading the schema and compiling a report's dozen statements again
 * cost about a fifth of an aging report's time (docs/decisions.md, "Reports: aging summed by the database"). A kept
 * connection is outside any transaction, so its next snapshot sees the latest commit.
 */
const idle = new WeakMap<StatementCache, StatementCache[]>();
const IDLE_SNAPSHOTS = 2;

function snapshotConnection(file: string, reader: StatementCache): StatementCache {
  const kept = idle.get(reader)?.pop();
  if (kept) return kept;
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  // Statements compiled once and kept, as on the shared connections: Kysely's own driver prepares every query
  // again. An export's 10,000 pages and a report's pieces run the same few statements again and again (a union of
  // a dozen ranges among them): each is compiled once, its rows read as arrays, and its sorts kept in memory.
  connection.pragma('temp_store = memory');
  return new StatementCache(connection);
}

/** Keeps a snapshot's connection for the next (at most `IDLE_SNAPSHOTS`), or closes it. */
function release(reader: StatementCache, statements: StatementCache): void {
  const kept = idle.get(reader) ?? [];
  idle.set(reader, kept);
  if (reader.connection.open && !statements.connection.inTransaction && kept.length < IDLE_SNAPSHOTS)
    kept.push(statements);
  else statements.connection.close();
}

/** Closes the kept snapshot connections of a database, before its own connections close. */
export function closeIdleSnapshots(reader: StatementCache): void {
  for (const statements of idle.get(reader)?.splice(0) ?? []) statements.connection.close();
}

/** Runs `work` in a snapshot of `db`'s file; without a file of its own (`:memory:`), on `db` itself. */
export async function sqliteReadSnapshot<T>(
  db: Kysely<Tables> | Transaction<Tables>,
  work: (snapshot: Kysely<Tables> | Transaction<Tables>) => Promise<T>,
): Promise<T> {
  const reader = readStatements(db);
  if (reader === undefined) return work(db);
  const statements = snapshotConnection(reader.connection.name, reader);
  const database = {
    prepare: (text: string) => statements.prepare(text),
    close: () => release(reader, statements),
  };
  const snapshot = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  try {
    return await snapshot.transaction().execute(async (trx) => {
      // The snapshot is taken at the transaction's first read.
      await sql`select count(*) from sqlite_master`.execute(trx);
      return work(trx);
    });
  } finally {
    await snapshot.destroy();
  }
}
