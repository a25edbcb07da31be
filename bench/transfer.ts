// Moving many things at once (contract §26), through a production-configured server:
// 1. Creating clients by a CSV import of TRANSFER_CLIENTS rows, and by change sets of 50, against one-by-one POSTs
//    (a tenth as many), in the same run: the target is an import ≥ 5× the one-by-one rate. The import's time runs
//    from its create to its end (`completed`), as a user waits for it; the server does nothing else meanwhile, as
//    during the one-by-one POSTs. A second import of as many rows follows while another account makes clients one
//    by one: its rate, and their POSTs' p50 and longest time, show whether the import's validation and batches
//    hold the writer for long (validation checks 100 rows a transaction, running commits 500: a POST waits at most
//    for one) and how the two share the machine.
// 2. The change feed: its page at TRANSFER_CHANGES positioned changes (rows written directly) against its first
//    page (target ≤ 2×), both with 100 entries.
// 3. Exporting every client of the account as CSV, read as a stream: the server's RSS growth over the export
//    (target ≤ 64 MB at 1,000,000 clients). What step 1 made (3.1 × TRANSFER_CLIENTS) is first topped up to
//    TRANSFER_EXPORT_CLIENTS by rows written directly (copies of a client the API made).
// `npm run bench:transfer`; TRANSFER_CLIENTS (default 50,000), TRANSFER_EXPORT_CLIENTS (1,000,000),
// TRANSFER_CHANGES (1,000,000), TRANSFER_REQUESTS (20), SCALE_ENGINE (sqlite | postgres); TRANSFER_ONLY (import |
// export | changes) runs that part alone (the export alone tops up from one client the API makes).
import fs from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase } from '../src/db/database.js';
import { api, clientsCsv, importClients, prepare, startBms, stop, onEachEngine } from './lib.js';

const CLIENTS = Number(process.env.TRANSFER_CLIENTS ?? 50_000);
const CHANGES = Number(process.env.TRANSFER_CHANGES ?? 1_000_000);
const REQUESTS = Number(process.env.TRANSFER_REQUESTS ?? 20);
const EXPORT_CLIENTS = Number(process.env.TRANSFER_EXPORT_CLIENTS ?? 1_000_000);
const ONLY = process.env.TRANSFER_ONLY;
if (ONLY !== undefined && !['import', 'export', 'changes'].includes(ONLY))
  throw new Error(`TRANSFER_ONLY: import, export or changes, not ${ONLY}`);
const runs = (part: 'import' | 'export' | 'changes') => ONLY === undefined || ONLY === part;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The CPU time a process has used, in ms (Linux's /proc: user and system, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function createRates(base: string, key: string, otherKey: string, pid: number) {
  const started = performance.now();
  const cpuStarted = cpuMs(pid);
  for (let index = 0; index < CLIENTS / 10; index++)
    await api(base, key, 'POST', '/v1/clients', { name: `One ${index}` });
  const oneByOne = CLIENTS / 10 / ((performance.now() - started) / 1000);
  const oneByOneCpuMs = (cpuMs(pid) - cpuStarted) / (CLIENTS / 10);
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
  const { perSecond: imported, validatingSeconds, seconds, cpuMsPerClient } = await importRate(base, key, pid, 'ALONE');
  const shared = await importRate(base, key, pid, 'BENCH', otherKey);
  return {
    oneByOnePerSecond: round(oneByOne, 1),
    oneByOneCpuMsPerClient: round(oneByOneCpuMs, 3),
    changeSetsPerSecond: round(sets, 1),
    ratio: round(sets / oneByOne),
    importPerSecond: round(imported, 1),
    importRatio: round(imported / oneByOne),
    importCpuMsPerClient: round(cpuMsPerClient, 3),
    importSeconds: seconds,
    importValidatingSeconds: validatingSeconds,
    withOtherAccount: {
      importPerSecond: round(shared.perSecond, 1),
      importRatio: round(shared.perSecond / oneByOne),
      importCpuMsPerClient: round(shared.cpuMsPerClient, 3),
      importSeconds: shared.seconds,
      importValidatingSeconds: shared.validatingSeconds,
      otherAccountPosts: shared.otherAccount,
    },
  };
}

/**
 * Clients a second through one CSV import of CLIENTS rows (each with an external_id starting with `prefix`), to its
 * end, and the server's (`pid`) CPU a client; with `otherKey`, the times of that account's client POSTs, one after
 * another, while it ran (in its validating pass and in its running one), their CPU in the server's.
 */
async function importRate(base: string, key: string, pid: number, prefix: string, otherKey?: string) {
  const csv = clientsCsv(CLIENTS, prefix);
  const cpuStarted = cpuMs(pid);
  let importing = true;
  let validating = true;
  const otherTimes: { validating: number[]; running: number[] } = { validating: [], running: [] };
  const other = (async () => {
    while (importing && otherKey !== undefined) {
      const postStarted = performance.now();
      const during = validating;
      await api(base, otherKey, 'POST', '/v1/clients', { name: 'Meanwhile' });
      (during ? otherTimes.validating : otherTimes.running).push(performance.now() - postStarted);
    }
  })();
  const imported = importClients(base, key, csv, () => {
    validating = false;
  });
  const { seconds, validatingSeconds } = await imported;
  importing = false;
  await other;
  const all = [...otherTimes.validating, ...otherTimes.running];
  const summary = (times: number[]) =>
    times.length === 0 ? null : { posts: times.length, p50Ms: round(median(times)), maxMs: round(Math.max(...times)) };
  const otherAccount = {
    ...summary(all),
    whileValidating: summary(otherTimes.validating),
    whileRunning: summary(otherTimes.running),
  };
  return {
    perSecond: CLIENTS / seconds,
    cpuMsPerClient: (cpuMs(pid) - cpuStarted) / CLIENTS,
    validatingSeconds: round(validatingSeconds),
    seconds: round(seconds),
    otherAccount,
  };
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

/**
 * Tops the account up to EXPORT_CLIENTS clients, written directly in batches: each a copy of a client the API made
 * (so every column is as the current schema has it), with its own id, name, e-mail and external_id. Answers how
 * many were written.
 */
async function topUpClients(accountId: string, config: Parameters<typeof openDatabase>[0]): Promise<number> {
  const database = openDatabase(config);
  const { db } = database;
  const { count } = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const missing = EXPORT_CLIENTS - Number(count);
  const model = await db
    .selectFrom('clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  // JSON columns come back from PostgreSQL as objects and arrays: written back as their text.
  const columns = Object.fromEntries(
    Object.entries(model).map(([name, value]: [string, unknown]) => [
      name,
      value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value,
    ]),
  ) as typeof model;
  for (let from = 0; from < missing; from += 500) {
    const rows = Array.from({ length: Math.min(500, missing - from) }, (_, index) => {
      const name = `Exported ${from + index}`;
      return {
        ...columns,
        id: uuidv7(),
        name,
        sort_name: name.toLowerCase(),
        email: `exported${from + index}@example.com`,
        external_id: `EXPORT-${from + index}`,
      };
    });
    await db.insertInto('clients').values(rows).execute();
  }
  await database.close();
  return Math.max(missing, 0);
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
  const pid = server.process.pid as number;
  const creates = runs('import') ? await createRates(server.url, seeded.key, other.key, pid) : null;
  let exported = null;
  if (runs('export')) {
    // The copies' model: a client the API made (the import's, or this one when the export runs alone).
    if (creates === null) await api(server.url, seeded.key, 'POST', '/v1/clients', { name: 'Model' });
    const toppedUp = await topUpClients(seeded.accountId, config);
    exported = { toppedUp, ...(await exportRss(server.url, seeded.key, pid)) };
  }
  const feed = runs('changes') ? await feedPages(server.url, seeded.key, seeded.accountId, config) : null;
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
