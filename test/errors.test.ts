// The envelope and the error model: every code reachable so far, on successes, failures, unknown routes,
// wrong methods, the body parser's own failures and unexpected faults.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

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
      assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
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
