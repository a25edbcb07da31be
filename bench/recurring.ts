// Recurring invoices due at once (contract §23): 10,000 active templates (ten accounts of 1,000, the per-account
// cap), each with one occurrence due, made in one worker pass. Measures the worker's longest event-loop stall
// (target ≤ 50 ms) and another account's GET /v1/clients/:id p99 during the pass against the same without it, in
// the same run (target ≤ 2×). In-process on SQLite (the test helpers' app and the recurring-invoice worker);
// `npm run bench:recurring`, BENCH_TEMPLATES=N for a smaller run. Prints the figures with the machine's load
// average and writes bench/results/recurring-latest.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ManualClock } from '../src/core/deps.js';
import { RecurringInvoiceWorker } from '../src/workers/recurring-invoice-worker.js';
import { createTestContext } from '../test/helpers/context.js';
import { ROOT } from './lib.js';

const TEMPLATES = Number(process.env.BENCH_TEMPLATES ?? 10_000);
const PER_ACCOUNT = 1000;
const STALL_TARGET_MS = 50;
const BASELINE_GETS = 400;
const DAY = 24 * 3600 * 1000;

// Made "yesterday", daily from today at 00:00 UTC: each template has exactly today's occurrence due.
const now = new Date();
const clock = new ManualClock(new Date(now.getTime() - DAY));
const context = await createTestContext({ clock, validateResponses: false });
const call = async (key: string, method: string, url: string, body?: unknown) => {
  const response = await context.request(method, url, { key, body });
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
};
const today = now.toISOString().slice(0, 10);
let made = 0;
for (let account = 0; made < TEMPLATES; account++) {
  const { key } = await context.account(`Busy ${account}`);
  const client = (await call(key, 'POST', '/v1/clients', { name: 'Plan holder', email: 'ap@example.com' })).data.id;
  for (let index = 0; index < PER_ACCOUNT && made < TEMPLATES; index++, made++)
    await call(key, 'POST', '/v1/recurring-invoices', {
      client_id: client,
      invoice: { line_items: [{ description: 'Maintenance', quantity: 1, unit_amount: 12500 }] },
      recurrence: { frequency: 'daily', start_date: today },
      send_time: '00:00',
      auto_send: true,
    });
}
const quiet = await context.account('Quiet');
const quietClient = (await call(quiet.key, 'POST', '/v1/clients', { name: 'Quiet client' })).data.id;
clock.set(now);

async function read(): Promise<number> {
  const start = performance.now();
  await call(quiet.key, 'GET', `/v1/clients/${quietClient}`);
  return performance.now() - start;
}
const pause = () => new Promise((resolve) => setTimeout(resolve, 2));

const loadBefore = os.loadavg();
const baseline: number[] = [];
for (let index = 0; index < BASELINE_GETS; index++) {
  baseline.push(await read());
  await pause();
}

const silent = { info() {}, warn: console.warn, error: console.error };
const worker = new RecurringInvoiceWorker(context.database, clock, { publicBaseUrl: 'http://localhost' }, silent);
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const started = performance.now();
let passDone = false;
const pass = worker.runPass().then((count) => {
  passDone = true;
  return count;
});
const during: number[] = [];
while (!passDone) {
  during.push(await read());
  await pause();
}
const invoices = await pass;
const passMs = performance.now() - started;
delay.disable();
const loadAfter = os.loadavg();
await context.close();

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0;
const stallMs = delay.max / 1e6;
const p99Before = quantile(baseline, 0.99);
const p99During = quantile(during, 0.99);
const ratio = p99Before > 0 ? p99During / p99Before : 0;
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
const lines = [
  `# Recurring invoices in one pass (${new Date().toISOString()}, SQLite, in process)`,
  '',
  `Machine: ${os.cpus().length} cores, load average (1 / 5 / 15 min) ${load(loadBefore)} before, ${load(loadAfter)} after.`,
  '',
  '| measure | value | target |',
  '|---|---|---|',
  `| templates due / invoices made in the pass | ${TEMPLATES} / ${invoices} | all |`,
  `| the pass | ${(passMs / 1000).toFixed(1)} s | — |`,
  `| longest event-loop stall during the pass | ${stallMs.toFixed(1)} ms | ≤ ${STALL_TARGET_MS} ms: ${stallMs <= STALL_TARGET_MS ? 'met' : '**missed**'} |`,
  `| another account's GET /v1/clients/:id p99 without / during the pass | ${p99Before.toFixed(1)} / ${p99During.toFixed(1)} ms (${during.length} reads during) | ≤ 2×: ${ratio <= 2 ? 'met' : '**missed**'} (${ratio.toFixed(2)}×) |`,
];
console.log(lines.join('\n'));
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/recurring-latest.md'), `${lines.join('\n')}\n`);
