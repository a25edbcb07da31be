// Reports at scale (contract §24 "Scale"): one account with 100,000 sent invoices over the last 400 days (two tax
// rates) spread over 1,000 jobs, their payments (70 %, a fifth of them partial) and credit notes (10 %), and the
// ledger entries and day totals they post, through a production-configured server. Measured in the same run: each
// report's JSON page (aging at an as_of in the last year, by client and by invoice; a client's statement over a
// year; revenue accrual by month and cash by week over a quarter; the tax summary over a year) against a 100-row
// page of GET /v1/invoices, median and p99, and the server's longest event-loop hold while each is asked.
// Target: each ≤ 10× the invoice page (median and p99). The invoices are cloned from one made through the API and
// their entries written as `postEntries` writes them (the day totals, cash day totals, open items and invoice figures
// by the ledger's own keepers); the payments' and credit notes' own rows are not written (the reports read the ledger
// only).
// A client's statement is also asked at its first and its last page of 10 lines (the last reached by following the
// cursors): a keyset cursor, so the last page costs what the first does.
// `npm run bench:reports`; REPORTS_INVOICES (the size: default 100000; a few hundred proves it runs),
// REPORTS_REQUESTS (30), SCALE_ENGINE (sqlite | postgres). Only the 100,000-invoice run writes bench/results.
// REPORTS_CASES (a regular expression: only the requests it matches, beside the invoice page). REPORTS_AGAINST
// (another build's dist/main.js, e.g. a copy of the commit before a change): on the same seeded database, the
// requests are asked of this build and of that one in turns, REPORTS_ROUNDS (2) times each, so that a before and
// an after are measured minutes apart at the same load (the migrations that build does not know are hidden from it
// while it serves: `migrationsFor`). Each request also reports the server's CPU time per request.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase, type Database } from '../src/db/database.js';
import type { InvoiceRow, LedgerEntryRow } from '../src/db/types.js';
import { keepCashDayTotals } from '../src/modules/ledger/ledger.cash-totals.js';
import { keepDayTotals } from '../src/modules/ledger/ledger.day-totals.js';
import { keepEntryDays } from '../src/modules/ledger/ledger.entry-days.js';
import { keepInvoiceFigures } from '../src/modules/ledger/ledger.invoice-figures.js';
import { keepOpenItems } from '../src/modules/ledger/ledger.open-items.js';
import { api, cpuMs, prepare, ROOT, startBms, stop, work, onEachEngine } from './lib.js';

const INVOICES = Number(process.env.REPORTS_INVOICES ?? 100_000);
const REQUESTS = Number(process.env.REPORTS_REQUESTS ?? 30);
const CLIENTS = 200;
/** Jobs the invoices are spread over (job profitability's rows): one made through the API, cloned. */
const JOBS = 1_000;
const DAY = 86_400_000;
const TODAY = new Date().toISOString().slice(0, 10);
const dayBefore = (days: number) => new Date(Date.parse(TODAY) - days * DAY).toISOString().slice(0, 10);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/** Clients and rates through the API; one invoice through it, cloned; the ledger written as it posts. */
async function seed(database: Database, base: string, key: string, accountId: string) {
  const clients: string[] = [];
  for (let index = 0; index < CLIENTS; index++)
    clients.push((await api(base, key, 'POST', '/v1/clients', { name: `Client ${index}` })).json.data.id);
  const gst = (await api(base, key, 'POST', '/v1/tax-rates', { name: 'GST', percentage: 5 })).json.data;
  const pst = (await api(base, key, 'POST', '/v1/tax-rates', { name: 'PST', percentage: 7 })).json.data;
  const { db } = database;
  const madeJob = (await api(base, key, 'POST', '/v1/jobs', { client_id: clients[0], title: 'Job 0' })).json.data;
  const jobTemplate = (await db.selectFrom('jobs').selectAll().where('id', '=', madeJob.id).executeTakeFirst())!;
  const jobs = [madeJob.id as string];
  const jobRows = Array.from({ length: JOBS - 1 }, (_, index) => {
    const id = uuidv7();
    jobs.push(id);
    const seq = Number(jobTemplate.number_seq) + index + 1;
    return {
      ...jobTemplate,
      id,
      title: `Job ${index + 1}`,
      number: `J-${String(seq).padStart(6, '0')}`,
      number_seq: seq,
    };
  });
  for (let at = 0; at < jobRows.length; at += 200)
    await db
      .insertInto('jobs')
      .values(jobRows.slice(at, at + 200))
      .execute();
  const made = (
    await api(base, key, 'POST', '/v1/invoices', {
      client_id: clients[0],
      line_items: [
        { description: 'Labour', quantity: 1, unit_amount: 20_000, tax_rate_ids: [gst.id, pst.id] },
        { description: 'Parts', quantity: 1, unit_amount: 5_000, tax_rate_ids: [gst.id] },
      ],
    })
  ).json.data;
  const template = (await db.selectFrom('invoices').selectAll().where('id', '=', made.id).executeTakeFirst())!;
  await db.deleteFrom('invoices').where('id', '=', made.id).execute();
  // 25,000 net: GST 5 % of 25,000 = 1,250, PST 7 % of 20,000 = 1,400; total 27,650.
  const taxes = [
    { tax_rate_id: gst.id, name: 'GST', percentage: 5, taxable_amount: 25_000, tax_amount: 1_250 },
    { tax_rate_id: pst.id, name: 'PST', percentage: 7, taxable_amount: 20_000, tax_amount: 1_400 },
  ];
  const now = new Date().toISOString();
  const actor = JSON.stringify({ type: 'system', id: null });
  const balances = new Map<string, number>();
  let sequence = 0;
  for (let from = 0; from < INVOICES; from += 1_000) {
    await db.transaction().execute(async (trx) => {
      const invoices: InvoiceRow[] = [];
      const entries: LedgerEntryRow[] = [];
      const post = (fields: Partial<LedgerEntryRow> & { client_id: string; type: string; effective_date: string }) => {
        sequence += 1;
        const balance = (balances.get(fields.client_id) ?? 0) + Number(fields.amount ?? 0);
        balances.set(fields.client_id, balance);
        entries.push({
          id: uuidv7(),
          account_id: accountId,
          sequence,
          currency: 'USD',
          amount: 0,
          applied_amount: 0,
          balance_amount: balance,
          invoice_id: null,
          credit_note_id: null,
          payment_id: null,
          refund_id: null,
          application_id: null,
          due_date: null,
          net_amount: null,
          tax_amount: null,
          cost_amount: null,
          lines_without_cost: null,
          taxes: null,
          actor,
          created_at: now,
          ...fields,
        });
      };
      for (let index = from; index < Math.min(INVOICES, from + 1_000); index++) {
        const id = uuidv7();
        const clientId = clients[index % CLIENTS] as string;
        const issued = dayBefore(400 - Math.floor((index * 400) / INVOICES));
        const due = new Date(Date.parse(issued) + 30 * DAY).toISOString().slice(0, 10);
        const paid = index % 10 < 7 ? (index % 5 === 0 ? 10_000 : 27_650) : 0;
        const credited = index % 10 === 7 ? 2_765 : 0;
        invoices.push({
          ...template,
          id,
          client_id: clientId,
          job_id: jobs[index % JOBS] as string,
          number: `INV-${String(index + 2).padStart(6, '0')}`,
          number_seq: index + 2,
          issue_date: issued,
          due_date: due,
          status: paid === 27_650 ? 'paid' : 'sent',
          amount_paid: paid,
          amount_credited: credited,
          sent_at: `${issued}T12:00:00.000Z`,
          created_at: `${issued}T11:00:00.000Z`,
          updated_at: now,
        } as InvoiceRow);
        post({
          client_id: clientId,
          type: 'invoice_issued',
          effective_date: issued,
          amount: 27_650,
          invoice_id: id,
          due_date: due,
          net_amount: 25_000,
          tax_amount: 2_650,
          taxes: JSON.stringify(taxes),
        });
        if (paid > 0) {
          const paidOn = new Date(Math.min(Date.parse(TODAY), Date.parse(issued) + (index % 45) * DAY))
            .toISOString()
            .slice(0, 10);
          const payment = uuidv7();
          post({
            client_id: clientId,
            type: 'payment_received',
            effective_date: paidOn,
            amount: -paid,
            payment_id: payment,
          });
          post({
            client_id: clientId,
            type: 'applied',
            effective_date: paidOn,
            applied_amount: paid,
            payment_id: payment,
            invoice_id: id,
            application_id: uuidv7(),
          });
        }
        if (credited > 0) {
          const note = uuidv7();
          post({
            client_id: clientId,
            type: 'credit_note_issued',
            effective_date: issued,
            amount: -credited,
            credit_note_id: note,
            invoice_id: id,
            net_amount: -2_500,
            tax_amount: -265,
            taxes: JSON.stringify(
              taxes.map((tax) => ({
                ...tax,
                taxable_amount: -tax.taxable_amount / 10,
                tax_amount: -tax.tax_amount / 10,
              })),
            ),
          });
          post({
            client_id: clientId,
            type: 'applied',
            effective_date: issued,
            applied_amount: credited,
            credit_note_id: note,
            invoice_id: id,
            application_id: uuidv7(),
          });
        }
      }
      for (let at = 0; at < invoices.length; at += 200)
        await trx
          .insertInto('invoices')
          .values(invoices.slice(at, at + 200))
          .execute();
      for (let at = 0; at < entries.length; at += 500)
        await trx
          .insertInto('ledger_entries')
          .values(entries.slice(at, at + 500))
          .execute();
      const posted = entries.map((entry) => ({
        ...entry,
        sequence: Number(entry.sequence),
        amount: Number(entry.amount),
        applied_amount: Number(entry.applied_amount),
        net_amount: entry.net_amount === null ? null : Number(entry.net_amount),
        tax_amount: entry.tax_amount === null ? null : Number(entry.tax_amount),
        taxes: entry.taxes === null ? null : JSON.parse(entry.taxes),
      }));
      // What `postEntries` keeps beside the entries, by its own keepers.
      await keepDayTotals(trx, accountId, posted);
      await keepOpenItems(trx, accountId, posted);
      await keepEntryDays(trx, accountId, posted);
      await keepCashDayTotals(trx, accountId, posted);
      await keepInvoiceFigures(trx, accountId, posted);
    });
  }
  await db.deleteFrom('account_counters').where('account_id', '=', accountId).where('name', '=', 'ledger').execute();
  await db.insertInto('account_counters').values({ account_id: accountId, name: 'ledger', value: sequence }).execute();
  return clients;
}

/** The loop figures the server wrote on the last SIGUSR2: read again until whole (a busy server writes late). */
async function readLoop(loopFile: string): Promise<{ maxMs: number }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return JSON.parse(fs.readFileSync(loopFile, 'utf8')) as { maxMs: number };
    } catch (error) {
      if (attempt === 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function measure(base: string, key: string, url: string, pid: number, loopFile: string) {
  const headers = { authorization: `Bearer ${key}` };
  for (let warm = 0; warm < 3; warm++) await (await fetch(`${base}${url}`, { headers })).arrayBuffer();
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpuBefore = cpuMs(pid);
  const latencies: number[] = [];
  let non200 = 0;
  for (let request = 0; request < REQUESTS; request++) {
    const started = performance.now();
    const response = await fetch(`${base}${url}`, { headers });
    const text = await response.text();
    latencies.push(performance.now() - started);
    if (response.status !== 200) {
      non200++;
      if (non200 === 1) console.error(url, response.status, text.slice(0, 300));
    }
  }
  const cpuPerRequest = (cpuMs(pid) - cpuBefore) / REQUESTS;
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const loop = await readLoop(loopFile);
  latencies.sort((a, b) => a - b);
  return {
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    cpuMs: round(cpuPerRequest, 1),
    non200,
    loopMaxMs: round(loop.maxMs),
  };
}

/** The cursor of the last page of `url` (null when it has one page), following each page's `next_cursor`. */
async function lastCursorOf(base: string, key: string, url: string): Promise<string | null> {
  let cursor: string | null = null;
  for (;;) {
    const page = (await api(base, key, 'GET', cursor ? `${url}&cursor=${cursor}` : url)).json;
    const next = page.meta.pagination.next_cursor as string | null;
    if (next === null) return cursor;
    cursor = next;
  }
}

const CASES = process.env.REPORTS_CASES === undefined ? null : new RegExp(process.env.REPORTS_CASES);
const AGAINST = process.env.REPORTS_AGAINST;
const ROUNDS = AGAINST === undefined ? 1 : Number(process.env.REPORTS_ROUNDS ?? 2);

/**
 * The migration table as `entry`'s build expects it (this build's: undefined): the migrations this build ran that
 * that build does not know (by its `dist/db/migrations`) are hidden while it serves, and given back before this build
 * serves again. The schema stays this build's, whose added columns and indexes an older build does not read.
 */
async function migrationsFor(
  config: Parameters<typeof openDatabase>[0],
  entry: string | undefined,
  hidden: { name: string; timestamp: string }[],
) {
  const { sql } = await import('kysely');
  const database = openDatabase(config);
  try {
    if (entry === undefined) {
      for (const row of hidden.splice(0))
        await sql`insert into kysely_migration (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(
          database.db,
        );
      return;
    }
    const known = new Set(
      fs.readdirSync(path.join(path.dirname(entry), 'db/migrations')).map((file) => file.replace(/\.js(\.map)?$/, '')),
    );
    const rows = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration`.execute(
      database.db,
    );
    for (const row of rows.rows.filter((row) => !known.has(row.name))) {
      hidden.push(row);
      await sql`delete from kysely_migration where name = ${row.name}`.execute(database.db);
    }
  } finally {
    await database.close();
  }
}

/** A production-configured server of this build (or `entry`'s) with the event-loop probe. */
function startServer(env: Record<string, string>, loopFile: string, entry?: string) {
  return startBms({ ...env, BENCH_LOOP_FILE: loopFile }, ['--import', path.join(ROOT, 'bench/loop-delay.mjs')], entry);
}

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  const seeded = await prepare(env);
  const loopFile = path.join(work, `reports-loop-${engine}.json`);
  let server = await startServer(env, loopFile);
  const database = openDatabase(config);
  const started = performance.now();
  const clients = await seed(database, server.url, seeded.key, seeded.accountId);
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') await sql`vacuum (analyze)`.execute(database.db);
  else await sql`analyze`.execute(database.db);
  await database.close();
  console.log(
    `${engine}: seeded ${INVOICES} invoices with their payments, credit notes and entries in ${seedSeconds} s`,
  );
  const asOf = dayBefore(120);
  const statement = `/v1/reports/client-statement?client_id=${clients[7]}&from=${dayBefore(400)}&to=${TODAY}&limit=10`;
  const lastPage = await lastCursorOf(server.url, seeded.key, statement);
  const all: [string, string][] = [
    ['invoices page (baseline)', '/v1/invoices?limit=100'],
    ['aged receivables by client', `/v1/reports/aged-receivables?as_of=${asOf}`],
    ['aged receivables by invoice', `/v1/reports/aged-receivables?as_of=${asOf}&group_by=invoice`],
    [
      'client statement, a year',
      `/v1/reports/client-statement?client_id=${clients[7]}&from=${dayBefore(365)}&to=${TODAY}`,
    ],
    ['client statement, first page of 10 lines', statement],
    ['client statement, last page of 10 lines', lastPage ? `${statement}&cursor=${lastPage}` : statement],
    ['revenue accrual, a year by month', `/v1/reports/revenue?from=${dayBefore(365)}&to=${TODAY}&interval=month`],
    [
      'revenue cash, a quarter by week',
      `/v1/reports/revenue?from=${dayBefore(200)}&to=${dayBefore(110)}&interval=week&basis=cash`,
    ],
    ['tax summary accrual, a year', `/v1/reports/tax-summary?from=${dayBefore(365)}&to=${TODAY}`],
    [
      'revenue cash, a year by month',
      `/v1/reports/revenue?from=${dayBefore(365)}&to=${TODAY}&interval=month&basis=cash`,
    ],
    ['aged receivables today', '/v1/reports/aged-receivables'],
    ['job profitability, a year', `/v1/reports/job-profitability?from=${dayBefore(365)}&to=${TODAY}`],
  ];
  const cases = all.filter(([name], index) => index === 0 || CASES === null || CASES.test(name));
  const builds = AGAINST === undefined ? [undefined] : [undefined, AGAINST];
  const runs = [];
  const hidden: { name: string; timestamp: string }[] = [];
  for (let turn = 0; turn < ROUNDS * builds.length; turn++) {
    const build = builds[turn % builds.length];
    if (turn > 0) {
      await migrationsFor(config, build, hidden);
      server = await startServer(env, loopFile, build);
    }
    const pid = server.process.pid as number;
    const results = [];
    for (const [name, url] of cases)
      results.push({ name, ...(await measure(server.url, seeded.key, url, pid, loopFile)) });
    await stop(server.process);
    const baseline = results[0]!;
    const rows = results.map((result) => ({
      ...result,
      ratioP50: round(result.p50 / baseline.p50),
      ratioP99: round(result.p99 / baseline.p99),
    }));
    const label = `${engine}${build === undefined ? '' : ' (against)'}`;
    console.log(JSON.stringify({ engine: label, seedSeconds, load: os.loadavg()[0], rows }));
    runs.push({ engine: label, seedSeconds, rows });
  }
  return runs;
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = (await onEachEngine('reports', runEngine)).flat();
  const lines = [
    '# Reports benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `${INVOICES} invoices (their payments, credit notes and ledger entries) in one account; ${REQUESTS} sequential requests each. Each report's JSON page against GET /v1/invoices?limit=100. Target: ratio ≤ 10 at p50 and p99.`,
    '',
    '| engine | request | p50 / p99 ms | ratio p50 / p99 | CPU ms a request | longest hold ms | non-200 |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...runs.flatMap((run) =>
      run.rows.map(
        (row) =>
          `| ${run.engine} | ${row.name} | ${row.p50} / ${row.p99} | ${row.ratioP50} / ${row.ratioP99} | ${row.cpuMs} | ${row.loopMaxMs} | ${row.non200} |`,
      ),
    ),
    '',
  ];
  const text = lines.join('\n');
  if (INVOICES === 100_000) fs.writeFileSync(path.join(ROOT, 'bench/results/reports-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
