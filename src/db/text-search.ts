// Text search over the tables that have a trigram index (clients, properties), said once for both engines:
// SQLite searches an FTS5 trigram table (db/sqlite/text-search.ts), PostgreSQL a pg_trgm GIN index on an
// expression (db/postgres/text-search.ts). Code above db/ asks textSearch(db) (db/engine.ts) for the search's
// rows and conditions; which engine answers is db/'s business. The tables and triggers behind each are made by
// the migrations (20261122050000_client_search, 20261125020000_properties).
import type { Compilable, Expression, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Executor } from './database.js';
import type { StatementValue } from './list-shapes.js';
import type { Tables } from './types.js';

/** The tables with a trigram index. */
export type SearchedTable = 'clients' | 'properties';

/** What a search of `q` (three characters or more; any case) is made of, on one engine. */
export interface TextSearch {
  /**
   * The rows to search: the index's matches joined to the table by primary key, the matches driving
   * (SQLite), or the table itself, whose condition is in `scope` (PostgreSQL). With `among` (rowsAtMost's ids,
   * read: an array, or on PostgreSQL an expression of them in the statement that read them), only those rows, by
   * primary key, the index not read again.
   */
  from<Table extends SearchedTable>(
    db: Executor,
    table: Table,
    q: string,
    among?: Among,
  ): SelectQueryBuilder<Tables, Table, object>;
  /**
   * The conditions to add, in order, after the caller's own: the account, written so that no index can serve
   * it (or the planner would walk the account's rows testing each), and where the table is the source, the
   * match the trigram index serves.
   */
  scope(table: SearchedTable, accountId: string, q: string): Array<Expression<SqlBool>>;
  /**
   * Whether the client row of `alias` holds `q`, tested row by row (a window of rows in sort order), exactly as
   * the index would find it; undefined when that cannot be promised (SQLite's LIKE folds ASCII case only, its
   * index all of Unicode: a term with other characters).
   */
  holds(alias: string, q: string): Expression<SqlBool> | undefined;
  /**
   * The values this search's statements carry that are made from `q` (its LIKE pattern; on SQLite its FTS5
   * queries, on PostgreSQL the words rowsAtMost reads), by name, and `key`, what else of `q` shapes those
   * statements' text: a statement compiled for one `q` serves another of the same key with these values bound
   * instead (db/list-shapes.ts, StatementShapes).
   */
  valuesOf(q: string): { key: string; values: Record<string, StatementValue> };
  /**
   * The ids of the rows of `table` (of any account) a search of `q` reads from the index, at most `limit`, as a
   * query of one row, `ids`: never fewer rows than its matches, so a search finding fewer than `limit` reads those
   * rows by primary key (`from`'s `among`) rather than the index again, and one finding `limit` is walked. SQLite: the
   * matches themselves (FTS5 reads the phrase, or fewer of its trigrams and each row found is tested). PostgreSQL:
   * the rows holding one of its words (pg_trgm keeps only letters and digits), about the rows its search rechecks;
   * null (`limit` or more, none read) when it has several words and PostgreSQL's statistics put every one in far
   * more rows than `limit`.
   */
  rowsAtMost(db: Executor, table: SearchedTable, q: string, limit: number): RowsQuery;
}

/** Ids rowsAtMost read: the array, or on PostgreSQL an expression of it (`(select ids from hits)::uuid[]`). */
export type Among = readonly string[] | RawBuilder<string[]>;

/**
 * A query of one row, `ids`. Its `execute` answers the ids as an array on both engines; compiled, it is the
 * engine's own statement (PostgreSQL: a `uuid[]`, which searchDecidedQuery reads in the statement itself).
 */
export interface RowsQuery extends Compilable<{ ids: string[] | null }> {
  execute(): Promise<{ ids: string[] | null }[]>;
}

/** `value` as a LIKE pattern's literal text (escape '\'). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
