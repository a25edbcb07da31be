// `npm run bench:profile [get|list|health|create|create-hooks|import]`: one BMS process (production settings, durable SQLite) under
// autocannon load with `node --cpu-prof`, then the functions that took the most CPU time (self time, by
// function and by package). The .cpuprofile file is kept for a flame graph (Chrome DevTools, speedscope).
import fs from 'node:fs';
import path from 'node:path';
import {
  api,
  clientsCsv,
  importClients,
  load,
  peakRssMb,
  prepare,
  startBms,
  startPostgresDatabase,
  startSeeded,
  stop,
  work,
} from './lib.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * Self time by function and by package or file. `from`: only the samples from the first whose stack holds a
 * function of a file whose URL contains it (the import's runner: start-up and seeding left out).
 */
function summarise(file: string, rows: number, from?: string): string[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const inStack = (id: number | undefined): boolean =>
    id !== undefined && (nodes.get(id)!.callFrame.url.includes(from as string) || inStack(parents.get(id)));
  const first =
    from === undefined
      ? 0
      : Math.max(
          0,
          profile.samples.findIndex((id) => inStack(id)),
        );
  const total = profile.timeDeltas.slice(first).reduce((sum, delta) => sum + delta, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    if (index < first) return;
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const inPackage = url.includes('/node_modules/');
    const file = inPackage ? url.split('/node_modules/').at(-1)! : url.replace(/^file:\/\/.*?\/dist\//, 'dist/');
    const packageName = file.startsWith('@') ? file.split('/').slice(0, 2).join('/') : file.split('/')[0]!;
    const where = inPackage ? packageName : url === '' ? functionName || '(native)' : file;
    const delta = profile.timeDeltas[index] ?? 0;
    const name = `${functionName || '(anonymous)'} ${file}:${lineNumber}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byPackage.set(where, (byPackage.get(where) ?? 0) + delta);
  });
  const top = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([name, time]) => `${((time / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
  return [
    `${(total / 1e6).toFixed(2)} s of samples${from === undefined ? '' : ` from the first in ${from}`}`,
    'self time by function:',
    ...top(byFunction),
    '',
    'self time by package or file:',
    ...top(byPackage),
  ];
}

const scenario = process.argv[2] ?? 'get';

const directory = path.join(work, 'profile');
const env = {
  DATABASE_URL: `sqlite:${path.join(work, 'profile.sqlite')}`,
  // create-hooks: endpoints on loopback, and deliveries queued but not sent during the run.
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '3600000',
};
/** The server's profile, copied to bench/results (the server has stopped). */
function keptProfile(): string {
  const file = path.join(directory, fs.readdirSync(directory)[0]!);
  const kept = path.resolve('bench/results', `profile-${scenario}.cpuprofile`);
  fs.copyFileSync(file, kept);
  return kept;
}
const profiling = ['--cpu-prof', `--cpu-prof-dir=${directory}`];
if (scenario === 'import') {
  // A clients import of PROFILE_IMPORT_ROWS rows (contract §26) into an empty account, from its create to its end.
  // PROFILE_ENGINE=postgres: on a throwaway PostgreSQL database instead of the SQLite file.
  const rows = Number(process.env.PROFILE_IMPORT_ROWS ?? 5_000);
  const postgres = process.env.PROFILE_ENGINE === 'postgres' ? await startPostgresDatabase('profile') : null;
  if (postgres !== null) env.DATABASE_URL = postgres.url;
  const prepared = await prepare(env);
  const server = await startBms(env, profiling);
  const { seconds, validatingSeconds } = await importClients(server.url, prepared.key, clientsCsv(rows));
  await stop(server.process);
  postgres?.stop();
  const kept = keptProfile();
  console.log(
    `import: ${rows} clients in ${seconds.toFixed(2)} s (${Math.round(rows / seconds)} a second), validating ${validatingSeconds.toFixed(2)} s`,
  );
  console.log(summarise(kept, 40, 'modules/imports/import-runner').join('\n'));
  console.log(`\nprofile: ${kept}`);
  process.exit(0);
}
const { server, seeded } = await startSeeded(env, profiling);
await api(server.url, seeded.key, 'GET', '/health');
if (scenario === 'create-hooks')
  for (const index of [1, 2, 3])
    await api(server.url, seeded.key, 'POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:9/hook-${index}`,
      enabled_events: ['*'],
    });
const url = {
  health: `${server.url}/health`,
  list: `${server.url}/v1/clients?limit=25`,
  get: `${server.url}/v1/clients/${seeded.clientId}`,
  create: `${server.url}/v1/clients`,
  'create-hooks': `${server.url}/v1/clients`,
}[scenario];
if (!url) throw new Error('usage: npm run bench:profile [get|list|health|create|create-hooks|import]');
const creates = scenario.startsWith('create');
const result = load(url, {
  key: seeded.key,
  duration: Number(process.env.BENCH_DURATION ?? 10),
  ...(creates
    ? {
        method: 'POST',
        body: JSON.stringify({ name: 'Bench client', email: 'bench@example.com', address: { city: 'Springfield' } }),
      }
    : {}),
});
const rss = Math.round(peakRssMb(server.process.pid as number));
await stop(server.process);
const kept = keptProfile();
console.log(
  `${scenario}: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, peak RSS ${rss} MB (the profile includes start-up and seeding)`,
);
console.log(summarise(kept, 25).join('\n'));
console.log(`\nprofile: ${kept}`);
