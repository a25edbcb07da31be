// A list of clients filtered by custom fields or tags reads, on SQLite, its page's ids and versions and then the
// clients' kept copies (modules/clients/client-cache.ts). Asked twice between writes, such a page answers what the
// rows now hold: after a PUT of a value, a value changed by hand in SQL (row and value row), a tag's rename and a
// new field's definition, on both engines (PostgreSQL keeps no copies: the same answers).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;

before(async () => {
  context = await createTestContext();
});
after(() => context.close());

test('a list filtered by a custom field or a tag answers the rows as they now are, read twice between writes', async () => {
  const { key } = await context.account();
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  for (const field of [
    { key: 'region', label: 'Region', type: 'text' },
    { key: 'visits', label: 'Visits', type: 'number' },
  ])
    assert.equal((await api('POST', '/v1/custom-fields', { resource: 'client', ...field })).status, 201);
  const ids: string[] = [];
  for (const [name, region, visits, tags] of [
    ['Ada', 'North', 3, ['VIP']],
    ['Bob', 'South', 5, []],
    ['Cy', 'north', 8, ['VIP', 'Rare']],
  ] as const) {
    const created = await api('POST', '/v1/clients', { name, custom_fields: { region, visits }, tags });
    assert.equal(created.status, 201);
    ids.push(created.body.data.id);
  }
  const [ada, bob, cy] = ids as [string, string, string];
  /** Each filtered list, read twice (the second from the copies where kept): the same answer both times. */
  const lists = async (tag: string) => {
    const answers: Record<string, unknown> = {};
    for (const query of ['custom_fields.region=north', 'custom_fields.visits.gte=5', `tags_any=${tag}`]) {
      const first = await api('GET', `/v1/clients?${query}`);
      const again = await api('GET', `/v1/clients?${query}`);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(again.body.data, first.body.data, `${query}, read again`);
      answers[query.replace(`=${tag}`, '')] = first.body.data.map((client: any) => [
        client.name,
        client.custom_fields,
        client.tags,
      ]);
    }
    return answers;
  };

  assert.deepEqual(await lists('vip'), {
    'custom_fields.region=north': [
      ['Cy', { region: 'north', visits: 8 }, ['VIP', 'Rare']],
      ['Ada', { region: 'North', visits: 3 }, ['VIP']],
    ],
    'custom_fields.visits.gte=5': [
      ['Cy', { region: 'north', visits: 8 }, ['VIP', 'Rare']],
      ['Bob', { region: 'South', visits: 5 }, []],
    ],
    tags_any: [
      ['Cy', { region: 'north', visits: 8 }, ['VIP', 'Rare']],
      ['Ada', { region: 'North', visits: 3 }, ['VIP']],
    ],
  });

  // Other sorts, a page of one at a time (the cursor), twice: the rows in the sort's order.
  for (const [query, names] of [
    ['custom_fields.region=north&sort=name', ['Ada', 'Cy']],
    ['custom_fields.region=north&sort=-name', ['Cy', 'Ada']],
    ['tags_any=vip&sort=updated_at', ['Ada', 'Cy']],
    ['custom_fields.visits.gte=3&sort=created_at', ['Ada', 'Bob', 'Cy']],
  ] as const)
    for (let time = 0; time < 2; time++) {
      const seen: string[] = [];
      let cursor = '';
      for (;;) {
        const page = await api(
          'GET',
          `/v1/clients?${query}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(page.status, 200, JSON.stringify(page.body));
        seen.push(...page.body.data.map((client: any) => client.name));
        if (!page.body.meta.pagination.has_more) break;
        cursor = page.body.meta.pagination.next_cursor;
      }
      assert.deepEqual(seen, names, query);
    }

  // A PUT of a value: Ada leaves the north and passes 5 visits.
  assert.equal((await api('PUT', `/v1/clients/${ada}`, { custom_fields: { region: 'East', visits: 6 } })).status, 200);
  // By hand in SQL: Bob's visits become 4 (the row's JSON and its value row, as BMS writes them).
  await sql`update clients set custom_fields = ${JSON.stringify({ region: 'South', visits: 4 })} where id = ${bob}`.execute(
    context.database.db,
  );
  await sql`update custom_field_values set number_value = 4 where object_id = ${bob} and number_value is not null`.execute(
    context.database.db,
  );
  // A tag's rename moves no client row.
  const vip = (await api('GET', '/v1/tags?q=vip')).body.data[0];
  assert.equal((await api('PUT', `/v1/tags/${vip.id}`, { name: 'Gold' })).status, 200);
  assert.deepEqual(await lists('gold'), {
    'custom_fields.region=north': [['Cy', { region: 'north', visits: 8 }, ['Gold', 'Rare']]],
    'custom_fields.visits.gte=5': [
      ['Cy', { region: 'north', visits: 8 }, ['Gold', 'Rare']],
      ['Ada', { region: 'East', visits: 6 }, ['Gold']],
    ],
    tags_any: [
      ['Cy', { region: 'north', visits: 8 }, ['Gold', 'Rare']],
      ['Ada', { region: 'East', visits: 6 }, ['Gold']],
    ],
  });

  // A new field: every client answers its key, null where unset.
  assert.equal(
    (await api('POST', '/v1/custom-fields', { resource: 'client', key: 'gate', label: 'Gate', type: 'text' })).status,
    201,
  );
  assert.equal((await api('PUT', `/v1/clients/${cy}`, { custom_fields: { gate: '4321' } })).status, 200);
  assert.deepEqual(await lists('gold'), {
    'custom_fields.region=north': [['Cy', { region: 'north', visits: 8, gate: '4321' }, ['Gold', 'Rare']]],
    'custom_fields.visits.gte=5': [
      ['Cy', { region: 'north', visits: 8, gate: '4321' }, ['Gold', 'Rare']],
      ['Ada', { region: 'East', visits: 6, gate: null }, ['Gold']],
    ],
    tags_any: [
      ['Cy', { region: 'north', visits: 8, gate: '4321' }, ['Gold', 'Rare']],
      ['Ada', { region: 'East', visits: 6, gate: null }, ['Gold']],
    ],
  });
});
