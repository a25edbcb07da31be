// Materialisation by the real server's worker (contract section 18): a server killed with SIGKILL in the
// middle of a pass leaves no occurrence with two visits (the worker commits a few visits at a time), and two
// servers then materialising the same schedules at once finish the work with exactly one visit per occurrence.
// Runs on a shared SQLite file in one pass and on PostgreSQL in the other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { startServer, type ServerProcess } from './helpers/processes.js';

const SCHEDULES = 20;
const HORIZON = 120;
/** Today to today + 120 days, inclusive, daily: 121 visits a schedule. */
const PER_SCHEDULE = HORIZON + 1;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
let context: TestContext;
const ids: string[] = [];

before(async () => {
  // Made "200 days ago": the schedules start today, so at creation they have nothing to materialise yet and
  // the server's worker, on the real clock, has every visit to make.
  const now = new Date();
  const clock = new ManualClock(new Date(now.getTime() - 200 * 24 * 3600 * 1000));
  context = await createTestContext({ clock });
  cleanups.push(() => context.close());
  const { key } = await context.account();
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const client = (await api('POST', '/v1/clients', { name: 'Many lawns' })).body.data.id;
  const today = now.toISOString().slice(0, 10);
  for (let index = 0; index < SCHEDULES; index++) {
    const job = (await api('POST', '/v1/jobs', { client_id: client, title: `Lawn ${index}` })).body.data.id;
    const made = await api('POST', '/v1/visit-schedules', {
      job_id: job,
      recurrence: { rrule: 'FREQ=DAILY', start_date: today, time: '23:30', timezone: 'UTC' },
      duration_minutes: 20,
      horizon_days: HORIZON,
    });
    assert.equal(made.status, 201, made.text);
    ids.push(made.body.data.id);
  }
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** [visits, distinct (schedule, key) pairs], and the visit count of each schedule. */
async function counts() {
  const { rows } = await sql<{ schedule_id: string; visits: number | string; keys: number | string }>`
    select schedule_id, count(*) as visits, count(distinct occurrence_key) as keys from visits
    where schedule_id in (${sql.join(ids)}) group by schedule_id`.execute(context.database.db);
  const perSchedule = new Map(rows.map((row) => [row.schedule_id, Number(row.visits)]));
  const visits = rows.reduce((sum, row) => sum + Number(row.visits), 0);
  const keys = rows.reduce((sum, row) => sum + Number(row.keys), 0);
  return { visits, keys, perSchedule };
}

const env = () => ({ DATABASE_URL: context.databaseUrl, NODE_ENV: 'development', LOG_LEVEL: 'warn' });

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  await server.exited;
}

test('SIGKILL during a pass: what was committed stands, one visit per key, and no schedule holds more than its occurrences', {
  timeout: 300_000,
}, async () => {
  assert.equal((await counts()).visits, 0);
  const server = await startServer(env());
  let seen = (await counts()).visits;
  const deadline = Date.now() + 120_000;
  while (seen === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = (await counts()).visits;
  }
  server.child.kill('SIGKILL');
  await server.exited;
  const killed = await counts();
  assert.ok(killed.visits > 0, 'the worker had started');
  assert.equal(killed.keys, killed.visits, 'one visit per key');
  for (const [id, visits] of killed.perSchedule) assert.ok(visits <= PER_SCHEDULE, `schedule ${id}: ${visits} visits`);
  // A visit's whole write (its assignees, its event) is in the transaction that made it.
  const { rows } = await sql<{ count: number | string }>`
    select count(*) as count from visits v where v.schedule_id in (${sql.join(ids)})
    and not exists (select 1 from events e where e.type = 'visit.created' and e.resource_id = cast(v.id as text))`.execute(
    context.database.db,
  );
  assert.equal(Number(rows[0]?.count), 0, 'every committed visit has its visit.created event');
  if (killed.visits === SCHEDULES * PER_SCHEDULE) console.log('# note: the pass ended before the kill landed');
});

test('two servers then materialising the same schedules at once finish them, each visit made once', {
  timeout: 300_000,
}, async () => {
  const [first, second] = await Promise.all([startServer(env()), startServer(env())]);
  cleanups.push(
    () => stop(first),
    () => stop(second),
  );
  const deadline = Date.now() + 240_000;
  let now = await counts();
  while (now.visits < SCHEDULES * PER_SCHEDULE && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    now = await counts();
  }
  // A moment more: a duplicate, if there were one, would come after the last first insert.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  now = await counts();
  assert.equal(now.visits, SCHEDULES * PER_SCHEDULE);
  assert.equal(now.keys, now.visits);
  for (const id of ids) assert.equal(now.perSchedule.get(id), PER_SCHEDULE, id);
  const { rows } = await sql<{ actor_type: string }>`
    select distinct actor_type from events where type = 'visit.created'`.execute(context.database.db);
  assert.deepEqual(
    rows.map((row) => row.actor_type),
    ['system'],
    'the worker made every visit: events of actor system',
  );
});
