// A read snapshot on SQLite (docs/api-contract.md §26, exports): a connection of its own, read-only, in a read
// transaction begun by its first read. WAL keeps what it saw for as long as it lasts while writers go on, and the
// shared read connection (db/sqlite/sqlite.ts) is never held in a transaction by one long reader.
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Tables } from '../types.js';
import { readStatements, StatementCache } from './sqlite-statements.js';

/** Runs `work` in a snapshot of `db`'s file; without a file of its own (`:memory:`), on `db` itself. */
export async function sqliteReadSnapshot<T>(
  db: Kysely<Tables> | Transaction<Tables>,
  work: (snapshot: Kysely<Tables> | Transaction<Tables>) => Promise<T>,
): Promise<T> {
  const file = readStatements(db)?.connection.name;
  if (file === undefined) return work(db);
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  // Statements compiled once and kept, as on the shared connections: Kysely's own driver prepares every query
  // again. An export's 10,000 pages and a report's pieces run the same few statements again and again (a union of
  // a dozen ranges among them): each is compiled once, its rows read as arrays, and its sorts kept in memory.
  connection.pragma('temp_store = memory');
  const statements = new StatementCache(connection);
  const database = { prepare: (text: string) => statements.prepare(text), close: () => connection.close() };
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
