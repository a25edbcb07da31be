// Custom field and tag filters on the clients list over 1,200 clients (contract sections 13 and 27; db/list-plan.ts
// and db/list-shapes.ts): a filter held by more than 500 clients is walked (pages may be short, the cursors resume),
// one held by fewer is read whole; each list shape is compiled once and run with each request's values, so the
// same shape with other values (another region, another range, another tag), walked or read whole, must answer
// exactly its own rows. The expected rows are computed here from the rows this test inserted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Insertable } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { type Condition, listByShape, type PageRequest, pageRequest, type ShapedCondition } from '../src/db/index.js';
import type { ClientsTable, CustomFieldValuesTable, TagLinksTable } from '../src/db/types.js';
import { CLIENT_SORTS, clientListPlan } from '../src/modules/clients/clients.repository.js';
import { customFieldShapes } from '../src/modules/custom-fields/index.js';
import { tagShapes } from '../src/modules/tags/index.js';
import { type ApiResponse, createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const ROWS = 1200;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const instant = (seconds: number) => new Date(START + seconds * 1000).toISOString();
/** Client `index`'s values: region north (even) or south (odd), visits index % 50. */
const region = (index: number) => (index % 2 === 0 ? 'north' : 'south');
const visits = (index: number) => index % 50;
/** The tags: [name, which clients hold it]. Half: 600 (walked); Tenth: 120 and Third: 400 (read whole). */
const TAGS: Array<[string, (index: number) => boolean]> = [
  ['Half', (index) => index % 2 === 1],
  ['Tenth', (index) => index % 10 === 3],
  ['Third', (index) => index % 3 === 0],
];
const [HALF, TENTH, THIRD] = TAGS.map(([, holds]) => holds) as [
  (index: number) => boolean,
  (index: number) => boolean,
  (index: number) => boolean,
];

const clock = new ManualClock(new Date('2026-11-22T10:00:00.000Z'));
let context: TestContext;
let key: string;
let accountId: string;
/** Client ids, by index (created at instant(index)). */
const ids: string[] = [];

before(async () => {
  context = await createTestContext({ clock });
  ({ key, accountId } = await context.account());
  const fields: Record<string, string> = {};
  for (const [name, type] of [
    ['region', 'text'],
    ['visits', 'number'],
  ] as const) {
    const made = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: name, label: name, type },
    });
    assert.equal(made.status, 201, made.text);
    fields[name] = made.body.data.id;
  }
  const now = instant(0);
  const tags = TAGS.map(([name, holds]) => ({
    id: uuidv7(),
    account_id: accountId,
    name,
    name_key: name.toLowerCase(),
    client_count: Array.from({ length: ROWS }, (_, index) => index).filter(holds).length,
    created_at: now,
    updated_at: now,
  }));
  const clients: Array<Insertable<ClientsTable>> = [];
  const values: Array<Insertable<CustomFieldValuesTable>> = [];
  const links: Array<Insertable<TagLinksTable>> = [];
  for (let index = 0; index < ROWS; index += 1) {
    const id = uuidv7();
    ids.push(id);
    const name = `Client ${index}`;
    clients.push({
      id,
      account_id: accountId,
      name,
      sort_name: name.toLowerCase(),
      metadata: '{}',
      custom_fields: JSON.stringify({ region: region(index), visits: visits(index) }),
      created_at: instant(index),
      updated_at: instant(index),
    });
    const value = {
      account_id: accountId,
      object_id: id,
      text_value: null,
      number_value: null,
      amount_value: null,
      object_created_at: instant(index),
    };
    values.push({ ...value, field_id: fields.region!, text_value: region(index) });
    values.push({ ...value, field_id: fields.visits!, number_value: visits(index) });
    let position = 0;
    TAGS.forEach(([, holds], at) => {
      if (holds(index)) {
        links.push({
          account_id: accountId,
          tag_id: tags[at]!.id,
          resource: 'client',
          object_id: id,
          position,
          object_created_at: instant(index),
        });
        position += 1;
      }
    });
  }
  await context.database.db.transaction().execute(async (trx) => {
    await trx.insertInto('tags').values(tags).execute();
    for (let at = 0; at < ROWS; at += 200) {
      await trx
        .insertInto('clients')
        .values(clients.slice(at, at + 200))
        .execute();
      await trx
        .insertInto('custom_field_values')
        .values(values.slice(2 * at, 2 * at + 400))
        .execute();
    }
    for (let at = 0; at < links.length; at += 200)
      await trx
        .insertInto('tag_links')
        .values(links.slice(at, at + 200))
        .execute();
  });
});
after(() => context.close());

/** Every page from the first through next_cursor: the ids, and how many pages came back short with more. */
async function walk(query: string, limit = 50): Promise<{ ids: string[]; short: number }> {
  const found: string[] = [];
  let short = 0;
  let cursor: string | null = null;
  for (let pages = 0; ; pages += 1) {
    assert.ok(pages < 200, 'the pages end');
    const response: ApiResponse = await context.request(
      'GET',
      `/v1/clients?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { key },
    );
    assert.equal(response.status, 200, response.text);
    const { data, meta } = response.body;
    found.push(...data.map((client: { id: string }) => client.id));
    cursor = meta.pagination.next_cursor;
    assert.equal(meta.pagination.has_more, cursor !== null);
    if (!cursor) return { ids: found, short };
    if (data.length < limit) short += 1;
  }
}

/** The ids of the clients `holds`, newest first (the default sort) or by name. */
function expected(holds: (index: number) => boolean, byName = false): string[] {
  const indexes = Array.from({ length: ROWS }, (_, index) => index).filter(holds);
  if (!byName) return indexes.reverse().map((index) => ids[index]!);
  return indexes
    .map((index) => ({ name: `client ${index}`, id: ids[index]! }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
    .map((row) => row.id);
}

describe(`custom field and tag filters walked and read whole, one compiled shape each, on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  test('a text value held by 600 clients is walked (short pages that resume), and the other value the same way', async () => {
    const north = await walk('custom_fields.region=north');
    assert.deepEqual(
      north.ids,
      expected((index) => region(index) === 'north'),
    );
    const south = await walk('custom_fields.region=south');
    assert.deepEqual(
      south.ids,
      expected((index) => region(index) === 'south'),
    );
    assert.equal(south.ids.length, 600);
  });

  test('a number range: 720 clients walked, then 48 read whole, in one shape', async () => {
    const wide = await walk('custom_fields.visits.gte=0&custom_fields.visits.lte=29');
    assert.deepEqual(
      wide.ids,
      expected((index) => visits(index) <= 29),
    );
    const narrow = await walk('custom_fields.visits.gte=40&custom_fields.visits.lte=41', 10);
    assert.deepEqual(
      narrow.ids,
      expected((index) => visits(index) === 40 || visits(index) === 41),
    );
    assert.equal(narrow.ids.length, 48);
    assert.equal(narrow.short, 0, 'a range read whole has full pages');
    assert.deepEqual((await walk('custom_fields.visits.gte=60&custom_fields.visits.lte=70')).ids, []);
  });

  test('tags_any: 600 holders walked, 120 read whole, in one shape; by name too', async () => {
    assert.deepEqual((await walk('tags_any=half')).ids, expected(HALF));
    assert.deepEqual((await walk('tags_any=tenth')).ids, expected(TENTH));
    assert.deepEqual((await walk('tags_any=tenth&sort=name', 7)).ids, expected(TENTH, true));
    assert.deepEqual((await walk('tags_any=half&sort=name')).ids, expected(HALF, true));
  });

  test('tags_all and a custom field together, then other values in the same shape', async () => {
    assert.deepEqual(
      (await walk('tags_all=half,third&custom_fields.visits.gte=10&custom_fields.visits.lte=45')).ids,
      expected((index) => HALF(index) && THIRD(index) && visits(index) >= 10 && visits(index) <= 45),
    );
    assert.deepEqual(
      (await walk('tags_all=tenth,third&custom_fields.visits.gte=0&custom_fields.visits.lte=9')).ids,
      expected((index) => TENTH(index) && THIRD(index) && visits(index) <= 9),
    );
  });

  test('tags_all naming a tag nobody has finds nothing, beside a tags_any read whole', async () => {
    assert.deepEqual((await walk('tags_all=tenth,nosuchtag')).ids, []);
    assert.deepEqual((await walk('tags_any=tenth&tags_all=tenth,nosuchtag')).ids, []);
  });

  test("a shape is compiled once: another request's values are bound into its queries, its plan never built again", async () => {
    const { db } = context.database;
    let builds = 0;
    const listed = listByShape<{ id: string }>((db, values, page, custom: Condition[]) => {
      builds += 1;
      return clientListPlan(db, values.account_id!, { custom }, page as never) as never;
    });
    // A page of 100: the plan reads 101 rows (the 101st says there are more).
    const page = pageRequest({ limit: 100 }, CLIENT_SORTS) as unknown as PageRequest<{ id: string }>;
    const rows = async (shaped: ShapedCondition[]) =>
      (await listed(db, { account_id: accountId }, page, shaped)).rows.map((row) => row.id);
    const first = (holds: (index: number) => boolean) => expected(holds).slice(0, 101);
    const tags = (name: string) => tagShapes(db, accountId, 'client', 'clients', { tags_any: name });
    const range = (gte: string, lte: string) =>
      customFieldShapes(db, accountId, 'client', 'clients', {
        'custom_fields.visits.gte': gte,
        'custom_fields.visits.lte': lte,
      });
    assert.deepEqual(await rows(await tags('tenth')), first(TENTH));
    assert.deepEqual(await rows(await tags('third')), first(THIRD));
    assert.deepEqual(await rows(await tags('half')), first(HALF), 'walked');
    assert.deepEqual(
      await rows(await range('1', '2')),
      first((index) => visits(index) === 1 || visits(index) === 2),
    );
    assert.deepEqual(
      await rows(await range('0', '29')),
      first((index) => visits(index) <= 29),
      'walked',
    );
    assert.deepEqual(
      await rows(await range('5', '5')),
      first((index) => visits(index) === 5),
    );
    assert.equal(builds, 2, 'one build for each of the two shapes');
    // The account's id is a value of the shape too: another account's list of the same shape finds none.
    const other = await context.account('Other');
    assert.deepEqual((await listed(db, { account_id: other.accountId }, page, await tags('tenth'))).rows, []);
    assert.equal(builds, 2);
  });
});
