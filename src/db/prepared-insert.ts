// Inserts of one row on the write path of every create, built and compiled once per engine instead of on
// every request (issue 36: Kysely building and compiling the client's and the event's inserts was about
// 8 % of a durable create's CPU). The SQL text depends only on the engine and the columns; each call binds
// the row's values in the columns' order.
import type { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import type { Tables } from './types.js';

/** An INSERT into `table` of exactly `columns`, each a parameter, compiled at its first use on each engine. */
export function preparedInsert<Table extends keyof Tables & string, Row extends object>(
  table: Table,
  columns: readonly (keyof Row & string)[],
) {
  const compiled = new Map<string, CompiledQuery>();
  return async (db: Executor, row: Row): Promise<void> => {
    const values = columns.map((column) => row[column] as unknown);
    const dialect = dialectOf(db);
    let query = compiled.get(dialect);
    if (!query) {
      const placeholders = Object.fromEntries(columns.map((column, index) => [column, values[index]]));
      // `never`: the callers' row types check the columns against the table.
      query = db
        .insertInto(table)
        .values(placeholders as never)
        .compile();
      if (query.parameters.length !== columns.length)
        throw new Error(`preparedInsert(${table}): every column must be one parameter`);
      compiled.set(dialect, query);
    }
    await db.executeQuery({ ...query, parameters: values });
  };
}
