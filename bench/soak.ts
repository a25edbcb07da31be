// `npm run bench:soak`: BMS as in production (info logging, durable SQLite, rate limiting) under a
// rotating mix of reads and writes for SOAK_MINUTES (default 5), sampling its resident memory, then
// pushed beyond capacity (SOAK_OVERLOAD_CONNECTIONS, default 2000, for 20 s) to see it shed with 503
// and recover. Reports memory growth and every non-2xx, error and timeout. Not part of CI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, api, load, peakRssMb, procMemoryMb, startSeeded, stop, work, type Load } from './lib.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 5);
const SLICE_SECONDS = 20;
const OVERLOAD_CONNECTIONS = Number(process.env.SOAK_OVERLOAD_CONNECTIONS ?? 2000);

const rssMb = (pid: number): number => Math.round(procMemoryMb(pid, 'VmRSS'));

function add(total: Record<string, number>, counts: Record<string, number>) {
  for (const [status, count] of Object.entries(counts)) total[status] = (total[status] ?? 0) + count;
}

async function main() {
  const env = { DATABASE_URL: `sqlite:${path.join(work, 'soak.sqlite')}` };
  const { server, seeded } = await startSeeded(env);
  const pid = server.process.pid as number;

  const mix = [
    { name: 'get client', url: `/v1/clients/${seeded.clientId}` },
    { name: 'list clients', url: '/v1/clients?limit=25' },
    {
      name: 'create client',
      url: '/v1/clients',
      method: 'POST',
      body: JSON.stringify({ name: 'Soak client', email: 'soak@example.com' }),
    },
    {
      name: 'update invoice',
      url: `/v1/invoices/${seeded.invoiceId}`,
      method: 'PUT',
      body: JSON.stringify({ notes: 'Soak' }),
    },
    { name: 'list sent invoices', url: '/v1/invoices?status=sent&limit=25' },
  ];
  const samples: Array<{ minute: number; rssMb: number }> = [{ minute: 0, rssMb: rssMb(pid) }];
  const statuses: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  let timeouts = 0;
  const started = Date.now();
  for (let slice = 0; Date.now() - started < MINUTES * 60_000; slice += 1) {
    const scenario = mix[slice % mix.length]!;
    const result: Load = load(`${server.url}${scenario.url}`, {
      key: seeded.key,
      duration: SLICE_SECONDS,
      ...(scenario.method ? { method: scenario.method, body: scenario.body } : {}),
    });
    add(statuses, result.statusCodes);
    requests += Object.values(result.statusCodes).reduce((sum, count) => sum + count, 0);
    errors += result.errors;
    timeouts += result.timeouts;
    samples.push({ minute: Math.round((Date.now() - started) / 600) / 100, rssMb: rssMb(pid) });
    console.log(
      `${scenario.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99} ms, RSS ${samples.at(-1)!.rssMb} MB`,
    );
  }
  // Growth after warm-up: the first minute fills caches and JIT; after that, RSS should be flat.
  const warm = samples.find((sample) => sample.minute >= 1) ?? samples.at(-1)!;
  const last = samples.at(-1)!;
  const growthPerMinute =
    last.minute > warm.minute ? Math.round(((last.rssMb - warm.rssMb) / (last.minute - warm.minute)) * 10) / 10 : 0;

  // Beyond capacity: many more connections than the process can serve at once, asking for full pages
  // of invoices (the heaviest read: 100 documents with their lines).
  const heavy = `${server.url}/v1/invoices?limit=100`;
  const capacity = load(heavy, { key: seeded.key, duration: 10 });
  const overload = load(heavy, { key: seeded.key, duration: 20, connections: OVERLOAD_CONNECTIONS });
  const recoveryStarted = Date.now();
  let recoveredMs = -1;
  while (Date.now() - recoveryStarted < 30_000) {
    try {
      await api(server.url, seeded.key, 'GET', '/v1/clients?limit=1');
      recoveredMs = Date.now() - recoveryStarted;
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const result = {
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version },
    soak: {
      minutes: MINUTES,
      requests,
      statuses,
      errors,
      timeouts,
      rss: samples,
      warmRssMb: warm.rssMb,
      endRssMb: last.rssMb,
      growthMbPerMinute: growthPerMinute,
      peakRssMb: Math.round(peakRssMb(pid)),
    },
    overload: {
      capacityRequestsPerSecond: capacity.requestsPerSecond,
      connections: OVERLOAD_CONNECTIONS,
      seconds: 20,
      requestsPerSecond: overload.requestsPerSecond,
      p50: overload.p50,
      p99: overload.p99,
      statuses: overload.statusCodes,
      errors: overload.errors,
      timeouts: overload.timeouts,
      recoveredMs,
      stillRunning: server.process.exitCode === null,
    },
  };
  await stop(server.process);
  const stamp = result.date.replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(ROOT, 'bench/results', `soak-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  const summary = [
    `Soak ${result.date}, ${result.machine.cores} × ${result.machine.cpu}, Node ${result.machine.node}: ${MINUTES} min of rotating reads and writes, ${requests} requests, statuses ${JSON.stringify(statuses)}, ${errors} errors, ${timeouts} timeouts.`,
    `RSS ${samples[0]!.rssMb} MB at start, ${warm.rssMb} MB after warm-up, ${last.rssMb} MB at the end (${growthPerMinute} MB/min after warm-up), peak ${result.soak.peakRssMb} MB.`,
    `Overload: the 100-invoice page serves ${capacity.requestsPerSecond} req/s at 10 connections; with ${OVERLOAD_CONNECTIONS} connections for 20 s: ${overload.requestsPerSecond} req/s answered (${Math.round((overload.statusCodes['200'] ?? 0) / 20)} of them 200), statuses ${JSON.stringify(overload.statusCodes)}, ${overload.errors} errors, ${overload.timeouts} timeouts, p99 ${overload.p99} ms; served again ${recoveredMs} ms after the load stopped; process ${result.overload.stillRunning ? 'still running' : 'DIED'}.`,
  ].join('\n');
  fs.writeFileSync(path.join(ROOT, 'bench/results/soak-latest.md'), `${summary}\n`);
  console.log(summary);
  fs.rmSync(work, { recursive: true, force: true });
}

await main();
