// The scale benchmark (contract section 13): 1,000,000 clients and 1,000,000 invoices (spread over 10,000
// clients) in one account, on SQLite and on PostgreSQL; every filter and sort of section 5 asked of a
// production-configured server. For each: p50 and p99 of 200 sequential requests, their ratio to the
// first page's, the server's largest event-loop delay while they ran, and every answer that was not 200.
// `npm run bench:scale`; SCALE_ROWS=100000 for a quicker run; SCALE_KEEP_DIR=<folder> seeds once there and
// measures the same rows again on the next runs (BENCH_MAIN=<other build>/dist/main.js: that build's server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase, type Database } from '../src/db/database.js';
import type { ClientRow, InvoiceRow } from '../src/db/types.js';
import * as rangeIndexes from '../src/db/migrations/20261122070000_range_indexes.js';
import { needsMerge } from '../src/db/sqlite/sqlite-index-tidy.js';
import { ROOT, bms, prepare, startBms, stop, work, onEachEngine, waitForHttp } from './lib.js';

const ROWS = Number(process.env.SCALE_ROWS ?? 1_000_000);
const KEEP = process.env.SCALE_KEEP_DIR;
const INVOICE_CLIENTS = Math.min(10_000, ROWS);
const REQUESTS = Number(process.env.SCALE_REQUESTS ?? 200);
const START = Date.parse('2020-01-01T00:00:00.000Z');
const STATUSES = ['paid', 'paid', 'paid', 'paid', 'paid', 'sent', 'sent', 'sent', 'draft', 'void'] as const;
const LINES = JSON.stringify([
  {
    id: '0195d1f0-0000-7000-8000-0000000000aa',
    description: 'Labour',
    quantity: 2,
    unit_amount: 6000,
    tax_rate: 8.875,
    amount: 12000,
    tax_amount: 1065,
  },
]);

interface Seeded {
  accountId: string;
  clientIds: string[];
  seconds: number;
}

const instant = (index: number) => new Date(START + index * 1000).toISOString();
const day = (offset: number) => new Date(START + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Waits until the clients' FTS5 index in `file` needs no merge (needsMerge), or its segments have not changed for
 * 10 s (a build without the tidy); the seconds waited.
 */
async function untilIndexTidy(file: string): Promise<number> {
  const started = performance.now();
  const reader = new SqliteDatabase(file, { readonly: true });
  try {
    const segments = reader.prepare('select max(pgno) >> 1 from clients_fts_idx group by segid').pluck();
    let last = '';
    let changed = performance.now();
    for (;;) {
      const pages = segments.all() as number[];
      if (!needsMerge(pages)) break;
      if (pages.join() !== last) {
        last = pages.join();
        changed = performance.now();
      } else if (performance.now() - changed > 10_000) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    reader.close();
  }
  return round((performance.now() - started) / 1000, 1);
}

/** Inserts the rows straight into a migrated database, in batches inside large transactions. */
async function seedRows(database: Database, accountId: string): Promise<Seeded> {
  const started = performance.now();
  const { db } = database;
  const clientIds: string[] = [];
  const BATCH = 500;
  for (let from = 0; from < ROWS; from += 20 * BATCH) {
    await db.transaction().execute(async (trx) => {
      for (let at = from; at < Math.min(ROWS, from + 20 * BATCH); at += BATCH) {
        const rows: Omit<ClientRow, 'tags'>[] = [];
        for (let index = at; index < Math.min(ROWS, at + BATCH); index += 1) {
          const id = uuidv7();
          if (index < INVOICE_CLIENTS) clientIds.push(id);
          // Names repeat a little (as people's do) and vary in case, so sort=name and q have work to do.
          const name = `${index % 3 === 0 ? 'cooper' : 'Cooper'} ${['Plumbing', 'Electric', 'Gardens', 'Roofing'][index % 4]} ${index}`;
          rows.push({
            id,
            account_id: accountId,
            external_id: null,
            name,
            sort_name: name.toLowerCase(),
            email: `c${index}@example.com`,
            phone: `+1 555 ${String(index).padStart(7, '0')}`,
            company_name: `Company ${index % 5000}`,
            address: null,
            notes: null,
            metadata: '{}',
            custom_fields: '{}',
            einvoicing: null,
            created_at: instant(index),
            updated_at: instant(index + (index % 7) * 3600),
          });
        }
        await trx.insertInto('clients').values(rows).execute();
      }
    });
  }
  let number = 0;
  for (let from = 0; from < ROWS; from += 20 * BATCH) {
    await db.transaction().execute(async (trx) => {
      for (let at = from; at < Math.min(ROWS, from + 20 * BATCH); at += BATCH) {
        const rows: Omit<InvoiceRow, 'tags'>[] = [];
        for (let index = at; index < Math.min(ROWS, at + BATCH); index += 1) {
          const status = STATUSES[index % STATUSES.length]!;
          const numbered = status !== 'draft';
          if (numbered) number += 1;
          const issued = Math.floor(index / 600);
          rows.push({
            id: uuidv7(),
            account_id: accountId,
            external_id: null,
            client_id: clientIds[index % INVOICE_CLIENTS]!,
            property_id: null,
            job_id: null,
            quote_id: null,
            number: numbered ? `INV-${String(number).padStart(6, '0')}` : null,
            number_seq: numbered ? number : null,
            currency: 'USD',
            line_items: LINES,
            subtotal_amount: 12000,
            tax_amount: 1065,
            total_amount: 13065,
            prices_include_tax: 0,
            rounding: 'per_line',
            discount: null,
            discount_amount: 0,
            tax_breakdown: null,
            amount_paid: status === 'paid' ? 13065 : 0,
            amount_credited: 0,
            notes: null,
            issue_date: numbered ? day(issued) : null,
            due_date: index % 11 === 0 ? null : day(issued + 30),
            status,
            sent_at: numbered ? instant(index) : null,
            paid_at: status === 'paid' ? instant(index + 86_400) : null,
            voided_at: status === 'void' ? instant(index + 3600) : null,
            recurring_invoice_id: null,
            occurrence_date: null,
            late_fee_for_invoice_id: null,
            reminders_enabled: 1,
            buyer_reference: null,
            purchase_order: null,
            delivery_date: null,
            service_period: null,
            einvoice: null,
            delivery_id: null,
            delivery_status: null,
            hosted_token: null,
            hosted_url: null,
            hosted_recipient: null,
            metadata: '{}',
            custom_fields: '{}',
            created_at: instant(index),
            updated_at: instant(index + (index % 5) * 86_400),
          });
        }
        await trx.insertInto('invoices').values(rows).execute();
      }
    });
  }
  return { accountId, clientIds, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

interface Measured {
  scenario: string;
  p50: number;
  p99: number;
  /** The group's first page, measured alongside (measure's baselineUrl); the first page's own figures on its row. */
  firstP50: number;
  firstP99: number;
  ratioP50: number;
  ratioP99: number;
  loopMaxMs: number;
  non200: number;
  /** Rows on the page: fewer than 25 with has_more is a walk stopped at its bound (db/list-plan.ts). */
  rows: number;
  hasMore: boolean;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

async function loopFigures(pid: number, file: string): Promise<{ maxMs: number }> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000 && !fs.existsSync(file); waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

interface Figures {
  p50: number;
  p99: number;
}

/**
 * Sequential requests (one at a time, so the latency is the query's), after a few to warm the caches. With
 * `baselineUrl` (the group's first page), each request of `url` follows one of the baseline, and the baseline's
 * figures are those of the same minutes: its ratio is not moved by the machine's drift between shapes.
 */
async function measure(
  base: string,
  key: string,
  url: string,
  pid: number,
  loopFile: string,
  baselineUrl?: string,
): Promise<Omit<Measured, 'scenario' | 'firstP50' | 'firstP99' | 'ratioP50' | 'ratioP99'> & { baseline?: Figures }> {
  const headers = { authorization: `Bearer ${key}` };
  const timed = async (target: string) => {
    const started = performance.now();
    const response = await fetch(`${base}${target}`, { headers });
    const text = await response.text();
    return { ms: performance.now() - started, status: response.status, text };
  };
  for (let warm = 0; warm < 5; warm += 1) {
    if (baselineUrl) await timed(baselineUrl);
    await timed(url);
  }
  await loopFigures(pid, loopFile);
  const latencies: number[] = [];
  const baseline: number[] = [];
  let non200 = 0;
  let page = { rows: 0, hasMore: false };
  for (let request = 0; request < REQUESTS; request += 1) {
    if (baselineUrl) {
      const first = await timed(baselineUrl);
      baseline.push(first.ms);
      if (first.status !== 200) non200 += 1;
    }
    const { ms, status, text } = await timed(url);
    latencies.push(ms);
    const body = JSON.parse(text) as { data?: unknown[]; meta?: { pagination?: { has_more: boolean } } };
    if (status !== 200) non200 += 1;
    else page = { rows: body.data?.length ?? 0, hasMore: body.meta?.pagination?.has_more ?? false };
  }
  const { maxMs } = await loopFigures(pid, loopFile);
  const figures = (values: number[]): Figures => {
    values.sort((a, b) => a - b);
    return { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)) };
  };
  return {
    ...figures(latencies),
    ...(baselineUrl ? { baseline: figures(baseline) } : {}),
    loopMaxMs: round(maxMs, 1),
    non200,
    ...page,
  };
}

const cursor = (sort: string, value: string | number, id: string) =>
  Buffer.from(JSON.stringify([sort, value, id])).toString('base64url');

/** [scenario, URL]: the first of each group is the first page the others are compared with. */
async function scenarios(database: Database, seeded: Seeded): Promise<Array<[string, string, string]>> {
  const { db } = database;
  const oldestClient = await db
    .selectFrom('clients')
    .select(['id', 'created_at'])
    .where('account_id', '=', seeded.accountId)
    .orderBy('created_at')
    .orderBy('id')
    .offset(25)
    .limit(1)
    .executeTakeFirstOrThrow();
  const oldestInvoice = await db
    .selectFrom('invoices')
    .select(['id', 'created_at'])
    .where('account_id', '=', seeded.accountId)
    .orderBy('created_at')
    .orderBy('id')
    .offset(25)
    .limit(1)
    .executeTakeFirstOrThrow();
  const lateClient = await db
    .selectFrom('clients')
    .select('updated_at')
    .where('account_id', '=', seeded.accountId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .offset(400)
    .limit(1)
    .executeTakeFirstOrThrow();
  const busyClient = seeded.clientIds[1234 % seeded.clientIds.length]!;
  const middle = instant(Math.floor(ROWS / 2));
  const middleDay = day(Math.floor(ROWS / 1200) + 30);
  const c = '/v1/clients?limit=25';
  const i = '/v1/invoices?limit=25';
  return [
    ['clients', 'first page (default -created_at)', c],
    [
      'clients',
      'last page by cursor',
      `${c}&cursor=${cursor('-created_at', oldestClient.created_at, oldestClient.id)}`,
    ],
    ['clients', 'sort=created_at', `${c}&sort=created_at`],
    ['clients', 'sort=-updated_at', `${c}&sort=-updated_at`],
    ['clients', 'sort=name', `${c}&sort=name`],
    ['clients', 'sort=-name', `${c}&sort=-name`],
    ['clients', 'email=<exact, other case>', `${c}&email=C${Math.floor(ROWS * 0.7)}@Example.com`],
    ['clients', 'q=<one e-mail>', `${c}&q=c${Math.floor(ROWS * 0.77)}@`],
    // Every word common, the text in no row: pg_trgm keeps only letters and digits, so its index cannot narrow this.
    ['clients', 'q=gardens cooper (no match)', `${c}&q=${encodeURIComponent('gardens cooper')}`],
    ['clients', 'q=0000123 (phone digits)', `${c}&q=0000123`],
    ['clients', 'q=Cooper&sort=name (matches every row)', `${c}&q=Cooper&sort=name`],
    ['clients', 'q=Gardens 99', `${c}&q=${encodeURIComponent('Gardens 99')}`],
    ['clients', 'q=co (2 characters: prefix)', `${c}&q=co`],
    ['clients', 'created_after=<middle>', `${c}&created_after=${middle}`],
    ['clients', 'created_before=<middle>', `${c}&created_before=${middle}`],
    ['clients', 'updated_after=<middle>', `${c}&updated_after=${middle}`],
    // A large range on one timestamp with the other's sort: a walk of the sort's index, at most 1,000 entries.
    ['clients', 'updated_after=<middle>&sort=created_at', `${c}&updated_after=${middle}&sort=created_at`],
    // A small range (under 500 rows): read whole from its own index, then sorted.
    [
      'clients',
      'updated_after=<last 400>&sort=created_at',
      `${c}&updated_after=${lateClient.updated_at}&sort=created_at`,
    ],
    ['invoices', 'first page (default -created_at)', i],
    [
      'invoices',
      'last page by cursor',
      `${i}&cursor=${cursor('-created_at', oldestInvoice.created_at, oldestInvoice.id)}`,
    ],
    ['invoices', 'sort=-updated_at', `${i}&sort=-updated_at`],
    ['invoices', 'sort=number', `${i}&sort=number`],
    ['invoices', 'sort=-number', `${i}&sort=-number`],
    ['invoices', 'sort=due_date', `${i}&sort=due_date`],
    ['invoices', 'sort=-due_date', `${i}&sort=-due_date`],
    ['invoices', 'status=sent', `${i}&status=sent`],
    ['invoices', 'status=void (rare)', `${i}&status=void`],
    ['invoices', 'status=draft,void&sort=due_date', `${i}&status=draft,void&sort=due_date`],
    ['invoices', 'status=sent,paid,void&sort=-number', `${i}&status=sent,paid,void&sort=-number`],
    ['invoices', 'client_id', `${i}&client_id=${busyClient}`],
    ['invoices', 'client_id&sort=-due_date', `${i}&client_id=${busyClient}&sort=-due_date`],
    ['invoices', 'client_id&status=paid,sent', `${i}&client_id=${busyClient}&status=paid,sent`],
    ['invoices', 'overdue=true', `${i}&overdue=true`],
    ['invoices', 'overdue=true&sort=due_date', `${i}&overdue=true&sort=due_date`],
    ['invoices', 'overdue=false', `${i}&overdue=false`],
    ['invoices', 'due_before=<middle>', `${i}&due_before=${middleDay}`],
    [
      'invoices',
      'created_before=<first 400>&sort=-number (small range)',
      `${i}&created_before=${instant(400)}&sort=-number`,
    ],
    ['invoices', 'due_after=<middle>&sort=due_date', `${i}&due_after=${middleDay}&sort=due_date`],
    ['invoices', 'due_after=<middle>&sort=-number', `${i}&due_after=${middleDay}&sort=-number`],
    ['invoices', 'quote_id (none match)', `${i}&quote_id=0195d1f0-0000-7000-8000-000000000001`],
    ['invoices', 'job_id (none match)', `${i}&job_id=0195d1f0-0000-7000-8000-000000000001`],
    ['invoices', 'created_after=<middle>', `${i}&created_after=${middle}`],
    ['invoices', 'created_before=<middle>&sort=-number', `${i}&created_before=${middle}&sort=-number`],
    ['invoices', 'updated_after=<middle>', `${i}&updated_after=${middle}`],
  ].map(([group, name, url]) => [group!, name!, url!]);
}

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  // SCALE_KEEP_DIR: the seed (and its key) kept there and used again by the next run, migrated to the build's
  // newest migrations; the seed and the index rebuild are then not measured again (their figures are 0).
  const kept = KEEP && path.join(KEEP, `${engine}-${ROWS}.json`);
  let key: string;
  let seeded: Seeded;
  let migrationSeconds = 0;
  const database = openDatabase(config);
  if (kept && fs.existsSync(kept)) {
    bms(['migrate'], env);
    ({ key, seeded } = JSON.parse(fs.readFileSync(kept, 'utf8')));
    seeded.seconds = 0;
  } else {
    ({ key } = await prepare(env));
    const account = await database.db.selectFrom('api_keys').select('account_id').executeTakeFirstOrThrow();
    seeded = await seedRows(database, account.account_id);
    console.log(`${engine}: seeded ${ROWS} clients and ${ROWS} invoices in ${seeded.seconds} s`);
    // What the newest index migration costs an account this size: its indexes dropped and built again.
    const migrationStarted = performance.now();
    await rangeIndexes.down(database.db);
    await rangeIndexes.up(database.db);
    migrationSeconds = round((performance.now() - migrationStarted) / 1000, 1);
    if (kept) fs.writeFileSync(kept, JSON.stringify({ key, seeded }));
  }
  // A database at rest, as an account that grew over months is: statistics gathered and, on PostgreSQL,
  // the bulk load vacuumed and checkpointed, so autovacuum and checkpoint writes do not run mid-measurement.
  const analyzeStarted = performance.now();
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') {
    await sql`vacuum (analyze)`.execute(database.db);
    await sql`checkpoint`.execute(database.db);
  } else {
    await sql`analyze`.execute(database.db);
  }
  const analyzeSeconds = round((performance.now() - analyzeStarted) / 1000, 1);
  const loopFile = path.join(work, `loop-${engine}.json`);
  const server = await startBms({ ...env, BENCH_LOOP_FILE: loopFile }, [
    '--import',
    path.join(ROOT, 'bench/loop-delay.mjs'),
  ]);
  // Measured once the server says it takes traffic: on a fresh seed its start-up work holds the event loop, and the
  // overload guard answers 503 until the lag falls.
  await waitForHttp(`${server.url}/ready`);
  // SQLite: the clients' FTS5 index as the server keeps it at rest, merged into one segment by its tidy
  // (db/sqlite/sqlite-index-tidy.ts) after the seed's commits, before anything is measured.
  const tidySeconds = config.kind === 'sqlite' ? await untilIndexTidy(config.path) : 0;
  const pid = server.process.pid as number;
  const results: Measured[] = [];
  // SCALE_SHAPES=<regular expression>: only the shapes whose name it matches (and each group's first page).
  const shapes = new RegExp(process.env.SCALE_SHAPES ?? '');
  const chosen = (await scenarios(database, seeded)).filter(
    ([group, name], index, all) => shapes.test(name) || all.findIndex(([other]) => other === group) === index,
  );
  // Each shape against its group's first page measured with it, request by request (measure's baselineUrl).
  const firstUrls: Record<string, string> = {};
  for (const [group, name, url] of chosen) {
    const firstUrl = firstUrls[group];
    firstUrls[group] ??= url;
    const { baseline, ...figures } = await measure(server.url, key, url, pid, loopFile, firstUrl);
    const first = baseline ?? figures;
    results.push({
      scenario: `${group}: ${name}`,
      ...figures,
      firstP50: first.p50,
      firstP99: first.p99,
      ratioP50: round(figures.p50 / first.p50),
      ratioP99: round(figures.p99 / first.p99),
    });
    console.log(engine, results.at(-1));
  }
  await stop(server.process);
  await database.close();
  return { engine, seedSeconds: seeded.seconds, migrationSeconds, analyzeSeconds, tidySeconds, results };
}

function markdown(runs: Array<Awaited<ReturnType<typeof runEngine>>>, machine: Record<string, unknown>): string {
  const lines = [
    `# Scale benchmark`,
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `${ROWS} clients and ${ROWS} invoices (over ${INVOICE_CLIENTS} clients) in one account; ${REQUESTS} sequential requests per row, each after one of its group's first page (the ratios' baseline, measured alongside: "first page" columns). Targets: ratio ≤ 2, event-loop max delay ≤ 50 ms, no non-200. Rows: on the page asked for (limit 25); fewer with "(more)" is a walk that stopped at its bound of 500 index entries and resumes by cursor.`,
    '',
  ];
  for (const run of runs) {
    const missed = run.results.filter(
      (row) => row.ratioP50 > 2 || row.ratioP99 > 2 || row.loopMaxMs > 50 || row.non200 > 0,
    );
    lines.push(
      `## ${run.engine}`,
      '',
      `Seeded in ${run.seedSeconds} s; migration 20261122070000_range_indexes (4 indexes, dropped and built again) ${run.migrationSeconds} s; ANALYZE (PostgreSQL: VACUUM ANALYZE and CHECKPOINT) ${run.analyzeSeconds} s${run.engine === 'SQLite' ? `; the FTS5 index in one segment ${run.tidySeconds} s after the server was ready` : ''}. ${missed.length === 0 ? 'Every row meets the targets.' : `${missed.length} rows miss a target: ${missed.map((row) => row.scenario).join('; ')}.`}`,
      '',
    );
    lines.push(
      '| scenario | p50 ms | p99 ms | first page p50 ms | first page p99 ms | p50 ratio | p99 ratio | loop max ms | non-200 | rows (has_more) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of run.results)
      lines.push(
        `| ${row.scenario} | ${row.p50} | ${row.p99} | ${row.firstP50} | ${row.firstP99} | ${row.ratioP50} | ${row.ratioP99} | ${row.loopMaxMs} | ${row.non200} | ${row.rows}${row.hasMore ? ' (more)' : ''} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = await onEachEngine(`scale${ROWS}`, runEngine, KEEP);
  const text = markdown(runs, machine);
  const results = path.join(ROOT, 'bench/results');
  fs.writeFileSync(
    path.join(results, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ machine, rows: ROWS, runs }, null, 2),
  );
  if (ROWS === 1_000_000 && !process.env.SCALE_SHAPES) fs.writeFileSync(path.join(results, 'scale-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
