// PostgreSQL: the rows a search's bounded count reads, as a function (docs/decisions.md, "Search: PostgreSQL's
// bounded count"), so that the statement asking for it can be kept prepared. `bms_search_rows(searched, words,
// most)`: the ids of the rows of the table `searched` ('clients' or 'properties'; of any account) holding the
// rarest of `words`, at most `most` of them (the fewest of each word's rows read to `most`); with no word, the
// table's first `most` rows. Never fewer rows than the search's matches, so when there are fewer than `most`, the
// search reads those rows by primary key rather than the trigram index again. Each word's rows are read by a
// statement of its own (`bms_search_rows_statement`), run by EXECUTE with the word as a literal, so PostgreSQL
// plans it for that word every time: a rare word read from the trigram index, a common one from the table under
// its LIMIT. The words are the search's runs of letters and digits (db/postgres/text-search.ts); `format('%L')`
// quotes them anyway. Nothing on SQLite, whose FTS5 index counts the phrase itself.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { POSTGRES_SEARCH_TEXT } from '../client-search.js';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // The expressions are those the trigram indexes were built on (migrations 20261122050000_client_search and
  // 20261125020000_properties), or the index cannot serve the LIKE.
  const clients = POSTGRES_SEARCH_TEXT.replaceAll("'", "''");
  await sql
    .raw(`create or replace function bms_search_rows_statement(searched text, word text, most integer)
  returns text language sql stable as $$
    select format('select array(select id from %I%s limit %s)', searched,
      case when word is null then ''
        else format(' where %s like %L', case searched when 'clients' then '${clients}' else 'search_text' end,
          '%' || word || '%') end,
      most)
  $$`)
    .execute(db);
  // Stable, not volatile: its EXECUTEs read the calling statement's snapshot, so the ids it answers hold every
  // match the search then tests (a volatile function would take a snapshot of its own per statement).
  await sql
    .raw(`create or replace function bms_search_rows(searched text, words text[], most integer)
  returns uuid[] language plpgsql stable as $$
  declare
    fewest uuid[];
    found uuid[];
    word text;
  begin
    if searched not in ('clients', 'properties') then
      raise exception 'bms_search_rows: no search of %', searched;
    end if;
    if coalesce(cardinality(words), 0) = 0 then
      execute bms_search_rows_statement(searched, null, most) into fewest;
      return fewest;
    end if;
    foreach word in array words loop
      execute bms_search_rows_statement(searched, word, most) into found;
      -- No row holds this word: none holds the search's text.
      if cardinality(found) = 0 then
        return found;
      end if;
      if fewest is null or cardinality(found) < cardinality(fewest) then
        fewest := found;
      end if;
    end loop;
    return fewest;
  end
  $$`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`drop function if exists bms_search_rows(text, text[], integer)`.execute(db);
  await sql`drop function if exists bms_search_rows_statement(text, text, integer)`.execute(db);
}
