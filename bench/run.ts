// `npm run bench`: throughput, latency and memory of BMS as ratios against a bare node:http baseline
// measured in the same run, plus the cost of a deep page in a million clients. Load comes from a
// separate process (autocannon) on 127.0.0.1 with a fixed connection count and duration; baseline and
// BMS runs alternate. Results go to bench/results/<time>.json and bench/results/latest.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { SQLITE_CLEAR_QUEUED, SQLITE_INDEX_QUEUED } from '../src/db/client-search.js';
import { spawn } from 'node:child_process';
import { documentRows, type DocumentsResult } from './documents.js';
import {
  CONNECTIONS,
  DURATION,
  ROOT,
  api,
  load,
  peakRssMb,
  prepare,
  startBaseline,
  startBms,
  startSeeded,
  stop,
  waitForHttp,
  work,
  type Row,
  startPostgresDatabase,
} from './lib.js';

const SCALE_ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);

function compare(
  scenario: string,
  baselineUrl: string,
  bmsUrl: string,
  pid: number,
  options: Parameters<typeof load>[1],
  target?: number,
): Row {
  const baseline = load(baselineUrl, { ...options, key: undefined });
  const measured = load(bmsUrl, options);
  if (measured.non2xx > 0 || measured.errors > 0)
    throw new Error(`${scenario}: ${measured.non2xx} non-2xx, ${measured.errors} errors`);
  const row: Row = {
    scenario,
    baseline,
    bms: measured,
    ratio: Math.round((measured.requestsPerSecond / baseline.requestsPerSecond) * 1000) / 1000,
    peakRssMb: Math.round(peakRssMb(pid)),
    ...(target ? { target } : {}),
  };
  console.log(
    `${scenario}: ${measured.requestsPerSecond} req/s vs ${baseline.requestsPerSecond} (ratio ${row.ratio}), p50 ${measured.p50} ms, p99 ${measured.p99} ms, RSS ${row.peakRssMb} MB`,
  );
  return row;
}

/** A webhook receiver in its own process (the load generator's run blocks this one): answers 200, counts. */
async function startReceiverProcess(port: number) {
  const source = `const http = require('node:http'); let count = 0;
    http.createServer((request, response) => { if (request.url === '/count') return response.end(String(count)); request.resume(); request.on('end', () => { count += 1; response.end('ok'); }); }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', source], { stdio: 'ignore' });
  await waitForHttp(`http://127.0.0.1:${port}/count`);
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    count: async () =>
      Number(await (await fetch(`http://127.0.0.1:${port}/count`, { headers: { connection: 'close' } })).text()),
    process: child,
  };
}

/**
 * Webhooks: create-client throughput with 3 endpoints subscribed, as a ratio to the same server and
 * database with none (the event and its 3 deliveries ride in the create's transaction), then how fast
 * the worker drains the queue to a local receiver.
 */
async function webhookRows(
  baselineUrl: string,
): Promise<{ rows: Row[]; deliveriesPerSecond: number; delivered: number }> {
  const file = path.join(work, 'webhooks.sqlite');
  const env = {
    DATABASE_URL: `sqlite:${file}`,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(process.env.WEBHOOK_POLL_MS ? { WEBHOOK_POLL_MS: process.env.WEBHOOK_POLL_MS } : {}),
    ...(process.env.WEBHOOK_STARTS_WHILE_SATURATED
      ? { WEBHOOK_STARTS_WHILE_SATURATED: process.env.WEBHOOK_STARTS_WHILE_SATURATED }
      : {}),
  };
  const seeded = await prepare(env);
  const server = await startBms(env);
  const body = JSON.stringify({ name: 'Bench client', email: 'bench@example.com' });
  const pid = server.process.pid as number;
  const none = compare('create a client, no webhook endpoint', baselineUrl, `${server.url}/v1/clients`, pid, {
    key: seeded.key,
    method: 'POST',
    body,
  });
  const receivers = await Promise.all([0, 1, 2].map((offset) => startReceiverProcess(47_000 + offset)));
  for (const receiver of receivers)
    await api(server.url, seeded.key, 'POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      enabled_events: ['client.created'],
    });
  const before = (await Promise.all(receivers.map((receiver) => receiver.count()))).reduce(
    (sum, count) => sum + count,
    0,
  );
  const three = compare('create a client, 3 webhook endpoints', baselineUrl, `${server.url}/v1/clients`, pid, {
    key: seeded.key,
    method: 'POST',
    body,
  });
  const ratio = Math.round((three.bms.requestsPerSecond / none.bms.requestsPerSecond) * 1000) / 1000;
  const withEndpoints: Row = {
    ...three,
    scenario: 'create a client, 3 webhook endpoints (ratio to none)',
    ratio,
    target: 0.8,
  };
  console.log(`webhooks: create with 3 endpoints at ${ratio} of create with none`);
  // Drain: every create made 3 deliveries; time from the end of the load until the receivers have them all.
  const database = new SqliteDatabase(file, { readonly: true });
  const queued = (database.prepare(`select count(*) as count from webhook_deliveries`).get() as { count: number })
    .count;
  database.close();
  const started = performance.now();
  let delivered = 0;
  while (performance.now() - started < 120_000) {
    delivered =
      (await Promise.all(receivers.map((receiver) => receiver.count()))).reduce((sum, count) => sum + count, 0) -
      before;
    if (delivered >= queued) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  const check = new SqliteDatabase(file, { readonly: true });
  const remaining = (
    check.prepare(`select count(*) as count from webhook_deliveries where status = 'pending'`).get() as {
      count: number;
    }
  ).count;
  check.close();
  // Deliveries made during the load count too: the rate is all of them over the load and the drain.
  const deliveriesPerSecond = Math.round(queued / (DURATION + seconds));
  console.log(
    `webhooks: ${queued} deliveries queued, ${remaining} still pending after ${Math.round(seconds * 10) / 10} s of drain; ${deliveriesPerSecond} deliveries/s over load and drain`,
  );
  await stop(server.process);
  for (const receiver of receivers) receiver.process.kill();
  return { rows: [none, withEndpoints], deliveriesPerSecond, delivered: queued - remaining };
}

/** Inserts `count` clients straight into a migrated SQLite file, in large transactions. */
function seedMillion(file: string, accountId: string, count: number): number {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  const insert = database.prepare(
    `insert into clients (id, account_id, name, sort_name, email, phone, company_name, address, notes, metadata, created_at, updated_at) values (?, ?, ?, ?, ?, null, null, null, null, '{}', ?, ?)`,
  );
  const started = performance.now();
  const start = Date.parse('2020-01-01T00:00:00.000Z');
  const batch = database.transaction((from: number, to: number) => {
    for (let index = from; index < to; index += 1) {
      const created = new Date(start + index * 1000).toISOString();
      insert.run(uuidv7(), accountId, `Client ${index}`, `client ${index}`, `c${index}@example.com`, created, created);
    }
  });
  for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
  // The insert trigger queues each client's search row for the server's group commit, which this connection
  // is not: the search rows are made here, as the server's batch would (migration 20261128080000).
  database.transaction(() => {
    database.exec(SQLITE_INDEX_QUEUED);
    database.exec(SQLITE_CLEAR_QUEUED);
  })();
  database.close();
  return Math.round((performance.now() - started) / 100) / 10;
}

async function main() {
  const rows: Row[] = [];
  const scale: Record<string, number | string> = {};
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
  console.log('machine:', machine);

  if (process.env.BENCH_ONLY === 'documents') {
    console.log(JSON.stringify(await documentRows(), null, 2));
    return;
  }
  if (process.env.BENCH_ONLY === 'webhooks') {
    const baseline = await startBaseline(400);
    const result = await webhookRows(baseline.url);
    console.log(
      JSON.stringify(
        {
          rows: result.rows.map((row) => ({
            scenario: row.scenario,
            rps: row.bms.requestsPerSecond,
            ratio: row.ratio,
          })),
          deliveriesPerSecond: result.deliveriesPerSecond,
          delivered: result.delivered,
        },
        null,
        2,
      ),
    );
    await stop(baseline.process);
    return;
  }

  // --- SQLite, one process -------------------------------------------------------------
  const sqliteEnv = { DATABASE_URL: `sqlite:${path.join(work, 'bench.sqlite')}` };
  const { server: single, seeded } = await startSeeded(sqliteEnv);
  const baseline = await startBaseline(seeded.clientResponseSize);
  const pid = single.process.pid as number;
  rows.push(
    compare(
      'get one client',
      baseline.url,
      `${single.url}/v1/clients/${seeded.clientId}`,
      pid,
      { key: seeded.key },
      0.3,
    ),
  );
  rows.push(
    compare('list 25 clients', baseline.url, `${single.url}/v1/clients?limit=25`, pid, { key: seeded.key }, 0.15),
  );
  rows.push(
    compare(
      'create a client (durable)',
      baseline.url,
      `${single.url}/v1/clients`,
      pid,
      { key: seeded.key, method: 'POST', body: JSON.stringify({ name: 'Bench client', email: 'bench@example.com' }) },
      0.08,
    ),
  );
  rows.push(
    compare('update an invoice', baseline.url, `${single.url}/v1/invoices/${seeded.invoiceId}`, pid, {
      key: seeded.key,
      method: 'PUT',
      body: JSON.stringify({ notes: 'Updated by the benchmark' }),
    }),
  );
  rows.push(
    compare('list invoices, status=sent', baseline.url, `${single.url}/v1/invoices?status=sent&limit=25`, pid, {
      key: seeded.key,
    }),
  );
  await stop(single.process);

  // --- SQLite, two worker processes ----------------------------------------------------
  const cluster = await startBms({ ...sqliteEnv, WEB_CONCURRENCY: '2' });
  rows.push(
    compare(
      'get one client, 2 workers',
      baseline.url,
      `${cluster.url}/v1/clients/${seeded.clientId}`,
      cluster.process.pid as number,
      { key: seeded.key },
      0.6,
    ),
  );
  await stop(cluster.process);

  // --- Webhooks ------------------------------------------------------------------------
  const webhooks = await webhookRows(baseline.url);
  rows.push(...webhooks.rows);
  scale.webhookDeliveriesPerSecond = webhooks.deliveriesPerSecond;

  // --- Documents: another account's reads while PDFs render ------------------------------
  const documents = await documentRows();

  // --- PostgreSQL (durable settings) ---------------------------------------------------
  const postgres = await startPostgresDatabase('bench');
  try {
    const pgEnv = { DATABASE_URL: postgres.url };
    const { server: onPostgres, seeded: pgSeeded } = await startSeeded(pgEnv);
    rows.push(
      compare(
        'get one client, PostgreSQL',
        baseline.url,
        `${onPostgres.url}/v1/clients/${pgSeeded.clientId}`,
        onPostgres.process.pid as number,
        { key: pgSeeded.key },
        0.18,
      ),
    );
    rows.push(
      compare(
        'list 25 clients, PostgreSQL',
        baseline.url,
        `${onPostgres.url}/v1/clients?limit=25`,
        onPostgres.process.pid as number,
        { key: pgSeeded.key },
      ),
    );
    await stop(onPostgres.process);
  } finally {
    postgres.stop();
  }

  // --- Scale: a million clients in one account -----------------------------------------
  const scaleFile = path.join(work, 'scale.sqlite');
  const scaleEnv = { DATABASE_URL: `sqlite:${scaleFile}` };
  const scaleSeeded = await prepare(scaleEnv);
  const accountId = (
    new SqliteDatabase(scaleFile).prepare('select account_id from api_keys limit 1').get() as { account_id: string }
  ).account_id;
  scale.rows = SCALE_ROWS;
  scale.seedSeconds = seedMillion(scaleFile, accountId, SCALE_ROWS);
  const scaleServer = await startBms(scaleEnv);
  // The cursor of the row 25 from the end of the default order (-created_at): the last page.
  const near = new SqliteDatabase(scaleFile)
    .prepare(
      'select id, created_at from clients where account_id = ? order by created_at asc, id asc limit 1 offset 25',
    )
    .get(accountId) as { id: string; created_at: string };
  const cursor = Buffer.from(JSON.stringify(['-created_at', near.created_at, near.id])).toString('base64url');
  const first = load(`${scaleServer.url}/v1/clients?limit=25`, { key: scaleSeeded.key, duration: 5 });
  const deep = load(`${scaleServer.url}/v1/clients?limit=25&cursor=${cursor}`, { key: scaleSeeded.key, duration: 5 });
  scale.firstPageP50 = first.p50;
  scale.deepPageP50 = deep.p50;
  scale.firstPageRps = first.requestsPerSecond;
  scale.deepPageRps = deep.requestsPerSecond;
  scale.deepOverFirstP50 = Math.round(((deep.p50 || 0.5) / (first.p50 || 0.5)) * 100) / 100;
  scale.deepOverFirstRps = Math.round((first.requestsPerSecond / deep.requestsPerSecond) * 100) / 100;
  scale.databaseMb = Math.round(
    (fs.statSync(scaleFile).size + (fs.existsSync(`${scaleFile}-wal`) ? fs.statSync(`${scaleFile}-wal`).size : 0)) /
      2 ** 20,
  );
  scale.peakRssMb = Math.round(peakRssMb(scaleServer.process.pid as number));
  console.log('scale:', scale);
  await stop(scaleServer.process);
  await stop(baseline.process);

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const result = {
    date: new Date().toISOString(),
    machine,
    duration: DURATION,
    connections: CONNECTIONS,
    rows,
    scale,
    documents,
  };
  fs.writeFileSync(path.join(ROOT, 'bench/results', `${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(ROOT, 'bench/results/latest.md'), markdown(result));
  console.log(markdown(result));
  fs.rmSync(work, { recursive: true, force: true });
}

function markdown(result: {
  date: string;
  machine: Record<string, unknown>;
  duration: number;
  connections: number;
  rows: Row[];
  scale: Record<string, number | string>;
  documents: DocumentsResult;
}): string {
  const { documents } = result;
  const lines = [
    `Run ${result.date} on ${result.machine.cores} × ${result.machine.cpu}, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}; ${result.connections} connections, ${result.duration} s per run, autocannon in a separate process.`,
    '',
    '| scenario | BMS req/s | baseline req/s | ratio | target | p50 ms | p99 ms | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...result.rows.map(
      (row) =>
        `| ${row.scenario} | ${row.bms.requestsPerSecond} | ${row.baseline.requestsPerSecond} | **${row.ratio}** | ${row.target ? `≥ ${row.target} ${row.ratio >= row.target ? '✓' : '✗'}` : ''} | ${row.bms.p50} | ${row.bms.p99} | ${row.peakRssMb} |`,
    ),
    '',
    `Documents: GET /v1/clients/:id of another account at ${documents.rate} req/s: p99 ${documents.quiet.p99} ms with nothing rendering, ` +
      `${documents.rendering.p99} ms (p50 ${documents.rendering.p50}) while 20 sends of 200-line invoices render and rounds of 20 simultaneous PDF downloads keep the pool busy (target < 50 ms ${documents.rendering.p99 < 50 ? '✓' : '✗'}); ` +
      `non-2xx ${documents.rendering.non2xx}; ${documents.rendered.pdfs} PDFs downloaded in ${documents.rendered.pdfSeconds} s, ${documents.rendered.delivered} of 20 e-mails delivered by the end; peak RSS ${documents.peakRssMb} MB.`,
    '',
    `Webhooks: ${result.scale.webhookDeliveriesPerSecond} deliveries/s to local receivers (3 endpoints, over the create load and the drain after it).`,
    '',
    `Scale: ${result.scale.rows} clients in one account, seeded in ${result.scale.seedSeconds} s; database ${result.scale.databaseMb} MB. ` +
      `First page p50 ${result.scale.firstPageP50} ms (${result.scale.firstPageRps} req/s), last page by cursor p50 ${result.scale.deepPageP50} ms (${result.scale.deepPageRps} req/s): ` +
      `p50 ratio ${result.scale.deepOverFirstP50} (target ≤ 1.2), throughput ratio ${result.scale.deepOverFirstRps}; peak RSS ${result.scale.peakRssMb} MB.`,
    '',
  ];
  return lines.join('\n');
}

await main();
