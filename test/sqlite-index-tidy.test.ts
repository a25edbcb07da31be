// SQLite's FTS5 indexes kept in few segments (db/sqlite/sqlite-index-tidy.ts): once the writes pause, an index whose
// newer segments hold an eighth of its largest's pages or more is merged into one segment, a step at a time on the
// checkpoint thread, while the server's writes wait for each step without failing; the searches find the same rows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { needsMerge } from '../src/db/sqlite/sqlite-index-tidy.js';
import { openSqlite } from '../src/db/sqlite/sqlite.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

test('an index is merged when its segments besides the largest hold an eighth of its pages or more', () => {
  // The kept seed of bench:scale at a million clients: nine segments over four levels (bench/README.md).
  assert.equal(needsMerge([15_438, 15_440, 3_861, 3_861, 3_861, 967, 244, 244, 127]), true);
  assert.equal(needsMerge([44_013]), false);
  assert.equal(needsMerge([]), false);
  // 44,013 / 8 = 5,501.6: 5,502 pages besides are an eighth, 5,501 are not.
  assert.equal(needsMerge([44_013, 5_000, 502]), true);
  assert.equal(needsMerge([44_013, 5_000, 501]), false);
  assert.equal(needsMerge([3, 1]), true);
});

let context: TestContext;
let key: string;

before(async () => {
  if (onPostgres) return;
  context = await createTestContext();
  key = (await context.account()).key;
});

after(() => context?.close());

/** The pages of each segment of the clients' FTS5 index, read from the file on a connection of the test's own. */
function segments(): number[] {
  const file = context.databaseUrl.replace(/^sqlite:/, '');
  const reader = new SqliteDatabase(file, { readonly: true });
  try {
    return reader.prepare('select max(pgno) >> 1 from clients_fts_idx group by segid').pluck().all() as number[];
  } finally {
    reader.close();
  }
}

const sum = (pages: number[]) => pages.reduce((total, size) => total + size, 0);

/** The ids of a search's first page. */
async function search(q: string): Promise<string[]> {
  const response = await context.request('GET', `/v1/clients?limit=100&q=${encodeURIComponent(q)}`, { key });
  assert.equal(response.status, 200, response.text);
  return response.body.data.map((client: { id: string }) => client.id);
}

test('once the writes pause, the clients index is merged into one segment while creates go on, and finds the same rows (SQLite)', {
  skip: onPostgres,
}, async () => {
  const { db } = context.database;
  const accountId = (await db.selectFrom('accounts').select('id').executeTakeFirstOrThrow()).id;
  // 36,000 clients in 12 commits, each a segment of the index (FTS5 merges four of a level into one of the next).
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  for (let commit = 0; commit < 12; commit += 1)
    await db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: 3000 }, (_, index) => {
        const number = commit * 3000 + index;
        const created = new Date(at + number * 1000).toISOString();
        return {
          id: uuidv7(),
          account_id: accountId,
          name: `Cooper Gardens ${number}`,
          sort_name: `cooper gardens ${number}`,
          email: `c${number}@example.com`,
          metadata: '{}',
          custom_fields: '{}',
          created_at: created,
          updated_at: created,
        };
      });
      for (let start = 0; start < rows.length; start += 500)
        await trx
          .insertInto('clients')
          .values(rows.slice(start, start + 500))
          .execute();
    });
  const found = { email: await search('c24321@example.com'), number: await search('Gardens 12345') };
  assert.equal(found.email.length, 1);
  assert.equal(found.number.length, 1);
  // Left to FTS5, twelve segments of a level make three of the next, each a third of the index.
  const before = segments();
  assert.ok(before.length >= 2 && Math.max(...before) < 0.5 * sum(before), `segments of ${before.join(', ')} pages`);
  // Once the merge has begun (the segments change), creates through the API at once: every one answered 201.
  for (let waited = 0; waited < 30_000 && segments().join() === before.join(); waited += 10) await sleep(10);
  const created = await Promise.all(
    Array.from({ length: 10 }, async (_, index) => {
      const response = await context.request('POST', '/v1/clients', {
        key,
        body: { name: `Quokka Landscaping ${index}` },
      });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    }),
  );
  // Then one segment holds the 36,000 clients (the creates' own, a few pages, may stand beside it).
  let pages = segments();
  for (let waited = 0; waited < 60_000 && needsMerge(pages); waited += 100) {
    await sleep(100);
    pages = segments();
  }
  assert.equal(needsMerge(pages), false, `segments of ${pages.join(', ')} pages`);
  assert.ok(
    Math.max(...pages) >= 0.8 * sum(before),
    `segments of ${pages.join(', ')} pages, before ${before.join(', ')}`,
  );
  assert.deepEqual(await search('c24321@example.com'), found.email);
  assert.deepEqual(await search('Gardens 12345'), found.number);
  assert.deepEqual(new Set(await search('Quokka Landscaping')), new Set(created));
});

test("the tidy's look at a database's indexes leaves no connection open after the database closes (SQLite)", {
  skip: onPostgres,
}, async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-tidy-'));
  const file = path.join(directory, 'quiet.sqlite');
  const db = openSqlite(file);
  // A read, no commit (so no checkpoint): the tidy looks at the indexes 2 s after the database opened, on the
  // checkpoint thread's connection.
  await sql`select 1`.execute(db);
  await sleep(2_500);
  await db.destroy();
  // The last connection's close removes the log: none is left open on the thread.
  assert.equal(fs.existsSync(`${file}-wal`), false);
  fs.rmSync(directory, { recursive: true, force: true });
});
