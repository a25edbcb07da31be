// Two server processes on one database (contract §28): of 20 concurrent holds of one member's slot, sent to
// both servers at once by 20 keys, exactly one is made; of 20 concurrent bookings of one hold, exactly one visit.
// On PostgreSQL the crew's member rows are locked in id order by whichever process comes first; on a shared
// SQLite file the writer's lock orders them. Runs in both passes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { startServer, type ServerProcess } from './helpers/processes.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
let context: TestContext;
let servers: ServerProcess[];
let keys: string[];
let memberId: string;
let jobId: string;

const ALL_WEEK = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'].map((day) => ({ day, start: '00:00', end: '24:00' }));

before(async () => {
  context = await createTestContext();
  cleanups.push(() => context.close());
  const { accountId, key } = await context.account();
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const member = await api('POST', '/v1/team-members', { name: 'Raced', timezone: 'UTC', working_hours: ALL_WEEK });
  assert.equal(member.status, 201, member.text);
  memberId = member.body.data.id;
  const client = await api('POST', '/v1/clients', { name: 'Racing Co' });
  const job = await api('POST', '/v1/jobs', { client_id: client.body.data.id, title: 'Raced job' });
  jobId = job.body.data.id;
  keys = [];
  for (let index = 0; index < 20; index++)
    keys.push((await context.key(accountId, ['availability:write', 'availability:read', 'visits:write'])).key);
  const env = { DATABASE_URL: context.databaseUrl, NODE_ENV: 'development', LOG_LEVEL: 'warn' };
  servers = [await startServer(env), await startServer(env)];
  for (const server of servers)
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function post(index: number, path: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const server = servers[index % servers.length] as ServerProcess;
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A start next year, on the hour: always ahead of the servers' real clocks and their notice. */
const start = `${new Date().getUTCFullYear() + 1}-01-07T10:00:00.000Z`;

test('20 holds of one slot sent to two servers at once: exactly one 201, nineteen 409', {
  timeout: 120_000,
}, async () => {
  const answers = await Promise.all(
    keys.map((key, index) =>
      post(index, '/v1/availability/holds', key, {
        start_at: start,
        duration_minutes: 60,
        team_member_ids: [memberId],
      }),
    ),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [201, ...Array.from({ length: 19 }, () => 409)], JSON.stringify(answers));
  const winner = answers.findIndex((answer) => answer.status === 201);
  const holdId = answers[winner]?.body.data.id as string;
  const bookings = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      post(index, '/v1/visits', keys[winner] as string, { job_id: jobId, hold_id: holdId }),
    ),
  );
  assert.deepEqual(
    bookings.map((answer) => answer.status).sort(),
    [201, ...Array.from({ length: 19 }, () => 409)],
    JSON.stringify(bookings.map((answer) => answer.body.error?.code ?? answer.status)),
  );
  const visits = await context.database.db.selectFrom('visits').select('id').where('hold_id', '=', holdId).execute();
  assert.equal(visits.length, 1);
});
