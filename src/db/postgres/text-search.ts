// PostgreSQL's text search (db/text-search.ts): pg_trgm's GIN index serves a LIKE on the indexed expression
// (migrations 20261122050000_client_search, 20261125020000_properties).
import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { POSTGRES_SEARCH_TEXT } from '../client-search.js';
import type { Executor } from '../database.js';
import { type Among, escapeLike, type SearchedTable, type TextSearch } from '../text-search.js';
import type { Tables } from '../types.js';

/** The indexed expression of each table: its searched text in lower case. */
const SEARCH_TEXT: Record<SearchedTable, string> = { clients: POSTGRES_SEARCH_TEXT, properties: 'search_text' };

/** `q` in lower case anywhere in a text, as a LIKE pattern (escape '\\'). */
const containing = (q: string) => `%${escapeLike(q.toLowerCase())}%`;

/** `q`, case-insensitively, anywhere in the table's searched text. */
function containsText(table: SearchedTable, q: string) {
  return sql<SqlBool>`${sql.raw(SEARCH_TEXT[table])} like ${containing(q)} escape '\\'`;
}

/** The words of `q` as pg_trgm reads it: its runs of letters and digits, in lower case, each once. */
function searchWords(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/** The words of `q` the trigram index can find: of three characters or more. */
const indexedWords = (q: string) => searchWords(q).filter((word) => [...word].length >= 3);

/** The ids `bms_search_rows` reads for `q` (rowsAtMost), to `limit`. */
function searchRows(table: SearchedTable, q: string, limit: number) {
  return sql<string[]>`bms_search_rows(${table}, ${indexedWords(q)}::text[], ${limit})`;
}

export const POSTGRES_TEXT_SEARCH: TextSearch = {
  /** The table, and with `among` its rows of those ids (by primary key; `scope` still tests each). */
  from<Table extends SearchedTable>(db: Executor, table: Table, _q: string, among?: Among) {
    const rows = db.selectFrom(table as SearchedTable);
    return (among ? rows.where(sql<SqlBool>`id = any(${among})`) : rows) as unknown as SelectQueryBuilder<
      Tables,
      Table,
      object
    >;
  },
  /** The account with IS TRUE, so that no index serves it: the trigram index drives. */
  scope(table: SearchedTable, accountId: string, q: string) {
    return [sql<SqlBool>`(account_id = ${accountId}) is true`, containsText(table, q)];
  },
  holds(_alias: string, q: string) {
    return containsText('clients', q);
  },
  /** The pattern `scope` and `holds` test, and the words rowsAtMost reads (one array). */
  valuesOf(q: string) {
    return { key: 'words', values: { pattern: containing(q), words: indexedWords(q) } };
  },
  /**
   * The rows holding one word of `q` (its runs of letters and digits, the only text pg_trgm indexes; of three
   * characters or more, which the index can find), read to `limit`: never fewer than the matches, and about the
   * rows a search rechecks. Not `q` itself: where its words are common and it is in no row (`gardens cooper`
   * among a million `Cooper Gardens …`), a read of `q` rechecks every row holding them. Each word alone, so the
   * planner sizes it from the expression's statistics (the trigram index for a rare word, the table for a common
   * one, stopped by the LIMIT), never a bitmap of common words that it guessed rare together. Read by
   * `bms_search_rows` (migrations 20261201150000, 20261201160000), which plans each word's read for that word, as
   * its own statement with the word as a literal, so the statement asking for it has the words as a parameter and
   * is kept prepared. Of several words it reads only those the statistics put under 100 times `limit` rows, the
   * rarest estimate first, and stops at the first that holds fewer than `limit`; null when none is.
   */
  rowsAtMost(db: Executor, table: SearchedTable, q: string, limit: number) {
    return db.selectNoFrom(searchRows(table, q, limit).as('ids'));
  },
};
