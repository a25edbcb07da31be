// Repeating visits at scale (issue 31, contract section 18): 1,000 active weekly schedules materialising a
// 120-day horizon in one pass of the background worker (its time, and the longest event-loop stall while it
// runs, target ≤ 50 ms), then the calendar over a year for one assignee with and without include_projected
// (target: within 2×). In-process on SQLite (the test helpers' app); `npx tsx bench/schedules.ts` (or
// `node --import tsx bench/schedules.ts`); SCHEDULES=… for another count, RUNS=… calendar requests of each kind
// (default 21, alternated so that a change in the machine's load weighs on both alike). Prints each figure
// against its target (met / missed) with the machine's load average, and writes bench/results/schedules-latest.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { systemClock } from '../src/core/deps.js';
import { ScheduleWorker } from '../src/workers/schedule-worker.js';
import { createTestContext, ManualClock } from '../test/helpers/context.js';
import { ROOT } from './lib.js';

const SCHEDULES = Number(process.env.SCHEDULES ?? 1000);
const RUNS = Number(process.env.RUNS ?? 21);
const STALL_TARGET_MS = 50;
const RATIO_TARGET = 2;
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR'];
const now = new Date();
const today = now.toISOString().slice(0, 10);

// Made "200 days ago" and starting today: nothing is materialised at creation, the worker makes it all.
const context = await createTestContext({ clock: new ManualClock(new Date(now.getTime() - 200 * 86_400_000)) });
const { key } = await context.account();
const api = async (method: string, url: string, body?: unknown) => {
  const response = await context.request(method, url, { key, body });
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
};
const member = (await api('POST', '/v1/team-members', { name: 'Maria' })).data.id;
const client = (await api('POST', '/v1/clients', { name: 'Lawns' })).data.id;
const seedStart = performance.now();
for (let index = 0; index < SCHEDULES; index++) {
  const job = (await api('POST', '/v1/jobs', { client_id: client, title: `Lawn ${index}` })).data.id;
  await api('POST', '/v1/visit-schedules', {
    job_id: job,
    recurrence: {
      rrule: `FREQ=WEEKLY;BYDAY=${DAYS[index % DAYS.length]}`,
      start_date: today,
      time: `${String(7 + (index % 10)).padStart(2, '0')}:00`,
      timezone: 'America/Denver',
    },
    duration_minutes: 45,
    horizon_days: 120,
    template: index % 20 === 0 ? { assignee_ids: [member] } : {},
  });
}
const seedSeconds = (performance.now() - seedStart) / 1000;

const quiet = { info() {}, warn: console.warn, error: console.error };
const worker = new ScheduleWorker(context.database, systemClock, { publicBaseUrl: 'http://localhost' }, quiet);
const delay = monitorEventLoopDelay({ resolution: 5 });
// The longest gap between two timer ticks 5 ms apart: what an API request would have waited at most.
let longest = 0;
let over = 0;
const gaps: number[] = [];
let last = performance.now();
const ticker = setInterval(() => {
  const at = performance.now();
  const gap = at - last - 5;
  longest = Math.max(longest, gap);
  if (gap > STALL_TARGET_MS) over++;
  gaps.push(gap);
  last = at;
}, 5);
const loadBefore = os.loadavg();
// The control: the same ticker in a second, idle Node process during the pass. Its gaps are the machine's own
// (a CPU shared with other work), which no change in BMS can remove; on a quiet machine they are near 0.
const control = spawn(
  process.execPath,
  [
    '-e',
    `let longest = 0, over = 0, last = performance.now();
     setInterval(() => { const at = performance.now(); const gap = at - last - 5; longest = Math.max(longest, gap); if (gap > ${STALL_TARGET_MS}) over++; last = at; }, 5);
     process.stdin.on('data', () => { process.stdout.write(JSON.stringify({ longest, over })); process.exit(0); });`,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const controlFigures = new Promise<{ longest: number; over: number }>((resolve) => {
  let text = '';
  control.stdout.on('data', (chunk) => {
    text += String(chunk);
  });
  control.on('exit', () => resolve(JSON.parse(text || '{"longest":0,"over":0}')));
});
await new Promise((resolve) => setTimeout(resolve, 200));
delay.enable();
const passStart = performance.now();
await worker.runPass();
const passSeconds = (performance.now() - passStart) / 1000;
delay.disable();
clearInterval(ticker);
const loadAfter = os.loadavg();
control.stdin.write('stop\n');
const idle = await controlFigures;
gaps.sort((a, b) => a - b);
const gap99 = gaps[Math.floor(gaps.length * 0.99)] ?? 0;
const visits = Number(
  (
    (await context.database.db
      .selectFrom('visits')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('schedule_id', 'is not', null)
      .executeTakeFirst()) as { count: number | string }
  ).count,
);

const window = `from=${now.toISOString()}&to=${new Date(now.getTime() + 365 * 86_400_000).toISOString()}&assignee_id=${member}&limit=100`;
const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
// Alternated, after one warm-up of each: a change in the machine's load weighs on both series alike.
const plain = `/v1/visits?${window}`;
const projected = `/v1/visits?${window}&include_projected=true`;
const times = { without: [] as number[], with: [] as number[] };
const items = { without: 0, with: 0 };
await api('GET', plain);
await api('GET', projected);
for (let run = 0; run < RUNS; run++) {
  for (const [kind, url] of [
    ['without', plain],
    ['with', projected],
  ] as const) {
    const start = performance.now();
    items[kind] = (await api('GET', url)).data.length;
    times[kind].push(performance.now() - start);
  }
}
const without = { ms: median(times.without), items: items.without };
const withProjected = { ms: median(times.with), items: items.with };
const ratio = withProjected.ms / without.ms;
await context.close();

const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
const lines = [
  `# Visit schedules (${new Date().toISOString()}, SQLite, in process)`,
  '',
  `Machine: ${os.cpus().length} cores, load average (1 / 5 / 15 min) ${load(loadBefore)} before the pass, ${load(loadAfter)} after it.`,
  '',
  '| measure | value | target |',
  '|---|---|---|',
  `| schedules (weekly, 120-day horizon) | ${SCHEDULES} | 1,000 |`,
  `| seeding (jobs and schedules through the API) | ${seedSeconds.toFixed(1)} s | — |`,
  `| worker pass: visits made | ${visits} | — |`,
  `| worker pass: time | ${passSeconds.toFixed(1)} s (${((passSeconds * 1000) / SCHEDULES).toFixed(1)} ms a schedule) | — |`,
  `| longest event-loop stall during the pass (5 ms ticker) | ${longest.toFixed(1)} ms | ≤ ${STALL_TARGET_MS} ms: ${verdict(longest <= STALL_TARGET_MS)} |`,
  `| ticker gaps over ${STALL_TARGET_MS} ms / all; p99 gap | ${over} / ${gaps.length}; ${gap99.toFixed(1)} ms | — |`,
  `| the same ticker in an idle second process meanwhile (the machine's own stalls): longest; gaps over ${STALL_TARGET_MS} ms | ${idle.longest.toFixed(1)} ms; ${idle.over} | — |`,
  `| event-loop delay during the pass: p99 / max (monitorEventLoopDelay) | ${(delay.percentile(99) / 1e6).toFixed(1)} / ${(delay.max / 1e6).toFixed(1)} ms | — |`,
  `| calendar, a year for one assignee, p50 of ${RUNS} (items) | ${without.ms.toFixed(1)} ms (${without.items}) | — |`,
  `| the same with include_projected=true, p50 of ${RUNS} (items) | ${withProjected.ms.toFixed(1)} ms (${withProjected.items}) | ≤ ${RATIO_TARGET}×: ${ratio.toFixed(2)}×, ${verdict(ratio <= RATIO_TARGET)} |`,
];
console.log(lines.join('\n'));
fs.writeFileSync(path.join(ROOT, 'bench/results/schedules-latest.md'), `${lines.join('\n')}\n`);
