// PostgreSQL's text search (db/text-search.ts): pg_trgm's GIN index serves a LIKE on the indexed expression
// (migrations 20261122050000_client_search, 20261125020000_properties).
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { POSTGRES_SEARCH_TEXT } from '../client-search.js';
import type { Executor } from '../database.js';
import { escapeLike, type SearchedTable, type TextSearch } from '../text-search.js';
import type { Tables } from '../types.js';

/** The indexed expression of each table: its searched text in lower case. */
const SEARCH_TEXT: Record<SearchedTable, string> = { clients: POSTGRES_SEARCH_TEXT, properties: 'search_text' };

/** `q`, case-insensitively, anywhere in the table's searched text. */
function containsText(table: SearchedTable, q: string) {
  return sql<SqlBool>`${sql.raw(SEARCH_TEXT[table])} like ${`%${escapeLike(q.toLowerCase())}%`} escape '\\'`;
}

/** The words of `q` as pg_trgm reads it: its runs of letters and digits, in lower case, each once. */
function searchWords(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

export const POSTGRES_TEXT_SEARCH: TextSearch = {
  from<Table extends SearchedTable>(db: Executor, table: Table) {
    return db.selectFrom(table as SearchedTable) as unknown as SelectQueryBuilder<Tables, Table, object>;
  },
  /** The account with IS TRUE, so that no index serves it: the trigram index drives. */
  scope(table: SearchedTable, accountId: string, q: string) {
    return [sql<SqlBool>`(account_id = ${accountId}) is true`, containsText(table, q)];
  },
  holds(_alias: string, q: string) {
    return containsText('clients', q);
  },
  /**
   * The rows holding every word of `q` (its runs of letters and digits, the only text pg_trgm indexes), counted
   * to `limit`: a superset of the matches, and about the rows a search rechecks. The words alone, because
   * rows holding them but not `q` (`gardens cooper` among a million `Cooper Gardens …`) are exactly what makes
   * a search slow; and a LIMIT stops a count of common words early, where `q` itself would be rechecked in
   * every row holding them. Statistics choose the scan: the trigram index for rare words, the table for
   * common ones.
   */
  countAtMost(db: Executor, table: SearchedTable, q: string, limit: number) {
    let rows = db.selectFrom(table).select(sql<number>`1`.as('one'));
    for (const word of searchWords(q)) rows = rows.where(containsText(table, word));
    return db.selectFrom(rows.limit(limit).as('hits')).select(sql<number>`count(*)::int`.as('count'));
  },
};
