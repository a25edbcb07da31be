// Contract section 26, change sets: up to 50 operations through each route's own code in one transaction, `$ref`
// between them, every scope and body checked before anything runs, all or none, a dry run that leaves nothing
// behind (no row, number or event), one Idempotency-Key for the set, n rate-limit tokens, and events' origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let accountId: string;

const LINES = [
  { description: 'Gutter cleaning', quantity: 2, unit_amount: 12_500 },
  { description: 'Downspout repair', quantity: 1, unit_amount: 4_999 },
];
const UNKNOWN_ID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';

async function api(method: string, url: string, body?: unknown, apiKey = key, headers?: Record<string, string>) {
  return context.request(method, url, { key: apiKey, body, ...(headers ? { headers } : {}) });
}

/** The client, its property ($ref:0) and a quote for both ($ref:0, $ref:1): the three operations of §26's test. */
function threeOperations(name: string, quote: Record<string, unknown> = {}) {
  return [
    { method: 'POST', path: '/v1/clients', body: { name, email: 'jane@example.com' } },
    {
      method: 'POST',
      path: '/v1/properties',
      body: { client_id: '$ref:0', address: { line1: '4 Lakeshore Drive', city: 'Lake Geneva', country: 'US' } },
    },
    {
      method: 'POST',
      path: '/v1/quotes',
      body: { client_id: '$ref:0', property_id: '$ref:1', line_items: LINES, ...quote },
    },
  ];
}

/** What the account holds: clients, properties, quotes and events, counted through the API. */
async function holdings() {
  const count = async (path: string) => {
    let total = 0;
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await api('GET', `${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      total += page.body.data.length;
      cursor = page.body.meta.pagination.next_cursor;
    } while (cursor);
    return total;
  };
  return {
    clients: await count('/v1/clients'),
    properties: await count('/v1/properties'),
    quotes: await count('/v1/quotes'),
    events: await count('/v1/events'),
  };
}

function fieldsOf(response: ApiResponse): string[] {
  return response.body.error.details.map((detail: { field: string }) => detail.field).sort();
}

before(async () => {
  context = await createTestContext();
  ({ key, accountId } = await context.account('Cooper Gutters'));
});
after(async () => {
  await context.close();
});

describe('POST /v1/change-sets: all or none', () => {
  test('a client, its property ($ref:0) and a quote ($ref:0, $ref:1) commit together, each answered as its route does', async () => {
    const response = await api('POST', '/v1/change-sets', { operations: threeOperations('Jane Doe') });
    assert.equal(response.status, 200, response.text);
    const set = response.body.data;
    assert.equal(set.object, 'change_set');
    assert.equal(set.dry_run, false);
    assert.equal(set.results.length, 3);
    const [client, property, quote] = set.results;
    assert.deepEqual(
      set.results.map((result: { status: number }) => result.status),
      [201, 201, 201],
    );
    assert.equal(client.location, `/v1/clients/${client.data.id}`);
    assert.equal(property.data.client_id, client.data.id);
    assert.equal(quote.data.client_id, client.data.id);
    assert.equal(quote.data.property_id, property.data.id);
    // 2 × 125.00 + 49.99 = 299.99
    assert.equal(quote.data.subtotal_amount, 29_999);
    assert.equal(quote.data.total_amount, 29_999);
    assert.match(quote.etag, /^"/);
    // Each object is stored, and GET answers what the set answered.
    const stored = await api('GET', `/v1/quotes/${quote.data.id}`);
    assert.equal(stored.status, 200);
    assert.deepEqual(stored.body.data, quote.data);
    // Each event records the set as its origin, and the events list filters on it.
    const events = await api('GET', `/v1/events?origin_id=${set.id}`);
    assert.equal(events.status, 200, events.text);
    assert.deepEqual(events.body.data.map((event: { type: string }) => event.type).sort(), [
      'client.created',
      'property.created',
      'quote.created',
    ]);
    for (const event of events.body.data) {
      assert.deepEqual(event.origin, { type: 'change_set', id: set.id });
      assert.equal(event.actor.type, 'api_key');
    }
    const single = await api('POST', '/v1/clients', { name: 'Not in a set' });
    const own = await api('GET', `/v1/events?resource_id=${single.body.data.id}`);
    assert.equal(own.body.data[0].origin, null);
  });

  test('when the third operation fails as it runs, none commits: no row, number or event (its status and code, details under operations[2])', async () => {
    const before = await holdings();
    const response = await api('POST', '/v1/change-sets', {
      operations: threeOperations('Half a job', { request_id: UNKNOWN_ID }),
    });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(response), ['operations[2].body.request_id']);
    assert.deepEqual(await holdings(), before);
    const search = await api('GET', '/v1/clients?q=Half');
    assert.equal(search.body.data.length, 0);
  });

  test('the business profile changed in a set that then fails is not changed: PUT /v1/account joins the set', async () => {
    const before = (await api('GET', '/v1/account')).body.data;
    const response = await api('POST', '/v1/change-sets', {
      operations: [
        { method: 'PUT', path: '/v1/account', body: { name: 'Renamed in a failed set', invoice_footer: 'Thanks!' } },
        { method: 'POST', path: '/v1/clients', body: { name: 'Failing after the profile' } },
        {
          method: 'POST',
          path: '/v1/quotes',
          body: { client_id: '$ref:1', line_items: LINES, request_id: UNKNOWN_ID },
        },
      ],
    });
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(fieldsOf(response), ['operations[2].body.request_id']);
    const after = (await api('GET', '/v1/account')).body.data;
    assert.equal(after.name, before.name);
    assert.equal(after.invoice_footer, before.invoice_footer);
    assert.equal(after.updated_at, before.updated_at);
    // And a dry run answers the change without keeping it.
    const dry = await api('POST', '/v1/change-sets', {
      dry_run: true,
      operations: [{ method: 'PUT', path: '/v1/account', body: { name: 'Only a preview' } }],
    });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.data.results[0].data.name, 'Only a preview');
    assert.equal((await api('GET', '/v1/account')).body.data.name, before.name);
  });

  test('when the third body fails its schema, nothing runs: one 422 naming operations[2].body.<field>', async () => {
    const before = await holdings();
    const response = await api('POST', '/v1/change-sets', {
      operations: threeOperations('Bad lines', { line_items: [{ description: 'x', quantity: -1, unit_amount: 100 }] }),
    });
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(fieldsOf(response), ['operations[2].body.line_items[0].quantity']);
    assert.deepEqual(await holdings(), before);
  });

  test('a number is not consumed by a set that rolls back: the next mark-sent quote gets Q-000001', async () => {
    const { key: fresh } = await context.account('Fresh numbers');
    const failed = await api(
      'POST',
      '/v1/change-sets',
      {
        operations: [
          ...threeOperations('Numbered'),
          { method: 'PUT', path: '/v1/quotes/$ref:2', body: { status: 'sent' } },
          { method: 'PUT', path: `/v1/clients/${UNKNOWN_ID}`, body: { name: 'x' } },
        ],
      },
      fresh,
    );
    assert.equal(failed.status, 422, failed.text);
    assert.deepEqual(fieldsOf(failed), ['operations[4].path']);
    const committed = await api(
      'POST',
      '/v1/change-sets',
      {
        operations: [
          ...threeOperations('Numbered'),
          { method: 'PUT', path: '/v1/quotes/$ref:2', body: { status: 'sent' } },
        ],
      },
      fresh,
    );
    assert.equal(committed.status, 200, committed.text);
    assert.equal(committed.body.data.results[3].data.number, 'Q-000001');
  });
});

describe('dry_run', () => {
  test('answers the quote with its totals and number null, and leaves nothing behind', async () => {
    const before = await holdings();
    const response = await api('POST', '/v1/change-sets', { operations: threeOperations('Dry Jane'), dry_run: true });
    assert.equal(response.status, 200, response.text);
    const set = response.body.data;
    assert.equal(set.dry_run, true);
    const quote = set.results[2].data;
    assert.equal(quote.number, null);
    assert.equal(quote.subtotal_amount, 29_999);
    assert.equal(quote.total_amount, 29_999);
    assert.equal(quote.client_id, set.results[0].data.id);
    assert.equal(quote.property_id, set.results[1].data.id);
    assert.deepEqual(await holdings(), before);
    assert.equal((await api('GET', `/v1/clients/${set.results[0].data.id}`)).status, 404);
    const events = await api('GET', `/v1/events?origin_id=${set.id}`);
    assert.equal(events.body.data.length, 0);
  });

  test('a dry run of a send answers it sent with its number, and the quote stays a draft without one', async () => {
    const made = await api('POST', '/v1/change-sets', { operations: threeOperations('Draft keeper') });
    const quoteId = made.body.data.results[2].data.id;
    const dry = await api('POST', '/v1/change-sets', {
      operations: [{ method: 'PUT', path: `/v1/quotes/${quoteId}`, body: { status: 'sent', title: 'Spring' } }],
      dry_run: true,
    });
    assert.equal(dry.status, 200, dry.text);
    const [result] = dry.body.data.results;
    assert.equal(result.data.status, 'sent');
    assert.match(result.data.number, /^Q-\d{6}$/);
    assert.equal(result.previous_attributes.status, 'draft');
    assert.equal(result.previous_attributes.number, null);
    assert.equal(result.previous_attributes.title, null);
    const stored = await api('GET', `/v1/quotes/${quoteId}`);
    assert.equal(stored.body.data.status, 'draft');
    assert.equal(stored.body.data.number, null);
  });
});

describe('checks before anything runs', () => {
  test('every operation’s scopes first: a key without quotes:write gets 403 naming it, and the client is not made', async () => {
    const { key: limited } = await context.key(accountId, ['clients:read', 'clients:write']);
    const before = await holdings();
    const response = await api('POST', '/v1/change-sets', { operations: threeOperations('No scope') }, limited);
    assert.equal(response.status, 403, response.text);
    assert.equal(response.body.error.code, 'INSUFFICIENT_SCOPE');
    assert.match(String(response.headers['www-authenticate']), /scope="quotes:write"/);
    assert.deepEqual(await holdings(), before);
  });

  test('a link scope is checked first too: a job from a quote without quotes:write is 403 before the client is made', async () => {
    const { key: limited } = await context.key(accountId, ['clients:write', 'jobs:write']);
    const response = await api(
      'POST',
      '/v1/change-sets',
      {
        operations: [
          { method: 'POST', path: '/v1/clients', body: { name: 'Link scope' } },
          { method: 'POST', path: '/v1/jobs', body: { client_id: '$ref:0', title: 'Gutters', quote_id: UNKNOWN_ID } },
        ],
      },
      limited,
    );
    assert.equal(response.status, 403, response.text);
    assert.match(String(response.headers['www-authenticate']), /scope="quotes:write"/);
    const search = await api('GET', '/v1/clients?q=Link%20scope');
    assert.equal(search.body.data.length, 0);
  });

  test('$ref naming itself, a later operation or a delete is 422 there; so are paths that are no operation', async () => {
    const response = await api('POST', '/v1/change-sets', {
      operations: [
        {
          method: 'POST',
          path: '/v1/properties',
          body: { client_id: '$ref:1', address: { line1: 'x', country: 'US' } },
        },
        { method: 'DELETE', path: `/v1/clients/${UNKNOWN_ID}` },
        { method: 'PUT', path: '/v1/clients/$ref:1', body: { name: 'x' } },
        { method: 'POST', path: '/v1/api-keys', body: { name: 'k', scopes: ['clients:read'] } },
        { method: 'POST', path: '/v1/change-sets', body: { operations: [] } },
        { method: 'POST', path: '/v1/nothing-here', body: {} },
      ],
    });
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(fieldsOf(response), [
      'operations[0].body.client_id',
      'operations[2].path',
      'operations[3].path',
      'operations[4].path',
      'operations[5].path',
    ]);
  });

  test('the set’s own body: 1 to 50 operations, methods POST, PUT, DELETE', async () => {
    const none = await api('POST', '/v1/change-sets', { operations: [] });
    assert.equal(none.status, 422);
    const many = await api('POST', '/v1/change-sets', {
      operations: Array.from({ length: 51 }, () => ({ method: 'POST', path: '/v1/clients', body: { name: 'x' } })),
    });
    assert.equal(many.status, 422);
    const get = await api('POST', '/v1/change-sets', { operations: [{ method: 'GET', path: '/v1/clients' }] });
    assert.equal(get.status, 422);
  });
});

describe('one key, n tokens', () => {
  test('a set of n operations takes n rate-limit tokens: 3 operations with 2 tokens left is 429, and takes none', async () => {
    const { key: slow } = await context.key(accountId, ['clients:read', 'clients:write'], {
      rateLimits: { burst: 4, perMinute: 1, perDay: 1000 },
    });
    const operations = [1, 2, 3].map((n) => ({ method: 'POST', path: '/v1/clients', body: { name: `Token ${n}` } }));
    const first = await api('POST', '/v1/change-sets', { operations }, slow);
    assert.equal(first.status, 200, first.text);
    assert.match(String(first.headers.ratelimit), /"minute";r=1;/);
    const second = await api('POST', '/v1/change-sets', { operations }, slow);
    assert.equal(second.status, 429, second.text);
    assert.equal(second.body.error.code, 'RATE_LIMITED');
    // The refused set gave back the tokens it took (its first too): the one token left still serves a request.
    const after = await api('GET', '/v1/clients?limit=1', undefined, slow);
    assert.equal(after.status, 200, after.text);
    assert.match(String(after.headers.ratelimit), /"minute";r=0;/);
    assert.equal((await api('GET', '/v1/clients?limit=1', undefined, slow)).status, 429);
  });

  test('one Idempotency-Key covers the set: a retry answers the same set and makes nothing more', async () => {
    const headers = { 'idempotency-key': 'set-retry-1' };
    const body = { operations: [{ method: 'POST', path: '/v1/clients', body: { name: 'Once only' } }] };
    const first = await api('POST', '/v1/change-sets', body, key, headers);
    assert.equal(first.status, 200, first.text);
    const again = await api('POST', '/v1/change-sets', body, key, headers);
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body.data, first.body.data);
    const search = await api('GET', '/v1/clients?q=Once%20only');
    assert.equal(search.body.data.length, 1);
  });

  test('If-Match is each operation’s own: a stale ETag is 412 and rolls the set back', async () => {
    const made = await api('POST', '/v1/clients', { name: 'Etag holder' });
    const response = await api('POST', '/v1/change-sets', {
      operations: [
        { method: 'POST', path: '/v1/clients', body: { name: 'Etag companion' } },
        { method: 'PUT', path: `/v1/clients/${made.body.data.id}`, body: { name: 'x' }, if_match: '"stale"' },
      ],
    });
    assert.equal(response.status, 412, response.text);
    assert.equal(response.body.error.code, 'PRECONDITION_FAILED');
    const search = await api('GET', '/v1/clients?q=Etag%20companion');
    assert.equal(search.body.data.length, 0);
  });
});
