// SQLite's text search (db/text-search.ts): FTS5 trigram tables, each row keyed by a search id that
// `*_search_keys` maps to the searched row (migrations 20261122050000_client_search, 20261125020000_properties,
// 20261128080000_client_search_queue).
import { type CompiledQuery, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { SQLITE_BODY, SQLITE_CLEAR_QUEUED, SQLITE_INDEX_QUEUED } from '../client-search.js';
import type { Executor } from '../database.js';
import { type Among, escapeLike, type SearchedTable, type TextSearch } from '../text-search.js';
import type { Tables } from '../types.js';
import { registerBatchWork } from './group-commit.js';

const INDEXES: Record<SearchedTable, { fts: string; keys: string; key: string }> = {
  clients: { fts: 'clients_fts', keys: 'client_search_keys', key: 'client_id' },
  properties: { fts: 'properties_fts', keys: 'property_search_keys', key: 'property_id' },
};

/** `q` as an FTS5 phrase query: every character literal. */
function ftsPhrase(q: string): string {
  return `"${q.replace(/"/g, '""')}"`;
}

/** The keys of the FTS5 table's matches of `q`: the searched rows' ids, the index driving. */
function ftsMatches(table: SearchedTable, q: string) {
  const { fts, keys, key } = INDEXES[table];
  return sql`select k.${sql.raw(key)} from ${sql.raw(fts)} f join ${sql.raw(keys)} k on k.search_id = f.rowid where ${sql.raw(fts)} match ${ftsPhrase(q)}`;
}

/**
 * Fewer of `q`'s trigrams than its phrase reads: every third, and the last, so that together they hold each of its
 * characters (each trigram once), as an FTS5 query of all of them. Every row holding `q` holds them; a row may hold
 * them and not `q`. Undefined when that would be `q`'s own single trigram.
 */
function ftsCover(q: string): string | undefined {
  const characters = [...q];
  if (characters.length <= 3) return undefined;
  const starts: number[] = [];
  for (let start = 0; start + 3 <= characters.length; start += 3) starts.push(start);
  if (starts.at(-1)! + 3 < characters.length) starts.push(characters.length - 3);
  const trigrams = new Set(starts.map((start) => characters.slice(start, start + 3).join('')));
  return [...trigrams].map(ftsPhrase).join(' ');
}

/** `q` anywhere in the text, as SQLite's LIKE reads it (ASCII case folded): `holds`, and the cover's test. */
const containing = (q: string) => `%${escapeLike(q)}%`;

export const SQLITE_TEXT_SEARCH: TextSearch = {
  /**
   * The matches of the FTS5 table (a phrase query), joined to the table by primary key; CROSS JOIN keeps that order.
   * With `among` (clients, an ASCII `q`): those ids instead (a JSON array read by json_each: one statement text for
   * any number), each row tested for `q` again by `holds` (the ids were read by an earlier statement, and a row
   * may have changed since; LIKE and FTS5 agree on ASCII). Otherwise the FTS5 matches.
   */
  from<Table extends SearchedTable>(db: Executor, table: Table, q: string, among?: Among) {
    const { key } = INDEXES[table];
    const recheck = among && table === 'clients' ? SQLITE_TEXT_SEARCH.holds(table, q) : undefined;
    const hits = sql<Record<string, string>>`(${
      recheck
        ? sql`select value as ${sql.raw(key)} from json_each(${Array.isArray(among) ? JSON.stringify(among) : among})`
        : ftsMatches(table, q)
    })`.as('hits');
    // Typed as one table `searched` and its `hits`: the names are the table's and its key's at run time.
    const untyped = db as unknown as Kysely<{ searched: { id: string }; hits: { key: string } }>;
    const joined = untyped
      .selectFrom(hits as unknown as 'hits')
      .crossJoin(table as unknown as 'searched')
      .whereRef(`${table}.id` as 'searched.id', '=', `hits.${key}` as 'hits.key');
    return (recheck ? joined.where(recheck) : joined) as unknown as SelectQueryBuilder<Tables, Table, object>;
  },
  /** The account with a unary +, so that no index serves it: the FTS matches drive. */
  scope(_table: SearchedTable, accountId: string) {
    return [sql<SqlBool>`+account_id = ${accountId}`];
  },
  holds(alias: string, q: string) {
    if (!/^[\x20-\x7e]*$/.test(q)) return undefined;
    return sql<SqlBool>`${sql.raw(SQLITE_BODY(alias))} like ${containing(q)} escape '\\'`;
  },
  /** The pattern `holds` tests, the cover and the phrase `rowsAtMost` reads; which of its forms reads them. */
  valuesOf(q: string) {
    const cover = ftsCover(q);
    const ascii = SQLITE_TEXT_SEARCH.holds('row', q) !== undefined;
    return {
      key: !ascii ? 'not ascii' : cover === undefined ? 'phrase' : 'cover',
      values: { pattern: containing(q), cover: cover ?? '', phrase: ftsPhrase(q) },
    };
  },
  /**
   * The matches' ids, read from the FTS5 table and its keys (never the clients table), as one JSON array: a
   * statement of one row, as on PostgreSQL; `execute` answers the array (compiled, the statement answers its JSON
   * text). A client search of an ASCII `q` longer than a trigram reads its cover first (ftsCover: a phrase of n
   * trigrams reads each one's positions in every segment, the cover about a third of them and no positions) and
   * tests each row it finds with the index's own copy of the text (`body`, never the clients table): fewer than
   * `limit` rows found, those holding `q` are the matches. Otherwise, or `limit` rows found, the phrase itself.
   */
  rowsAtMost(db: Executor, table: SearchedTable, q: string, limit: number) {
    const { fts, keys, key } = INDEXES[table];
    const phrase = sql<string>`(select json_group_array(${sql.raw(key)}) from (${ftsMatches(table, q)} limit ${limit}))`;
    const { key: form, values } = SQLITE_TEXT_SEARCH.valuesOf(q);
    const query =
      table === 'clients' && form === 'cover'
        ? sql<{
            ids: string;
          }>`with cover as materialized (select f.rowid as search_id, f.body like ${values.pattern} escape '\\' as holds from ${sql.raw(fts)} f where ${sql.raw(fts)} match ${values.cover} limit ${limit}) select case when (select count(*) from cover) < ${limit} then (select json_group_array(k.${sql.raw(key)}) from cover c join ${sql.raw(keys)} k on k.search_id = c.search_id where c.holds) else ${phrase} end as ids`
        : sql<{ ids: string }>`select ${phrase} as ids`;
    return {
      compile: () => query.compile(db) as unknown as CompiledQuery<{ ids: string[] | null }>,
      execute: async () => (await query.execute(db)).rows.map((row) => ({ ids: JSON.parse(row.ids) as string[] })),
    };
  },
};

/**
 * The search rows of the clients a batch created, made once per batch just before its COMMIT (migration
 * 20261128080000: a trigger queues each new client in client_search_pending): one FTS5 segment per batch
 * instead of one per create.
 */
registerBatchWork({
  setup: [],
  pending: 'select 1 from client_search_pending limit 1',
  apply: SQLITE_INDEX_QUEUED,
  clear: SQLITE_CLEAR_QUEUED,
});
