// The real server process over real HTTP: first run on an empty database, a walk through the
// clients API, configuration errors and SIGTERM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { createTestContext, temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { ROOT, startServer } from './helpers/processes.js';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A fresh database (SQLite file, or a PostgreSQL database in the PostgreSQL pass) for one server. */
async function databaseEnv() {
  const directory = temporaryDirectory('bms-server-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => database.drop(),
    () => fs.rmSync(directory, { recursive: true, force: true }),
  );
  return { DATABASE_URL: database.url };
}

test('first run in development prints an all-scopes key that works at once, only once', async () => {
  const { DATABASE_URL } = await databaseEnv();
  // The default a user gets: every route's schemas compiled before the server listens.
  const server = await startServer({ DATABASE_URL, NODE_ENV: 'development', COMPILE_SCHEMAS: 'at-start' });
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
  assert.ok(key, server.output());
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const created = await fetch(`${server.baseUrl}/v1/clients`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Jane Cooper', email: 'jane@example.com' }),
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('content-type'), 'application/json; charset=utf-8');
  const client = (await created.json()).data;
  assert.equal(created.headers.get('location'), `/v1/clients/${client.id}`);

  const updated = await fetch(`${server.baseUrl}/v1/clients/${client.id}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ phone: '+1 555 0100' }),
  });
  assert.equal((await updated.json()).data.phone, '+1 555 0100');

  const listed = await fetch(`${server.baseUrl}/v1/clients?q=cooper`, { headers });
  const body = await listed.json();
  assert.equal(body.data.length, 1);
  assert.equal(listed.headers.get('x-request-id'), body.meta.request_id);

  const deleted = await fetch(`${server.baseUrl}/v1/clients/${client.id}`, { method: 'DELETE', headers });
  assert.deepEqual((await deleted.json()).data, { id: client.id, deleted: true });

  // A raw, broken HTTP request still gets an answer, and the server stays up.
  const bad = await fetch(`${server.baseUrl}/v1/clients`, { method: 'POST', headers, body: '{"name":' });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, 'INVALID_JSON');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, 'SIGTERM exits 0');

  const again = await startServer({ DATABASE_URL, NODE_ENV: 'development' });
  assert.doesNotMatch(again.output(), /API key:/, 'the key is printed only on the first run');
  const stillWorks = await fetch(`${again.baseUrl}/v1/clients`, { headers });
  assert.equal(stillWorks.status, 200, 'data and keys survive a restart');
  again.child.kill('SIGTERM');
  assert.equal(await again.exited, 0);
});

test('production never creates a key by itself', async () => {
  const { DATABASE_URL } = await databaseEnv();
  const server = await startServer({ DATABASE_URL, NODE_ENV: 'production' });
  assert.doesNotMatch(server.output(), /API key:/);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('/ready, /health, /docs and /v1/openapi.json need no key', async () => {
  const { DATABASE_URL } = await databaseEnv();
  const server = await startServer({ DATABASE_URL, NODE_ENV: 'production' });
  for (const url of ['/health', '/ready', '/docs/', '/v1/openapi.json']) {
    assert.equal((await fetch(`${server.baseUrl}${url}`)).status, 200, url);
  }
  server.child.kill('SIGTERM');
  await server.exited;
});

test('bad settings stop the start with every problem named', () => {
  const result = spawnSync(process.execPath, ['bin/bms.js', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      DATABASE_URL: 'oracle://x',
      SMTP_URL: 'http://mail',
      COMPILE_SCHEMAS: 'lazily',
    },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /Invalid configuration/);
  assert.match(result.stderr, /PORT must be a whole number from 0 to 65535, got "eighty"/);
  assert.match(result.stderr, /LOG_LEVEL must be one of/);
  assert.match(result.stderr, /DATABASE_URL must start with/);
  assert.match(result.stderr, /SMTP_URL must use one of smtp:, smtps:/);
  assert.match(result.stderr, /COMPILE_SCHEMAS must be at-start or on-first-use/);
});

test('WEB_CONCURRENCY=2: two worker processes share the port; SIGTERM stops them all, exit 0', async () => {
  const { DATABASE_URL } = await databaseEnv();
  const server = await startServer({ DATABASE_URL, NODE_ENV: 'development', WEB_CONCURRENCY: '2', LOG_LEVEL: 'info' });
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
  assert.ok(key, 'the primary prints the first-run key once');
  // /health answers as soon as one worker listens; wait for the second before counting.
  const deadline = Date.now() + 15_000;
  while ((server.output().match(/Server listening/g) ?? []).length < 2) {
    assert.ok(Date.now() < deadline, 'both workers start listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { request } = await import('node:http');
  const get = () =>
    new Promise<number>((resolve, reject) => {
      // A new connection each time (no keep-alive), so the cluster can hand it to either worker.
      request(
        `${server.baseUrl}/v1/clients`,
        { agent: false, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      )
        .on('error', reject)
        .end();
    });
  const statuses = [];
  for (let index = 0; index < 30; index += 1) statuses.push(await get());
  assert.ok(statuses.every((status) => status === 200));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const pids = new Set(
    server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line).pid),
  );
  assert.equal(pids.size, 2, 'requests were served by two processes');
  assert.equal((server.output().match(/API key:/g) ?? []).length, 1);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('an API key in a URL never reaches the log line', async () => {
  const context = await createTestContext();
  try {
    const { key } = await context.account();
    await context.request('GET', `/v1/clients?api_key=${key}`, { key });
    await context.request('GET', `/v1/clients/${key}`, { key });
    await context.request('GET', '/v1/clients?access_token=hunter2&limit=5', { key });
    const lines = context.logs.filter((line) => line.includes('"msg":"request"'));
    assert.ok(lines.length >= 3);
    for (const line of lines) {
      assert.doesNotMatch(line, new RegExp(key.slice(4)), 'no key in the line');
      assert.doesNotMatch(line, /hunter2/);
    }
    assert.ok(lines.some((line) => line.includes('api_key=[redacted]')));
    assert.ok(
      lines.some((line) => line.includes('limit=5')),
      'other parameters stay readable',
    );
  } finally {
    await context.close();
  }
});
