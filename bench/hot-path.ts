// The hot path (issues 19 and 36): GET one client and list 25 clients, on SQLite and PostgreSQL, and a durable
// create of a client on both (on SQLite with no webhook endpoint and with three), loaded by wrk (2 threads, or 1 pinned: BENCH_PIN; 50
// connections), each as a ratio to a bare node:http server measured in the same run (the create with
// endpoints also as a ratio to the create without). The figure of saturation is the server's CPU use over
// the run (100 % is one core busy: Node's limit). Webhook deliveries are queued but not sent during the
// run (WEBHOOK_POLL_MS is an hour): the create's figure is the request's own cost.
// The floor (issue 36): beside BMS's SQLite rows, the same requests to a minimal Fastify + better-sqlite3 server
// (bench/prototype.mjs, rows labelled "prototype, not BMS") on a page-for-page copy of the database BMS was seeded
// with, answering the same bodies (their byte counts are printed), with no logging and with one pino line per
// request: what this stack does on this machine with none of BMS's per-request work. Its rows have no target.
// BENCH_PROTOTYPE: its logging modes, comma-separated (none, info, fastify: Fastify's default two lines per
// request; default none,info), or `off`.
// BENCH_BEFORE=<other built checkouts, comma-separated>: their GET and durable create too, against this run's bare server.
// `npm run bench:hot`. wrk is Debian's package; this script installs it when missing and run as root.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  ROOT,
  api,
  bms,
  peakRssMb,
  startBaseline,
  startPrototype,
  startSeeded,
  stop,
  work,
  startPostgresDatabase,
} from './lib.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
/**
 * BENCH_PIN=1: each server's main thread on core 0 and wrk (one thread, as the issue measured) on core 1, so
 * neither preempts the other. Without it, wrk runs two threads and the scheduler places all three.
 */
const PIN = process.env.BENCH_PIN === '1';
const WRK = PIN ? ['taskset', '-c', '1', 'wrk', '-t1'] : ['wrk', '-t2'];

/** The prototype's logging modes to run (bench/prototype.mjs), and how its rows name them. */
const PROTOTYPE_LOGGING: Record<string, string> = {
  none: 'no logging',
  info: 'info logging (one pino line per request)',
  fastify: "Fastify's default request logging (two lines per request)",
};
const PROTOTYPE_MODES = (process.env.BENCH_PROTOTYPE ?? 'none,info')
  .split(',')
  .map((mode) => mode.trim())
  .filter((mode) => mode !== '' && mode !== 'off');
for (const mode of PROTOTYPE_MODES)
  if (!(mode in PROTOTYPE_LOGGING)) throw new Error(`BENCH_PROTOTYPE: unknown mode ${mode} (none, info, fastify, off)`);

interface Prototype {
  mode: string;
  url: string;
  process: ChildProcess;
}

interface Measured {
  scenario: string;
  requestsPerSecond: number;
  p50: string;
  p99: string;
  non2xx: number;
  /** The non-2xx answers by status, from the server's log (none for the bare server). */
  refused?: string;
  cpuPercent: number;
  /** Server CPU time per request answered: the cost, less sensitive than req/s to other load on the machine. */
  cpuMicrosPerRequest: number;
  /** The bare server's CPU time per request over this one's: the ratio were both alone on a core. */
  cpuRatio?: number;
  peakRssMb: number;
  ratio?: number;
  target?: number;
}

function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  if (process.getuid?.() !== 0) throw new Error('wrk is not installed: apt-get install -y wrk');
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A wrk script that POSTs `body` as JSON. */
function postScript(body: unknown): string {
  const file = path.join(work, `post-${Math.random().toString(36).slice(2)}.lua`);
  fs.writeFileSync(
    file,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify(body)}'\n`,
  );
  return file;
}

/** Answers other than 2xx in a BMS (or logging prototype) server's log so far, by status (each request's log line has it). */
function refusals(url: string): Map<string, number> {
  const counts = new Map<string, number>();
  const { port } = new URL(url);
  const file = [`bms-${port}.log`, `prototype-${port}.log`]
    .map((name) => path.join(work, name))
    .find((name) => fs.existsSync(name));
  if (!file) return counts;
  for (const [, status] of fs.readFileSync(file, 'utf8').matchAll(/"status":([013-9]\d\d)/g))
    counts.set(status!, (counts.get(status!) ?? 0) + 1);
  return counts;
}

function wrk(scenario: string, url: string, pid: number, key?: string, script?: string): Measured {
  if (PIN) execFileSync('taskset', ['-pc', '0', String(pid)], { stdio: 'ignore' });
  const [command, ...threads] = WRK as [string, ...string[]];
  const options = [
    '-c50',
    '--latency',
    ...(key ? ['-H', `Authorization: Bearer ${key}`] : []),
    ...(script ? ['-s', script] : []),
    url,
  ];
  spawnSync(command, [...threads, '-d2s', ...options]); // warm-up
  const before = cpuSeconds(pid);
  const refusedBefore = refusals(url);
  const output = spawnSync(command, [...threads, `-d${DURATION}s`, ...options], { encoding: 'utf8' }).stdout;
  const used = cpuSeconds(pid) - before;
  // Which answers were not 2xx (503 shedding under overload, 429 rate limit, ...): read from the server's log,
  // written at most 100 ms after each request.
  spawnSync('sleep', ['0.3']);
  const refused = [...refusals(url)]
    .map(([status, count]) => [status, count - (refusedBefore.get(status) ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count}×${status}`)
    .join(', ');
  const cpuPercent = Math.round((used / DURATION) * 100);
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const latency = (p: string) => new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1] ?? '?';
  const result = {
    scenario,
    requestsPerSecond: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0)),
    p50: latency('50'),
    p99: latency('99'),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    ...(refused ? { refused } : {}),
    cpuPercent,
    cpuMicrosPerRequest: requests > 0 ? Math.round((used * 1e6) / requests) : 0,
    peakRssMb: Math.round(peakRssMb(pid)),
  };
  console.log(result);
  return result;
}

/** One answer's status, body, and its header lines (count and bytes, status line and blank line included). */
async function answer(url: string, key: string, method = 'GET', body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const headers = [...response.headers];
  return {
    status: response.status,
    text,
    headerCount: headers.length,
    headerBytes:
      `HTTP/1.1 ${response.status} ${response.statusText}\r\n`.length +
      headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0) +
      2,
  };
}

/** A body with its ids, times and request ids masked (each the same length whatever its value). */
function masked(text: string): string {
  return text
    .replace(/req_[0-9a-f]{32}/g, 'req_…')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'T')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'U');
}

/**
 * One request to BMS and to each prototype: their body byte counts (which must match), whether the bodies are the
 * same but for ids and times, and their response headers. A line of the report, printed too.
 */
async function compareBodies(
  scenario: string,
  bmsUrl: string,
  prototypes: Prototype[],
  route: string,
  key: string,
  method = 'GET',
  body?: unknown,
): Promise<string> {
  const ours = await answer(`${bmsUrl}${route}`, key, method, body);
  const parts = [
    `BMS ${ours.status} ${Buffer.byteLength(ours.text)} bytes (${ours.headerCount} headers, ≈${ours.headerBytes} bytes)`,
  ];
  let same = true;
  for (const prototype of prototypes) {
    const theirs = await answer(`${prototype.url}${route}`, key, method, body);
    const sameBody = theirs.status === ours.status && masked(theirs.text) === masked(ours.text);
    same &&= sameBody && Buffer.byteLength(theirs.text) === Buffer.byteLength(ours.text);
    parts.push(
      `prototype (${prototype.mode}) ${theirs.status} ${Buffer.byteLength(theirs.text)} bytes (${theirs.headerCount} headers, ≈${theirs.headerBytes} bytes)${sameBody ? '' : ', body DIFFERS'}`,
    );
  }
  const line = `- ${scenario}: ${parts.join('; ')}${prototypes.length > 0 && same ? '; bodies the same but for ids and times' : ''}`;
  console.log(line);
  return line;
}

/**
 * BENCH_BEFORE: the roots of other checkouts, comma-separated, each built (its dist/main.js and bin/bms.js), e.g. main
 * before and after a change: each one's GET and durable create on SQLite, in this run, as ratios to this run's bare
 * server, so a change's effect is read without the bare server's drift between runs. Each database is made and
 * seeded by its own build.
 */
const BEFORE = (process.env.BENCH_BEFORE ?? '').split(',').filter((root) => root !== '');

async function measureBefore(
  root: string,
  sqliteEnv: Record<string, string>,
  newClient: string,
  push: (row: Measured, target: number) => void,
): Promise<void> {
  const saved = { main: process.env.BENCH_MAIN, bin: process.env.BENCH_BIN };
  process.env.BENCH_MAIN = path.join(root, 'dist/main.js');
  process.env.BENCH_BIN = path.join(root, 'bin/bms.js');
  try {
    const env = { ...sqliteEnv, DATABASE_URL: `sqlite:${path.join(work, `before-${path.basename(root)}.sqlite`)}` };
    const { server, seeded } = await startSeeded(env);
    const pid = server.process.pid as number;
    const label = `the build at ${root}`;
    push(wrk(`${label}: GET one client, SQLite`, `${server.url}/v1/clients/${seeded.clientId}`, pid, seeded.key), 0.22);
    push(
      wrk(
        `${label}: create a client, SQLite durable, no webhook endpoint`,
        `${server.url}/v1/clients`,
        pid,
        seeded.key,
        newClient,
      ),
      0.08,
    );
    await stop(server.process);
  } finally {
    for (const [name, value] of [
      ['BENCH_MAIN', saved.main],
      ['BENCH_BIN', saved.bin],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

async function main() {
  const loadAtStart = os.loadavg();
  ensureWrk();
  const rows: Measured[] = [];
  const sqliteEnv = {
    DATABASE_URL: `sqlite:${path.join(work, 'hot.sqlite')}`,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '3600000',
  };
  const { server: sqlite, seeded } = await startSeeded(sqliteEnv);
  // The floor's database: a page-for-page copy (SQLite's backup) of the file BMS was just seeded in, before any
  // of BMS's measured creates; each prototype gets a fresh copy of it.
  const prototypes: Prototype[] = [];
  if (PROTOTYPE_MODES.length > 0) {
    const snapshot = path.join(work, 'prototype-seed.sqlite');
    const source = new Database(path.join(work, 'hot.sqlite'), { readonly: true });
    await source.backup(snapshot);
    source.close();
    for (const mode of PROTOTYPE_MODES) {
      const file = path.join(work, `prototype-${mode}.sqlite`);
      fs.copyFileSync(snapshot, file);
      prototypes.push({ mode, ...(await startPrototype(file, seeded.accountId, mode)) });
    }
  }
  /** The body of each scenario, BMS's against the prototypes'. */
  const bodies: string[] = [];
  /** The floor's rows by scenario, for the summary under the table. */
  const floor = new Map<string, { bms?: Measured; prototypes: Map<string, Measured>; target: number }>();
  const baseline = await startBaseline(seeded.clientResponseSize);
  const bare = wrk('bare node:http (baseline)', baseline.url, baseline.process.pid as number);
  rows.push(bare);
  const ratio = (row: Measured, target: number) => ({
    ...row,
    ratio: Math.round((row.requestsPerSecond / bare.requestsPerSecond) * 1000) / 1000,
    cpuRatio: Math.round((bare.cpuMicrosPerRequest / row.cpuMicrosPerRequest) * 1000) / 1000,
    target,
  });
  /** A prototype's row: its ratios to bare, no target (it is not what BMS is judged by). */
  const relative = (row: Measured) => {
    const { target: _, ...rest } = ratio(row, 0);
    return rest;
  };
  /** The prototypes' rows of one scenario, after BMS's: same path, same key header (which they ignore), same body. */
  const prototypeRows = (scenario: string, label: string, target: number, route: string, script?: string) => {
    const entry = floor.get(scenario) ?? { prototypes: new Map<string, Measured>(), target };
    floor.set(scenario, entry);
    for (const prototype of prototypes) {
      const row = relative(
        wrk(
          `prototype, not BMS: ${label}, ${PROTOTYPE_LOGGING[prototype.mode]}`,
          `${prototype.url}${route}`,
          prototype.process.pid as number,
          seeded.key,
          script,
        ),
      );
      entry.prototypes.set(prototype.mode, row);
      rows.push(row);
    }
  };
  const bmsRow = (scenario: string, row: Measured, target: number) => {
    const measured = ratio(row, target);
    const entry = floor.get(scenario) ?? { prototypes: new Map<string, Measured>(), target };
    entry.bms = measured;
    floor.set(scenario, entry);
    rows.push(measured);
    return measured;
  };
  const getRoute = `/v1/clients/${seeded.clientId}`;
  bodies.push(await compareBodies('GET one client', sqlite.url, prototypes, getRoute, seeded.key));
  bmsRow(
    'GET one client',
    wrk('GET one client, SQLite, info logging', `${sqlite.url}${getRoute}`, sqlite.process.pid as number, seeded.key),
    0.22,
  );
  prototypeRows('GET one client', 'GET one client', 0.22, getRoute);
  bodies.push(await compareBodies('list 25 clients', sqlite.url, prototypes, '/v1/clients?limit=25', seeded.key));
  bmsRow(
    'list 25 clients',
    wrk('list 25 clients, SQLite', `${sqlite.url}/v1/clients?limit=25`, sqlite.process.pid as number, seeded.key),
    0.1,
  );
  prototypeRows('list 25 clients', 'list 25 clients', 0.1, '/v1/clients?limit=25');
  // Creates: one account without webhook endpoints (the seeded one) and one with three enabled endpoints.
  const clientBody = { name: 'Bench client', email: 'bench@example.com', address: { city: 'Springfield' } };
  const newClient = postScript(clientBody);
  // One create each first (one row more in each database, as the measured creates make thousands).
  bodies.push(
    await compareBodies('create a client', sqlite.url, prototypes, '/v1/clients', seeded.key, 'POST', clientBody),
  );
  const none = wrk(
    'create a client, SQLite durable (log fdatasync before the answer), no webhook endpoint',
    `${sqlite.url}/v1/clients`,
    sqlite.process.pid as number,
    seeded.key,
    newClient,
  );
  bmsRow('durable create', none, 0.08);
  const account = bms(['accounts', 'create', '--name', 'Bench Webhooks'], sqliteEnv);
  const { key: hooksKey } = bms(
    ['keys', 'create', '--account', account.id, '--name', 'bench', '--scopes', 'all'].concat([
      '--per-minute',
      '900000000',
      '--burst',
      '900000000',
      '--per-day',
      '900000000',
    ]),
    sqliteEnv,
  );
  for (const index of [1, 2, 3])
    await api(sqlite.url, hooksKey, 'POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:9/hook-${index}`,
      enabled_events: ['*'],
    });
  const three = wrk(
    'create a client, SQLite durable, 3 webhook endpoints',
    `${sqlite.url}/v1/clients`,
    sqlite.process.pid as number,
    hooksKey,
    newClient,
  );
  rows.push(ratio(three, 0.08));
  rows.push({
    ...three,
    scenario: 'create with 3 webhook endpoints, against none (ratio to the create without)',
    ratio: Math.round((three.requestsPerSecond / none.requestsPerSecond) * 1000) / 1000,
    cpuRatio: Math.round((none.cpuMicrosPerRequest / three.cpuMicrosPerRequest) * 1000) / 1000,
    target: 0.85,
  });
  prototypeRows(
    'durable create',
    'durable create (synchronous=FULL, a savepoint per request, one COMMIT per event-loop turn)',
    0.08,
    '/v1/clients',
    newClient,
  );
  await stop(sqlite.process);
  for (const prototype of prototypes) await stop(prototype.process);
  for (const root of BEFORE)
    await measureBefore(root, sqliteEnv, newClient, (row, target) => rows.push(ratio(row, target)));

  const postgres = await startPostgresDatabase('hot');
  try {
    const pgEnv = { DATABASE_URL: postgres.url };
    const { server, seeded: pgSeeded } = await startSeeded(pgEnv);
    rows.push(
      ratio(
        wrk(
          'GET one client, PostgreSQL',
          `${server.url}/v1/clients/${pgSeeded.clientId}`,
          server.process.pid as number,
          pgSeeded.key,
        ),
        0.18,
      ),
    );
    rows.push(
      ratio(
        wrk(
          'list 25 clients, PostgreSQL',
          `${server.url}/v1/clients?limit=25`,
          server.process.pid as number,
          pgSeeded.key,
        ),
        0.08,
      ),
    );
    // The same durable create as SQLite's (synchronous_commit on: the answer waits for the commit's WAL flush).
    await api(server.url, pgSeeded.key, 'POST', '/v1/clients', clientBody);
    rows.push(
      ratio(
        wrk(
          'create a client, PostgreSQL durable (synchronous_commit on), no webhook endpoint',
          `${server.url}/v1/clients`,
          server.process.pid as number,
          pgSeeded.key,
          newClient,
        ),
        0.1,
      ),
    );
    await stop(server.process);
  } finally {
    postgres.stop();
  }
  await stop(baseline.process);

  const lines = [
    `# Hot path (${PIN ? 'wrk -t1 on core 1, each server on core 0' : 'wrk -t2'} -c50 -d${DURATION}s)`,
    '',
    `${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'} · Node ${process.version}${process.env.BENCH_MAIN ? ` · build ${process.env.BENCH_MAIN}` : ''}`,
    '',
    `load average at the start: ${loadAtStart.map((load) => load.toFixed(1)).join(', ')}; at the end: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')} (${os.cpus().length} cores)`,
    '',
    '| scenario | req/s | ratio to bare node:http | ratio of CPU per request | target | p50 | p99 | non-2xx | server CPU | CPU µs per request | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.requestsPerSecond} | ${row.ratio ?? 1} | ${row.cpuRatio ?? 1} | ${row.target === undefined ? '' : `≥ ${row.target}`} | ${row.p50} | ${row.p99} | ${row.non2xx}${row.refused ? ` (${row.refused})` : ''} | ${row.cpuPercent} % | ${row.cpuMicrosPerRequest} | ${row.peakRssMb} |`,
    ),
  ];
  if (prototypes.length > 0) {
    const cell = (row: Measured | undefined) =>
      row ? `${row.ratio}; ${row.cpuRatio} (${row.cpuMicrosPerRequest})` : '';
    lines.push(
      '',
      '## BMS against the floor (SQLite; the prototype is bench/prototype.mjs, not BMS)',
      '',
      'Ratios to the bare server of this run: by req/s; by CPU per request (CPU µs per request). The prototype has no',
      'authentication, rate limit, validation, ETag or security headers; it reads and writes the same rows and answers',
      'the same bodies.',
      '',
      `| scenario | BMS | ${prototypes.map((prototype) => `prototype, ${PROTOTYPE_LOGGING[prototype.mode]}`).join(' | ')} | target | BMS against the prototype |`,
      `|---|---:|${prototypes.map(() => '---:|').join('')}---:|---|`,
      ...[...floor].map(([scenario, entry]) => {
        // Against the prototype that logs as BMS does (info), when it ran.
        const mode = entry.prototypes.has('info') ? 'info' : prototypes.at(-1)!.mode;
        const like = entry.prototypes.get(mode);
        const share =
          entry.bms && like && like.requestsPerSecond > 0 && like.cpuMicrosPerRequest > 0
            ? `${Math.round((entry.bms.requestsPerSecond / like.requestsPerSecond) * 100)} % of its req/s, ${Math.round((entry.bms.cpuMicrosPerRequest / like.cpuMicrosPerRequest) * 100) / 100}× its CPU per request (${mode})`
            : '';
        return `| ${scenario} | ${cell(entry.bms)} | ${prototypes.map((prototype) => cell(entry.prototypes.get(prototype.mode))).join(' | ')} | ≥ ${entry.target} | ${share} |`;
      }),
      '',
      'Bodies (one request each before the runs):',
      '',
      ...bodies,
    );
  }
  const text = lines.join('\n');
  fs.writeFileSync(
    path.join(
      ROOT,
      'bench/results',
      `hot-path${process.env.BENCH_MAIN ? '-before' : ''}${PIN ? '-pinned' : ''}-latest.md`,
    ),
    `${text}\n`,
  );
  console.log(text);
}

await main();
process.exit(0);
