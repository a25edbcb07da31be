// The search rows function's migration, on both engines: on PostgreSQL up makes bms_search_rows, which reads the
// clients and properties a database already holds, each word's rows to the limit, and answers the fewest of them;
// down removes it (and its statement's builder). On SQLite, whose FTS5 index counts the phrase, it does nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { insertOldAccount, migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a31';
const MIGRATION = '20261201150000_search_rows_function';

/** The functions of that name in the database. */
const functions = async (db: Kysely<any>) =>
  (
    await sql<{
      name: string;
    }>`select proname as name from pg_proc where proname like 'bms_search_rows%' order by proname`.execute(db)
  ).rows.map((row) => row.name);

test('bms_search_rows reads kept clients and properties word by word, and down removes it', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    await insertOldAccount(database.db, ACCOUNT, 'Old books', now);
    // Five clients named Cooper, two of them Gardens, one Roofing; no property.
    const names = ['Cooper Gardens', 'cooper gardens ltd', 'Cooper Roofing', 'Cooper Plumbing', 'Cooper Electric'];
    await db
      .insertInto('clients')
      .values(
        names.map((name, index) => ({
          id: `019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b3${index}`,
          account_id: ACCOUNT,
          name,
          sort_name: name.toLowerCase(),
          email: `c${index}@example.com`,
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
    const before = onPostgres ? [] : await schema();
    await database.migrateTo(MIGRATION);
    if (!onPostgres) {
      assert.deepEqual(await schema(), before, 'nothing on SQLite');
      return;
    }
    assert.deepEqual(await functions(db), ['bms_search_rows', 'bms_search_rows_statement']);
    const rows = async (searched: string, words: string[], most: number) =>
      (
        await sql<{ ids: string[] }>`select bms_search_rows(${searched}, ${words}::text[], ${most}) as ids`.execute(db)
      ).rows[0]!.ids.sort();
    const count = async (searched: string, words: string[], most: number) => (await rows(searched, words, most)).length;
    assert.deepEqual(
      await rows('clients', ['cooper', 'gardens'], 501),
      ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b30', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b31'],
      'the rows of the rarer word: the two Gardens',
    );
    assert.equal(await count('clients', ['cooper'], 501), 5);
    assert.equal(await count('clients', ['cooper', 'gardens'], 501), 2, 'the fewest of the words');
    assert.equal(await count('clients', ['gardens', 'roofing'], 501), 1);
    assert.equal(await count('clients', ['cooper'], 3), 3, 'each counted to the limit at most');
    assert.equal(await count('clients', ['example'], 501), 5, 'the e-mail is searched text too');
    assert.equal(await count('clients', ['zebra'], 501), 0);
    assert.equal(await count('clients', [], 501), 5, 'no word: the table');
    assert.equal(await count('properties', ['elm'], 501), 0);
    await assert.rejects(count('accounts', ['old'], 501), /no search of accounts/);
    await database.migrateTo(database.before(MIGRATION));
    assert.deepEqual(await functions(db), []);
  } finally {
    await database.close();
  }
});
