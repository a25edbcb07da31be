// Two server processes on one database (PostgreSQL in its pass, a shared SQLite file in the other) and
// one Redis: concurrent sends through both get unique, gapless numbers, and every queued e-mail is
// delivered exactly once although both processes run a delivery worker.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { patient } from './helpers/patience.js';
import { startServer, type ServerProcess } from './helpers/processes.js';
import { startRedis } from './helpers/redis.js';
import { startSmtpServer } from './helpers/smtp.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('two instances: gapless numbers under concurrent sends, each e-mail delivered once', async () => {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const smtp = await startSmtpServer();
  cleanups.push(() => smtp.close());
  const directory = temporaryDirectory('bms-multi-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => fs.rmSync(directory, { recursive: true, force: true }),
    () => database.drop(),
  );
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    SMTP_URL: smtp.url,
    NODE_ENV: 'development',
    OUTBOX_POLL_MS: '20',
    LOG_LEVEL: 'warn',
  };
  const first = await startServer(env);
  const second = await startServer(env);
  const stop = async (server: ServerProcess) => {
    server.child.kill('SIGTERM');
    return server.exited;
  };
  cleanups.push(
    () => stop(first),
    () => stop(second),
  );

  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(first.output())?.[1];
  assert.ok(key);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (baseUrl: string, method: string, url: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  const client = (await call(first.baseUrl, 'POST', '/v1/clients', { name: 'Jane', email: 'jane@example.com' })).body
    .data.id;
  const invoices: string[] = [];
  for (let index = 0; index < 30; index += 1) {
    invoices.push(
      (
        await call(first.baseUrl, 'POST', '/v1/invoices', {
          client_id: client,
          line_items: [{ description: `Visit ${index}`, quantity: 1, unit_amount: 1000 }],
        })
      ).body.data.id,
    );
  }

  // Each invoice is sent twice at the same moment, once through each instance (a re-send keeps its number).
  const sends = await Promise.all(
    invoices.flatMap((id) => [
      call(first.baseUrl, 'POST', `/v1/invoices/${id}/send`),
      call(second.baseUrl, 'POST', `/v1/invoices/${id}/send`),
    ]),
  );
  // A failed send's answer, and what the servers logged at error level (a 500's stack is only in the log).
  const logged = () =>
    [first, second].flatMap((server) =>
      server
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line)),
    );
  assert.deepEqual(
    [...new Set(sends.map((send) => send.status))],
    [200],
    `${JSON.stringify(sends.find((send) => send.status !== 200)?.body)}\n${logged().join('\n')}`,
  );
  const numbers = new Map<string, Set<string>>();
  for (const send of sends)
    numbers.set(send.body.data.id, (numbers.get(send.body.data.id) ?? new Set()).add(send.body.data.number));
  assert.ok(
    [...numbers.values()].every((set) => set.size === 1),
    'both sends of one invoice report the same number',
  );
  const assigned = [...numbers.values()].map((set) => [...set][0]).sort();
  assert.deepEqual(
    assigned,
    Array.from({ length: 30 }, (_, index) => `INV-${String(index + 1).padStart(6, '0')}`),
    'unique and gapless',
  );

  // 60 sends queued 60 messages; both workers deliver, none twice. How soon is the machine's business: the wait
  // is generous (a loaded machine delivered 42 of 60 in 30 s), and a second e-mail would come soon after.
  const mails = await smtp.waitFor(60, 180_000);
  await new Promise((resolve) => setTimeout(resolve, patient(1_000)));
  assert.equal(mails.length, 60, 'no message delivered twice');
  assert.equal(new Set(mails.map((mail) => mail.messageId)).size, 60);

  assert.equal(await stop(first), 0);
  assert.equal(await stop(second), 0);
});
