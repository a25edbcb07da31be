// One account's schedule creates against another account's writes (contract §32, "Materialisation"): the
// latency of a quiet account's POST /v1/clients, one after another, first with nothing else running (the
// baseline), then while a busy account sends three 730-day daily schedule creates at once (each makes its first
// 50 visits; the schedule worker, woken by them, makes the other 1,350 a batch at a time). Target: the quiet
// account's slowest client create during the creates and the worker's fill ≤ 250 ms. In-process on SQLite (the
// test helpers' app, the real clock and a running schedule worker); `node --import tsx bench/schedule-fairness.ts`.
// The schedule routes are warmed up first (one short schedule). Prints the figures with the machine's load average and writes bench/results/schedule-fairness-latest.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/core/deps.js';
import { ScheduleWorker } from '../src/workers/schedule-worker.js';
import { createTestContext } from '../test/helpers/context.js';
import { ROOT } from './lib.js';

const TARGET_MS = 250;
const BASELINE = 40;
const CONCURRENT = 3;
/** The most client creates the loaded phase sends (it stops earlier once the worker is done), and its time limit. */
const MOST = 2000;
const LIMIT_MS = 120_000;

const context = await createTestContext({ clock: systemClock, validateResponses: false });
const busy = await context.account('Busy');
const quiet = await context.account('Quiet');
const call = async (key: string, method: string, url: string, body?: unknown) => {
  const response = await context.request(method, url, { key, body });
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
};
const client = (await call(busy.key, 'POST', '/v1/clients', { name: 'Lawns' })).data.id;
const jobs: string[] = [];
// A warm-up of the schedule routes (their schemas and serializers are compiled on first use), not measured.
const warmJob = (await call(busy.key, 'POST', '/v1/jobs', { client_id: client, title: 'Warm-up' })).data.id;
await call(busy.key, 'POST', '/v1/visit-schedules', {
  job_id: warmJob,
  recurrence: {
    rrule: 'FREQ=DAILY',
    start_date: new Date().toISOString().slice(0, 10),
    time: '07:00',
    timezone: 'UTC',
  },
  duration_minutes: 30,
  horizon_days: 7,
});
await call(busy.key, 'GET', `/v1/visit-schedules?limit=1`);
for (let index = 0; index < CONCURRENT; index++)
  jobs.push((await call(busy.key, 'POST', '/v1/jobs', { client_id: client, title: `Lawn ${index}` })).data.id);
const today = new Date().toISOString().slice(0, 10);

const silent = { info() {}, warn: console.warn, error: console.error };
const worker = new ScheduleWorker(context.database, systemClock, { publicBaseUrl: 'http://localhost' }, silent);
// The worker's start-up pass (nothing to do yet) is over before the baseline starts.
worker.start();
await new Promise((resolve) => setTimeout(resolve, 200));

let sent = 0;
async function clientCreate(): Promise<number> {
  const start = performance.now();
  await call(quiet.key, 'POST', '/v1/clients', { name: `Quiet client ${sent++}` });
  return performance.now() - start;
}
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

const loadBefore = os.loadavg();
const baseline: number[] = [];
for (let index = 0; index < BASELINE; index++) {
  baseline.push(await clientCreate());
  await pause();
}

const visitsMade = async () =>
  Number(
    (
      await context.database.db
        .selectFrom('visits')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('job_id', 'in', jobs)
        .executeTakeFirstOrThrow()
    ).count,
  );
const duringCreates: number[] = [];
const duringFill: number[] = [];
let createsDone = false;
const started = performance.now();
const createTimes: number[] = [];
const creates = Promise.all(
  jobs.map(async (job) => {
    const start = performance.now();
    await call(busy.key, 'POST', '/v1/visit-schedules', {
      job_id: job,
      recurrence: { rrule: 'FREQ=DAILY', start_date: today, time: '09:00', timezone: 'UTC' },
      duration_minutes: 30,
      horizon_days: 730,
    });
    createTimes.push(performance.now() - start);
  }),
).then(() => {
  createsDone = true;
});
let fillMs = 0;
let madeByCreates = 0;
for (let index = 0; index < MOST && performance.now() - started < LIMIT_MS; index++) {
  const phase = createsDone;
  const took = await clientCreate();
  (phase ? duringFill : duringCreates).push(took);
  if (createsDone && madeByCreates === 0) madeByCreates = await visitsMade();
  if (createsDone && index % 5 === 0 && (await visitsMade()) >= CONCURRENT * 500) {
    fillMs = performance.now() - started;
    break;
  }
  await pause();
}
await creates;
const loadAfter = os.loadavg();
const made = await visitsMade();
await worker.stop();
await context.close();

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0;
const summary = (values: number[]) =>
  values.length === 0
    ? 'none'
    : `${values.length} · p50 ${quantile(values, 0.5).toFixed(1)} · p95 ${quantile(values, 0.95).toFixed(1)} · max ${Math.max(...values).toFixed(1)} ms`;
const loaded = [...duringCreates, ...duringFill];
const worst = loaded.length > 0 ? Math.max(...loaded) : 0;
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
const lines = [
  `# Schedule fairness (${new Date().toISOString()}, SQLite, in process)`,
  '',
  `Machine: ${os.cpus().length} cores, load average (1 / 5 / 15 min) ${load(loadBefore)} before, ${load(loadAfter)} after.`,
  '',
  '| measure | value | target |',
  '|---|---|---|',
  `| quiet account's POST /v1/clients, nothing else running: count · p50 · p95 · max | ${summary(baseline)} | — |`,
  `| the same while ${CONCURRENT} 730-day daily schedule creates of another account run | ${summary(duringCreates)} | — |`,
  `| the same while the worker makes the rest of their visits | ${summary(duringFill)} | — |`,
  `| slowest quiet client create under load | ${worst.toFixed(1)} ms | ≤ ${TARGET_MS} ms: ${worst <= TARGET_MS ? 'met' : '**missed**'} |`,
  `| the schedule creates' own answers (ms) | ${sorted(createTimes)
    .map((value) => value.toFixed(0))
    .join(', ')} | — |`,
  `| visits made when the three creates had answered (the worker already at work) / in all | ${madeByCreates} / ${made} (of ${CONCURRENT * 500}) | ${CONCURRENT} × ≤ 50 by the creates themselves |`,
  `| from the creates' start to all visits made | ${fillMs > 0 ? `${(fillMs / 1000).toFixed(1)} s` : 'not within the limit'} | — |`,
];
console.log(lines.join('\n'));
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/schedule-fairness-latest.md'), `${lines.join('\n')}\n`);
