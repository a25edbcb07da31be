// PostgreSQL: `bms_search_rows` (migration 20261201150000) leaves out the words PostgreSQL's statistics put in far
// more rows than it may answer (docs/decisions.md, "Search: PostgreSQL's bounded count"). Of several words, it
// reads only those estimated under 100 times `most` rows, the rarest estimate first, and stops at the first that
// holds fewer than `most`; when every word is estimated that common it reads none and answers null: more than
// `most` rows, the search walks. One word is read as before (an estimate would only add its planning).
// `bms_search_estimate(searched, word)` is the planner's estimate of the rows holding `word` (EXPLAIN of the
// word's read without its LIMIT); volatile, as PostgreSQL runs EXPLAIN only there. Nothing on SQLite.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { POSTGRES_SEARCH_TEXT } from '../client-search.js';
import { dialectOf } from '../database.js';
import { up as readEveryWord } from './20261201150000_search_rows_function.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // The expression the trigram index was built on (migration 20261122050000_client_search), as the word's read has it.
  const clients = POSTGRES_SEARCH_TEXT.replaceAll("'", "''");
  await sql
    .raw(`create or replace function bms_search_estimate(searched text, word text)
  returns float8 language plpgsql volatile as $$
  declare
    plan json;
  begin
    if searched not in ('clients', 'properties') then
      raise exception 'bms_search_estimate: no search of %', searched;
    end if;
    execute format('explain (format json) select 1 from %I where %s like %L', searched,
      case searched when 'clients' then '${clients}' else 'search_text' end, '%' || word || '%') into plan;
    return (plan->0->'Plan'->>'Plan Rows')::float8;
  end
  $$`)
    .execute(db);
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
    if cardinality(words) = 1 then
      execute bms_search_rows_statement(searched, words[1], most) into fewest;
      return fewest;
    end if;
    -- The words estimated under 100 times most rows, the rarest estimate first.
    for word in
      select w from (select w, bms_search_estimate(searched, w) as estimate from unnest(words) w) estimated
      where estimate < 100.0 * most order by estimate
    loop
      execute bms_search_rows_statement(searched, word, most) into found;
      -- Fewer than most (none: no row holds the search's text): every match is among them; the words after it
      -- were estimated commoner.
      if cardinality(found) < most then
        return found;
      end if;
      fewest := found;
    end loop;
    -- most rows of a word read, or null when every word was estimated far commoner than most (none read).
    return fewest;
  end
  $$`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // The function as migration 20261201150000 made it (its builder of statements made again, unchanged).
  await readEveryWord(db);
  await sql`drop function if exists bms_search_estimate(text, text)`.execute(db);
}
