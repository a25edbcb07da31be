// The envelope and the error model: every code reachable so far, on successes, failures, unknown routes,
// wrong methods, the body parser's own failures and unexpected faults.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';
import { randomUUID } from 'node:crypto';
import { clientSuite } from './helpers/state-table.js';

let context: TestContext;
let key: string;

function assertMeta(response: ApiResponse) {
  assert.match(response.body.meta.request_id, /^req_[0-9a-f]{32}$/);
  assert.equal(response.headers['x-request-id'], response.body.meta.request_id);
  assert.match(response.body.meta.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
}

function assertError(response: ApiResponse, status: number, code: string) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code, response.text);
  assert.equal(typeof response.body.error.message, 'string');
  assert.equal(response.body.data, undefined);
  assertMeta(response);
}

before(async () => {
  context = await createTestContext();
  // A route that fails the way a real bug would, registered before the app is ready.
  context.app.get('/v1/test-fault', { config: { scope: 'clients:read' } }, async () => {
    throw new Error('SQLITE_ERROR: no such column: secret_column at /app/src/x.ts:1');
  });
  ({ key } = await context.account());
});
after(() => context.close());

describe('envelope', () => {
  test('a success carries data and meta, with the request id in the header', async () => {
    const response = await context.request('GET', '/health');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, { status: 'ok' });
    assertMeta(response);
  });

  test('each request gets its own id, which a client cannot choose', async () => {
    const first = await context.request('GET', '/health', { headers: { 'x-request-id': 'forged' } });
    const second = await context.request('GET', '/health');
    assert.notEqual(first.body.meta.request_id, 'forged');
    assert.notEqual(first.body.meta.request_id, second.body.meta.request_id);
  });

  test('the request id appears in the log line for that request', async () => {
    const response = await context.request('GET', '/v1/clients', { key });
    const line = context.logs
      .map((text) => JSON.parse(text))
      .find((entry) => entry.reqId === response.body.meta.request_id && entry.msg === 'request');
    assert.ok(line, 'a log line with the request id');
    assert.equal(line.status, 200);
  });

  test('/ready answers when the database does', async () => {
    const response = await context.request('GET', '/ready');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, { status: 'ok' });
  });
});

describe('error model', () => {
  test('unknown route: 404 NOT_FOUND in the envelope', async () => {
    assertError(await context.request('GET', '/v1/nothing-here', { key }), 404, 'NOT_FOUND');
    assertError(await context.request('GET', '/', {}), 404, 'NOT_FOUND');
  });

  test('known path, wrong method: 405 with Allow', async () => {
    const collection = await context.request('DELETE', '/v1/clients', { key });
    assertError(collection, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(collection.headers.allow, 'GET, HEAD, POST');
    const item = await context.request('POST', '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', { key, body: {} });
    assertError(item, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(item.headers.allow, 'DELETE, GET, HEAD, PUT');
  });

  test('malformed JSON: 400 INVALID_JSON', async () => {
    const response = await context.request('POST', '/v1/clients', {
      key,
      rawBody: '{"name": "Ann",',
      headers: { 'content-type': 'application/json' },
    });
    assertError(response, 400, 'INVALID_JSON');
  });

  test('wrong content type: 415, charset parameter accepted', async () => {
    assertError(
      await context.request('POST', '/v1/clients', {
        key,
        rawBody: 'name=Ann',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    assertError(
      await context.request('POST', '/v1/clients', {
        key,
        rawBody: '{"name":"Ann"}',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const withCharset = await context.request('POST', '/v1/clients', {
      key,
      rawBody: '{"name":"Ann"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(withCharset.status, 201, withCharset.text);
  });

  test('body over 1 MiB: 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ name: 'Ann', notes: 'x'.repeat(1_100_000) });
    assertError(
      await context.request('POST', '/v1/clients', {
        key,
        rawBody: big,
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  test('missing body on create: 422 naming the body', async () => {
    const response = await context.request('POST', '/v1/clients', {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assertError(response, 422, 'VALIDATION_ERROR');
  });

  test('a JSON body that is not an object: 422', async () => {
    assertError(await context.request('POST', '/v1/clients', { key, body: [1, 2] }), 422, 'VALIDATION_ERROR');
    assertError(await context.request('POST', '/v1/clients', { key, body: 'Ann' }), 422, 'VALIDATION_ERROR');
  });

  test('prototype-pollution keys are refused, not dropped', async () => {
    const response = await context.request('POST', '/v1/clients', {
      key,
      rawBody: '{"name":"Ann","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    assertError(response, 422, 'VALIDATION_ERROR');
    assert.equal(({} as Record<string, unknown>).admin, undefined);
  });

  test('an unexpected fault: 500 INTERNAL_ERROR without stack or SQL, logged with the request id', async () => {
    const response = await context.request('GET', '/v1/test-fault', { key });
    assertError(response, 500, 'INTERNAL_ERROR');
    assert.doesNotMatch(response.text, /SQLITE|secret_column|\.ts:|at /);
    const logged = context.logs
      .map((text) => JSON.parse(text))
      .find((entry) => entry.reqId === response.body.meta.request_id && entry.level === 50);
    assert.ok(logged, 'the fault is logged at error level with the request id');
    assert.match(JSON.stringify(logged), /secret_column/);
  });

  test('validation details name each offending field with a path', async () => {
    const response = await context.request('POST', '/v1/clients', {
      key,
      body: {
        name: '',
        email: 'not-an-email',
        address: { country: 'usa' },
        metadata: { ['k'.repeat(41)]: 'v' },
        created_at: 'x',
        color: 'red',
      },
    });
    assertError(response, 422, 'VALIDATION_ERROR');
    const fields = Object.fromEntries(
      response.body.error.details.map((detail: { field: string; message: string }) => [detail.field, detail.message]),
    );
    assert.deepEqual(
      Object.keys(fields).sort(),
      ['address.country', 'color', 'created_at', 'email', `metadata.${'k'.repeat(41)}`, 'name'].sort(),
    );
    assert.equal(fields.email, 'email must be a valid e-mail address');
    assert.equal(fields.created_at, 'created_at is read-only and cannot be set');
    assert.equal(fields.color, 'color is not a known field');
  });

  test('unknown query parameters are rejected', async () => {
    const response = await context.request('GET', '/v1/clients?limit=10&colour=red', { key });
    assertError(response, 422, 'VALIDATION_ERROR');
    assert.deepEqual(response.body.error.details, [{ field: 'colour', message: 'colour is not a known field' }]);
  });

  test('a malformed id in a path is 404, never 500', async () => {
    for (const id of ['not-a-uuid', '1', "x' OR '1'='1", '%E0%A4%A', '..%2F..%2Fetc']) {
      const response = await context.request('GET', `/v1/clients/${id}`, { key });
      assert.equal(response.status, 404, `${id}: ${response.text}`);
      assert.equal(response.body.error.code, 'NOT_FOUND');
    }
  });
});

describe('OpenAPI and docs', () => {
  test('/v1/openapi.json is a valid OpenAPI 3.1 document covering every route', async () => {
    const response = await context.request('GET', '/v1/openapi.json');
    assert.equal(response.status, 200);
    assert.equal(response.body.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(response.body));
    for (const route of context.app.routeTable.routes.filter(
      (entry) => entry.scope && !entry.url.includes('test-fault'),
    )) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = response.body.paths[path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${path} is documented`);
      // An API key; and an app's token where the route's scope is one an app may be granted (contract §25).
      const [key, ...token] = operation.security;
      assert.deepEqual(key, { bearerAuth: [] }, `${route.method} ${path}`);
      assert.ok(
        token.length === 0 ||
          (token.length === 1 && JSON.stringify(token[0]) === JSON.stringify({ oauth2: [route.scope] })),
        `${route.method} ${path}: ${JSON.stringify(operation.security)}`,
      );
      assert.ok(
        operation.responses['401'] && operation.responses['403'],
        `${route.method} ${path} documents auth errors`,
      );
    }
    for (const kind of ['Client', 'ServiceRequest', 'Quote', 'Job', 'Invoice', 'Payment']) {
      const schema = response.body.components.schemas[kind];
      assert.ok(schema, `${kind} is a component`);
      for (const [name, property] of Object.entries<any>(schema.properties)) {
        const described =
          property.description ?? property.anyOf?.find((branch: any) => branch.description)?.description;
        const example =
          property.example ?? property.anyOf?.find((branch: any) => branch.example !== undefined)?.example;
        if (['address', 'line_items'].includes(name)) continue; // objects whose own fields carry them
        assert.ok(described, `${kind}.${name} has a description`);
        if (!['object', 'metadata'].includes(name)) assert.ok(example !== undefined, `${kind}.${name} has an example`);
      }
    }
  });

  test('/docs serves an interactive reference', async () => {
    const response = await context.request('GET', '/docs/');
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /text\/html/);
    assert.match(response.text, /swagger/i);
  });
});

test('/ready answers 503 SERVICE_UNAVAILABLE with Retry-After when the database is gone', async () => {
  const broken = await createTestContext();
  await broken.database.close();
  const response = await broken.request('GET', '/ready');
  assertError(response, 503, 'SERVICE_UNAVAILABLE');
  assert.equal(response.headers['retry-after'], '5');
  assert.equal((await broken.request('GET', '/health')).status, 200, 'the process itself is still up');
  await broken.app.close();
});

test('the suite runs on the database its pass names, with the proper column types', async () => {
  const { onPostgres } = await import('./helpers/database.js');
  assert.equal(context.database.dialect, onPostgres ? 'postgres' : 'sqlite');
  if (onPostgres) {
    const { sql } = await import('kysely');
    const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and (table_name, column_name) in (('invoices', 'id'), ('invoices', 'total_amount'), ('invoices', 'due_date'), ('invoices', 'created_at'), ('clients', 'metadata'))`.execute(
      context.database.db,
    );
    const types = Object.fromEntries(
      columns.rows.map((row) => [`${row.table_name}.${row.column_name}`, row.data_type]),
    );
    assert.deepEqual(types, {
      'clients.metadata': 'jsonb',
      'invoices.created_at': 'timestamp with time zone',
      'invoices.due_date': 'date',
      'invoices.id': 'uuid',
      'invoices.total_amount': 'bigint',
    });
  }
});

test('security headers everywhere; authenticated answers are never cached; no CORS', async () => {
  const authenticated = await context.request('GET', '/v1/clients', {
    key,
    headers: { origin: 'https://evil.example' },
  });
  const health = await context.request('GET', '/health');
  for (const response of [authenticated, health]) {
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  }
  assert.equal(authenticated.headers['cache-control'], 'no-store');
  assert.equal(health.headers['cache-control'], undefined);
  const preflight = await context.request('OPTIONS', '/v1/clients', {
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  assert.equal(preflight.status, 405);
  assert.equal(preflight.headers['access-control-allow-origin'], undefined);
});

test('query strings are strict: unknown parameters on any route, and integers not in decimal digits, are 422', async () => {
  const client = (await context.request('POST', '/v1/clients', { key, body: { name: 'Strict' } })).body.data.id;
  for (const [method, url, field] of [
    ['GET', `/v1/clients/${client}?x=1`, 'x'],
    ['POST', '/v1/clients?debug=true', 'debug'],
    ['PUT', `/v1/clients/${client}?y=`, 'y'],
    ['GET', '/v1/clients?limit=0x10', 'limit'],
    ['GET', '/v1/clients?limit=1e2', 'limit'],
    ['GET', '/v1/clients?limit=16.0', 'limit'],
    ['GET', '/v1/clients?limit=%2016', 'limit'],
  ] as const) {
    const response = await context.request(method, url, {
      key,
      body: method === 'GET' ? undefined : { name: 'Strict' },
    });
    assert.equal(response.status, 422, `${method} ${url}: ${response.text}`);
    assert.equal(response.body.error.details[0].field, field);
  }
  const fine = await context.request('GET', '/v1/clients?limit=16', { key });
  assert.deepEqual([fine.status, fine.body.meta.pagination.limit], [200, 16]);
});

describe('what a 422 names', () => {
  const suite = clientSuite('Errors');
  const api = (method: string, url: string, body?: unknown, key = suite.key) =>
    suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

  test('single-line text fields refuse CR, LF, NUL and other C0/C1 controls (one 422 naming each field); multi-line fields keep LF and tab only', async () => {
    // The From display name of every e-mail: a CR/LF in it broke a standard e-mail parser.
    const profile = await api('PUT', '/v1/account', { name: 'Acme\r\nBcc: victim@example.com' });
    assert.equal(profile.status, 422, profile.text);
    assert.equal(profile.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      profile.body.error.details.map((detail: { field: string }) => detail.field),
      ['name'],
    );
    assert.match(profile.body.error.details[0].message, /single line/);

    // Every offending field in one answer: C0, DEL and C1 alike, in nested fields and metadata keys.
    const client = await api('POST', '/v1/clients', {
      name: 'Jane\u0085Cooper',
      company: 'Tab\tCompany',
      phone: '555\u007f0100',
      address: { line1: '1 Main St\n', city: 'Springfield' },
      metadata: { 'crm\nid': 'x' },
    });
    assert.equal(client.status, 422, client.text);
    assert.deepEqual(client.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
      'address.line1',
      'company',
      'metadata.crm\nid',
      'name',
      'phone',
    ]);
    const refusedNul = await api('POST', '/v1/clients', { name: 'Nul\u0000' });
    assert.equal(refusedNul.status, 422);
    assert.equal(refusedNul.body.error.details[0].field, 'name');

    // Multi-line fields: LF and tab kept, CR and other controls refused.
    const notes = 'Gate code 1234\n\tRing twice\nDog in the yard';
    const kept = await api('POST', '/v1/clients', { name: 'Multi Line', notes, metadata: { note: 'a\nb' } });
    assert.equal(kept.status, 201, kept.text);
    assert.equal(kept.body.data.notes, notes);
    const crlf = await api('PUT', `/v1/clients/${kept.body.data.id}`, { notes: 'Line one\r\nLine two' });
    assert.equal(crlf.status, 422, crlf.text);
    assert.equal(crlf.body.error.details[0].field, 'notes');
    assert.match(crlf.body.error.details[0].message, /line feeds and tabs/);
    const lines = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Boiler service\n- flush\n- new valve', quantity: 1, unit_amount: 100 }],
    });
    assert.equal(lines.status, 201, lines.text);
    const escape = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Boiler \u001b[31mservice', quantity: 1, unit_amount: 100 }],
    });
    assert.equal(escape.status, 422, escape.text);
    assert.equal(escape.body.error.details[0].field, 'line_items[0].description');
  });

  test('one 422 names every wrong field, schema and semantic checks together', async () => {
    // The issue's case: the schema misses enabled_events, the service's check refuses the URL.
    const both = await api('POST', '/v1/webhook-endpoints', { url: 'not a url' });
    assert.equal(both.status, 422, both.text);
    const fields = (response: { body: any }) =>
      response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    assert.deepEqual(fields(both), ['enabled_events', 'url']);
    assert.match(both.body.error.message, /2 invalid fields: /);

    // Both semantic checks together, when the schema has nothing to say.
    const semantic = await api('POST', '/v1/webhook-endpoints', {
      url: 'ftp://example.com/hooks',
      enabled_events: ['invoice.exploded'],
    });
    assert.equal(semantic.status, 422, semantic.text);
    assert.deepEqual(fields(semantic), ['enabled_events', 'url']);
    // The same on update, with a schema error beside them.
    const endpoint = await api('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['*'],
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const update = await api('PUT', `/v1/webhook-endpoints/${endpoint.body.data.id}`, {
      url: 'mailto:x@example.com',
      enabled_events: ['nope.*'],
      status: 'paused',
    });
    assert.equal(update.status, 422, update.text);
    assert.deepEqual(fields(update), ['enabled_events', 'status', 'url']);

    // Control characters and the schema's errors in one answer.
    const client = await api('POST', '/v1/clients', { name: 'Line\r\nbreak', email: 'not an address', colour: 'red' });
    assert.equal(client.status, 422, client.text);
    assert.deepEqual(fields(client), ['colour', 'email', 'name']);
  });

  test('on every resource, a body with a schema error and a semantic error answers one 422 naming both', async () => {
    const fields = (response: { body: any }) =>
      response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    const job = await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Mowing' });
    assert.equal(job.status, 201, job.text);
    const product = await api('POST', '/v1/products', { type: 'service', name: 'Drain clearing' });
    assert.equal(product.status, 201, product.text);
    const unknownRate = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    // [method, path, body, the fields the 422 names]: the schema's first, then the semantic checks'.
    const cases: [string, string, Record<string, unknown>, string[]][] = [
      [
        'POST',
        '/v1/products',
        {
          type: 'service',
          name: 'Drain',
          code: 5,
          default_quantity: 1.2345,
          taxable: false,
          tax_rate_ids: [unknownRate],
        },
        ['code', 'default_quantity', 'tax_rate_ids'],
      ],
      [
        'PUT',
        `/v1/products/${product.body.data.id}`,
        { name: '', default_quantity: 0.0001 },
        ['default_quantity', 'name'],
      ],
      ['POST', '/v1/tax-rates', { name: 'GST', percentage: 5.12345, compound: 'yes' }, ['compound', 'percentage']],
      [
        'POST',
        '/v1/team-members',
        // A metadata key is the caller's own: its timezone is any text.
        { name: 'Ann', email: 'not an address', timezone: 'Mars/Olympus', metadata: { timezone: 'Ann’s' } },
        ['email', 'timezone'],
      ],
      // A property's zone is the schema's own format (time-zone); it stays named once.
      [
        'POST',
        '/v1/properties',
        {
          client_id: suite.clientId,
          address: { line1: '1 Main Street', country: 'US' },
          timezone: 'Mars/Olympus',
          colour: 'red',
        },
        ['colour', 'timezone'],
      ],
      ['PUT', '/v1/account', { timezone: 'Mars/Olympus', colour: 'red' }, ['colour', 'timezone']],
      [
        'POST',
        '/v1/quotes',
        { client_id: suite.clientId, line_items: [{ description: 'Work', quantity: 1.23456, unit_amount: 'lots' }] },
        ['line_items[0].quantity', 'line_items[0].unit_amount'],
      ],
      [
        'POST',
        '/v1/invoices',
        {
          client_id: suite.clientId,
          currency: 'usd',
          discount: { type: 'percent', value: 12.34567 },
          line_items: [{ description: 'Work', quantity: 1, unit_amount: 100, tax_rate: 5.12345 }],
        },
        ['currency', 'discount.value', 'line_items[0].tax_rate'],
      ],
      [
        'POST',
        '/v1/jobs',
        {
          client_id: suite.clientId,
          title: 'Gutters',
          priority: 'high',
          line_items: [{ description: 'Work', quantity: 0.00001, unit_amount: 100 }],
        },
        ['line_items[0].quantity', 'priority'],
      ],
      [
        'POST',
        '/v1/visits',
        { job_id: job.body.data.id, local_start: '2026-02-30T09:00', duration_minutes: 60, colour: 'red' },
        ['colour', 'local_start'],
      ],
      [
        'POST',
        '/v1/api-keys',
        { name: 'Integration', scopes: ['clients:read'], per_minute: 0, allowed_cidrs: ['10.0.0.0/8', 'the office'] },
        ['allowed_cidrs[1]', 'per_minute'],
      ],
      [
        'POST',
        '/v1/visit-schedules',
        {
          job_id: job.body.data.id,
          duration_minutes: 30,
          horizon_days: 'many',
          recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-03-01', time: '09:00', timezone: 'Mars/Olympus' },
        },
        ['horizon_days', 'recurrence.timezone'],
      ],
    ];
    for (const [method, path, body, expected] of cases) {
      const response = await api(method, path, body);
      assert.equal(response.status, 422, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(fields(response), expected, `${method} ${path}: ${response.text}`);
      assert.match(response.body.error.message, new RegExp(`${expected.length} invalid fields`));
    }
    // A check that needs a field the schema refused says nothing about it: start_at has no offset (the
    // schema's), and duration_minutes is not 'needing a start' (it has one, refused).
    const noOffset = await api('POST', '/v1/visits', {
      job_id: job.body.data.id,
      start_at: '2026-03-10T09:00:00',
      duration_minutes: 60,
    });
    assert.deepEqual(fields(noOffset), ['start_at'], noOffset.text);
    // A body the schema accepts meets the service's checks, which name every field they refuse too.
    const semanticOnly = await api('POST', '/v1/tax-rates', { name: 'GST', percentage: 5.12345 });
    assert.equal(semanticOnly.status, 422, semanticOnly.text);
    assert.deepEqual(fields(semanticOnly), ['percentage']);
    const twoSemantic = await api('POST', '/v1/products', {
      type: 'service',
      name: 'Drain',
      default_quantity: 1.2345,
      taxable: false,
      tax_rate_ids: [unknownRate],
    });
    assert.equal(twoSemantic.status, 422, twoSemantic.text);
    assert.deepEqual(fields(twoSemantic), ['default_quantity', 'tax_rate_ids']);
  });

  // Ajv's own phrases (ajv/lib/vocabularies): none may reach a caller.
  const RAW_PHRASES =
    /must NOT|must be equal to|must match (pattern|format|a schema|exactly)|must have required property|must pass "|must be [<>]=? |must be (string|integer|number|boolean|object|array)\b|property name must be valid|must be multiple of|of type|allowed values|additional properties|are identical/;
  /** Keywords that say nothing about validity, and the ones the walk below knows how to break. */
  const ANNOTATIONS = new Set([
    'description',
    'example',
    'examples',
    'default',
    'x-comma-list',
    'x-required-one-of',
    'title',
    'readOnly',
    'deprecated',
    '$id',
    'items',
    'properties',
    'anyOf',
    'oneOf',
    'allOf',
    'nullable',
  ]);
  const BREAKABLE = new Set([
    'type',
    'minLength',
    'maxLength',
    'pattern',
    'format',
    'enum',
    'const',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minItems',
    'maxItems',
    'uniqueItems',
    'minProperties',
    'maxProperties',
    'propertyNames',
    'additionalProperties',
    'required',
  ]);

  /** A value that breaks `keyword` of `schema`, or undefined when this keyword cannot be broken alone. */
  function breaking(keyword: string, schema: any): unknown {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    switch (keyword) {
      case 'type':
        return types.includes('string')
          ? 12_345
          : types.includes('object') || types.includes('array')
            ? 'text'
            : 'text';
      case 'minLength':
        return 'a'.repeat(Math.max(0, schema.minLength - 1));
      case 'maxLength':
        return 'a'.repeat(schema.maxLength + 1);
      case 'pattern':
        return ['', ' ', '!', 'zz', '#zz'].find((text) => !new RegExp(schema.pattern, 'u').test(text));
      case 'format':
        return 'not a valid value!';
      case 'enum':
        return '__not_one_of_them__';
      case 'const':
        return '__not_it__';
      case 'minimum':
        return schema.minimum - 1;
      case 'maximum':
        return schema.maximum + 1;
      case 'exclusiveMinimum':
        return schema.exclusiveMinimum;
      case 'exclusiveMaximum':
        return schema.exclusiveMaximum;
      case 'multipleOf':
        return schema.multipleOf / 3;
      case 'minItems':
        return [];
      case 'maxItems':
        return Array.from({ length: schema.maxItems + 1 }, () => 'x');
      case 'uniqueItems':
        return ['a', 'a'];
      case 'minProperties':
        return {};
      case 'maxProperties':
        return Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, n) => [`k${n}`, 'v']));
      case 'propertyNames':
        return { ['k'.repeat(41)]: 'v' };
      case 'additionalProperties':
        return schema.additionalProperties === false ? { zz_not_a_field: 1 } : undefined;
      case 'required':
        return {};
      default:
        return undefined;
    }
  }

  test('every 422 message is a sentence that starts with the field path: a walk of every request schema in the OpenAPI document breaks each keyword it uses', async () => {
    const document = (await api('GET', '/v1/openapi.json')).body;
    const resolve = (schema: any): any =>
      schema?.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()]) : schema;
    type Step = string | number;
    const cases: Array<{
      method: string;
      url: string;
      in: 'body' | 'query';
      path: Step[];
      keyword: string;
      value: unknown;
    }> = [];
    const unknownKeywords = new Set<string>();
    const walk = (
      schema: any,
      path: Step[],
      emit: (path: Step[], keyword: string, value: unknown) => void,
      depth = 0,
    ) => {
      const resolved = resolve(schema);
      if (!resolved || typeof resolved !== 'object' || depth > 8) return;
      for (const keyword of Object.keys(resolved)) {
        if (ANNOTATIONS.has(keyword) || keyword === '$ref') continue;
        if (!BREAKABLE.has(keyword)) {
          unknownKeywords.add(keyword);
          continue;
        }
        const value = breaking(keyword, resolved);
        if (value !== undefined) emit(path, keyword, value);
      }
      for (const [name, property] of Object.entries(resolved.properties ?? {}))
        walk(property, [...path, name], emit, depth + 1);
      if (resolved.items) walk(resolved.items, [...path, 0], emit, depth + 1);
      for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
        walk(branch, path, emit, depth + 1);
    };
    for (const [route, item] of Object.entries<any>(document.paths)) {
      if (!route.startsWith('/v1/') || route === '/v1/openapi.json') continue;
      const url = route.replace(/\{[^}]+\}/g, randomUUID());
      for (const [method, operation] of Object.entries<any>(item)) {
        const body = operation.requestBody?.content?.['application/json']?.schema;
        if (body)
          walk(body, [], (path, keyword, value) => cases.push({ method, url, in: 'body', path, keyword, value }));
        for (const parameter of operation.parameters ?? [])
          if (parameter.in === 'query')
            walk(parameter.schema, [parameter.name], (path, keyword, value) => {
              if (path.length === 1 && (typeof value === 'string' || typeof value === 'number'))
                cases.push({ method, url, in: 'query', path, keyword, value });
            });
      }
    }
    assert.deepEqual([...unknownKeywords], [], 'every keyword the request schemas use is one this test breaks');
    // The walk covers the resources of contract v3 too: each one's create and update bodies and list query.
    const walked = new Set(
      cases.map((entry) => `${entry.method.toUpperCase()} ${entry.url.replace(/[0-9a-f-]{36}/g, ':id')} ${entry.in}`),
    );
    for (const resource of [
      '/v1/visits',
      '/v1/visit-schedules',
      '/v1/products',
      '/v1/tax-rates',
      '/v1/team-members',
      '/v1/properties',
      '/v1/api-keys',
    ])
      for (const operation of [`POST ${resource} body`, `PUT ${resource}/:id body`, `GET ${resource} query`])
        assert.ok(walked.has(operation), `the walk breaks ${operation}`);

    /** `value` at `path` inside an otherwise empty body: {line_items: [{description: value}]}. */
    const placed = (path: Step[], value: unknown): unknown =>
      path.length === 0
        ? value
        : typeof path[0] === 'number'
          ? [placed(path.slice(1), value)]
          : { [path[0]!]: placed(path.slice(1), value) };
    const problems: string[] = [];
    const broken = new Set<string>();
    for (const entry of cases) {
      const response =
        entry.in === 'body'
          ? await api(entry.method.toUpperCase(), entry.url, placed(entry.path, entry.value))
          : await api(
              entry.method.toUpperCase(),
              `${entry.url}?${entry.path[0]}=${encodeURIComponent(String(entry.value))}`,
            );
      const where = `${entry.method.toUpperCase()} ${entry.url} ${entry.in} ${entry.path.join('.')} ${entry.keyword}`;
      if (response.status >= 500) problems.push(`${where}: ${response.status}`);
      if (response.status !== 422) continue;
      broken.add(entry.keyword);
      for (const detail of response.body.error.details ?? []) {
        if (RAW_PHRASES.test(detail.message)) problems.push(`${where}: "${detail.message}"`);
        if (!detail.message.startsWith(detail.field))
          problems.push(`${where}: "${detail.message}" does not name ${detail.field}`);
      }
    }
    assert.deepEqual(problems, []);
    const used = new Set(cases.map((entry) => entry.keyword));
    assert.deepEqual(
      [...used].filter((keyword) => !broken.has(keyword)),
      [],
      'every keyword in use was broken at least once',
    );
    assert.ok(cases.length > 500, `${cases.length} cases`);

    // The issue's example, literally.
    const empty = await api('POST', '/v1/clients', { name: '' });
    assert.deepEqual(empty.body.error.details, [{ field: 'name', message: 'name must not be empty' }]);
  });
});
