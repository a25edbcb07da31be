// Recurring invoices made by the real server's worker (contract section 23, "Once only"): a server killed with
// SIGKILL under a burst of due occurrences and started again leaves each occurrence exactly one invoice, numbers
// consecutive and no e-mail without its invoice; two servers on one database through a due moment make one
// invoice per occurrence and send one e-mail each. Runs on a shared SQLite file in one pass and on PostgreSQL in
// the other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { startServer, type ServerProcess } from './helpers/processes.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

const TEMPLATES = 30;
const DAY = 24 * 3600 * 1000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
let context: TestContext;
let clock: ManualClock;
let smtp: TestSmtpServer;

before(async () => {
  smtp = await startSmtpServer();
  cleanups.push(() => smtp.close());
  clock = new ManualClock(new Date(Date.now() - 3 * DAY));
  context = await createTestContext({ clock });
  cleanups.push(() => context.close());
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const env = () => ({
  DATABASE_URL: context.databaseUrl,
  SMTP_URL: smtp.url,
  NODE_ENV: 'development',
  OUTBOX_POLL_MS: '20',
  LOG_LEVEL: 'warn',
});

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** An account with `TEMPLATES` daily auto-sent templates from `startDate` at `sendTime` (UTC), each its client. */
async function templates(name: string, startDate: string, sendTime: string) {
  const { accountId, key } = await context.account(name);
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const ids: string[] = [];
  const emails: string[] = [];
  for (let index = 0; index < TEMPLATES; index++) {
    const email = `${name.toLowerCase().replace(/\W/g, '')}-${index}@clients.example`;
    const client = await api('POST', '/v1/clients', { name: `Client ${index}`, email });
    assert.equal(client.status, 201, client.text);
    const made = await api('POST', '/v1/recurring-invoices', {
      client_id: client.body.data.id,
      invoice: { line_items: [{ description: 'Daily service', quantity: 1, unit_amount: 1000 + index }] },
      recurrence: { frequency: 'daily', start_date: startDate },
      send_time: sendTime,
      auto_send: true,
    });
    assert.equal(made.status, 201, made.text);
    ids.push(made.body.data.id);
    emails.push(email);
  }
  return { accountId, ids, emails };
}

/** The invoices the templates made, with their numbers and whether each has its e-mail queued. */
async function made(ids: readonly string[]) {
  const { rows } = await sql<{
    id: string;
    recurring_invoice_id: string;
    occurrence_date: string;
    number_seq: number | string | null;
    status: string;
    queued: number | string;
  }>`select i.id, i.recurring_invoice_id, cast(i.occurrence_date as text) as occurrence_date, i.number_seq, i.status,
       (select count(*) from outbox_messages o where o.document_id = i.id) as queued
     from invoices i where i.recurring_invoice_id in (${sql.join(ids)})`.execute(context.database.db);
  return rows;
}

/** Outbox messages of the account whose invoice does not exist. */
async function orphanMessages(accountId: string): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`
    select count(*) as count from outbox_messages o where o.account_id = ${accountId}
    and not exists (select 1 from invoices i where i.id = o.document_id)`.execute(context.database.db);
  return Number(rows[0]?.count);
}

function assertOnceOnly(rows: Awaited<ReturnType<typeof made>>, accountId: string) {
  const pairs = new Set(rows.map((row) => `${row.recurring_invoice_id} ${row.occurrence_date}`));
  assert.equal(pairs.size, rows.length, `one invoice per occurrence (${accountId})`);
  const numbers = rows
    .map((row) => Number(row.number_seq))
    .filter((value) => value > 0)
    .sort((a, b) => a - b);
  assert.deepEqual(
    numbers,
    numbers.map((_, index) => index + 1),
    'numbers are consecutive from 1',
  );
  for (const row of rows) {
    assert.equal(row.status, 'sent', `invoice ${row.id} was sent with its occurrence`);
    assert.equal(Number(row.queued), 1, `invoice ${row.id} has its one e-mail queued`);
  }
}

test('SIGKILL under a burst of due occurrences, then a restart: each occurrence one invoice, numbers consecutive, no e-mail without its invoice', {
  timeout: 400_000,
}, async () => {
  // Made "3 days ago", daily from the day after at 00:00 UTC: each template has its last two or three dates due.
  const start = new Date(clock.now().getTime() + DAY).toISOString().slice(0, 10);
  const { accountId, ids, emails } = await templates('Burst', start, '00:00');
  const today = new Date().toISOString().slice(0, 10);
  const days = Math.round((Date.parse(today) - Date.parse(start)) / DAY) + 1;
  const expected = TEMPLATES * days;

  const server = await startServer(env());
  const deadline = Date.now() + 120_000;
  let rows = await made(ids);
  while (rows.length < 5 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    rows = await made(ids);
  }
  server.child.kill('SIGKILL');
  await server.exited;
  rows = await made(ids);
  assert.ok(rows.length > 0, 'the worker had started');
  if (rows.length === expected) console.log('# note: the burst ended before the kill landed');
  assertOnceOnly(rows, accountId);
  assert.equal(await orphanMessages(accountId), 0, 'no e-mail queued without its invoice');

  const again = await startServer(env());
  cleanups.push(() => stop(again));
  const finish = Date.now() + 240_000;
  while (rows.length < expected && Date.now() < finish) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    rows = await made(ids);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  rows = await made(ids);
  assert.equal(rows.length, expected, 'every due occurrence made after the restart');
  assertOnceOnly(rows, accountId);
  assert.equal(await orphanMessages(accountId), 0);
  // Every e-mail received is of an invoice that exists; each invoice's e-mail arrives (a delivery cut by the kill
  // may arrive twice, with one Message-ID: the outbox delivers at least once).
  const numbers = new Set(rows.map((row) => `INV-${String(row.number_seq).padStart(6, '0')}.pdf`));
  const mine = () => smtp.messages.filter((mail) => emails.some((email) => JSON.stringify(mail.to).includes(email)));
  const until = Date.now() + 120_000;
  while (new Set(mine().map((mail) => mail.messageId)).size < expected && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 200));
  const received = mine();
  assert.equal(new Set(received.map((mail) => mail.messageId)).size, expected, 'one e-mail per invoice');
  for (const mail of received)
    assert.ok(numbers.has(mail.attachments[0]?.filename ?? ''), `${mail.subject}: its invoice exists`);
  await stop(again);
});

test('two servers on one database through a due moment: one invoice per occurrence, one e-mail each', {
  timeout: 300_000,
}, async () => {
  // Due 40 seconds to two minutes from now (the next whole minute at least 40 s away), on the real clock.
  const moment = new Date(Math.ceil((Date.now() + 40_000) / 60_000) * 60_000);
  clock.set(new Date(Date.now() - 1000));
  const { accountId, ids, emails } = await templates(
    'Pair',
    moment.toISOString().slice(0, 10),
    moment.toISOString().slice(11, 16),
  );
  const [first, second] = await Promise.all([startServer(env()), startServer(env())]);
  cleanups.push(
    () => stop(first),
    () => stop(second),
  );
  const deadline = moment.getTime() + 150_000;
  let rows = await made(ids);
  while (rows.length < TEMPLATES && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    rows = await made(ids);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  rows = await made(ids);
  assert.equal(rows.length, TEMPLATES, 'one invoice per template');
  assertOnceOnly(rows, accountId);
  const mine = () => smtp.messages.filter((mail) => emails.some((email) => JSON.stringify(mail.to).includes(email)));
  const until = Date.now() + 60_000;
  while (mine().length < TEMPLATES && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  assert.equal(mine().length, TEMPLATES, 'one e-mail per invoice, though both servers deliver');
});
