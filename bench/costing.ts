// Job costing at scale (contract §29): one job with 10,000 stopped time entries and a sent invoice of 200 product
// lines (each with a unit cost), through a production-configured server. Measured in the same run: GET
// /v1/jobs/:id/costing against GET /v1/jobs/:id, median and p99, and the longest event-loop hold of the server
// while each is asked. Target: costing ≤ 3× the job's GET (median and p99).
// `npm run bench:costing`; COSTING_ENTRIES, COSTING_LINES, COSTING_REQUESTS, SCALE_ENGINE (sqlite | postgres).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase, type Database } from '../src/db/database.js';
import type { TimeEntryRow } from '../src/db/types.js';
import { api, prepare, ROOT, startBms, stop, work, onEachEngine } from './lib.js';

const ENTRIES = Number(process.env.COSTING_ENTRIES ?? 10_000);
const LINES = Math.min(200, Number(process.env.COSTING_LINES ?? 200));
const REQUESTS = Number(process.env.COSTING_REQUESTS ?? 50);
const MEMBERS = 20;
const HOUR = 3_600_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/** The job, its members and its sent invoice through the API; the entries written directly, a member's never overlapping. */
async function seed(database: Database, base: string, key: string, accountId: string): Promise<string> {
  const client = (await api(base, key, 'POST', '/v1/clients', { name: 'Big client' })).json.data.id as string;
  const product = (
    await api(base, key, 'POST', '/v1/products', {
      type: 'material',
      name: 'Part',
      unit_amount: 1250,
      cost_amount: 700,
    })
  ).json.data.id as string;
  const job = (
    await api(base, key, 'POST', '/v1/jobs', {
      client_id: client,
      title: 'A long job',
      line_items: Array.from({ length: LINES }, (_, index) => ({ product_id: product, quantity: 1 + (index % 5) })),
    })
  ).json.data.id as string;
  const invoice = (await api(base, key, 'POST', '/v1/invoices', { job_id: job })).json.data.id as string;
  await api(base, key, 'PUT', `/v1/invoices/${invoice}`, { status: 'sent' });
  const members: string[] = [];
  for (let index = 0; index < MEMBERS; index++)
    members.push((await api(base, key, 'POST', '/v1/team-members', { name: `Tech ${index}` })).json.data.id);
  const start = Date.parse('2026-01-05T08:00:00.000Z');
  const now = new Date().toISOString();
  const rows: TimeEntryRow[] = [];
  for (let index = 0; index < ENTRIES; index++) {
    const member = index % MEMBERS;
    const slot = Math.floor(index / MEMBERS);
    const from = start + slot * 3 * HOUR;
    rows.push({
      id: uuidv7(),
      account_id: accountId,
      team_member_id: members[member] as string,
      job_id: job,
      visit_id: null,
      started_at: new Date(from).toISOString(),
      ended_at: new Date(from + 2 * HOUR + (index % 60) * 60_000).toISOString(),
      break_minutes: index % 3 === 0 ? 15 : 0,
      source: 'manual',
      billable: 1,
      hourly_cost_amount: 4500,
      hourly_rate_amount: 9000,
      currency: 'USD',
      notes: null,
      approved_at: index % 2 === 0 ? now : null,
      approved_by: null,
      invoice_id: null,
      billed_hundredths: null,
      external_id: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    });
  }
  // SQLite takes at most 32,766 variables a statement: 500 entries of 24 columns each.
  await database.db.transaction().execute(async (trx) => {
    for (let at = 0; at < rows.length; at += 500)
      await trx
        .insertInto('time_entries')
        .values(rows.slice(at, at + 500))
        .execute();
  });
  return job;
}

async function measure(base: string, key: string, url: string, pid: number, loopFile: string) {
  const headers = { authorization: `Bearer ${key}` };
  for (let warm = 0; warm < 3; warm++) await (await fetch(`${base}${url}`, { headers })).arrayBuffer();
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const latencies: number[] = [];
  let non200 = 0;
  let body = '';
  for (let request = 0; request < REQUESTS; request++) {
    const started = performance.now();
    const response = await fetch(`${base}${url}`, { headers });
    body = await response.text();
    latencies.push(performance.now() - started);
    if (response.status !== 200) {
      non200++;
      if (non200 === 1) console.error(url, response.status, body.slice(0, 300));
    }
  }
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const loop = JSON.parse(fs.readFileSync(loopFile, 'utf8')) as { maxMs: number };
  latencies.sort((a, b) => a - b);
  return {
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    non200,
    loopMaxMs: round(loop.maxMs),
    body,
  };
}

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  const seeded = await prepare(env);
  const loopFile = path.join(work, `costing-loop-${engine}.json`);
  const server = await startBms({ ...env, BENCH_LOOP_FILE: loopFile }, [
    '--import',
    path.join(ROOT, 'bench/loop-delay.mjs'),
  ]);
  const database = openDatabase(config);
  const started = performance.now();
  const job = await seed(database, server.url, seeded.key, seeded.accountId);
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') await sql`vacuum (analyze)`.execute(database.db);
  else await sql`analyze`.execute(database.db);
  console.log(`${engine}: seeded a job of ${ENTRIES} entries and a sent invoice of ${LINES} lines in ${seedSeconds} s`);
  const pid = server.process.pid as number;
  const get = await measure(server.url, seeded.key, `/v1/jobs/${job}`, pid, loopFile);
  const costing = await measure(server.url, seeded.key, `/v1/jobs/${job}/costing`, pid, loopFile);
  const figures = JSON.parse(costing.body).data as { labour: { entries: number }; materials: { lines: number } };
  if (figures.labour.entries !== ENTRIES || figures.materials.lines !== LINES)
    throw new Error(`the costing counted ${figures.labour.entries} entries and ${figures.materials.lines} lines`);
  await stop(server.process);
  await database.close();
  const result = {
    engine,
    seedSeconds,
    get: { ...get, body: undefined },
    costing: { ...costing, body: undefined },
    ratioP50: round(costing.p50 / get.p50),
    ratioP99: round(costing.p99 / get.p99),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = await onEachEngine('costing', runEngine);
  const lines = [
    '# Job costing benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `One job with ${ENTRIES} stopped time entries and a sent invoice of ${LINES} product lines; ${REQUESTS} sequential requests each. GET /v1/jobs/:id/costing against GET /v1/jobs/:id. Target: ratio ≤ 3 at p50 and p99.`,
    '',
    '| engine | job p50 / p99 ms | costing p50 / p99 ms | ratio p50 / p99 | longest hold ms (job / costing) | non-200 |',
    '|---|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.engine} | ${run.get.p50} / ${run.get.p99} | ${run.costing.p50} / ${run.costing.p99} | ${run.ratioP50} / ${run.ratioP99} | ${run.get.loopMaxMs} / ${run.costing.loopMaxMs} | ${run.get.non200 + run.costing.non200} |`,
    ),
    '',
  ];
  const text = lines.join('\n');
  if (ENTRIES === 10_000 && LINES === 200) fs.writeFileSync(path.join(ROOT, 'bench/results/costing-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
