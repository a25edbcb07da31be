// Opens the configured database behind one Kysely instance. Services and repositories see only
// `Database`; which engine is underneath is decided here.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import type { Tables } from './types.js';

export type Db = Kysely<Tables>;
/** A query runner: the database itself or an open transaction. Repositories accept either. */
export type Executor = Kysely<Tables> | Transaction<Tables>;

export interface Database {
  readonly db: Db;
  readonly dialect: 'sqlite' | 'postgres';
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

function openSqlite(file: string): Database {
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
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

export function openDatabase(config: DatabaseConfig): Database {
  if (config.kind === 'sqlite') return openSqlite(config.path);
  throw new Error('PostgreSQL is not supported by this build yet; use DATABASE_URL=sqlite:PATH or leave it unset.');
}
