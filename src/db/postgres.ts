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

/** Statements worth keeping prepared: queries and changes of rows, never DDL or several statements in one. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** Prepared statements per connection at most; beyond, a query is parsed each time as before. */
const MAX_PREPARED = 2000;

type Query = (text: unknown, values?: unknown) => unknown;

/**
 * Makes a connection keep its statements prepared, by name: each SQL text is parsed and planned once per
 * connection, and then only bound and executed (Kysely sends every query unnamed, so PostgreSQL parsed
 * each one on every request). Names are per connection, as PostgreSQL's prepared statements are.
 */
function keepStatementsPrepared<Client extends { query: Query }>(client: Client): Client {
  const marked = client as Client & { bmsPrepared?: true };
  if (marked.bmsPrepared) return client;
  marked.bmsPrepared = true;
  const query = client.query.bind(client) as Query;
  const names = new Map<string, string>();
  let made = 0;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) {
      name = `bms_${(made += 1)}`;
      names.set(text, name);
    }
    return name;
  };
  client.query = ((text: unknown, values?: unknown) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || !PREPARABLE.test(text))
      return query(text, values);
    const name = nameOf(text);
    if (name === undefined) return query(text, values);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: { code?: string }) => {
      // A table's columns changed since the statement was prepared (a migration): prepare it afresh.
      if (error.code !== '0A000') throw error;
      names.delete(text);
      return query({ name: nameOf(text), text, values });
    });
  }) as Query;
  return client;
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
  return new Kysely<Tables>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => keepStatementsPrepared(await pool.connect()),
        end: () => pool.end(),
      },
    }),
  });
}
