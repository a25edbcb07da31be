// The client list is compiled once per shape (db/list-shapes.ts: the filters set, the sort, its direction, a
// cursor or none) and run with each request's values. Every shape the list takes without q or email gives the
// pages the data calls for, on both engines, each read twice (the second time from the compiled statement) and
// page by page through the cursors; the expected orders are stated here from the clients this test made.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jsonBytesAtMost } from '../src/http/pagination.js';
import { type ApiResponse, createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const T0 = '2026-11-20T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const clock = new ManualClock(new Date(T0));
let context: TestContext;
let key: string;
/** Client id by name. */
const ids = new Map<string, string>();
const propertyIds: Record<string, string[]> = { alpha: [], bravo: [] };

// Made at T0 + 0..4 minutes in this order; Delta and alpha changed at +10 and +11 minutes; Charlie has
// external_id crm-2; alpha has two properties, bravo one. Another account's Aaron must never show.
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
  const other = await context.account('Other');
  await context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Aaron', external_id: 'crm-2' } });
  for (const name of ['Delta', 'alpha', 'Charlie', 'bravo', 'Echo']) {
    const body = name === 'Charlie' ? { name, external_id: 'crm-2' } : { name };
    const created = await context.request('POST', '/v1/clients', { key, body });
    assert.equal(created.status, 201, created.text);
    ids.set(name, created.body.data.id);
    clock.advance(60_000);
  }
  for (const name of ['alpha', 'bravo', 'alpha']) {
    const property = await context.request('POST', '/v1/properties', {
      key,
      body: { client_id: ids.get(name), address: { line1: `1 ${name} St`, country: 'US' } },
    });
    assert.equal(property.status, 201, property.text);
    propertyIds[name]!.push(property.body.data.id);
    clock.advance(1000);
  }
  clock.set(new Date(at(10)));
  for (const name of ['Delta', 'alpha']) {
    const updated = await context.request('PUT', `/v1/clients/${ids.get(name)}`, { key, body: { notes: 'changed' } });
    assert.equal(updated.status, 200, updated.text);
    clock.advance(60_000);
  }
});

after(() => context.close());

/** Every page of `query`, two at a time, through the cursors: the names in order. */
async function names(query: string): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10; pages += 1) {
    const url: string = `/v1/clients?limit=2${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`;
    const answer: ApiResponse = await context.request('GET', url, { key });
    assert.equal(answer.status, 200, answer.text);
    for (const client of answer.body.data) {
      found.push(client.name);
      assert.equal(client.id, ids.get(client.name));
      assert.deepEqual(client.property_ids, propertyIds[client.name] ?? [], client.name);
    }
    cursor = answer.body.meta.pagination.next_cursor;
    assert.equal(answer.body.meta.pagination.has_more, cursor !== null);
    if (!cursor) return found;
  }
  throw new Error('more than 10 pages');
}

const CASES: Array<[string, string[]]> = [
  ['', ['Echo', 'bravo', 'Charlie', 'alpha', 'Delta']],
  ['sort=created_at', ['Delta', 'alpha', 'Charlie', 'bravo', 'Echo']],
  ['sort=-created_at', ['Echo', 'bravo', 'Charlie', 'alpha', 'Delta']],
  ['sort=updated_at', ['Charlie', 'bravo', 'Echo', 'Delta', 'alpha']],
  ['sort=-updated_at', ['alpha', 'Delta', 'Echo', 'bravo', 'Charlie']],
  ['sort=name', ['alpha', 'bravo', 'Charlie', 'Delta', 'Echo']],
  ['sort=-name', ['Echo', 'Delta', 'Charlie', 'bravo', 'alpha']],
  [`created_after=${at(1)}&sort=created_at`, ['alpha', 'Charlie', 'bravo', 'Echo']],
  [`created_after=${at(1)}&sort=-name`, ['Echo', 'Charlie', 'bravo', 'alpha']],
  [`created_after=${at(1)}&sort=-updated_at`, ['alpha', 'Echo', 'bravo', 'Charlie']],
  [`created_before=${at(3)}`, ['Charlie', 'alpha', 'Delta']],
  [`created_before=${at(3)}&sort=name`, ['alpha', 'Charlie', 'Delta']],
  [`updated_after=${at(4)}&sort=updated_at`, ['Echo', 'Delta', 'alpha']],
  [`updated_after=${at(4)}&sort=-name`, ['Echo', 'Delta', 'alpha']],
  [`created_after=${at(1)}&created_before=${at(3)}&sort=-name`, ['Charlie', 'alpha']],
  [`created_after=${at(1)}&created_before=${at(3)}&updated_after=${at(3)}`, ['alpha']],
  ['external_id=crm-2', ['Charlie']],
  ['external_id=crm-2&sort=name', ['Charlie']],
  [`external_id=crm-2&created_after=${at(3)}`, []],
  ['external_id=crm-9', []],
  // The same instants written other ways: an offset, and no fraction of a second (bound as the instant, never
  // compared as the text given).
  ['created_after=2026-11-20T12:03:00%2B02:00&sort=created_at', ['bravo', 'Echo']],
  ['created_before=2026-11-20T10:02:00Z&sort=created_at', ['Delta', 'alpha']],
  ['updated_after=2026-11-20T05:10:00-05:00', ['alpha', 'Delta']],
];

describe(`client list shapes on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: compiled once, the same pages`, () => {
  for (const [query, expected] of CASES) {
    test(query || '(no filter, default sort)', async () => {
      assert.deepEqual(await names(query), expected);
      // Again, from the shapes compiled by the first pass.
      assert.deepEqual(await names(query), expected);
    });
  }

  test('a cursor of one page with other filter values reads those values, not the first compiled ones', async () => {
    assert.deepEqual(await names(`created_before=${at(2)}&sort=created_at`), ['Delta', 'alpha']);
    assert.deepEqual(await names(`created_before=${at(5)}&sort=created_at`), [
      'Delta',
      'alpha',
      'Charlie',
      'bravo',
      'Echo',
    ]);
  });
});

describe('the byte bound of a page: never under the JSON it writes', () => {
  test('strings of every kind, numbers, nesting, and omitted fields', () => {
    const values: unknown[] = [
      { a: 'plain', b: 'é€😀', c: '\u0000\u001f"\\\n', d: '\ud800', e: null, f: true, g: -1.7976931348623157e308 },
      [1, 'two', [3, { four: [] }], {}],
      { omitted: undefined, kept: 'x', nested: { deeper: { deepest: 'y'.repeat(1000) } } },
      { date: new Date('2026-11-20T10:00:00.000Z') },
      '',
      0,
    ];
    for (const value of values) {
      const exact = Buffer.byteLength(JSON.stringify(value));
      assert.ok(jsonBytesAtMost(value, Number.POSITIVE_INFINITY) >= exact, JSON.stringify(value));
    }
  });
});
