// Clients: create, read, partial update, delete, validation, and lists (filters, sort, keyset pages).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
let context: TestContext;
let key: string;

async function create(body: Record<string, unknown>, apiKey = key) {
  clock.advance(1);
  const response = await context.request('POST', '/v1/clients', { key: apiKey, body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

async function listAll(query: string, apiKey = key): Promise<any[]> {
  const items: any[] = [];
  let url: string | undefined = `/v1/clients?${query}`;
  while (url) {
    const response: ApiResponse = await context.request('GET', url, { key: apiKey });
    assert.equal(response.status, 200, response.text);
    items.push(...response.body.data);
    const cursor: string | null = response.body.meta.pagination.next_cursor;
    url = cursor ? `/v1/clients?${query}&cursor=${cursor}` : undefined;
  }
  return items;
}

before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());
beforeEach(async () => {
  ({ key } = await context.account());
});

describe('create and read', () => {
  test('POST returns 201, Location and every field; GET returns the same object', async () => {
    const body = {
      name: 'Jane Cooper',
      email: 'jane@example.com',
      phone: '+1 555 0100',
      company_name: 'Cooper Bakery',
      address: { line1: '12 Elm Street', city: 'Springfield', region: 'IL', postal_code: '62704', country: 'US' },
      notes: 'Gate code 4512',
      metadata: { crm_id: 'C-1042' },
    };
    const response = await context.request('POST', '/v1/clients', { key, body });
    assert.equal(response.status, 201);
    const client = response.body.data;
    assert.equal(response.headers.location, `/v1/clients/${client.id}`);
    assert.match(client.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUIDv7');
    assert.deepEqual(client, {
      id: client.id,
      object: 'client',
      ...body,
      address: { ...body.address, line2: null },
      // Contract section 31: the buyer's e-invoicing fields, none given.
      vat_id: null,
      registration_id: null,
      registration_scheme: null,
      electronic_address: null,
      buyer_reference: null,
      einvoice_format: null,
      // Contract section 16: a client answers its properties' ids (none yet).
      property_ids: [],
      // Contract section 27: every custom field defined for clients (none yet).
      custom_fields: {},
      tags: [],
      external_id: null,
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    });
    const fetched = await context.request('GET', `/v1/clients/${client.id}`, { key });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body.data, client);
  });

  test('only name is required; optional fields default to null and metadata to {}', async () => {
    const client = await create({ name: 'Solo' });
    assert.equal(client.email, null);
    assert.equal(client.address, null);
    assert.deepEqual(client.metadata, {});
  });

  test('an unknown id is 404', async () => {
    const response = await context.request('GET', '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', { key });
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'NOT_FOUND');
  });
});

describe('validation', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing name', { email: 'a@example.com' }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['name too long', { name: 'x'.repeat(201) }, 'name'],
    ['name of the wrong type', { name: 42 }, 'name'],
    ['null name', { name: null }, 'name'],
    ['invalid e-mail', { name: 'A', email: 'jane@' }, 'email'],
    ['e-mail with spaces', { name: 'A', email: 'jane doe@example.com' }, 'email'],
    ['e-mail too long', { name: 'A', email: `${'a'.repeat(250)}@example.com` }, 'email'],
    ['phone too long', { name: 'A', phone: '1'.repeat(51) }, 'phone'],
    ['notes too long', { name: 'A', notes: 'n'.repeat(5001) }, 'notes'],
    ['lower-case country', { name: 'A', address: { country: 'us' } }, 'address.country'],
    ['unknown address field', { name: 'A', address: { street: 'x' } }, 'address.street'],
    ['metadata value not a string', { name: 'A', metadata: { a: 1 } }, 'metadata.a'],
    ['metadata value too long', { name: 'A', metadata: { a: 'v'.repeat(501) } }, 'metadata.a'],
    [
      'too many metadata keys',
      { name: 'A', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v'])) },
      'metadata',
    ],
    ['read-only id', { name: 'A', id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }, 'id'],
    ['read-only updated_at', { name: 'A', updated_at: '2026-01-01T00:00:00.000Z' }, 'updated_at'],
    ['unknown field', { name: 'A', nickname: 'J' }, 'nickname'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label}: 422 on ${field}, nothing stored`, async () => {
      const response = await context.request('POST', '/v1/clients', { key, body });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        response.body.error.details.map((detail: { field: string }) => detail.field),
        [field],
      );
      assert.deepEqual((await context.request('GET', '/v1/clients', { key })).body.data, []);
    });
  }

  test('several bad fields give one detail each', async () => {
    const response = await context.request('POST', '/v1/clients', { key, body: { email: 'x', phone: 5 } });
    assert.deepEqual(response.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
      'email',
      'name',
      'phone',
    ]);
  });
});

describe('update', () => {
  test('PUT changes only the fields present and bumps updated_at', async () => {
    const client = await create({ name: 'Jane', email: 'jane@example.com', phone: '555' });
    clock.advance(1000);
    const response = await context.request('PUT', `/v1/clients/${client.id}`, { key, body: { phone: '556' } });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.phone, '556');
    assert.equal(response.body.data.email, 'jane@example.com');
    assert.equal(response.body.data.name, 'Jane');
    assert.equal(response.body.data.created_at, client.created_at);
    assert.equal(response.body.data.updated_at, clock.now().toISOString());
    assert.deepEqual((await context.request('GET', `/v1/clients/${client.id}`, { key })).body.data, response.body.data);
  });

  test('null clears an optional field; name cannot be cleared', async () => {
    const client = await create({
      name: 'Jane',
      email: 'jane@example.com',
      address: { city: 'Springfield' },
      metadata: { a: 'b' },
    });
    const cleared = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { email: null, address: null },
    });
    assert.equal(cleared.body.data.email, null);
    assert.equal(cleared.body.data.address, null);
    assert.deepEqual(cleared.body.data.metadata, { a: 'b' });
    const refused = await context.request('PUT', `/v1/clients/${client.id}`, { key, body: { name: null } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.details[0].field, 'name');
  });

  test('address and metadata are replaced as a whole', async () => {
    const client = await create({
      name: 'Jane',
      address: { city: 'Springfield', country: 'US' },
      metadata: { a: '1', b: '2' },
    });
    const response = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { address: { line1: '1 Main St' }, metadata: { c: '3' } },
    });
    assert.deepEqual(response.body.data.address, {
      line1: '1 Main St',
      line2: null,
      city: null,
      region: null,
      postal_code: null,
      country: null,
    });
    assert.deepEqual(response.body.data.metadata, { c: '3' });
  });

  test('an empty PUT changes nothing, not even updated_at', async () => {
    const client = await create({ name: 'Jane' });
    clock.advance(1000);
    const response = await context.request('PUT', `/v1/clients/${client.id}`, { key, body: {} });
    assert.deepEqual(response.body.data, client);
  });

  test('a failed update leaves the stored client unchanged', async () => {
    const client = await create({ name: 'Jane', email: 'jane@example.com' });
    const response = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { name: 'New', email: 'broken' },
    });
    assert.equal(response.status, 422);
    assert.deepEqual((await context.request('GET', `/v1/clients/${client.id}`, { key })).body.data, client);
  });

  test('PUT on an unknown id is 404; read-only fields are 422', async () => {
    assert.equal(
      (await context.request('PUT', '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', { key, body: { name: 'X' } }))
        .status,
      404,
    );
    const client = await create({ name: 'Jane' });
    const response = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { created_at: '2020-01-01T00:00:00.000Z' },
    });
    assert.equal(response.status, 422);
  });
});

describe('delete', () => {
  test('DELETE answers {id, deleted: true}; the client is gone', async () => {
    const client = await create({ name: 'Jane' });
    const response = await context.request('DELETE', `/v1/clients/${client.id}`, { key });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, { id: client.id, deleted: true });
    assert.equal((await context.request('GET', `/v1/clients/${client.id}`, { key })).status, 404);
    assert.equal((await context.request('DELETE', `/v1/clients/${client.id}`, { key })).status, 404);
  });

  test('DELETE with a stray JSON content type and no body still works', async () => {
    const client = await create({ name: 'Jane' });
    const response = await context.request('DELETE', `/v1/clients/${client.id}`, {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 200, response.text);
  });
});

describe('lists', () => {
  test('default order is newest first, 25 a page, with pagination meta and a Link header', async () => {
    const created = [];
    for (let index = 0; index < 30; index += 1) created.push(await create({ name: `Client ${index}` }));
    const first = await context.request('GET', '/v1/clients', { key });
    assert.equal(first.body.data.length, 25);
    assert.deepEqual(
      first.body.data.map((client: { id: string }) => client.id),
      created
        .reverse()
        .slice(0, 25)
        .map((client) => client.id),
    );
    assert.equal(first.body.meta.pagination.limit, 25);
    assert.equal(first.body.meta.pagination.has_more, true);
    const cursor = first.body.meta.pagination.next_cursor;
    assert.equal(first.headers.link, `</v1/clients?cursor=${cursor}>; rel="next"`);
    const second = await context.request('GET', `/v1/clients?cursor=${cursor}`, { key });
    assert.equal(second.body.data.length, 5);
    assert.deepEqual(second.body.meta.pagination, { limit: 25, has_more: false, next_cursor: null });
    assert.equal(second.headers.link, undefined);
  });

  test('paging visits every row once, in every sort order, even with equal sort values', async () => {
    const names = ['delta', 'Alpha', 'charlie', 'bravo', 'alpha', 'echo', 'alpha'];
    const ids: string[] = [];
    for (const name of names) ids.push((await create({ name })).id);
    // Rows created in the same millisecond: the id breaks the tie.
    const sameInstant = await Promise.all(
      [0, 1, 2].map((index) => context.request('POST', '/v1/clients', { key, body: { name: `same ${index}` } })),
    );
    ids.push(...sameInstant.map((response) => response.body.data.id));
    for (const sort of ['created_at', '-created_at', 'updated_at', '-updated_at', 'name', '-name']) {
      const seen = await listAll(`limit=2&sort=${sort}`);
      assert.equal(seen.length, ids.length, sort);
      assert.deepEqual(new Set(seen.map((client) => client.id)), new Set(ids), sort);
      const column = sort.replace('-', '');
      // sort=name ignores case (contract section 13): 'Alpha' and 'alpha' tie, and the id breaks it.
      const values = seen.map(
        (client) => `${column === 'name' ? client.name.toLowerCase() : client[column]}\u0000${client.id}`,
      );
      const sorted = [...values].sort();
      assert.deepEqual(values, sort.startsWith('-') ? sorted.reverse() : sorted, `ordered by ${sort} then id`);
    }
  });

  test('pages stay stable while other requests insert rows', async () => {
    const original: string[] = [];
    for (let index = 0; index < 40; index += 1) original.push((await create({ name: `Row ${index}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const [page]: [ApiResponse, ...unknown[]] = await Promise.all([
        context.request('GET', `/v1/clients?limit=7${cursor ? `&cursor=${cursor}` : ''}`, { key }),
        ...Array.from({ length: 3 }, (_, index) => create({ name: `Concurrent ${index}` })),
      ]);
      seen.push(...page.body.data.map((client: { id: string }) => client.id));
      cursor = page.body.meta.pagination.next_cursor;
    } while (cursor);
    const fromOriginal = seen.filter((id) => original.includes(id));
    assert.deepEqual(fromOriginal, [...original].reverse(), 'every original row once, in order');
    assert.equal(new Set(seen).size, seen.length, 'no row twice');
  });

  test('q matches name, e-mail, phone and company, case-insensitively; % and _ are literal', async () => {
    const jane = await create({ name: 'Jane Cooper' });
    const byEmail = await create({ name: 'B', email: 'COOPER@example.com' });
    const byPhone = await create({ name: 'C', phone: '+1 555 0199' });
    const byCompany = await create({ name: 'D', company_name: 'The cooper company' });
    await create({ name: 'Unrelated', email: 'x@example.com' });
    const percent = await create({ name: '100% Cleaning' });
    const ids = (items: any[]) => items.map((client) => client.id).sort();
    assert.deepEqual(ids(await listAll('q=cOoPeR')), [jane.id, byEmail.id, byCompany.id].sort());
    assert.deepEqual(ids(await listAll('q=0199')), [byPhone.id]);
    assert.deepEqual(ids(await listAll('q=0%25%20C')), [percent.id]);
    assert.deepEqual(ids(await listAll('q=%25_C')), []);
    assert.deepEqual(ids(await listAll('q=%22coo')), [], 'a quote character is literal too');
  });

  test('a q of one or two characters matches the start of name, e-mail, company or phone, case-insensitively', async () => {
    const jane = await create({ name: 'Jean-Luc Zorro' });
    const byEmail = await create({ name: 'Q', email: 'ZOE@example.com' });
    const byCompany = await create({ name: 'R', company_name: 'zo Bakery' });
    const byPhone = await create({ name: 'S', phone: 'zo-555' });
    await create({ name: 'Bozo' });
    const ids = (items: any[]) => items.map((client) => client.id).sort();
    assert.deepEqual(ids(await listAll('q=zO')), [byEmail.id, byCompany.id, byPhone.id].sort());
    assert.deepEqual(ids(await listAll('q=J')).includes(jane.id), true);
    assert.deepEqual(ids(await listAll('q=_')), []);
  });

  test('a search pages in sort order whether a page comes from the nearest rows (common term) or from the index (rare)', async () => {
    // 12 matches fill pages of 5 from the first rows read; the last page of 2 is completed from the index.
    const names = [
      'cooper Ann',
      'Cooper Bob',
      'COOPER Cy',
      'Dee Cooper',
      'ed cooper',
      'Fay Coopers',
      'Gus Cooper',
      'hal cooper',
      'Ivy Cooper',
      'Jo Cooper',
      'kim COOPER',
      'Lu Cooper',
    ];
    for (const name of names) {
      await create({ name });
      await create({ name: `Other ${name.length}` });
    }
    const expected = [...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    assert.deepEqual(
      (await listAll('q=cooper&sort=name&limit=5')).map((client) => client.name),
      expected,
    );
    assert.deepEqual(
      (await listAll('q=COOPER&sort=-name&limit=5')).map((client) => client.name),
      [...expected].reverse(),
    );
    assert.deepEqual(
      (await listAll('q=ed&limit=5')).map((client) => client.name),
      ['ed cooper'],
    );
    assert.deepEqual(
      (await listAll('q=Coopers&limit=5')).map((client) => client.name),
      ['Fay Coopers'],
    );
  });

  test("a search's rows carry their tags and property ids: from a full page of the nearest rows, and from the search itself", async () => {
    const ann = await create({ name: 'Quillon Ann', tags: ['Gold', 'north'] });
    const bob = await create({ name: 'Quillon Bob' });
    const cy = await create({ name: 'Quillon Cy', tags: ['south'] });
    const propertyOf = async (client: { id: string }) => {
      const made = await context.request('POST', '/v1/properties', {
        key,
        body: { client_id: client.id, address: { line1: '1 Main Street', country: 'US' } },
      });
      assert.equal(made.status, 201, made.text);
      return made.body.data.id;
    };
    const annProperty = await propertyOf(ann);
    const cyProperty = await propertyOf(cy);
    // Two a page, newest first: the first page is full from the nearest rows; the second (one match left after
    // the cursor) is read by the search once the count has decided (one statement on PostgreSQL).
    const first = await context.request('GET', '/v1/clients?q=quillon&limit=2', { key });
    assert.equal(first.status, 200, first.text);
    const cursor = first.body.meta.pagination.next_cursor;
    const second = await context.request('GET', `/v1/clients?q=quillon&limit=2&cursor=${cursor}`, { key });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((client: any) => [client.name, client.tags, client.property_ids]),
      [
        ['Quillon Cy', ['south'], [cyProperty]],
        ['Quillon Bob', [], []],
        ['Quillon Ann', ['Gold', 'north'], [annProperty]],
      ],
    );
    assert.equal(second.body.meta.pagination.has_more, false);
    assert.deepEqual(
      [cy.id, bob.id, ann.id],
      [...first.body.data, ...second.body.data].map((client: any) => client.id),
    );
  });

  test('sort=name ignores case: alpha before Charlie before delta', async () => {
    for (const name of ['Charlie', 'delta', 'alpha']) await create({ name });
    const names = (await listAll('sort=name'))
      .map((client) => client.name)
      .filter((name) => ['Charlie', 'delta', 'alpha'].includes(name));
    assert.deepEqual(names, ['alpha', 'Charlie', 'delta']);
  });

  test('email filter is exact and case-insensitive', async () => {
    const jane = await create({ name: 'Jane', email: 'Jane@Example.com' });
    await create({ name: 'Janet', email: 'janet@example.com' });
    assert.deepEqual(
      (await listAll('email=jane@example.com')).map((client) => client.id),
      [jane.id],
    );
  });

  test('created_after, created_before and updated_after bound the list', async () => {
    const first = await create({ name: 'first' });
    clock.advance(60_000);
    const second = await create({ name: 'second' });
    clock.advance(60_000);
    await context.request('PUT', `/v1/clients/${first.id}`, { key, body: { phone: '1' } });
    assert.deepEqual(
      (await listAll(`created_after=${encodeURIComponent(second.created_at)}`)).map((client) => client.id),
      [second.id],
    );
    assert.deepEqual(
      (await listAll(`created_before=${encodeURIComponent(second.created_at)}`)).map((client) => client.id),
      [first.id],
    );
    // A timestamp with an offset means the same instant.
    const offset = new Date(new Date(second.created_at).getTime() + 1).toISOString().replace('Z', '+00:00');
    assert.deepEqual(
      (await listAll(`updated_after=${encodeURIComponent(offset)}`)).map((client) => client.id),
      [first.id],
    );
  });

  test('bad list parameters are 422 with the parameter named', async () => {
    await create({ name: 'x' });
    const cursor = (await context.request('GET', '/v1/clients?limit=1&sort=name', { key })).body.meta.pagination
      .next_cursor;
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['sort=email', 'sort'],
      ['cursor=garbage', 'cursor'],
      ['created_after=yesterday', 'created_after'],
      [`cursor=${cursor}`, 'cursor'],
    ];
    await create({ name: 'y' });
    for (const [query, field] of cases) {
      const response = await context.request('GET', `/v1/clients?${query}`, { key });
      assert.equal(response.status, 422, `${query}: ${response.text}`);
      assert.deepEqual(
        response.body.error.details.map((detail: { field: string }) => detail.field),
        [field],
        query,
      );
    }
  });
});
