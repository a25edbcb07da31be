// Moving many things at once (contract §26), through a production-configured server:
// 1. Creating clients by a CSV import of TRANSFER_CLIENTS rows, and by change sets of 50, against one-by-one POSTs
//    (a tenth as many), in the same run: the target is an import ≥ 5× the one-by-one rate. The import's time runs
//    from its create to its end (`completed`), as a user waits for it. Meanwhile another account makes clients one
//    by one: their POSTs' p50 and longest time show whether the import's validation and batches hold the writer
//    for long (validation checks 500 rows a transaction, so a POST waits at most for one).
// 2. The change feed: its page at TRANSFER_CHANGES positioned changes (rows written directly) against its first
//    page (target ≤ 2×), both with 100 entries.
// 3. Exporting every client of the account as CSV (what steps 1 made: 2.1 × TRANSFER_CLIENTS), read as a stream:
//    the server's RSS growth over the export (target ≤ 64 MB whatever the row count).
// `npm run bench:transfer`; TRANSFER_CLIENTS (default 50,000), TRANSFER_CHANGES (1,000,000), TRANSFER_REQUESTS
// (20), SCALE_ENGINE (sqlite | postgres).
import fs from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase } from '../src/db/database.js';
import { api, prepare, startBms, stop, onEachEngine } from './lib.js';

const CLIENTS = Number(process.env.TRANSFER_CLIENTS ?? 50_000);
const CHANGES = Number(process.env.TRANSFER_CHANGES ?? 1_000_000);
const REQUESTS = Number(process.env.TRANSFER_REQUESTS ?? 20);
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function createRates(base: string, key: string, otherKey: string) {
  const started = performance.now();
  for (let index = 0; index < CLIENTS / 10; index++)
    await api(base, key, 'POST', '/v1/clients', { name: `One ${index}` });
  const oneByOne = CLIENTS / 10 / ((performance.now() - started) / 1000);
  const setStarted = performance.now();
  for (let made = 0; made < CLIENTS; made += 50) {
    const operations = Array.from({ length: Math.min(50, CLIENTS - made) }, (_, index) => ({
      method: 'POST',
      path: '/v1/clients',
      body: { name: `Set ${made + index}` },
    }));
    await api(base, key, 'POST', '/v1/change-sets', { operations });
  }
  const sets = CLIENTS / ((performance.now() - setStarted) / 1000);
  const { perSecond: imported, otherAccount } = await importRate(base, key, otherKey);
  return {
    oneByOnePerSecond: round(oneByOne, 1),
    changeSetsPerSecond: round(sets, 1),
    ratio: round(sets / oneByOne),
    importPerSecond: round(imported, 1),
    importRatio: round(imported / oneByOne),
    otherAccountDuringImport: otherAccount,
  };
}

/**
 * Clients a second through one CSV import of CLIENTS rows (each with an external_id), to its end; and the times of
 * another account's client POSTs, one after another, while it ran.
 */
async function importRate(base: string, key: string, otherKey: string) {
  const lines = ['name,email,external_id'];
  for (let index = 0; index < CLIENTS; index++)
    lines.push(`Imported ${index},imported${index}@example.com,BENCH-${index}`);
  const started = performance.now();
  const made = (await api(base, key, 'POST', '/v1/imports', { kind: 'client' })).json;
  const upload = await fetch(`${base}/v1/imports/${made.data.id}/file`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: `${lines.join('\r\n')}\r\n`,
  });
  if (upload.status !== 202) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  let importing = true;
  const otherTimes: number[] = [];
  const other = (async () => {
    while (importing) {
      const postStarted = performance.now();
      await api(base, otherKey, 'POST', '/v1/clients', { name: `Meanwhile ${otherTimes.length}` });
      otherTimes.push(performance.now() - postStarted);
    }
  })();
  for (;;) {
    const current = (await api(base, key, 'GET', `/v1/imports/${made.data.id}`)).json;
    if (current.data.status === 'completed') break;
    if (current.data.status === 'failed' || current.data.status === 'canceled')
      throw new Error(`the import ended ${current.data.status}: ${JSON.stringify(current.data.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const perSecond = CLIENTS / ((performance.now() - started) / 1000);
  importing = false;
  await other;
  const otherAccount = {
    posts: otherTimes.length,
    p50Ms: round(median(otherTimes)),
    maxMs: round(Math.max(...otherTimes)),
  };
  return { perSecond, otherAccount };
}

/** The resident set of a process, in MB (Linux's /proc). */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
}

/** Every client as CSV, read as a stream, with the server's RSS before and at its highest meanwhile. */
async function exportRss(base: string, key: string, pid: number) {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const started = performance.now();
  const response = await fetch(`${base}/v1/exports/clients?format=csv`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (response.status !== 200 || !response.body) throw new Error(`export: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let records = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) records += 1;
  }
  clearInterval(sampler);
  return {
    rows: records - 1,
    megabytes: round(bytes / 1024 / 1024, 1),
    seconds: round((performance.now() - started) / 1000, 1),
    rssBeforeMb: round(before, 1),
    rssGrowthMb: round(peak - before, 1),
  };
}

async function feedPages(base: string, key: string, accountId: string, config: Parameters<typeof openDatabase>[0]) {
  const database = openDatabase(config);
  const now = new Date().toISOString();
  for (let from = 0; from < CHANGES; from += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, CHANGES - from) }, (_, index) => ({
      account_id: accountId,
      kind: 'product',
      object_id: uuidv7(),
      position: 1_000_000_000 + from + index,
      deleted: 1,
      changed_at: now,
    }));
    await database.db.insertInto('changes').values(rows).execute();
  }
  await database.db
    .insertInto('change_positions')
    .values({ account_id: accountId, last_position: 1_000_000_000 + CHANGES })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ last_position: 1_000_000_000 + CHANGES }))
    .execute();
  // A million changes written at once, as no account writes them: PostgreSQL's statistics are brought up to them
  // here, as its autovacuum does within the next minute (until then each page read the kind's every change and
  // sorted them: 270–370 ms a page). SQLite keeps no statistics (BMS never runs ANALYZE there).
  if (config.kind === 'postgres') await sql`analyze changes`.execute(database.db);
  await database.close();
  const cursorAt = (position: number) =>
    Buffer.from(JSON.stringify({ p: position, t: Date.now() })).toString('base64url');
  const time = async (url: string) => {
    const times: number[] = [];
    for (let request = 0; request < REQUESTS; request++) {
      const started = performance.now();
      await api(base, key, 'GET', url);
      times.push(performance.now() - started);
    }
    return round(median(times));
  };
  const first = await time(`/v1/changes?kinds=product&limit=100&since=${cursorAt(1_000_000_000)}`);
  const last = await time(`/v1/changes?kinds=product&limit=100&since=${cursorAt(1_000_000_000 + CHANGES - 100)}`);
  return { firstPageMs: first, lastPageMs: last, ratio: round(last / first) };
}

async function runEngine(engine: string, env: Record<string, string>, config: Parameters<typeof openDatabase>[0]) {
  const seeded = await prepare(env);
  const other = await prepare(env);
  const server = await startBms(env);
  const creates = await createRates(server.url, seeded.key, other.key);
  const exported = await exportRss(server.url, seeded.key, server.process.pid as number);
  const feed = await feedPages(server.url, seeded.key, seeded.accountId, config);
  await stop(server.process);
  const result = { engine, clients: CLIENTS, changes: CHANGES, creates, exported, feed };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  console.log(
    JSON.stringify({ cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version }),
  );
  await onEachEngine('transfer', runEngine);
  process.exit(0);
}

await main();
