// `npx tsx bench/invoice-page.ts` (after `npm run build`): the soak's heavy page, GET /v1/invoices?limit=100,
// asked in process (Fastify's inject: no sockets, no load generator) of a build seeded as bench/lib.ts seeds it,
// so its CPU per request is steady enough to compare builds: BENCH_DIST=/other/dist (with BENCH_BIN=/other/bin/bms.js
// for its CLI) runs an older build against the same rows. Prints the answer's bytes and the CPU µs per page of
// each round of BENCH_REQUESTS (default 1500), and their median. BENCH_URL asks another page. Not part of CI.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { prepare, ROOT, work } from './lib.js';

const DIST = process.env.BENCH_DIST ?? path.join(ROOT, 'dist');
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const load = (file: string) => import(pathToFileURL(path.join(DIST, file)).href);

const env = {
  DATABASE_URL: `sqlite:${path.join(work, 'page.sqlite')}`,
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  OUTBOX_DIR: path.join(work, 'outbox'),
};
const seeded = await prepare(env);
const { loadConfig } = await load('config.js');
const { openDatabase } = await load('db/database.js');
const { buildApp } = await load('app.js');
const config = loadConfig({ ...process.env, ...env });
const database = openDatabase(config.database);
// Info logging into a sink: one line per request is written, as in production, but nowhere.
const logStream = new Writable({ write: (_chunk, _encoding, done) => done() });
const app = await buildApp(config, { database, logStream });
await app.ready();
const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
const call = async (method: string, url: string, body?: unknown) => {
  const response = await app.inject({ method, url, headers, ...(body ? { payload: JSON.stringify(body) } : {}) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response;
};
const clients: string[] = [];
for (let index = 0; index < 300; index += 1)
  clients.push(
    (
      await call('POST', '/v1/clients', {
        name: `Client ${index}`,
        email: `client${index}@example.com`,
        phone: '+1 555 0100',
        address: { city: 'Springfield', country: 'US' },
      })
    ).json().data.id,
  );
for (let index = 0; index < 200; index += 1) {
  const invoice = (
    await call('POST', '/v1/invoices', {
      client_id: clients[index % clients.length],
      line_items: [{ description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 }],
    })
  ).json().data;
  if (index % 2 === 0) await call('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
}
const url = process.env.BENCH_URL ?? '/v1/invoices?limit=100';
const bytes = (await call('GET', url)).rawPayload.byteLength;
for (let index = 0; index < 300; index += 1) await call('GET', url);
const figures: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const before = process.cpuUsage();
  for (let index = 0; index < REQUESTS; index += 1) await call('GET', url);
  const used = process.cpuUsage(before);
  figures.push(Math.round((used.user + used.system) / REQUESTS));
}
const sorted = [...figures].sort((a, b) => a - b);
console.log(
  `${url} (${DIST}): ${bytes} bytes; CPU µs per page by round ${figures.join(', ')}; median ${sorted[Math.floor(sorted.length / 2)]}`,
);
await app.close();
database.close?.();
// BENCH_KEEP=/path: the seeded database file is kept there (to time its statements on their own).
if (process.env.BENCH_KEEP) fs.copyFileSync(path.join(work, 'page.sqlite'), process.env.BENCH_KEEP);
fs.rmSync(work, { recursive: true, force: true });
process.exit(0);
