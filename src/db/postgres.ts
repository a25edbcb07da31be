// The PostgreSQL engine (node-postgres): a bounded pool, and type parsers that make rows read exactly as
// they do on SQLite, so nothing above this file knows which engine answered.
import { createRequire } from 'node:module';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Tables } from './types.js';

/** The PostgreSQL driver is loaded only when PostgreSQL is used: a SQLite process does not carry it. */
const loadPg = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/**
 * Rows read the same as on SQLite: bigint as a number (every amount we store is below 2^53), a date as
 * its YYYY-MM-DD text (never a Date at local midnight), a timestamp as ISO 8601 text with milliseconds,
 * and json/jsonb as its JSON text (parsed by the code that reads it, as on SQLite). `db/types.ts` states
 * these forms.
 */
function typeParsers(driver: typeof pg): pg.CustomTypesConfig {
  const { builtins } = driver.types;
  const parseTimestamptz = driver.types.getTypeParser(builtins.TIMESTAMPTZ);
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === builtins.INT8) return (value: string) => Number(value);
      if (oid === builtins.DATE || oid === builtins.JSON || oid === builtins.JSONB) return (value: string) => value;
      if (oid === builtins.TIMESTAMPTZ) return (value: string) => (parseTimestamptz(value) as Date).toISOString();
      return driver.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
}

/** A pool of at most `poolMax` connections, each statement bounded to 30 s. */
export function openPostgres(url: string, poolMax: number): Kysely<Tables> {
  const driver = loadPg();
  const pool = new driver.Pool({
    connectionString: url,
    max: poolMax,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    // A runaway query cannot hold a connection (and its locks) for ever.
    statement_timeout: 30_000,
    types: typeParsers(driver),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}
