// `node --import tsx bench/wrk-profile.ts [get|list|invoices|create|create-hooks|health] [sqlite|postgres]` (after `npm run build`):
// one BMS process under `wrk -t2 -c50` (WRK_THREADS sets -t) with `--cpu-prof`, its CPU time per request, and where the time of the
// loaded window went (self and inclusive, start-up and seeding left out).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { api, startPostgresDatabase, startSeeded, stop, work } from './lib.js';

const scenario = process.argv[2] ?? 'get';
const engine = process.argv[3] ?? 'sqlite';
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const directory = path.join(work, 'profile');
const postgres = engine === 'postgres' ? await startPostgresDatabase('wrkprofile') : undefined;
const env = {
  DATABASE_URL: postgres?.url ?? `sqlite:${path.join(work, 'profile.sqlite')}`,
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '3600000',
};
const profiling = process.env.PROFILE !== '0';
const { server, seeded } = await startSeeded(env, profiling ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : []);
if (scenario === 'create-hooks')
  for (const index of [1, 2, 3])
    await api(server.url, seeded.key, 'POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:9/hook-${index}`,
      enabled_events: ['*'],
    });
const url = {
  list: `${server.url}/v1/clients?limit=25`,
  // The soak's heavy page (bench/soak.ts): 100 of the 200 seeded invoices with their lines.
  invoices: `${server.url}/v1/invoices?limit=100`,
  get: `${server.url}/v1/clients/${seeded.clientId}`,
  health: `${server.url}/health`,
  create: `${server.url}/v1/clients`,
  'create-hooks': `${server.url}/v1/clients`,
}[scenario]!;
// The invoice page is heavy: 50 connections would queue past the overload guard's lag and be shed; 10, as in the soak.
const connections = Number(process.env.WRK_CONNECTIONS ?? (scenario === 'invoices' ? 10 : 50));
const args = [
  `-t${process.env.WRK_THREADS ?? 2}`,
  `-c${connections}`,
  '--latency',
  '-H',
  `Authorization: Bearer ${seeded.key}`,
];
if (scenario.startsWith('create')) {
  const script = path.join(work, 'post.lua');
  fs.writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify({ name: 'Bench client', email: 'bench@example.com', address: { city: 'Springfield' } })}'\n`,
  );
  args.push('-s', script);
}
const pid = server.process.pid as number;
// The answer's size, so two builds compared with BENCH_MAIN are known to serve the same bytes.
const probe = await fetch(
  url,
  scenario.startsWith('create') ? { method: 'HEAD' } : { headers: { authorization: `Bearer ${seeded.key}` } },
);
const bytes = scenario.startsWith('create') ? 0 : (await probe.arrayBuffer()).byteLength;
const cpu = () => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
spawnSync('wrk', [...args, '-d2s', url]);
const before = cpu();
const output = spawnSync('wrk', [...args, `-d${DURATION}s`, url], { encoding: 'utf8' }).stdout;
const used = cpu() - before;
const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
await stop(server.process);
postgres?.stop();
console.log(
  `${scenario} ${engine}: ${Math.round(requests / DURATION)} req/s, CPU ${Math.round((used / DURATION) * 100)} %, ${Math.round((used * 1e6) / requests)} µs CPU per request, non-2xx ${non2xx}${bytes ? `, ${bytes} bytes per answer` : ''}`,
);
if (profiling) {
  const file = path.join(directory, fs.readdirSync(directory)[0]!);
  const kept = path.resolve('bench/results', `wrk-profile-${scenario}-${engine}.cpuprofile`);
  fs.copyFileSync(file, kept);
  console.log(`profile: ${kept}`);
}
process.exit(0);
