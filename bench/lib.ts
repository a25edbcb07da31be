// Shared by the benchmark (run.ts) and the soak run (soak.ts): BMS and the baseline as child processes,
// the bms command, seeding through the API, and load from autocannon in a separate process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
// @ts-expect-error: a plain JavaScript module shared with the test runner
import { startPostgres } from '../scripts/postgres.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DURATION = Number(process.env.BENCH_DURATION ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-bench-'));

export interface Load {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Responses by HTTP status. */
  statusCodes: Record<string, number>;
}

export interface Row {
  scenario: string;
  baseline: Load;
  bms: Load;
  ratio: number;
  peakRssMb: number;
  target?: number;
}

let nextPort = 41_000 + Math.floor(Math.random() * 1000);
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
// The work folder holds databases of up to several GB (1,000,000 clients with ten custom fields: 5.7 GB) and the
// servers' logs: removed at exit, so that runs do not fill the disk; BENCH_KEEP_WORK=1 keeps it to look into.
process.on('exit', () => {
  if (process.env.BENCH_KEEP_WORK !== '1') fs.rmSync(work, { recursive: true, force: true });
});

export async function waitForHttp(url: string): Promise<void> {
  // BENCH_START_TIMEOUT_MS: longer on a machine busy with other work, where a start can take over 30 s.
  const deadline = Date.now() + Number(process.env.BENCH_START_TIMEOUT_MS ?? 30_000);
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

export function bms(args: string[], env: Record<string, string>) {
  const result = spawnSync(
    process.execPath,
    [process.env.BENCH_BIN ?? path.join(ROOT, 'bin/bms.js'), ...args, '--json'],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`bms ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The V8 flag `npm start` passes (package.json): smaller young-generation semi-spaces. */
export const START_FLAGS = ['--max-semi-space-size=32', '--expose-gc'];

export async function startBms(
  env: Record<string, string>,
  nodeOptions: string[] = [],
  entry = process.env.BENCH_MAIN ?? path.join(ROOT, 'dist/main.js'),
): Promise<{ url: string; process: ChildProcess }> {
  const port = nextPort++;
  const log = fs.openSync(path.join(work, `bms-${port}.log`), 'w');
  // As in production (`npm start`): info logging (to a file, as a log shipper would read it), durable storage.
  // BENCH_MAIN (or `entry`): another build's entry (e.g. an older commit's dist/main.js), for a before and after.
  const child = spawn(process.execPath, [...START_FLAGS, ...nodeOptions, entry], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PORT: String(port),
      OUTBOX_DIR: path.join(work, 'outbox'),
      ...env,
    },
    stdio: ['ignore', log, log],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`);
  if (env.WEB_CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 2000));
  return { url, process: child };
}

export async function startBaseline(size: number): Promise<{ url: string; process: ChildProcess }> {
  const port = nextPort++;
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/baseline.mjs'), String(port), String(size)], {
    stdio: 'ignore',
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url);
  return { url, process: child };
}

/**
 * The floor of the stack (bench/prototype.mjs, NOT BMS: Fastify and better-sqlite3 with no authentication, rate
 * limit, validation or headers of BMS's) on a SQLite file seeded as BMS's, for the account `accountId`.
 * `logging`: none, info (one pino line per request, as BMS) or fastify (Fastify's default request logging).
 */
export async function startPrototype(
  database: string,
  accountId: string,
  logging: string,
): Promise<{ url: string; process: ChildProcess }> {
  const port = nextPort++;
  const log = fs.openSync(path.join(work, `prototype-${port}.log`), 'w');
  // The same V8 flags as BMS (`npm start`), so the two differ by their code alone.
  const child = spawn(
    process.execPath,
    [...START_FLAGS, path.join(ROOT, 'bench/prototype.mjs'), String(port), database, accountId, logging],
    { stdio: ['ignore', log, log] },
  );
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`);
  return { url, process: child };
}

/** A memory figure of a process from /proc, in MB: VmRSS (now) or VmHWM (its peak). */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return (
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  );
}

/** Peak resident memory of a process and its children (cluster workers), in MB. */
export function peakRssMb(pid: number): number {
  const read = (id: number) => procMemoryMb(id, 'VmHWM');
  const childrenOf = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return Math.max(read(pid), ...childrenOf.map(read));
}

export function load(
  url: string,
  options: {
    method?: string;
    body?: string;
    key?: string;
    duration?: number;
    connections?: number;
    rate?: number;
  } = {},
): Load {
  const args = [
    path.join(ROOT, 'node_modules/autocannon/autocannon.js'),
    '-j',
    '-c',
    String(options.connections ?? CONNECTIONS),
    '-d',
    String(options.duration ?? DURATION),
  ];
  if (options.method) args.push('-m', options.method);
  if (options.rate) args.push('-R', String(options.rate));
  if (options.key) args.push('-H', `authorization=Bearer ${options.key}`);
  if (options.body) args.push('-H', 'content-type=application/json', '-b', options.body);
  args.push(url);
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(result.stdout);
  const statusCodes = Object.fromEntries(
    Object.entries(report.statusCodeStats ?? {}).map(([status, stats]) => [status, (stats as { count: number }).count]),
  );
  return {
    requestsPerSecond: Math.round(report.requests.average),
    p50: report.latency.p50,
    p99: report.latency.p99,
    non2xx: report.non2xx,
    errors: report.errors,
    timeouts: report.timeouts,
    statusCodes,
  };
}

/** One request of a benchmark's set-up; a 503 (the server shedding load on a busy machine) is retried as it asks. */
export async function api(base: string, key: string, method: string, url: string, body?: unknown) {
  let response: Response;
  let text: string;
  for (let attempt = 1; ; attempt += 1) {
    response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    text = await response.text();
    if (response.status !== 503 || attempt === 10) break;
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
  }
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return { json: JSON.parse(text), size: Buffer.byteLength(text) };
}

/** A clients CSV of `count` rows, each with an e-mail and an external_id (`<prefix>-<n>`). */
export function clientsCsv(count: number, prefix = 'BENCH'): string {
  const lines = ['name,email,external_id'];
  for (let index = 0; index < count; index++)
    lines.push(`Imported ${index},${prefix.toLowerCase()}${index}@example.com,${prefix}-${index}`);
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * Imports `csv` as clients (contract §26) and waits for its end, polling every 100 ms: the seconds from its create
 * to `completed`, and to the first poll that saw it `running` (its validating pass over; `onRunning` is called then).
 */
export async function importClients(base: string, key: string, csv: string, onRunning?: () => void) {
  const started = performance.now();
  const made = (await api(base, key, 'POST', '/v1/imports', { kind: 'client' })).json;
  const upload = await fetch(`${base}/v1/imports/${made.data.id}/file`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: csv,
  });
  if (upload.status !== 202) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  let validated: number | undefined;
  for (;;) {
    const current = (await api(base, key, 'GET', `/v1/imports/${made.data.id}`)).json;
    if (validated === undefined && (current.data.status === 'running' || current.data.status === 'completed')) {
      validated = performance.now();
      onRunning?.();
    }
    if (current.data.status === 'completed') break;
    if (current.data.status === 'failed' || current.data.status === 'canceled')
      throw new Error(`the import ended ${current.data.status}: ${JSON.stringify(current.data.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, validatingSeconds: ((validated as number) - started) / 1000 };
}

export interface Seeded {
  /** The seeded account (the key's). */
  accountId: string;
  key: string;
  clientId: string;
  invoiceId: string;
  clientResponseSize: number;
}

export async function prepare(env: Record<string, string>): Promise<Seeded> {
  bms(['migrate'], env);
  const account = bms(['accounts', 'create', '--name', 'Bench Plumbing'], env);
  // A high per-key override: the limiter runs on every request, but does not cap the benchmark.
  const key = bms(
    [
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'bench',
      '--scopes',
      'all',
      '--per-minute',
      '900000000',
      '--burst',
      '900000000',
      '--per-day',
      '900000000',
    ],
    env,
  ).key;
  return { accountId: account.id, key, clientId: '', invoiceId: '', clientResponseSize: 0 };
}

export async function seed(base: string, seeded: Seeded): Promise<Seeded> {
  const clients: string[] = [];
  for (let index = 0; index < 300; index += 1) {
    clients.push(
      (
        await api(base, seeded.key, 'POST', '/v1/clients', {
          name: `Client ${index}`,
          email: `client${index}@example.com`,
          phone: '+1 555 0100',
          address: { city: 'Springfield', country: 'US' },
        })
      ).json.data.id,
    );
  }
  let invoiceId = '';
  for (let index = 0; index < 200; index += 1) {
    const invoice = (
      await api(base, seeded.key, 'POST', '/v1/invoices', {
        client_id: clients[index % clients.length],
        line_items: [{ description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 }],
      })
    ).json.data;
    if (index % 2 === 0) await api(base, seeded.key, 'PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
    invoiceId = invoice.id;
  }
  const clientId = clients[150] as string;
  const { size } = await api(base, seeded.key, 'GET', `/v1/clients/${clientId}`);
  return { ...seeded, clientId, invoiceId, clientResponseSize: size };
}

/** A migrated database with an account and a key, a production-configured BMS on it, and the standard rows made through the API. */
export async function startSeeded(
  env: Record<string, string>,
  nodeOptions: string[] = [],
): Promise<{ server: { url: string; process: ChildProcess }; seeded: Seeded }> {
  const prepared = await prepare(env);
  const server = await startBms(env, nodeOptions);
  return { server, seeded: await seed(server.url, prepared) };
}

/**
 * A PostgreSQL server with its durable defaults and one database `name` (empty, unless `keep` is a folder whose
 * cluster already holds it: see onEachEngine): that database's URL, and a stop. Its `shared_buffers` is sized as
 * docs/deploying.md asks of a production server (`BENCH_PG_SHARED_BUFFERS`, 2GB; PostgreSQL's own default is
 * 128MB): a quarter of it above the largest table, so that a sequential read keeps its pages in the cache.
 * `settings`: more server settings (bench/pg-create.ts loads pg_stat_statements).
 */
export async function startPostgresDatabase(
  name: string,
  keep?: string,
  settings: Record<string, string> = {},
): Promise<{ url: string; stop(): void }> {
  const shared_buffers = process.env.BENCH_PG_SHARED_BUFFERS ?? '2GB';
  const postgres = await startPostgres({ durable: true, keep, settings: { shared_buffers, ...settings } });
  try {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`create database ${name}`);
    await admin.end();
  } catch (error) {
    postgres.stop();
    throw error;
  }
  return { url: postgres.url.replace(/\/[^/]*$/, `/${name}`), stop: () => postgres.stop() };
}

/**
 * Runs `run` on a SQLite file and on a throwaway PostgreSQL database, both named `name`
 * (`SCALE_ENGINE=sqlite` or `postgres`: that one only): each with the server's environment and the database's
 * configuration, for the same measurement on both engines. Their results, SQLite's first. `keep`: a folder
 * where the SQLite file and the PostgreSQL cluster are made on the first run and used again by the next ones
 * (not removed at exit), for a benchmark whose seed takes minutes.
 */
export async function onEachEngine<T>(
  name: string,
  run: (
    engine: 'SQLite' | 'PostgreSQL',
    env: Record<string, string>,
    config: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; poolMax: number },
  ) => Promise<T>,
  keep?: string,
): Promise<T[]> {
  const runs: T[] = [];
  const only = process.env.SCALE_ENGINE;
  if (only !== 'postgres') {
    const file = path.join(keep ?? work, `${name}.sqlite`);
    runs.push(await run('SQLite', { DATABASE_URL: `sqlite:${file}` }, { kind: 'sqlite', path: file }));
  }
  if (only !== 'sqlite') {
    const postgres = await startPostgresDatabase(name, keep && path.join(keep, 'postgres'));
    try {
      const { url } = postgres;
      runs.push(await run('PostgreSQL', { DATABASE_URL: url }, { kind: 'postgres', url, poolMax: 4 }));
    } finally {
      postgres.stop();
    }
  }
  return runs;
}

export async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A process's CPU time so far, in ms (Linux's /proc; NaN elsewhere): what a busy machine's waits leave out. */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
