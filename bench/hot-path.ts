// The hot path (issues 19 and 36): GET one client and list 25 clients, on SQLite and PostgreSQL, and a durable
// create of a client on SQLite, with no webhook endpoint and with three, loaded by wrk (2 threads, or 1 pinned: BENCH_PIN; 50
// connections), each as a ratio to a bare node:http server measured in the same run (the create with
// endpoints also as a ratio to the create without). The figure of saturation is the server's CPU use over
// the run (100 % is one core busy: Node's limit). Webhook deliveries are queued but not sent during the
// run (WEBHOOK_POLL_MS is an hour): the create's figure is the request's own cost.
// `npm run bench:hot`. wrk is Debian's package; this script installs it when missing and run as root.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, api, bms, peakRssMb, startBaseline, startSeeded, stop, work, startPostgresDatabase } from './lib.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
/**
 * BENCH_PIN=1: each server's main thread on core 0 and wrk (one thread, as the issue measured) on core 1, so
 * neither preempts the other. Without it, wrk runs two threads and the scheduler places all three.
 */
const PIN = process.env.BENCH_PIN === '1';
const WRK = PIN ? ['taskset', '-c', '1', 'wrk', '-t1'] : ['wrk', '-t2'];

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

/** Answers other than 2xx in a BMS server's log so far, by status (the log line of each request has it). */
function refusals(url: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(work, `bms-${new URL(url).port}.log`);
  if (!fs.existsSync(file)) return counts;
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

async function main() {
  ensureWrk();
  const rows: Measured[] = [];
  const sqliteEnv = {
    DATABASE_URL: `sqlite:${path.join(work, 'hot.sqlite')}`,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '3600000',
  };
  const { server: sqlite, seeded } = await startSeeded(sqliteEnv);
  const baseline = await startBaseline(seeded.clientResponseSize);
  const bare = wrk('bare node:http (baseline)', baseline.url, baseline.process.pid as number);
  rows.push(bare);
  const ratio = (row: Measured, target: number) => ({
    ...row,
    ratio: Math.round((row.requestsPerSecond / bare.requestsPerSecond) * 1000) / 1000,
    cpuRatio: Math.round((bare.cpuMicrosPerRequest / row.cpuMicrosPerRequest) * 1000) / 1000,
    target,
  });
  rows.push(
    ratio(
      wrk(
        'GET one client, SQLite, info logging',
        `${sqlite.url}/v1/clients/${seeded.clientId}`,
        sqlite.process.pid as number,
        seeded.key,
      ),
      0.22,
    ),
  );
  rows.push(
    ratio(
      wrk('list 25 clients, SQLite', `${sqlite.url}/v1/clients?limit=25`, sqlite.process.pid as number, seeded.key),
      0.1,
    ),
  );
  // Creates: one account without webhook endpoints (the seeded one) and one with three enabled endpoints.
  const newClient = postScript({ name: 'Bench client', email: 'bench@example.com', address: { city: 'Springfield' } });
  const none = wrk(
    'create a client, SQLite durable (log fdatasync before the answer), no webhook endpoint',
    `${sqlite.url}/v1/clients`,
    sqlite.process.pid as number,
    seeded.key,
    newClient,
  );
  rows.push(ratio(none, 0.08));
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
  await stop(sqlite.process);

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
    `load average at the end: ${os
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
