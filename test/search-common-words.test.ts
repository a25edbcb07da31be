// A search whose words are all common (contract section 13; docs/decisions.md, "Search: PostgreSQL's bounded
// count"). On PostgreSQL, when the statistics put every word of `q` in far more rows than a search may read
// (100 times its bound of 501), no word's rows are read: the search walks its account's rows in order, as any
// search of more than 500 candidates does, and its pages are exactly the matches. On SQLite the FTS5 index reads
// the phrase itself; the same pages. And on both engines a search whose ids were read (500 or fewer) tests each row
// read by those ids for `q` again: a row changed since no longer matches. The expected rows are computed here from
// the rows the test inserted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { ClientRow } from '../src/db/types.js';
import { pageRequest } from '../src/db/keyset.js';
import { CLIENT_SORTS, listClientsQuery, searchRowsQuery } from '../src/modules/clients/clients.repository.js';
import { type ApiResponse, createTestContext, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const START = Date.parse('2026-01-01T00:00:00.000Z');
let context: TestContext;
let key: string;
const clients: Omit<ClientRow, 'tags'>[] = [];

const client = (accountId: string, name: string, index: number): Omit<ClientRow, 'tags'> => ({
  id: uuidv7(),
  account_id: accountId,
  external_id: null,
  name,
  sort_name: name.toLowerCase(),
  email: null,
  phone: null,
  company_name: null,
  address: null,
  notes: null,
  metadata: '{}',
  custom_fields: '{}',
  einvoicing: null,
  created_at: new Date(START + index * 1000).toISOString(),
  updated_at: new Date(START + index * 1000).toISOString(),
});

before(async () => {
  context = await createTestContext();
  const account = await context.account();
  key = account.key;
  const { db } = context.database;
  // The account's 2,500 clients, `Cooper Gardens 0` … `Cooper Gardens 2499`: more than one 1,000-row window.
  for (let index = 0; index < 2500; index += 1)
    clients.push(client(account.accountId, `Cooper Gardens ${index}`, index));
  await db.transaction().execute(async (trx) => {
    for (let at = 0; at < clients.length; at += 200)
      await trx
        .insertInto('clients')
        .values(clients.slice(at, at + 200))
        .execute();
  });
  if (!onPostgres) return;
  // Another account's 60,000 more, so that the statistics put `cooper` and `gardens` in every row.
  const other = await context.account('Other');
  await sql`insert into clients (id, account_id, name, sort_name, metadata, custom_fields, created_at, updated_at)
    select gen_random_uuid(), ${other.accountId}, 'Cooper Gardens Ltd ' || n, 'cooper gardens ltd ' || n, '{}', '{}',
      ${new Date(START).toISOString()}, ${new Date(START).toISOString()}
    from generate_series(1, 60000) n`.execute(db);
  await sql`analyze clients`.execute(db);
});

after(() => context.close());

/** Every page of a list, by its cursors: the ids in order. */
async function walk(query: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages += 1) {
    const response: ApiResponse = await context.request(
      'GET',
      `/v1/clients?limit=25&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      {
        key,
      },
    );
    assert.equal(response.status, 200, response.text);
    ids.push(...response.body.data.map((item: { id: string }) => item.id));
    cursor = response.body.meta.pagination.next_cursor;
    if (!cursor) return ids;
  }
  return assert.fail('the pages end');
}

/** The account's clients whose name holds `text` (any case), newest first: the expected list. */
const holding = (text: string) =>
  clients
    .filter((row) => row.name.toLowerCase().includes(text))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .map((row) => row.id);

test('every word common: PostgreSQL reads no word (null), and the pages are exactly the matches', async () => {
  if (onPostgres) {
    const [read] = await searchRowsQuery(context.database.db, { q: 'gardens cooper' })!.execute();
    assert.equal(read!.ids, null, 'both words estimated in far more than 50,100 rows: none read');
    const [one] = await searchRowsQuery(context.database.db, { q: 'gardens' })!.execute();
    assert.equal(one!.ids?.length, 501, 'one word is read, to 501');
  }
  assert.deepEqual(await walk(`q=${encodeURIComponent('gardens cooper')}`), [], 'in no row in that order');
  // Cooper Gardens 12, 120–129 and 1200–1299, in three windows of the walk.
  const twelve = holding('cooper gardens 12');
  assert.equal(twelve.length, 111);
  assert.deepEqual(await walk(`q=${encodeURIComponent('Cooper Gardens 12')}`), twelve);
  assert.deepEqual(await walk(`q=${encodeURIComponent('GARDENS 59')}`), holding('gardens 59'));
  assert.equal(holding('gardens 59').length, 11, 'Gardens 59 and 590–599');
});

test("a search's rows read by the ids read before are tested for q again: a client renamed since is not found", async () => {
  const { db } = context.database;
  const q = 'Cooper Gardens 2499';
  const [read] = await searchRowsQuery(db, { q })!.execute();
  const renamed = clients.find((row) => row.name === 'Cooper Gardens 2499')!;
  assert.ok(read!.ids?.includes(renamed.id), 'its id is among those read');
  const response = await context.request('PUT', `/v1/clients/${renamed.id}`, { key, body: { name: 'Smith' } });
  assert.equal(response.status, 200, response.text);
  const page = pageRequest<ClientRow>({ limit: 25 }, CLIENT_SORTS);
  const rows = await listClientsQuery(db, renamed.account_id, { q }, page, true, read!.ids!).execute();
  assert.deepEqual(
    rows.map((row) => row.name),
    [],
    'Smith does not hold it',
  );
  assert.deepEqual(await walk(`q=${encodeURIComponent(q)}`), []);
});
