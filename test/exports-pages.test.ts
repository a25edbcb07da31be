// Contract section 26, "Export": an export streams every object its list's filters and sort select, each as the list
// answers it. An export reads the list's pages through the list's own code (not an answer per page over HTTP): here
// its lines are compared, byte for byte, with the objects of the list's pages of 100 read one after another, for a
// kind with custom fields and tags, over three pages, unfiltered and filtered by a tag; and its CSV cells with them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;

/** 230 clients: three pages of 100. Every third holds the tags VIP and North; every second a multi_select. */
const CLIENT_COUNT = 230;
const nameOf = (index: number) => `Client ${String(index).padStart(3, '0')}`;

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account('Paging Co'));
  for (const field of [
    { resource: 'client', key: 'tier', label: 'Tier', type: 'text' },
    {
      resource: 'client',
      key: 'services',
      label: 'Services',
      type: 'multi_select',
      options: [
        { value: 'lawn', label: 'Lawn' },
        { value: 'snow', label: 'Snow' },
      ],
    },
  ]) {
    const defined = await api('POST', '/v1/custom-fields', field);
    assert.equal(defined.status, 201, defined.text);
  }
  for (let start = 1; start <= CLIENT_COUNT; start += 50) {
    const operations = Array.from({ length: Math.min(50, CLIENT_COUNT - start + 1) }, (_, offset) => {
      const index = start + offset;
      return {
        method: 'POST',
        path: '/v1/clients',
        body: {
          name: nameOf(index),
          email: `client${index}@example.com`,
          metadata: { index: String(index) },
          custom_fields: {
            tier: index % 5 === 0 ? '=gold' : `tier ${index}`,
            ...(index % 2 === 0 ? { services: ['lawn', 'snow'] } : {}),
          },
          ...(index % 3 === 0 ? { tags: ['VIP', 'North'] } : {}),
        },
      };
    });
    const made = await api('POST', '/v1/change-sets', { operations });
    assert.equal(made.status, 200, made.text);
  }
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown): Promise<ApiResponse> {
  return context.request(method, url, { key, ...(body !== undefined ? { body } : {}) });
}

/** Every object of `GET /v1/clients?<query>`, page after page of 100, each written as JSON. */
async function listed(query: string): Promise<string[]> {
  const lines: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await api('GET', `/v1/clients?${query}&limit=100${cursor === null ? '' : `&cursor=${cursor}`}`);
    assert.equal(page.status, 200, page.text);
    for (const item of page.body.data) lines.push(JSON.stringify(item));
    cursor = page.body.meta.pagination.next_cursor;
  } while (cursor !== null);
  return lines;
}

test('NDJSON: each line is the list page’s object, byte for byte, across three pages and with a tag filter', async () => {
  for (const [query, count] of [
    ['sort=name', 230],
    ['sort=-created_at', 230],
    ['tags_any=vip&sort=name', 76],
  ] as const) {
    const exported = await api('GET', `/v1/exports/clients?format=ndjson&${query}`);
    assert.equal(exported.status, 200, exported.text);
    const lines = exported.text.split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.pop(), JSON.stringify({ object: 'export_end', count }));
    const pages = await listed(query);
    assert.equal(pages.length, count, query);
    assert.deepEqual(lines, pages, query);
  }
});

test('CSV: a row per object of the list’s pages, tags and a multi_select joined by |, text escaped', async () => {
  const exported = await api('GET', '/v1/exports/clients?format=csv&sort=name');
  assert.equal(exported.status, 200, exported.text);
  const records = parse(exported.text, { bom: true, columns: true }) as Record<string, string>[];
  const objects = (await listed('sort=name')).map((line) => JSON.parse(line));
  assert.equal(records.length, 230);
  assert.deepEqual(
    records.map((record) => record.id),
    objects.map((object) => object.id),
  );
  const client = (index: number) => records.find((record) => record.name === nameOf(index));
  assert.equal(client(6)?.tags, 'VIP|North');
  assert.equal(client(6)?.['custom_fields.services'], 'lawn|snow');
  assert.equal(client(6)?.['custom_fields.tier'], 'tier 6');
  assert.equal(client(7)?.tags, '');
  assert.equal(client(7)?.['custom_fields.services'], '');
  assert.equal(client(10)?.['custom_fields.tier'], "'=gold");
  assert.deepEqual(JSON.parse(client(230)?.metadata ?? ''), { index: '230' });
});
