// The SQLite engine (better-sqlite3): durable settings, group commit (db/sqlite/group-commit.ts), a statement cache
// and rows read as arrays. The default engine: one file, nothing to install.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import { GroupCommit, GroupCommitDialect, registerGroupCommit } from './group-commit.js';
import { Checkpointer } from './sqlite-checkpoint.js';
import { IndexTidy } from './sqlite-index-tidy.js';
import { registerReadStatements, StatementCache } from './sqlite-statements.js';
import type { Tables } from '../types.js';

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

/** A SQLite file (or `:memory:`) in WAL mode, group-committed, foreign keys on, and a 5 s busy wait. */
export function openSqlite(file: string): Kysely<Tables> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new SqliteDatabase(file);
  // Durability: WAL, and an fdatasync of the log after every commit before anyone is answered, so an
  // acknowledged write survives a power cut. SQLite's own sync at commit (synchronous=FULL) would block the
  // event loop for the whole fsync; NORMAL leaves it to the group commit, which runs it on the thread pool
  // (db/sqlite/group-commit.ts). Checkpoints still sync the log before and the database after, as with FULL.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const journalMode = connection.pragma('journal_mode', { simple: true });
  if (file !== ':memory:' && journalMode !== 'wal') {
    throw new Error(`SQLite refused WAL mode (journal_mode is ${String(journalMode)})`);
  }
  // The read connection: WAL lets it read the last commit while the writer's batch is open.
  let reader: SqliteDatabase.Database | undefined;
  if (file !== ':memory:') {
    reader = new SqliteDatabase(file);
    reader.pragma('busy_timeout = 5000');
    reader.pragma('query_only = ON');
  }
  // Checkpoints run on a thread of their own, not inside a COMMIT on the event loop (db/sqlite/sqlite-checkpoint.ts);
  // if that thread fails, SQLite's automatic checkpoint (every 1,000 pages of log) takes over again.
  let checkpointer: Checkpointer | undefined;
  if (file !== ':memory:') {
    connection.pragma('wal_autocheckpoint = 0');
    checkpointer = new Checkpointer(file, (error) => {
      process.emitWarning(`${error.message}; SQLite checkpoints the log itself again`);
      if (connection.open) connection.pragma('wal_autocheckpoint = 1000');
    });
  }
  const readStatements = reader && new StatementCache(reader);
  const group = new GroupCommit(
    new StatementCache(connection),
    readStatements,
    file === ':memory:' ? undefined : `${file}-wal`,
    checkpointer,
  );
  // The FTS5 indexes merged into few segments on the checkpoint thread (db/sqlite/sqlite-index-tidy.ts).
  if (file !== ':memory:') group.tidy = new IndexTidy(file, group);
  const db = new Kysely<Tables>({ dialect: new GroupCommitDialect(group) });
  registerGroupCommit(db, group);
  if (readStatements) registerReadStatements(db, readStatements);
  return db;
}
