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
import { textSearch } from '../src/db/engine.js';
import { pageRequest } from '../src/db/keyset.js';
import { CLIENT_SORTS, listClientsQuery, searchRowsQuery } from '../src/modules/clients/clients.repository.js';
import { type ApiResponse, createTestContext, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const START = Date.parse('2026-01-01T00:00:00.000Z');
let context: TestContext;
let key: string;
let accountId: string;
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
  accountId = account.accountId;
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

test("rows holding some of q's trigrams but not q are not its matches; on SQLite, read by fewer trigrams and tested, and past the bound by the phrase", async () => {
  // `abcdefg`: SQLite reads the rows holding `abc`, `def` and `efg` (every third trigram and the last), then tests
  // each for the text. The first two clients hold all three and not `abcdefg`; the last three hold it.
  const names = ['abc-def-efg one', 'Abc def efg two', 'ABCDEFG three', 'xabcdefgx four', 'Abcdefg five'];
  const created: string[] = [];
  for (const name of names) {
    const response = await context.request('POST', '/v1/clients', { key, body: { name } });
    assert.equal(response.status, 201, response.text);
    created.push(response.body.data.id);
  }
  const matches = created.slice(2);
  assert.deepEqual(await walk('q=abcdefg'), [...matches].reverse(), 'the three holding it, newest first');
  if (onPostgres) return;
  const { db } = context.database;
  const [read] = await searchRowsQuery(db, { q: 'abcdefg' })!.execute();
  assert.deepEqual(read!.ids, matches, 'the ids read are the matches alone');
  // With a bound of 4 the trigrams' first four rows (both others, two matches) reach it: the phrase is read instead,
  // and its three matches are under the bound. A bound of 6: the five rows found, the three holding it.
  const rows = async (bound: number) =>
    (await textSearch(db).rowsAtMost(db, 'clients', 'abcdefg', bound).execute())[0]!.ids;
  assert.deepEqual(await rows(4), matches);
  assert.deepEqual(await rows(6), matches);
  assert.deepEqual(await rows(3), matches.slice(0, 3), 'the phrase, to the bound');
  assert.deepEqual(await rows(2), matches.slice(0, 2));
  // Quotes, LIKE's wildcards and its escape character are literal in both reads.
  const odd: Record<string, string> = {};
  for (const name of ['Say "hi" there', 'Say hi there', '50%_off\\deal', '50 off deal', '50%xoff\\deal']) {
    const response = await context.request('POST', '/v1/clients', { key, body: { name } });
    assert.equal(response.status, 201, response.text);
    odd[name] = response.body.data.id;
  }
  const idsOf = async (q: string) => (await searchRowsQuery(db, { q })!.execute())[0]!.ids;
  assert.deepEqual(await idsOf('y "hi" t'), [odd['Say "hi" there']]);
  assert.deepEqual(await idsOf('0%_off\\d'), [odd['50%_off\\deal']]);
  assert.deepEqual(await idsOf('%_of'), [odd['50%_off\\deal']]);
});

test("a search's statements, compiled once for its form, answer each request with its own values: q, account, time bound, cursor", async () => {
  // `Cooper Gardens 13`, 130–139 and 1300–1399, newest first: pages by key, each after the one before by cursor.
  const gardens13 = holding('cooper gardens 13');
  assert.equal(gardens13.length, 111);
  assert.deepEqual(await walk(`q=${encodeURIComponent('Cooper Gardens 13')}`), gardens13);
  assert.deepEqual(await walk(`q=${encodeURIComponent('Cooper Gardens 14')}`), holding('cooper gardens 14'));
  // Created after `Cooper Gardens 1349` (index 1349, the rows one second apart): 1350–1399. The bound written with
  // an offset of +02:00 is the same instant.
  const after = new Date(START + 1349 * 1000 + 500).toISOString();
  const recent = gardens13.filter((id) => clients.find((row) => row.id === id)!.created_at > after);
  assert.equal(recent.length, 50);
  const offset = `${new Date(START + 1349 * 1000 + 500 + 2 * 3_600_000).toISOString().slice(0, -1)}+02:00`;
  for (const bound of [after, offset])
    assert.deepEqual(
      await walk(`q=${encodeURIComponent('Cooper Gardens 13')}&created_after=${encodeURIComponent(bound)}`),
      recent,
      bound,
    );
  // Another account's search of the same form finds its own rows and none of this account's.
  const other = await context.account('Searching');
  const zebra = await context.request('POST', '/v1/clients', {
    key: other.key,
    body: { name: 'Cooper Gardens 13 Zebra' },
  });
  assert.equal(zebra.status, 201, zebra.text);
  const theirs = await context.request('GET', `/v1/clients?limit=25&q=${encodeURIComponent('Cooper Gardens 13')}`, {
    key: other.key,
  });
  assert.deepEqual(
    theirs.body.data.map((client: { id: string }) => client.id),
    [zebra.body.data.id],
  );
  assert.deepEqual(await walk(`q=${encodeURIComponent('Cooper Gardens 13')}`), gardens13, 'and this account its own');
  // Two rare names among the account's oldest rows, past the window of its nearest: each search of the same form
  // reads the rows of its own words (PostgreSQL) or trigrams (SQLite), never those of the search compiled before it.
  const rare = [client(accountId, 'Quokka Landscaping', -2), client(accountId, 'Wombat Roofing', -1)];
  await context.database.db.insertInto('clients').values(rare).execute();
  for (const [q, row] of [
    ['Quokka', rare[0]!],
    ['Wombat', rare[1]!],
    ['landscaping quokka', undefined],
    ['quokka landscaping', rare[0]!],
  ] as const)
    assert.deepEqual(await walk(`q=${encodeURIComponent(q)}`), row ? [row.id] : [], q);
});
