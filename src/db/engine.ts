// What the two engines do differently, each difference said once here by what it does, so that code above
// db/ never asks which engine it runs on (docs/architecture.md, "The db face"). The engine-specific halves live
// in the wings (db/sqlite/, db/postgres/) or, when a line long, here.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { POSTGRES_TEXT_SEARCH } from './postgres/text-search.js';
import { inLargeWriteTurn } from './sqlite/group-commit.js';
import { readStatements } from './sqlite/sqlite-statements.js';
import { sqliteReadSnapshot } from './sqlite/sqlite-snapshot.js';
import { SQLITE_TEXT_SEARCH } from './sqlite/text-search.js';
import type { TextSearch } from './text-search.js';

/** Text search (db/text-search.ts) on `db`'s engine. */
export function textSearch(db: Executor): TextSearch {
  return dialectOf(db) === 'postgres' ? POSTGRES_TEXT_SEARCH : SQLITE_TEXT_SEARCH;
}

/**
 * Whether a failed statement ends the caller's transaction (PostgreSQL), so that work that may fail and must leave
 * the transaction usable needs `survivingFailure`'s savepoint; SQLite undoes the failed statement alone.
 */
export function failureEndsTransaction(db: Executor): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Runs `work` (statements that may fail, such as a write a unique index may refuse) in the caller's
 * transaction so that its failure leaves that transaction usable. PostgreSQL ends a transaction at a failed
 * statement, so there `work` runs in the savepoint `name`, released when it succeeds and rolled back to when it
 * fails; SQLite undoes the failed statement alone. The failure is thrown on, after the rollback.
 */
export async function survivingFailure<T>(db: Executor, name: string, work: () => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work();
  await sql`savepoint ${sql.id(name)}`.execute(db);
  try {
    const result = await work();
    await sql`release savepoint ${sql.id(name)}`.execute(db);
    return result;
  } catch (error) {
    await sql`rollback to savepoint ${sql.id(name)}`.execute(db);
    throw error;
  }
}

/**
 * The text at `path` (object keys) in the JSON column `column`, or null where there is none: `json_extract` on
 * SQLite (text), `#>>` on PostgreSQL (jsonb).
 */
export function jsonText(db: Executor, column: string, path: readonly string[]): RawBuilder<string | null> {
  return dialectOf(db) === 'postgres'
    ? sql<string | null>`(${sql.ref(column)} #>> cast(${`{${path.join(',')}}`} as text[]))`
    : sql<string | null>`json_extract(${sql.ref(column)}, ${`$.${path.join('.')}`})`;
}

/**
 * The end of a SELECT that claims a row for one worker among several: `for update skip locked` where rows
 * are locked (PostgreSQL), so that concurrent claimers pass each other; nothing on SQLite, whose one writer
 * claims alone.
 */
export function claimLock(db: Executor): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`for update skip locked` : sql``;
}

/**
 * Whether the engine keeps derived columns in their rows by trigger (SQLite: `clients.property_ids`, migration
 * 20261128080100, and `clients.version`, migration 20261128110000) rather than having no such columns, their
 * values computed when read (PostgreSQL).
 */
export function keepsDerivedColumns(db: Executor): boolean {
  return dialectOf(db) !== 'postgres';
}

/**
 * Whether each statement is a round trip to a server (PostgreSQL): reads where one decides the next are then
 * better asked as one statement. SQLite's statements run in the process.
 */
export function statementsAreRoundTrips(db: Executor): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * `query` sent so that PostgreSQL plans it for its values each time, never kept prepared (db/postgres/postgres.ts
 * keeps a statement prepared only when its text begins with its verb): for a statement whose best plan depends on
 * its values, which a generic plan, made once for any values, cannot see.
 */
export function plannedEachTime<T>(query: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`/* planned each time */ ${query}`;
}

/** A row found by `rowsHoldingAny`: its id and its value of the column. */
type Held = { id: string; value: string };

/**
 * The account's rows of `table` whose `column` (text, under a unique index led by `account_id` and `column`) holds
 * one of `values`: their ids and values. On PostgreSQL one index probe a value, by a lateral join over the values
 * as one array whose `limit 1` (the index is unique) keeps the planner from making it a join: a `column in (…)`
 * list, or a join, is planned when the statistics were taken before the column held values (an import's first
 * minute) as a walk of the account's whole index, with the list as a filter (each row compared with every value:
 * 180 ms for 500 external ids among 20,000, against 0.5 ms probed) or hashed. SQLite searches the index once a
 * value for an `in` list.
 */
export async function rowsHoldingAny(
  db: Executor,
  table: string,
  accountId: string,
  column: string,
  values: readonly string[],
): Promise<Held[]> {
  return (await rowsHoldingAnyQuery(db, table, accountId, column, values).execute(db)).rows;
}

/** `rowsHoldingAny`'s statement (for its query-plan test). */
export function rowsHoldingAnyQuery(
  db: Executor,
  table: string,
  accountId: string,
  column: string,
  values: readonly string[],
): RawBuilder<Held> {
  return dialectOf(db) === 'postgres'
    ? sql<Held>`select held.id, held.value from unnest(cast(${[...values]} as text[])) as wanted (value)
          cross join lateral (select id, ${sql.ref(column)} as value from ${sql.table(table)}
            where account_id = ${accountId} and ${sql.ref(column)} = wanted.value limit 1) as held`
    : sql<Held>`select id, ${sql.ref(column)} as value from ${sql.table(table)}
          where account_id = ${accountId} and ${sql.ref(column)} in (${sql.join([...values])})`;
}

/**
 * Whether `db` is a database itself (not a transaction) whose reads see committed rows only and whose rows
 * carry the version kept by trigger (SQLite's read connection): a record remembered with a row's version is
 * the row as it stands while the version read is the same. False on PostgreSQL and in a transaction.
 */
export function readsCommittedVersions(db: Executor): boolean {
  return readStatements(db) !== undefined;
}

/**
 * Whether each read on `db` holds the event loop until its rows are in (SQLite's read connection, outside a
 * transaction; better-sqlite3 reads synchronously): a long series of reads lets other requests in between them.
 * False on PostgreSQL, whose reads wait on the socket, and in a transaction, which must not be drawn out.
 */
export function readsHoldTheLoop(db: Executor): boolean {
  return readStatements(db) !== undefined;
}

/**
 * Runs independent reads: on PostgreSQL sent together (they share the pipeline's round trip); where each read
 * holds the event loop (`readsHoldTheLoop`), one after another with other requests let in before each, so that
 * one request never holds the loop for all of them at once. The answers come back in the reads' order.
 */
export async function readsTogether<T extends readonly unknown[] | []>(
  db: Executor,
  reads: { [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  const all = reads as unknown as ReadonlyArray<() => Promise<unknown>>;
  if (!readsHoldTheLoop(db)) return (await Promise.all(all.map((read) => read()))) as unknown as T;
  const answers: unknown[] = [];
  for (const read of all) {
    await yieldTurn();
    answers.push(await read());
  }
  return answers as unknown as T;
}

/**
 * Runs `work`, which opens a transaction that writes many rows (a schedule's first 50 visits, §32), so that every
 * other writer waits for at most one such transaction. On SQLite, whose one writer serves transactions in the
 * order they ask, this process's large writes go one at a time and each asks for the writer only once the one
 * before has ended: a client create that arrives while three schedule creates run goes after the first, not
 * after all three. On PostgreSQL each transaction has a connection of its own, and `work` runs at once; so it
 * does when `db` is already a transaction (it holds the writer: waiting here could wait for itself).
 */
export function oneLargeWriteAtATime<T>(db: Executor, work: () => Promise<T>): Promise<T> {
  return db.isTransaction ? work() : inLargeWriteTurn(db, work);
}

/**
 * Runs `work` on one read snapshot of the database (an export, docs/api-contract.md §26): every read in it sees
 * the database as it was when it began, however long it lasts, and writers go on meanwhile. PostgreSQL: a
 * read-only REPEATABLE READ transaction; SQLite: a read transaction on a connection of its own (WAL).
 */
export function inReadSnapshot<T>(db: Executor, work: (snapshot: Executor) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return sqliteReadSnapshot(db, work);
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sql`set transaction read only`.execute(trx);
      return work(trx);
    });
}

/**
 * A JSON array (its text) of `value` over the rows of `from`, in `order`; `[]` when there is none: SQLite's
 * json_group_array with an ORDER BY (3.44 and later), PostgreSQL's json_agg. For a correlated subquery column,
 * such as an object's tag names (modules/tags).
 */
export function orderedJsonArray(
  db: Executor,
  value: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  from: RawBuilder<unknown>,
): RawBuilder<string> {
  return dialectOf(db) === 'postgres'
    ? sql<string>`coalesce((select json_agg(${value} order by ${order}) ${from}), '[]')`
    : sql<string>`(select json_group_array(${value} order by ${order}) ${from})`;
}

/**
 * An instant column as text with no space, to join many into one (`joinedText`): on SQLite its stored text,
 * `YYYY-MM-DDTHH:MM:SS.mmmZ`; on PostgreSQL (whose timestamptz text holds a space) its epoch milliseconds,
 * truncated as the driver's reading truncates them. `storedInstantMs` (core/time.ts) reads either.
 */
export function joinableInstant(db: Executor, column: RawBuilder<unknown>): RawBuilder<string> {
  return dialectOf(db) === 'postgres'
    ? sql<string>`cast(cast(floor(extract(epoch from ${column}) * 1000) as bigint) as text)`
    : sql<string>`${column}`;
}

/**
 * The texts of `value` over a group's rows joined by `separator`, in no set order (null for no row): SQLite's
 * group_concat, PostgreSQL's string_agg. One value for many rows: what a read of thousands of small rows
 * costs in values made is paid once.
 */
export function joinedText(db: Executor, value: RawBuilder<string>, separator: string): RawBuilder<string> {
  return dialectOf(db) === 'postgres'
    ? sql<string>`string_agg(${value}, ${sql.lit(separator)})`
    : sql<string>`group_concat(${value}, ${sql.lit(separator)})`;
}
