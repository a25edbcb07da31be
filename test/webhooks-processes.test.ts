// Webhook delivery across real server processes: a server killed with SIGKILL in the middle of a delivery
// loses nothing (the attempt's lease runs out and the next server makes it), and two servers on one
// database deliver each (event, endpoint) once, one worker at a time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { startServer, type ServerProcess } from './helpers/processes.js';
import { startReceiver } from './helpers/receiver.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function setup() {
  const directory = temporaryDirectory('bms-webhooks-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => fs.rmSync(directory, { recursive: true, force: true }),
    () => database.drop(),
  );
  const env = {
    DATABASE_URL: database.url,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_LEASE_MS: '2500',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  };
  const start = async () => {
    const server = await startServer(env);
    cleanups.push(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    return server;
  };
  return { env, start };
}

function client(server: ServerProcess, key: string) {
  return async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
}

test('SIGKILL during a delivery, restart: the event is delivered, with the same webhook-id', async () => {
  const { start } = await setup();
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  receiver.answers.push({ hang: true });
  const first = await start();
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(first.output())?.[1];
  assert.ok(key);
  const call = client(first, key);
  const endpoint = (
    await call('POST', '/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['client.created'] })
  ).body.data;
  const created = (await call('POST', '/v1/clients', { name: 'Survives a crash' })).body.data;
  const [inFlight] = await receiver.waitFor(1);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await start();
  const received = await receiver.waitFor(2, 15_000);
  assert.equal(received[1]!.headers['webhook-id'], inFlight!.headers['webhook-id']);
  assert.equal(JSON.parse(received[1]!.body).data.object.id, created.id);
  const attempts = async () =>
    (await client(second, key)('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data as Array<{
      attempt: number;
      status: string;
    }>;
  const deadline = Date.now() + 5000;
  while ((await attempts())[0]?.status === 'pending' && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  const log = await attempts();
  assert.deepEqual(
    log.map((row) => [row.attempt, row.status]),
    [[1, 'succeeded']],
    'the interrupted attempt was made again, not lost',
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test('two servers on one database deliver each event to each endpoint once', async () => {
  const { start } = await setup();
  const receiver = await startReceiver({ status: 200, delayMs: 100 });
  cleanups.push(() => receiver.close());
  const first = await start();
  const second = await start();
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(first.output())?.[1];
  assert.ok(key);
  await client(first, key)('POST', '/v1/webhook-endpoints', { url: receiver.url, enabled_events: ['client.created'] });
  const count = 30;
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      client(index % 2 ? first : second, key)('POST', '/v1/clients', { name: `Client ${index}` }),
    ),
  );
  const received = await receiver.waitFor(count, 20_000);
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.equal(receiver.received.length, count, 'no event delivered twice');
  assert.equal(new Set(received.map((request) => request.headers['webhook-id'])).size, count);
  for (const server of [first, second]) {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
});
