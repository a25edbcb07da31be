// Opens the configured database behind one Kysely instance. Services and repositories see only
// `Database` (or its `db`); which engine is underneath is decided here, and asked only through `dialectOf`.
import { Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { openPostgres } from './postgres/postgres.js';
import { openSqlite } from './sqlite/sqlite.js';
import type { Tables } from './types.js';

export type Db = Kysely<Tables>;
/** A query runner: the database itself or an open transaction. Repositories accept either. */
export type Executor = Kysely<Tables> | Transaction<Tables>;
export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Db;
  readonly dialect: Dialect;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The one answer to "which engine is this?", for the few statements the engines spell differently.
 * `Kysely<unknown>`: migrations ask it too, on their untyped instance.
 */
export function dialectOf(db: Pick<Kysely<unknown>, 'getExecutor'>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function openDatabase(config: DatabaseConfig): Database {
  const db = config.kind === 'sqlite' ? openSqlite(config.path) : openPostgres(config.url, config.poolMax);
  return {
    db,
    dialect: dialectOf(db),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
