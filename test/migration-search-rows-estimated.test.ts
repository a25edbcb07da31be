// The estimated search rows' migration, on both engines: on PostgreSQL up makes bms_search_estimate and has
// bms_search_rows leave out, of several words, those the statistics put in 100 times `most` rows or more (null when
// every word is); down brings back the function that reads every word. On SQLite it does nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { insertOldAccount, migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a32';
const MIGRATION = '20261201160000_search_rows_estimated';
/** The one client that is not a Cooper Gardens. */
const ZED = '019a8f4e-7c1a-7d2b-9a3e-000000000000';

test('bms_search_rows leaves out words estimated common, and down reads every word again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    await insertOldAccount(database.db, ACCOUNT, 'Old books', now);
    // 300 clients `Cooper Gardens n`, and one `Zed 7`.
    const names = [...Array.from({ length: 300 }, (_, index) => `Cooper Gardens ${index + 1}`), 'Zed 7'];
    await db
      .insertInto('clients')
      .values(
        names.map((name, index) => ({
          id: index === 300 ? ZED : `019a8f4e-7c1a-7d2b-9a3e-${String(index + 1).padStart(12, '0')}`,
          account_id: ACCOUNT,
          name,
          sort_name: name.toLowerCase(),
          email: null,
          phone: null,
          company_name: null,
          metadata: '{}',
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const schema = async () =>
      (await sql<{ name: string }>`select name from sqlite_master order by name`.execute(db)).rows.map(
        (row) => row.name,
      );
    if (!onPostgres) {
      const before = await schema();
      await database.migrateTo(MIGRATION);
      assert.deepEqual(await schema(), before, 'nothing on SQLite');
      return;
    }
    await sql`analyze clients`.execute(db);
    const rows = async (words: string[], most: number) =>
      (
        await sql<{
          ids: string[] | null;
        }>`select bms_search_rows('clients', ${words}::text[], ${most}) as ids`.execute(db)
      ).rows[0]!.ids;
    const definition = async () =>
      (
        await sql<{
          text: string;
        }>`select pg_get_functiondef('bms_search_rows(text, text[], integer)'::regprocedure) as text`.execute(db)
      ).rows[0]!.text;
    const before = await definition();
    // Before: every word read, to `most` (2).
    assert.equal((await rows(['cooper', 'gardens'], 2))?.length, 2);
    await database.migrateTo(MIGRATION);
    const estimate = async (word: string) =>
      (await sql<{ rows: number }>`select bms_search_estimate('clients', ${word}) as rows`.execute(db)).rows[0]!.rows;
    // The planner's estimate from the statistics of the trigram index's expression (301 rows analyzed).
    assert.ok((await estimate('cooper')) >= 200, `cooper: ${await estimate('cooper')}`);
    assert.ok((await estimate('zed')) < 200, `zed: ${await estimate('zed')}`);
    await assert.rejects(sql`select bms_search_estimate('accounts', 'x')`.execute(db), /no search of accounts/);
    // most = 2: words estimated at 200 rows or more are left out.
    assert.equal(await rows(['cooper', 'gardens'], 2), null, 'every word common: none read, null');
    assert.deepEqual(await rows(['cooper', 'zed'], 2), [ZED], 'the common word left out, the rare one read');
    assert.deepEqual(await rows(['zed', 'gardens'], 2), [ZED]);
    assert.equal((await rows(['cooper'], 2))?.length, 2, 'one word: read as before, to most');
    assert.deepEqual(await rows(['cooper', 'zebra'], 2), [], 'a word no row holds: none');
    // most = 501: 301 rows are far fewer than 100 times it; both read, the rarer kept.
    assert.equal((await rows(['cooper', 'gardens'], 501))?.length, 300);
    assert.deepEqual(await rows(['cooper', 'zed'], 501), [ZED]);
    await database.migrateTo(database.before(MIGRATION));
    assert.equal((await rows(['cooper', 'gardens'], 2))?.length, 2, 'down: every word read again');
    assert.equal(await definition(), before, 'down: the function exactly as it was');
    const { rows: left } = await sql<{
      name: string;
    }>`select proname as name from pg_proc where proname = 'bms_search_estimate'`.execute(db);
    assert.deepEqual(left, []);
  } finally {
    await database.close();
  }
});
