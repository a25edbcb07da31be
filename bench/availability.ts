// Availability at scale (contract §28): one account with 50 bookable members (weekday hours in America/Denver),
// 100,000 visits over a year on them and 1,000 weekly visit schedules naming them, through a production-
// configured server. Measured in the same run: a 31-day GET /v1/availability (every member unnamed, a page of
// 100 slots) against a 100-row page of GET /v1/visits, median and p99, and the longest event-loop hold of the
// server while each is asked (the two alternating in blocks). Targets: availability ≤ 5× the visit page (median and p99); no hold over 50 ms.
// `npm run build && node --import tsx bench/availability.ts`; AVAILABILITY_VISITS, AVAILABILITY_SCHEDULES,
// AVAILABILITY_REQUESTS, AVAILABILITY_WARM_UP, SCALE_ENGINE (sqlite | postgres); AVAILABILITY_CPU_PROF, a folder for the server's CPU
// profiles (written when it stops; one folder per engine, the largest file the server's main thread).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase, type Database } from '../src/db/database.js';
import type { VisitAssigneeRow, VisitRow } from '../src/db/types.js';
import { api, prepare, ROOT, startBms, stop, work, onEachEngine } from './lib.js';

const VISITS = Number(process.env.AVAILABILITY_VISITS ?? 100_000);
const SCHEDULES = Number(process.env.AVAILABILITY_SCHEDULES ?? 1_000);
// 200 sequential requests each: with 50, the p99 was the slowest request of the run (the 50th of 50).
const REQUESTS = Number(process.env.AVAILABILITY_REQUESTS ?? 200);
const MEMBERS = 50;
/** Requests of one kind in a row (the two kinds alternate). */
const BLOCK = 20;
/** Requests of each kind before the measured ones (AVAILABILITY_WARM_UP; 3 before 30 November 2026). */
const WARM_UP = Number(process.env.AVAILABILITY_WARM_UP ?? 30);
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The year the visits fill, and the month availability is asked for, inside it. */
const YEAR_START = Date.parse(`${new Date().getUTCFullYear() + 1}-01-01T00:00:00.000Z`);
const MONTH = new Date(YEAR_START + 150 * DAY).toISOString().slice(0, 10);
const MONTH_END = new Date(YEAR_START + 180 * DAY).toISOString().slice(0, 10);
const WEEKDAY_HOURS = ['MO', 'TU', 'WE', 'TH', 'FR'].map((day) => ({ day, start: '08:00', end: '17:00' }));

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/** Members through the API (their hours checked as a client's would be); jobs and visits written directly. */
async function seed(database: Database, base: string, key: string, accountId: string) {
  const members: string[] = [];
  for (let index = 0; index < MEMBERS; index++)
    members.push(
      (
        await api(base, key, 'POST', '/v1/team-members', {
          name: `Tech ${index}`,
          timezone: 'America/Denver',
          working_hours: WEEKDAY_HOURS,
        })
      ).json.data.id,
    );
  const client = (await api(base, key, 'POST', '/v1/clients', { name: 'Big client' })).json.data.id as string;
  const jobs: string[] = [];
  for (let index = 0; index < 100; index++)
    jobs.push((await api(base, key, 'POST', '/v1/jobs', { client_id: client, title: `Job ${index}` })).json.data.id);
  const { db } = database;
  const now = new Date().toISOString();
  // A working-hours grid (15:00–23:00 UTC is 08:00–16:00 in Denver, near enough across the year), one visit
  // of 1–2 hours per slot, spread over the members and the year.
  for (let from = 0; from < VISITS; from += 2_000) {
    await db.transaction().execute(async (trx) => {
      const rows: Omit<VisitRow, 'tags'>[] = [];
      const assignees: VisitAssigneeRow[] = [];
      for (let index = from; index < Math.min(VISITS, from + 2_000); index++) {
        const member = index % MEMBERS;
        const perMember = Math.floor(index / MEMBERS);
        const day = Math.floor(perMember / 4) % 365;
        const start = YEAR_START + day * DAY + 15 * HOUR + (perMember % 4) * 2 * HOUR;
        const end = start + (1 + (index % 2)) * HOUR;
        const id = uuidv7();
        const jobId = jobs[index % jobs.length] as string;
        rows.push({
          id,
          account_id: accountId,
          job_id: jobId,
          client_id: client,
          property_id: null,
          title: 'Service',
          instructions: null,
          status: 'scheduled',
          all_day: 0,
          timezone: 'America/Denver',
          start_at: new Date(start).toISOString(),
          end_at: new Date(end).toISOString(),
          start_date: null,
          end_date: null,
          arrival_window_minutes: null,
          assignee_count: 1,
          en_route_at: null,
          started_at: null,
          completed_at: null,
          canceled_at: null,
          cancel_reason: null,
          completion_notes: null,
          schedule_id: null,
          occurrence_key: null,
          is_exception: 0,
          hold_id: null,
          external_id: null,
          metadata: '{}',
          custom_fields: '{}',
          created_at: now,
          updated_at: now,
        });
        assignees.push({
          account_id: accountId,
          visit_id: id,
          team_member_id: members[member] as string,
          position: 0,
          start_at: new Date(start).toISOString(),
          end_at: new Date(end).toISOString(),
          status: 'scheduled',
          created_at: now,
        });
      }
      // SQLite takes at most 32,766 variables a statement: 500 visits of 30 columns each.
      for (let at = 0; at < rows.length; at += 500) {
        await trx
          .insertInto('visits')
          .values(rows.slice(at, at + 500))
          .execute();
        await trx
          .insertInto('visit_assignees')
          .values(assignees.slice(at, at + 500))
          .execute();
      }
    });
  }
  await db.insertInto('visit_spans').values({ account_id: accountId, longest_minutes: 120 }).execute();
  // Weekly schedules through the API: each names one member, on a weekday at 07:00 or 16:00 local.
  const days = ['MO', 'TU', 'WE', 'TH', 'FR'];
  for (let index = 0; index < SCHEDULES; index++)
    await api(base, key, 'POST', '/v1/visit-schedules', {
      job_id: jobs[index % jobs.length],
      recurrence: {
        rrule: `FREQ=WEEKLY;BYDAY=${days[index % 5]}`,
        start_date: new Date(YEAR_START).toISOString().slice(0, 10),
        time: index % 2 === 0 ? '07:00' : '16:00',
        timezone: 'America/Denver',
      },
      duration_minutes: 30,
      horizon_days: 7,
      template: { assignee_ids: [members[index % MEMBERS]] },
    });
  return members;
}

/** The server's CPU time so far (user + system), in ms: comparable between runs on a busy machine, unlike latency. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** What one kind of request measured: its latencies, and the server's figures over its blocks. */
interface Tally {
  url: string;
  latencies: number[];
  rows: number;
  non200: number;
  cpuMs: number;
  loopMaxMs: number;
  allocatedBytes: number;
  gc: Record<string, { count: number; ms: number }>;
}

type Measured = {
  p50: number;
  p99: number;
  rows: number;
  non200: number;
  loopMaxMs: number;
  cpuMs: number;
  allocatedMb: number;
  gc: string;
};

/** The server's loop figures since the last signal (bench/loop-delay.mjs), once it has written them. */
async function loopFigures(pid: number, loopFile: string) {
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 100));
  return JSON.parse(fs.readFileSync(loopFile, 'utf8')) as {
    maxMs: number;
    allocatedBytes: number;
    gc: Record<string, { count: number; ms: number }>;
  };
}

/**
 * Each url asked REQUESTS times, sequentially, in alternating blocks of BLOCK (visits, availability, visits, …):
 * a change of the machine's speed during the run (a virtual machine's neighbours) falls on both kinds, not on
 * one; before, the 200 of one kind ran after the 200 of the other, and in one run in ten on SQLite the
 * availability phase took a quarter more CPU a request than the other runs' while the visit page's did not.
 */
async function measureAlternating(base: string, key: string, urls: string[], pid: number, loopFile: string) {
  const headers = { authorization: `Bearer ${key}` };
  // Steady state: V8 compiles a path's functions over its first few dozen requests, on the core the client
  // shares; with 3 warm-up requests those were 4–6 of the first 30 measured at 2–3× the median (the p99 of 200).
  for (const url of urls)
    for (let warm = 0; warm < WARM_UP; warm++) await (await fetch(`${base}${url}`, { headers })).arrayBuffer();
  const tallies: Tally[] = urls.map((url) => ({
    url,
    latencies: [],
    rows: 0,
    non200: 0,
    cpuMs: 0,
    loopMaxMs: 0,
    allocatedBytes: 0,
    gc: {},
  }));
  for (let done = 0; done < REQUESTS; done += BLOCK)
    for (const tally of tallies) {
      await loopFigures(pid, loopFile);
      const cpuBefore = cpuMs(pid);
      for (let request = done; request < Math.min(REQUESTS, done + BLOCK); request++) {
        const started = performance.now();
        const response = await fetch(`${base}${tally.url}`, { headers });
        const text = await response.text();
        tally.latencies.push(performance.now() - started);
        if (response.status !== 200) {
          tally.non200++;
          if (tally.non200 === 1) console.error(tally.url, response.status, text.slice(0, 300));
        } else tally.rows = (JSON.parse(text) as { data: unknown[] }).data.length;
      }
      tally.cpuMs += cpuMs(pid) - cpuBefore;
      const loop = await loopFigures(pid, loopFile);
      tally.loopMaxMs = Math.max(tally.loopMaxMs, loop.maxMs);
      tally.allocatedBytes += loop.allocatedBytes;
      for (const [kind, one] of Object.entries(loop.gc)) {
        tally.gc[kind] ??= { count: 0, ms: 0 };
        (tally.gc[kind] as { count: number }).count += one.count;
        (tally.gc[kind] as { ms: number }).ms += one.ms;
      }
    }
  return tallies.map((tally): Measured => {
    const latencies = tally.latencies.sort((a, b) => a - b);
    return {
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      rows: tally.rows,
      non200: tally.non200,
      loopMaxMs: round(tally.loopMaxMs),
      cpuMs: round(tally.cpuMs / REQUESTS),
      /** MB the server's heap took a request (its growth between collections), and the collections in the run. */
      allocatedMb: round(tally.allocatedBytes / REQUESTS / 1e6),
      gc: Object.entries(tally.gc)
        .map(([kind, one]) => `${kind} ${one.count} (${Math.round(one.ms)} ms)`)
        .join(', '),
    };
  });
}

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  const seeded = await prepare(env);
  const loopFile = path.join(work, `availability-loop-${engine}.json`);
  const profile = process.env.AVAILABILITY_CPU_PROF;
  const server = await startBms({ ...env, BENCH_LOOP_FILE: loopFile }, [
    '--import',
    path.join(ROOT, 'bench/loop-delay.mjs'),
    // A folder per engine and Node's own file names: the server's worker threads write profiles of their own,
    // which one fixed name would let overwrite the main thread's (the largest file is the server's).
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profile, engine)}`] : []),
  ]);
  const database = openDatabase(config);
  const started = performance.now();
  await seed(database, server.url, seeded.key, seeded.accountId);
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') await sql`vacuum (analyze)`.execute(database.db);
  else await sql`analyze`.execute(database.db);
  console.log(`${engine}: seeded ${MEMBERS} members, ${VISITS} visits, ${SCHEDULES} schedules in ${seedSeconds} s`);
  const pid = server.process.pid as number;
  const [visits, availability] = (await measureAlternating(
    server.url,
    seeded.key,
    [
      '/v1/visits?limit=100',
      `/v1/availability?duration_minutes=60&from_date=${MONTH}&to_date=${MONTH_END}&timezone=America/Denver&limit=100`,
    ],
    pid,
    loopFile,
  )) as [Measured, Measured];
  await stop(server.process);
  await database.close();
  const result = {
    engine,
    seedSeconds,
    visits,
    availability,
    ratioP50: round(availability.p50 / visits.p50),
    ratioP99: round(availability.p99 / visits.p99),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = await onEachEngine('availability', runEngine);
  const lines = [
    '# Availability benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `${MEMBERS} bookable members, ${VISITS} visits and ${SCHEDULES} weekly schedules in one account; ${REQUESTS} sequential requests each after ${WARM_UP} unmeasured, the two kinds alternating in blocks of ${BLOCK}. A 31-day GET /v1/availability (${MONTH} to ${MONTH_END}, 60 minutes, every member, 100 slots a page) against GET /v1/visits?limit=100. Targets: ratio ≤ 5 at p50 and p99; event-loop hold ≤ 50 ms.`,
    '',
    '| engine | visits p50 / p99 ms | availability p50 / p99 ms | ratio p50 / p99 | longest hold ms (visits / availability) | non-200 |',
    '|---|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.engine} | ${run.visits.p50} / ${run.visits.p99} | ${run.availability.p50} / ${run.availability.p99} | ${run.ratioP50} / ${run.ratioP99} | ${run.visits.loopMaxMs} / ${run.availability.loopMaxMs} | ${run.visits.non200 + run.availability.non200} |`,
    ),
    '',
  ];
  const text = lines.join('\n');
  if (VISITS === 100_000 && SCHEDULES === 1_000)
    fs.writeFileSync(path.join(ROOT, 'bench/results/availability-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
