// Queries for the hottest routes, built and compiled once per engine instead of on every request (building
// and compiling a Kysely query was ~6 % of a GET's CPU time in `npm run bench:profile get`). The SQL text
// depends only on the engine; each call runs it with its own parameters.
import type { CompiledQuery, Compilable } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { readStatements } from './sqlite/sqlite-statements.js';

/**
 * Runs a compiled query with `parameters`. A read outside a transaction on SQLite goes straight to the read
 * connection's cached statement, as the driver would send it, without Kysely's connection lease and its
 * promises (db/sqlite/group-commit.ts reads the same way).
 */
export async function runCompiled<Row>(db: Executor, query: CompiledQuery<Row>, parameters: readonly unknown[]) {
  const reader = readStatements(db);
  if (reader) {
    const statement = reader.prepare(query.sql);
    if (statement.readonly) return statement.all(parameters) as Row[];
  }
  return (await db.executeQuery<Row>({ ...query, parameters })).rows;
}

/**
 * The rows of a read as arrays of its columns' values, in the order selected: on SQLite's read connection the
 * statement's own arrays (no object per row); elsewhere (PostgreSQL, a transaction) the driver's rows, made
 * arrays. Availability's members' visits read so, a row and one joined text per member.
 */
export async function readValues(db: Executor, query: Compilable<unknown>): Promise<unknown[][]> {
  const compiled = query.compile();
  const reader = readStatements(db);
  if (reader) {
    const statement = reader.prepare(compiled.sql);
    if (statement.readonly) return statement.values(compiled.parameters);
  }
  return (await db.executeQuery<Record<string, unknown>>(compiled)).rows.map((row) => Object.values(row));
}

/**
 * A query whose parameters are exactly `parameters`, in order: `build` must use each one once, in the
 * order given, and nothing else that varies (the test of each use checks rows of two accounts).
 */
export function prepared<Parameters extends string[], Row>(
  build: (db: Executor, ...parameters: Parameters) => Compilable<Row>,
) {
  const compiled = new Map<string, CompiledQuery<Row>>();
  return async (db: Executor, ...parameters: Parameters): Promise<Row[]> => {
    const dialect = dialectOf(db);
    let query = compiled.get(dialect);
    if (!query) {
      query = build(db, ...parameters).compile();
      if (
        query.parameters.length !== parameters.length ||
        query.parameters.some((value, index) => value !== parameters[index])
      ) {
        throw new Error('prepared(): the query must take exactly its parameters, in order');
      }
      compiled.set(dialect, query);
    }
    return runCompiled(db, query, parameters);
  };
}
