// Inserts on the write path of every create, built and compiled once per engine (and row count) instead of on
// every request (issue 36: Kysely building and compiling the client's and the event's inserts was about
// 8 % of a durable create's CPU). The SQL text depends only on the engine, the columns and the number of rows;
// each call binds the rows' values in the columns' order.
import type { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import type { Tables } from './types.js';

/** The most rows an INSERT is kept compiled for; more rows are written by several such statements. */
const MAX_KEPT_ROWS = 64;

/**
 * An INSERT into `table` of rows of exactly `columns`, each a parameter, compiled at its first use on each engine
 * for each number of rows up to MAX_KEPT_ROWS (more rows: one statement per MAX_KEPT_ROWS). No rows: nothing runs.
 */
export function preparedInsertRows<Table extends keyof Tables & string, Row extends object>(
  table: Table,
  columns: readonly (keyof Row & string)[],
) {
  const compiled = new Map<string, CompiledQuery>();
  const insert = async (db: Executor, rows: readonly Row[]): Promise<void> => {
    const values: unknown[] = [];
    for (const row of rows) for (const column of columns) values.push(row[column]);
    const name = `${dialectOf(db)}/${rows.length}`;
    let query = compiled.get(name);
    if (!query) {
      const placeholders = rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])));
      // `never`: the callers' row types check the columns against the table.
      query = db
        .insertInto(table)
        .values(placeholders as never)
        .compile();
      if (query.parameters.length !== values.length)
        throw new Error(`preparedInsertRows(${table}): every column must be one parameter`);
      compiled.set(name, query);
    }
    await db.executeQuery({ ...query, parameters: values });
  };
  // More rows than are kept compiled: statements of MAX_KEPT_ROWS rows each, then the rest.
  return async (db: Executor, rows: readonly Row[]): Promise<void> => {
    for (let from = 0; from < rows.length; from += MAX_KEPT_ROWS)
      await insert(db, from === 0 && rows.length <= MAX_KEPT_ROWS ? rows : rows.slice(from, from + MAX_KEPT_ROWS));
  };
}

/** An INSERT into `table` of one row of exactly `columns` (preparedInsertRows). */
export function preparedInsert<Table extends keyof Tables & string, Row extends object>(
  table: Table,
  columns: readonly (keyof Row & string)[],
) {
  const insert = preparedInsertRows<Table, Row>(table, columns);
  return (db: Executor, row: Row): Promise<void> => insert(db, [row]);
}
