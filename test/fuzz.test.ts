// Hostile input, property-based (fast-check): random and adversarial bodies for every POST and PUT, and
// random query strings for every list. Whatever arrives, the answer is a 4xx or 2xx in the envelope, never
// a 5xx, and a request that is refused changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

const RUNS = Number(process.env.BMS_FUZZ_RUNS ?? 60);
let context: TestContext;
let key: string;
const ids: Record<string, string> = {};

/** Values a careless or hostile client might send, at any depth. */
const hostile = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      '\udfff',
      'a\ud83d',
      '%s%n',
      "'; drop table clients; --",
      '<script>',
      'NaN',
      '1e309',
      '__proto__',
      'constructor',
      '0001-01-01',
      '2026-02-30',
      'bms_x',
    ),
    // Dates and instants at and beyond what both engines store (years 0001–9999, in UTC), and bad currencies.
    fc.constantFrom(
      '0000-01-01',
      '0000-12-31T23:59:59Z',
      '9999-12-31',
      '9999-12-31T23:59:59Z',
      '9999-12-31T23:59:59-01:00',
      '0001-01-01T00:00:00+01:00',
      '+010000-01-01T00:00:00Z',
      'ZZZ',
      'usd',
      'XTS',
    ),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, -0, 0.1 + 0.2),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.string(),
        fc.constantFrom(
          '__proto__',
          'constructor',
          'prototype',
          'name',
          'email',
          'line_items',
          'status',
          'client_id',
          'metadata',
        ),
      ),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** Bodies shaped like the real ones, with fields swapped for hostile values. */
function bodyFor(path: string) {
  const real: Record<string, Record<string, unknown>> = {
    '/v1/clients': { name: 'Fuzz', email: 'fuzz@example.com', address: { country: 'US' }, metadata: { a: 'b' } },
    '/v1/service-requests': { client_id: ids.client, title: 'Fuzz', preferred_date: '2026-12-01' },
    '/v1/quotes': {
      client_id: ids.client,
      line_items: [{ description: 'x', quantity: 1, unit_amount: 100, tax_rate: 8.875 }],
    },
    '/v1/jobs': { client_id: ids.client, title: 'Fuzz', scheduled_start: '2026-12-01T09:00:00Z' },
    '/v1/invoices': {
      client_id: ids.client,
      line_items: [{ description: 'x', quantity: 1, unit_amount: 100 }],
      due_date: '2026-12-31',
    },
  };
  const base = real[path]!;
  return fc.oneof(
    hostile,
    fc.record(
      Object.fromEntries(Object.keys(base).map((field) => [field, fc.oneof(fc.constant(base[field]), hostile)])),
      { requiredKeys: [] },
    ),
    fc
      .tuple(fc.string({ minLength: 1, maxLength: 12 }), hostile)
      .map(([field, value]) => ({ ...base, [field]: value })),
  );
}

function assertSane(response: ApiResponse, label: string) {
  assert.ok(response.status < 500, `${label}: ${response.status} ${response.text.slice(0, 300)}`);
  assert.ok(response.body?.meta?.request_id, `${label}: the envelope`);
  if (response.status >= 400) assert.match(response.body.error.code, /^[A-Z_]+$/, label);
}

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  ids.client = (await context.request('POST', '/v1/clients', { key, body: { name: 'Fuzz owner' } })).body.data.id;
  for (const [name, path, body] of [
    ['service-requests', '/v1/service-requests', { client_id: ids.client, title: 'x' }],
    ['quotes', '/v1/quotes', { client_id: ids.client }],
    ['jobs', '/v1/jobs', { client_id: ids.client, title: 'x' }],
    ['invoices', '/v1/invoices', { client_id: ids.client }],
  ] as const) {
    ids[name] = (await context.request('POST', path, { key, body })).body.data.id;
  }
  ids.clients = ids.client!;
});
after(() => context.close());

for (const collection of ['clients', 'service-requests', 'quotes', 'jobs', 'invoices']) {
  const path = `/v1/${collection}`;
  test(`POST and PUT ${path}: hostile bodies never cause a 5xx, refused ones change nothing`, async () => {
    await fc.assert(
      fc.asyncProperty(bodyFor(path), async (body) => {
        const before = (await context.request('GET', `${path}/${ids[collection]}`, { key })).body.data;
        const created = await context.request('POST', path, { key, body });
        assertSane(created, `POST ${JSON.stringify(body)}`);
        const updated = await context.request('PUT', `${path}/${ids[collection]}`, { key, body });
        assertSane(updated, `PUT ${JSON.stringify(body)}`);
        if (updated.status >= 400)
          assert.deepEqual(
            (await context.request('GET', `${path}/${ids[collection]}`, { key })).body.data,
            before,
            'a refused PUT changes nothing',
          );
      }),
      { numRuns: RUNS },
    );
  });

  test(`GET ${path}: hostile query strings never cause a 5xx`, async () => {
    const names = fc.constantFrom(
      'limit',
      'cursor',
      'sort',
      'status',
      'client_id',
      'q',
      'email',
      'created_after',
      'overdue',
      'due_before',
      'scheduled_from',
      'x',
      '__proto__',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            names,
            fc.oneof(
              fc.string(),
              fc.string({ unit: 'binary' }),
              fc.integer().map(String),
              fc.constantFrom('-1', '1e9', 'true', '', '%00', '-created_at', 'eyJ4IjoxfQ', 'WyJ4IiwxLCJ5Il0'),
            ),
          ),
          { maxLength: 4 },
        ),
        async (pairs) => {
          const query = new URLSearchParams(pairs).toString();
          assertSane(await context.request('GET', `${path}?${query}`, { key }), `GET ?${query}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test(`GET ${path}: forged cursors and out-of-range dates never cause a 5xx`, async () => {
    const sorts = fc.constantFrom(
      '-created_at',
      'created_at',
      'updated_at',
      'name',
      '-number',
      'due_date',
      'scheduled_start',
      'x',
    );
    const forged = fc
      .tuple(
        sorts,
        fc.oneof(
          hostile,
          fc.constantFrom(
            '0000-01-01T00:00:00.000Z',
            '+010000-01-01T00:00:00.000Z',
            '2026-13-45T99:99:99.999Z',
            9e15,
            -1,
            1.5,
          ),
        ),
        fc.oneof(fc.uuid(), hostile),
      )
      .map(([sort, value, id]) => ({
        sort,
        cursor: Buffer.from(JSON.stringify([sort, value, id])).toString('base64url'),
      }));
    const dates = fc.constantFrom(
      'created_after',
      'created_before',
      'updated_after',
      'due_before',
      'due_after',
      'scheduled_from',
      'scheduled_to',
    );
    const values = fc.constantFrom(
      '0000-01-01',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-01:00',
      '9999-12-31T23:59:59Z',
      '0001-01-01T00:00:00+00:30',
    );
    await fc.assert(
      fc.asyncProperty(forged, dates, values, async ({ sort, cursor }, name, value) => {
        assertSane(
          await context.request('GET', `${path}?sort=${encodeURIComponent(sort)}&cursor=${cursor}`, { key }),
          `GET sort=${sort} cursor=${cursor}`,
        );
        assertSane(
          await context.request('GET', `${path}?${name}=${encodeURIComponent(value)}`, { key }),
          `GET ${name}=${value}`,
        );
      }),
      { numRuns: RUNS },
    );
  });
}

test('odd encodings and content types never cause a 5xx', async () => {
  const cases: Array<[string, string | Buffer]> = [
    ['application/json', Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['application/json', '{"name": "a"'.repeat(1000)],
    ['application/json', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['application/json', `{"name":"x","metadata":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`],
    ['application/json; charset=latin1', '{"name":"x"}'],
    ['application/merge-patch+json', '{"name":"x"}'],
    ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ['', '{"name":"x"}'],
    ['application/json', '123456789012345678901234567890'],
    ['application/json', '{"name":"x","notes":"\\ud800"}'],
  ];
  for (const [type, payload] of cases) {
    const response = await context.request('POST', '/v1/clients', {
      key,
      rawBody: payload,
      headers: type ? { 'content-type': type } : {},
    });
    assertSane(response, `${type} ${String(payload).slice(0, 40)}`);
  }
});

test('the NUL character is refused in any string, body or query, naming the field (PostgreSQL cannot store it)', async () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/v1/clients', { name: 'a\u0000b' }, 'name'],
    ['POST', '/v1/clients', { name: 'ok', metadata: { 'k\u0000': 'v' } }, 'metadata.k\u0000'],
    [
      'POST',
      '/v1/invoices',
      { client_id: ids.client, line_items: [{ description: '\u0000', quantity: 1, unit_amount: 1 }] },
      'line_items[0].description',
    ],
    ['PUT', `/v1/clients/${ids.client}`, { notes: 'x\u0000' }, 'notes'],
  ];
  for (const [method, url, body, field] of cases) {
    const response = await context.request(method, url, { key, body });
    assert.equal(response.status, 422, `${url}: ${response.text}`);
    assert.deepEqual(
      response.body.error.details.map((detail: { field: string }) => detail.field),
      [field],
    );
  }
  const query = await context.request('GET', '/v1/clients?q=%00', { key });
  assert.deepEqual([query.status, query.body.error.details[0].field], [422, 'q']);
  assert.equal(
    (await context.request('GET', `/v1/clients/${ids.client}`, { key })).body.data.notes,
    null,
    'nothing stored',
  );
});

test('a lone UTF-16 surrogate is refused in any string with a 422 naming the field, on both engines', async () => {
  const cases: Array<[string, string, string, string]> = [
    ['POST', '/v1/clients', '{"name":"x","notes":"\\ud800"}', 'notes'],
    ['POST', '/v1/clients', '{"name":"\\udfff tail"}', 'name'],
    ['POST', '/v1/clients', '{"name":"ok","metadata":{"k\\ud83d":"v"}}', 'metadata.k\ud83d'],
    ['PUT', `/v1/clients/${ids.client}`, '{"notes":"end \\ud83d"}', 'notes'],
  ];
  for (const [method, url, rawBody, field] of cases) {
    const response = await context.request(method, url, {
      key,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 422, `${rawBody}: ${response.text}`);
    assert.deepEqual(
      response.body.error.details.map((detail: { field: string }) => detail.field),
      [field],
    );
  }
  const pair = await context.request('POST', '/v1/clients', {
    key,
    rawBody: '{"name":"Emoji \\ud83d\\ude00"}',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(pair.status, 201, 'a surrogate pair is a character');
  assert.equal(pair.body.data.name, 'Emoji \u{1F600}');
});

test('bodies nested deeper than 64 levels are refused with a 422, not a crash', async () => {
  const deep = await context.request('POST', '/v1/clients', {
    key,
    rawBody: `{"name":"x","metadata":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`,
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual([deep.status, deep.body.error.details[0].field], [422, 'body']);
  const shallow = await context.request('POST', '/v1/clients', { key, body: { name: 'x', address: { city: 'y' } } });
  assert.equal(shallow.status, 201);
});

test('PostgreSQL and SQLite refuse the same hostile values with a 422: forged cursors, years 0000 and 10000, unknown currencies', async () => {
  const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
  const uuid = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  const lists = [
    `/v1/clients?cursor=${cursor(['-created_at', '2026-01-01T00:00:00.000Z', 'not-a-uuid'])}`,
    `/v1/clients?cursor=${cursor(['-created_at', 42, uuid])}`,
    `/v1/clients?cursor=${cursor(['-created_at', '0000-01-01T00:00:00.000Z', uuid])}`,
    `/v1/clients?cursor=${cursor(['-created_at', '2026-01-01T00:00:00.000Z', `${uuid}\u0000`])}`,
    `/v1/clients?sort=name&cursor=${cursor(['name', 'a\u0000b', uuid])}`,
    `/v1/quotes?sort=number&cursor=${cursor(['number', 'seven', uuid])}`,
    `/v1/invoices?sort=due_date&cursor=${cursor(['due_date', '2026-99-99', uuid])}`,
    // Days that do not exist: JavaScript's Date rolls them over to March; PostgreSQL refuses them.
    `/v1/invoices?sort=due_date&cursor=${cursor(['due_date', '2026-02-30', uuid])}`,
    `/v1/clients?cursor=${cursor(['-created_at', '2026-02-30T00:00:00.000Z', uuid])}`,
    `/v1/jobs?sort=scheduled_start&cursor=${cursor(['scheduled_start', '2025-02-29T09:00:00.000Z', uuid])}`,
    '/v1/clients?created_after=0000-01-01T00:00:00Z',
    `/v1/jobs?scheduled_from=${encodeURIComponent('9999-12-31T23:59:59-01:00')}`,
    '/v1/invoices?due_before=0000-01-01',
  ];
  for (const url of lists) {
    const response = await context.request('GET', url, { key });
    assert.equal(response.status, 422, `${url}: ${response.text}`);
  }
  const bodies: Array<[string, Record<string, unknown>, string]> = [
    ['/v1/invoices', { client_id: ids.client, issue_date: '0000-01-01' }, 'issue_date'],
    [
      '/v1/jobs',
      { client_id: ids.client, title: 'x', scheduled_start: '9999-12-31T23:59:59-01:00' },
      'scheduled_start',
    ],
    ['/v1/jobs', { client_id: ids.client, title: 'x', scheduled_start: '0000-06-01T00:00:00Z' }, 'scheduled_start'],
    ['/v1/quotes', { client_id: ids.client, currency: 'ZZZ' }, 'currency'],
  ];
  for (const [path, body, field] of bodies) {
    const response = await context.request('POST', path, { key, body });
    assert.deepEqual(
      [response.status, response.body.error?.details?.[0]?.field],
      [422, field],
      `${path} ${JSON.stringify(body)}: ${response.text}`,
    );
  }
  const edge = await context.request('POST', '/v1/jobs', {
    key,
    body: {
      client_id: ids.client,
      title: 'Edge',
      scheduled_start: '9999-12-31T23:59:59Z',
      scheduled_end: '9999-12-31T23:59:59.999Z',
    },
  });
  assert.equal(edge.status, 201, `the last instant of 9999 is storable: ${edge.text}`);
  assert.equal(
    (await context.request('POST', '/v1/quotes', { key, body: { client_id: ids.client, currency: 'JPY' } })).status,
    201,
  );
});

test('a body of 60,000 unknown fields is refused early with a short answer; details stop at 100 with a count', async () => {
  const wide = `{${Array.from({ length: 60_000 }, (_, index) => `"f${index}":1`).join(',')}}`;
  const refused = await context.request('POST', '/v1/clients', {
    key,
    rawBody: wide,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(refused.status, 422);
  assert.deepEqual(refused.body.error.details, [
    { field: 'body', message: 'body must not hold an object of more than 200 keys' },
  ]);
  assert.ok(refused.text.length < 1000, `a short answer (${refused.text.length} bytes)`);

  const lines = Array.from({ length: 200 }, () => ({ description: '', quantity: -1, unit_amount: 'x' }));
  const many = await context.request('POST', '/v1/invoices', {
    key,
    body: { client_id: ids.client, line_items: lines },
  });
  assert.equal(many.status, 422);
  assert.equal(many.body.error.details.length, 100);
  assert.match(many.body.error.message, /\(100 of 600 problems listed\)$/);
});
