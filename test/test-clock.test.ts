// The test clock (contract section 32, "Test clock"): with NODE_ENV=test and BMS_TEST_CLOCK=true, PUT /test/clock
// sets the time every part of the process reads and it runs on from there; GET answers it; POST /test/workers/run
// runs one pass of a worker; without both settings every /test/* path is 404, and production refuses to start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { TestClock } from '../src/core/test-clock.js';
import { ScheduleWorker } from '../src/workers/schedule-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';

let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  ({ key } = await context.account());
  const worker = new ScheduleWorker(context.database, context.app.clock, context.app.links, context.app.log, {
    listen: false,
  });
  context.app.workerPasses.set('schedules', () => worker.runPass());
});
after(() => context.close());

test('PUT /test/clock sets the time, which then runs on in real time; GET answers it', async () => {
  const set = await context.request('PUT', '/test/clock', { body: { now: '2030-03-08T09:00:00.000Z' } });
  assert.equal(set.status, 200, set.text);
  assert.ok(set.body.data.now >= '2030-03-08T09:00:00.000Z' && set.body.data.now < '2030-03-08T09:00:01.000Z');
  assert.ok(set.body.meta.request_id);
  assert.ok(set.body.meta.timestamp.startsWith('2030-03-08T09:00:0'), set.body.meta.timestamp);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const read = await context.request('GET', '/test/clock');
  assert.equal(read.status, 200);
  assert.ok(read.body.data.now > set.body.data.now, `${read.body.data.now} after ${set.body.data.now}`);
  assert.ok(read.body.data.now < '2030-03-08T09:00:05.000Z');
  // The API reads the same clock: an object made now is stamped in 2030.
  const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Clocked' } });
  assert.equal(client.status, 201, client.text);
  assert.ok(client.body.data.created_at.startsWith('2030-03-08T09:00:0'), client.body.data.created_at);
});

test('the clock moves only forward: an instant before its time is 422 on now; an offset is taken', async () => {
  const back = await context.request('PUT', '/test/clock', { body: { now: '2029-01-01T00:00:00Z' } });
  assert.equal(back.status, 422, back.text);
  assert.equal(back.body.error.code, 'VALIDATION_ERROR');
  assert.equal(back.body.error.details[0].field, 'now');
  const offset = await context.request('PUT', '/test/clock', { body: { now: '2030-06-01T12:00:00+02:00' } });
  assert.equal(offset.status, 200, offset.text);
  assert.ok(offset.body.data.now.startsWith('2030-06-01T10:00:0'), offset.body.data.now);
  for (const body of [{ now: 'soon' }, {}, { now: '2031-01-01T00:00:00Z', extra: 1 }]) {
    const wrong = await context.request('PUT', '/test/clock', { body });
    assert.equal(wrong.status, 422, wrong.text);
  }
});

test('POST /test/workers/run runs one pass of a worker and answers {worker, processed}', async () => {
  const job = await context.request('POST', '/v1/jobs', {
    key,
    body: {
      client_id: (await context.request('POST', '/v1/clients', { key, body: { name: 'J' } })).body.data.id,
      title: 'Mow',
    },
  });
  assert.equal(job.status, 201, job.text);
  const run = await context.request('POST', '/test/workers/run', { body: { worker: 'schedules' } });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.body.data.worker, 'schedules');
  assert.equal(typeof run.body.data.processed, 'number');
  assert.ok(run.body.meta.request_id);
  const unknown = await context.request('POST', '/test/workers/run', { body: { worker: 'mowers' } });
  assert.equal(unknown.status, 422, unknown.text);
  const absent = await context.request('POST', '/test/workers/run', { body: { worker: 'imports' } });
  assert.equal(absent.status, 422, absent.text);
  assert.match(absent.body.error.details[0].message, /no imports worker/);
});

test('without BMS_TEST_CLOCK every /test/* path is 404, and /v1 is untouched', async () => {
  const plain = await createTestContext();
  try {
    for (const [method, url] of [
      ['GET', '/test/clock'],
      ['PUT', '/test/clock'],
      ['POST', '/test/workers/run'],
    ] as const) {
      const response = await plain.request(method, url, { body: { now: '2040-01-01T00:00:00Z' } });
      assert.equal(response.status, 404, `${method} ${url}: ${response.text}`);
      assert.equal(response.body.error.code, 'NOT_FOUND');
    }
  } finally {
    await plain.close();
  }
  // Development with the setting: no test routes either (both settings are needed).
  assert.equal(loadConfig({ NODE_ENV: 'development', BMS_TEST_CLOCK: 'true' }).testClock, false);
  assert.equal(loadConfig({ NODE_ENV: 'test', BMS_TEST_CLOCK: 'true' }).testClock, true);
});

test('a server started in production with BMS_TEST_CLOCK=true refuses to start, with a message', () => {
  assert.throws(
    () => loadConfig({ NODE_ENV: 'production', BMS_TEST_CLOCK: 'true' }),
    /BMS_TEST_CLOCK=true is refused with NODE_ENV=production/,
  );
  const started = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      BMS_TEST_CLOCK: 'true',
      DATABASE_URL: 'sqlite::memory:',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(started.status, 1, started.stdout + started.stderr);
  assert.match(started.stderr, /BMS_TEST_CLOCK=true is refused with NODE_ENV=production/);
});
