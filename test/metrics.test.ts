// GET /metrics: off without METRICS_TOKEN, 401 without the token, and after a known sequence of
// requests, exactly the counts that sequence makes; queue figures read from the database; database errors
// counted; and, over real HTTP against the real server, what the outbox and webhook workers did.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestContext, ManualClock, temporaryDirectory, type TestContext } from './helpers/context.js';
import { createTestDatabase, onPostgres } from './helpers/database.js';
import { runBms, startServer, type ServerProcess } from './helpers/processes.js';
import { startReceiver } from './helpers/receiver.js';

const TOKEN = 'test-metrics-token-0123456789abcdef0123456789';
const UNKNOWN_ID = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The samples of a Prometheus text exposition, each line checked against the format. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/i.exec(
        line,
      );
    assert.ok(match, `a valid sample line: ${line}`);
    samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  const keys = Object.keys(labels);
  for (const [key, value] of samples) {
    const [metric, rest] = key.split('{') as [string, string | undefined];
    if (metric !== name) continue;
    const found = Object.fromEntries(
      [...(rest ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.keys(found).length === keys.length && keys.every((label) => found[label] === labels[label]))
      return value;
  }
  return undefined;
}

async function scrape(context: TestContext): Promise<Map<string, number>> {
  const response = await context.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parse(response.body);
}

/** Makes the database refuse writes (as test/storage-faults.test.ts does); returns how to undo it. */
async function breakStorage(context: TestContext): Promise<() => Promise<void>> {
  const { database } = context.config;
  if (database.kind === 'sqlite') {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(context.database.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(context.database.db);
    return async () => {
      await sql.raw('pragma max_page_count = 1073741823').execute(context.database.db);
    };
  }
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: process.env.BMS_TEST_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const name = new URL(database.url).pathname.slice(1);
  const endSessions = `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`;
  await admin(`alter database ${name} set default_transaction_read_only = on`);
  await admin(endSessions);
  return async () => {
    await admin(`alter database ${name} reset default_transaction_read_only`);
    await admin(endSessions);
  };
}

test('without METRICS_TOKEN there is no /metrics; a short token is refused at start', async () => {
  const context = await createTestContext();
  try {
    const response = await context.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'NOT_FOUND');
    assert.equal(context.app.metrics, undefined, 'nothing is counted either');
  } finally {
    await context.close();
  }
  const directory = temporaryDirectory('bms-metrics-config-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(directory, 'bms.sqlite')}`, NODE_ENV: 'production' };
  const short = runBms(['migrate'], { ...env, METRICS_TOKEN: 'secret' });
  assert.equal(short.status, 1);
  assert.match(short.stderr, /METRICS_TOKEN must be at least 32 printable characters without spaces/);
});

test(`with WEB_CONCURRENCY=2 every scrape sums both workers, and a queue's depth is not doubled (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  const directory = temporaryDirectory('bms-metrics-cluster-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const database = await createTestDatabase(directory);
  cleanups.push(() => database.drop());
  const server: ServerProcess = await startServer({
    DATABASE_URL: database.url,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    METRICS_TOKEN: TOKEN,
    WEB_CONCURRENCY: '2',
    // Nothing listens there: the invoice's e-mail fails once and waits an hour, so the outbox holds 1.
    SMTP_URL: 'smtp://127.0.0.1:9',
    OUTBOX_POLL_MS: '20',
    OUTBOX_RETRY_BASE_MS: '3600000',
  });
  cleanups.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
  assert.ok(key, 'the primary prints the first-run key');
  const deadline = Date.now() + 60_000;
  while ((server.output().match(/Server listening/g) ?? []).length < 2) {
    assert.ok(Date.now() < deadline, 'both workers start listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { request } = await import('node:http');
  // A new connection each time (no keep-alive), so the cluster hands them to both workers in turn.
  const call = (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = request(`${server.baseUrl}${url}`, { method, agent: false, headers }, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      }).on('error', reject);
      outgoing.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const api = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const client = JSON.parse((await call('POST', '/v1/clients', api, { name: 'Jane', email: 'jane@example.com' })).text);
  const invoice = JSON.parse(
    (
      await call('POST', '/v1/invoices', api, {
        client_id: client.data.id,
        line_items: [{ description: 'Visit', quantity: 1, unit_amount: 5000 }],
      })
    ).text,
  );
  assert.equal((await call('POST', `/v1/invoices/${invoice.data.id}/send`, api)).status, 200);
  for (let index = 0; index < 12; index += 1) assert.equal((await call('GET', '/v1/clients', api)).status, 200);

  const scrape = async () => {
    const response = await call('GET', '/metrics', { authorization: `Bearer ${TOKEN}` });
    assert.equal(response.status, 200, response.text);
    return parse(response.text);
  };
  const listed = { method: 'GET', route: '/v1/clients', status_code: '200' };
  // The e-mail's first attempt fails within a poll or two; then the figures stand still.
  let samples = await scrape();
  while (sample(samples, 'bms_delivery_outcomes_total', { worker: 'outbox', outcome: 'retry_scheduled' }) !== 1) {
    assert.ok(Date.now() < deadline, 'the e-mail is tried once');
    await new Promise((resolve) => setTimeout(resolve, 100));
    samples = await scrape();
  }
  // Four scrapes, on four connections, so both workers answer some: each holds every worker's requests.
  for (let index = 0; index < 4; index += 1) {
    samples = await scrape();
    assert.equal(sample(samples, 'bms_http_requests_total', listed), 12, 'the 12 lists, whichever worker served them');
    assert.equal(
      sample(samples, 'bms_http_requests_total', { method: 'POST', route: '/v1/clients', status_code: '201' }),
      1,
    );
    assert.equal(
      sample(samples, 'bms_outbox_queue_depth'),
      1,
      'one e-mail waits: the same figure in each worker, not a sum',
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const pids = new Set(
    server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"') && line.includes('/v1/clients'))
      .map((line) => JSON.parse(line).pid),
  );
  assert.equal(pids.size, 2, 'the lists were served by two processes');
});

test(`after a known sequence of requests /metrics holds exactly its counts (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  const clock = new ManualClock(new Date());
  const context = await createTestContext({ clock, env: { METRICS_TOKEN: TOKEN } });
  cleanups.push(() => context.close());
  const { accountId, key } = await context.account();

  // Without the token, or with another, 401 in the envelope; the body says nothing about the metrics.
  const missing = await context.request('GET', '/metrics');
  assert.equal(missing.status, 401);
  assert.equal(missing.body.error.code, 'AUTHENTICATION_REQUIRED');
  assert.match(missing.body.meta.request_id, /^req_/);
  assert.equal(missing.headers['www-authenticate'], 'Bearer');
  const wrong = await context.request('GET', '/metrics', {
    headers: { authorization: `Bearer ${TOKEN.replace(/.$/, 'x')}` },
  });
  assert.equal(wrong.status, 401);
  assert.doesNotMatch(wrong.text, /bms_|nodejs_/);
  assert.equal((await context.request('GET', '/metrics', { key })).status, 401, 'an API key is not the metrics token');

  const created: string[] = [];
  for (let index = 0; index < 3; index += 1)
    created.push(
      (
        await context.request('POST', '/v1/clients', {
          key,
          body: { name: `Client ${index}`, email: `c${index}@example.com` },
        })
      ).body.data.id,
    );
  assert.equal(
    (await context.request('POST', '/v1/clients', { key, body: { name: 'Bad', email: 'not-an-address' } })).status,
    422,
  );
  for (const id of created.slice(0, 2))
    assert.equal((await context.request('GET', `/v1/clients/${id}`, { key })).status, 200);
  assert.equal((await context.request('GET', `/v1/clients/${UNKNOWN_ID}`, { key })).status, 404);
  assert.equal((await context.request('GET', '/no/such/route')).status, 404);
  assert.equal((await context.request('GET', '/v1/clients')).status, 401);
  // A key allowed a burst of 2: the third request is refused.
  const tight = (
    await context.key(accountId, ['clients:read'], { rateLimits: { burst: 2, perMinute: 1, perDay: 1000 } })
  ).key;
  assert.deepEqual(
    [
      await context.request('GET', '/v1/clients', { key: tight }),
      await context.request('GET', '/v1/clients', { key: tight }),
      await context.request('GET', '/v1/clients', { key: tight }),
    ].map((response) => response.status),
    [200, 200, 429],
  );

  const first = await scrape(context);
  const requests = (method: string, route: string, status: number) =>
    sample(first, 'bms_http_requests_total', { method, route, status_code: String(status) });
  assert.equal(requests('GET', '/metrics', 401), 3);
  assert.equal(requests('POST', '/v1/clients', 201), 3);
  assert.equal(requests('POST', '/v1/clients', 422), 1);
  assert.equal(requests('GET', '/v1/clients/:id', 200), 2, 'counted by the route template, never the id');
  assert.equal(requests('GET', '/v1/clients/:id', 404), 1);
  assert.equal(requests('GET', 'unmatched', 404), 1, 'unknown paths share one series');
  assert.equal(requests('GET', '/v1/clients', 401), 1);
  assert.equal(requests('GET', '/v1/clients', 200), 2);
  assert.equal(requests('GET', '/v1/clients', 429), 1);
  assert.equal(requests('GET', '/metrics', 200), undefined, 'a scrape is counted after it is answered');
  const total = [...first]
    .filter(([name]) => name.startsWith('bms_http_requests_total{'))
    .reduce((sum, [, value]) => sum + value, 0);
  assert.equal(total, 15, 'and nothing else');
  assert.ok(
    ![...first.keys()].some(
      (name) => name.includes(created[0]!) || name.includes(UNKNOWN_ID) || name.includes('/no/such'),
    ),
    'no id or path in any label',
  );
  // Latency: one histogram per series, its count the same as the requests, its buckets cumulative.
  assert.equal(
    sample(first, 'bms_http_request_duration_seconds_count', {
      method: 'POST',
      route: '/v1/clients',
      status_code: '201',
    }),
    3,
  );
  assert.equal(
    sample(first, 'bms_http_request_duration_seconds_bucket', {
      method: 'POST',
      route: '/v1/clients',
      status_code: '201',
      le: '+Inf',
    }),
    3,
  );
  assert.ok(
    sample(first, 'bms_http_request_duration_seconds_sum', {
      method: 'POST',
      route: '/v1/clients',
      status_code: '201',
    })! > 0,
  );
  assert.equal(sample(first, 'bms_rate_limit_rejections_total', { route: '/v1/clients', limit: 'api_key' }), 1);
  // Node's own, the event-loop delay among them.
  for (const name of [
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_eventloop_lag_max_seconds',
    'process_resident_memory_bytes',
    'process_cpu_seconds_total',
    'nodejs_heap_size_used_bytes',
  ])
    assert.ok(Number.isFinite(sample(first, name)), name);
  // Empty queues.
  for (const name of [
    'bms_outbox_queue_depth',
    'bms_outbox_oldest_due_age_seconds',
    'bms_webhook_queue_depth',
    'bms_webhook_oldest_due_age_seconds',
  ])
    assert.equal(sample(first, name), 0, name);

  const second = await scrape(context);
  assert.equal(sample(second, 'bms_http_requests_total', { method: 'GET', route: '/metrics', status_code: '200' }), 1);
  assert.equal(
    sample(second, 'bms_http_requests_total', { method: 'POST', route: '/v1/clients', status_code: '201' }),
    3,
    'a scrape changes no other count',
  );

  // Queues: an invoice sent (one e-mail queued; no worker runs in this test) and a webhook endpoint
  // hearing client.created (one attempt queued), both due now; 90 s later they have been due 90 s.
  const endpoint = await context.request('POST', '/v1/webhook-endpoints', {
    key,
    body: { url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'] },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  assert.equal((await context.request('POST', '/v1/clients', { key, body: { name: 'Heard' } })).status, 201);
  const invoice = (
    await context.request('POST', '/v1/invoices', {
      key,
      body: { client_id: created[0], line_items: [{ description: 'Visit', quantity: 1, unit_amount: 5000 }] },
    })
  ).body.data;
  assert.equal((await context.request('POST', `/v1/invoices/${invoice.id}/send`, { key })).status, 200);
  clock.advance(90_000);
  const queued = await scrape(context);
  assert.equal(sample(queued, 'bms_outbox_queue_depth'), 1);
  assert.equal(sample(queued, 'bms_outbox_oldest_due_age_seconds'), 90);
  assert.equal(sample(queued, 'bms_webhook_queue_depth'), 1);
  assert.equal(sample(queued, 'bms_webhook_oldest_due_age_seconds'), 90);

  // Database errors: writes the storage refuses (503) are each counted, by their code.
  for (let index = 0; index < 20; index += 1)
    await context.request('POST', '/v1/clients', { key, body: { name: `Filler ${index}`, notes: 'x'.repeat(2000) } });
  const restore = await breakStorage(context);
  let refused = 0;
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await context.request('POST', '/v1/clients', {
        key,
        body: { name: 'No room', notes: 'y'.repeat(5000) },
      });
      if (response.status === 503) refused += 1;
    }
  } finally {
    await restore();
  }
  assert.ok(refused >= 2, `${refused} writes refused`);
  const errors = await scrape(context);
  const counted = [...errors]
    .filter(([name]) => name.startsWith('bms_database_errors_total{') && name.includes('source="request"'))
    .reduce((sum, [, value]) => sum + value, 0);
  assert.equal(counted, refused, 'one database error per refused write');
  if (!onPostgres)
    assert.equal(sample(errors, 'bms_database_errors_total', { source: 'request', code: 'SQLITE_FULL' }), refused);
  else
    assert.ok(
      sample(errors, 'bms_database_errors_total', { source: 'request', code: '25006' })! >= 1,
      'read-only transaction',
    );
});

test(`the real server counts what its outbox and webhook workers did (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  const directory = temporaryDirectory('bms-metrics-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const database = await createTestDatabase(directory);
  cleanups.push(() => database.drop());
  const healthy = await startReceiver();
  const broken = await startReceiver({ status: 500, body: 'down' });
  cleanups.push(
    () => healthy.close(),
    () => broken.close(),
  );
  const env = {
    DATABASE_URL: database.url,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    METRICS_TOKEN: TOKEN,
    OUTBOX_DIR: path.join(directory, 'outbox'),
    OUTBOX_POLL_MS: '20',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1',
  };
  const server: ServerProcess = await startServer(env);
  cleanups.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
  assert.ok(key);
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  const metrics = async () => {
    const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    return parse(await response.text());
  };
  assert.equal((await fetch(`${server.baseUrl}/metrics`)).status, 401, 'over real HTTP too');

  for (const receiver of [healthy, broken])
    assert.equal(
      (await call('POST', '/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['client.created'] })).status,
      201,
    );
  const client = (await call('POST', '/v1/clients', { name: 'Jane', email: 'jane@example.com' })).body.data;
  const invoice = (
    await call('POST', '/v1/invoices', {
      client_id: client.id,
      line_items: [{ description: 'Visit', quantity: 1, unit_amount: 5000 }],
    })
  ).body.data;
  assert.equal((await call('POST', `/v1/invoices/${invoice.id}/send`)).status, 200);

  // The healthy endpoint answers at once; the broken one fails, is retried a second later, fails for good.
  await healthy.waitFor(1);
  await broken.waitFor(2);
  const deadline = Date.now() + 15_000;
  let samples = await metrics();
  const outcome = (worker: string, name: string) =>
    sample(samples, 'bms_delivery_outcomes_total', { worker, outcome: name });
  // (An outcome is counted as it is logged, inside the transaction that records it: the queue empties on its commit.)
  while (
    (outcome('webhooks', 'failed') !== 1 ||
      outcome('outbox', 'delivered') !== 1 ||
      sample(samples, 'bms_webhook_queue_depth') !== 0 ||
      sample(samples, 'bms_outbox_queue_depth') !== 0) &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    samples = await metrics();
  }
  assert.equal(outcome('outbox', 'delivered'), 1, 'the invoice e-mail');
  assert.equal(outcome('webhooks', 'delivered'), 1);
  assert.equal(outcome('webhooks', 'retry_scheduled'), 1);
  assert.equal(outcome('webhooks', 'failed'), 1);
  assert.equal(sample(samples, 'bms_outbox_queue_depth'), 0);
  assert.equal(sample(samples, 'bms_webhook_queue_depth'), 0);
  assert.equal(fs.readdirSync(path.join(directory, 'outbox')).filter((name) => name.endsWith('.eml')).length, 1);
});
