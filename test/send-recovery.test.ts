// The outbox survives the server process dying: SIGKILL in the middle of a delivery loses nothing
// (the message is delivered after the restart, a possible repeat carrying the same Message-ID), and
// SIGTERM lets the delivery in progress finish and be recorded before the process exits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { startServer, type ServerProcess } from './helpers/processes.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
const cleanups: Array<() => Promise<void> | void> = [];
before(async () => {
  smtp = await startSmtpServer();
});
after(async () => {
  await smtp.close();
  for (const cleanup of cleanups) await cleanup();
});

async function environment() {
  const directory = temporaryDirectory('bms-recovery-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => database.drop(),
    () => fs.rmSync(directory, { recursive: true, force: true }),
  );
  return {
    url: database.url,
    env: {
      DATABASE_URL: database.url,
      NODE_ENV: 'development',
      SMTP_URL: smtp.url,
      OUTBOX_POLL_MS: '50',
      OUTBOX_LEASE_MS: '1500',
      OUTBOX_RETRY_BASE_MS: '200',
      LOG_LEVEL: 'warn',
    },
  };
}

async function sendInvoices(server: ServerProcess, count: number): Promise<void> {
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const client = await (
    await fetch(`${server.baseUrl}/v1/clients`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Jane', email: 'jane@example.com' }),
    })
  ).json();
  for (let index = 0; index < count; index += 1) {
    const body = JSON.stringify({
      client_id: client.data.id,
      line_items: [{ description: `Visit ${index}`, quantity: 1, unit_amount: 5000 }],
    });
    const invoice = await (await fetch(`${server.baseUrl}/v1/invoices`, { method: 'POST', headers, body })).json();
    const sent = await fetch(`${server.baseUrl}/v1/invoices/${invoice.data.id}/send`, { method: 'POST', headers });
    assert.equal(sent.status, 200);
  }
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function outboxRows(url: string) {
  const database = openDatabase(parseDatabaseUrl(url));
  try {
    return await database.db.selectFrom('outbox_messages').selectAll().execute();
  } finally {
    await database.close();
  }
}

test('SIGKILL during a delivery: every queued message is delivered after the restart', async () => {
  const { url, env } = await environment();
  smtp.messages.length = 0;
  smtp.delayMs = 3000;
  const first = await startServer(env);
  const startedBefore = smtp.started;
  await sendInvoices(first, 3);
  await waitUntil(() => smtp.started > startedBefore, 'a delivery to start');
  first.child.kill('SIGKILL');
  await first.exited;
  const rowsAfterKill = await outboxRows(url);
  assert.equal(rowsAfterKill.length, 3, 'all three messages were queued durably');
  assert.ok(
    rowsAfterKill.some((row) => row.status === 'sending'),
    'one was caught mid-delivery',
  );

  smtp.delayMs = 0;
  const second = await startServer(env);
  const ids = new Set(rowsAfterKill.map((row) => row.message_id));
  await waitUntil(
    () => new Set(smtp.messages.map((mail) => mail.messageId).filter((id) => ids.has(id ?? ''))).size === 3,
    'all three messages',
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
  const rows = await outboxRows(url);
  assert.ok(
    rows.every((row) => row.status === 'delivered'),
    JSON.stringify(rows.map((row) => row.status)),
  );
  // A message interrupted after the SMTP server took it may arrive twice: always with the same Message-ID.
  const received = smtp.messages.filter((mail) => ids.has(mail.messageId ?? ''));
  assert.ok(received.length <= 4, `at most the interrupted one repeats (${received.length})`);
});

test('SIGTERM during a delivery: the delivery finishes and is recorded, then the process exits 0', async () => {
  const { url, env } = await environment();
  smtp.messages.length = 0;
  smtp.delayMs = 1000;
  const server = await startServer(env);
  const startedBefore = smtp.started;
  await sendInvoices(server, 1);
  await waitUntil(() => smtp.started > startedBefore, 'the delivery to start');
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  smtp.delayMs = 0;
  const rows = await outboxRows(url);
  assert.deepEqual(
    rows.map((row) => [row.status, row.attempts]),
    [['delivered', 1]],
  );
  assert.equal(smtp.messages.filter((mail) => mail.messageId === rows[0]!.message_id).length, 1);
});
