// The calendar at scale (contract sections 13 and 17): 100,000 visits and 50 team members in one account,
// against the same questions asked of an account with 100 visits, on SQLite and PostgreSQL, through a
// production-configured server: a week for one assignee, a month with unassigned=true, with client_id=, with
// late=true. Target: each within 2× of its p50 at 100 visits.
// `npm run build && node --import tsx bench/calendar.ts`; CALENDAR_VISITS, CALENDAR_REQUESTS, SCALE_ENGINE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openDatabase, type Database } from '../src/db/database.js';
import type { JobRow, VisitAssigneeRow, VisitRow } from '../src/db/types.js';
import { ROOT, prepare, startBms, stop, onEachEngine } from './lib.js';

const VISITS = Number(process.env.CALENDAR_VISITS ?? 100_000);
const SMALL = 100;
const MEMBERS = 50;
const REQUESTS = Number(process.env.CALENDAR_REQUESTS ?? 100);
const YEAR = Date.parse('2026-01-01T00:00:00.000Z');
const JUNE = Date.parse('2026-06-01T00:00:00.000Z');
const HOUR = 3_600_000;
const NOW = Date.now();

interface Account {
  accountId: string;
  key: string;
  members: string[];
  clients: string[];
}

/** `visits` visits over 2026 (a quarter-hour grid from 07:00 UTC), 1–3 hours long; 10 % unassigned, 5 % with two. */
/**
 * `year`: `visits` visits over 2026. `page`: the small account, whose visits all fall in the first week of June
 * so that each question's answer is a full page there too (a third on member 7, a third unassigned, half for
 * client 3, all scheduled and so late): the two accounts then differ in size, not in what a page holds.
 */
async function seedAccount(
  database: Database,
  accountId: string,
  visits: number,
  shape: 'year' | 'page' = 'year',
): Promise<Omit<Account, 'key'>> {
  const { db } = database;
  const now = new Date().toISOString();
  const members: string[] = [];
  await db
    .insertInto('team_members')
    .values(
      Array.from({ length: MEMBERS }, (_, index) => {
        const id = uuidv7();
        members.push(id);
        return {
          id,
          account_id: accountId,
          name: `Member ${index}`,
          sort_name: `member ${index}`,
          email: null,
          phone: null,
          role: 'field',
          color: null,
          timezone: 'UTC',
          active: 1,
          external_id: null,
          metadata: '{}',
          created_at: now,
          updated_at: now,
        };
      }),
    )
    .execute();
  const clientCount = Math.max(10, Math.floor(visits / 100));
  const clients: string[] = [];
  const jobs: string[] = [];
  for (let from = 0; from < clientCount; from += 500) {
    await db.transaction().execute(async (trx) => {
      const clientRows = [];
      const jobRows: Omit<JobRow, 'tags'>[] = [];
      for (let index = from; index < Math.min(clientCount, from + 500); index++) {
        const clientId = uuidv7();
        const jobId = uuidv7();
        clients.push(clientId);
        jobs.push(jobId);
        clientRows.push({
          id: clientId,
          account_id: accountId,
          external_id: null,
          name: `Client ${index}`,
          sort_name: `client ${index}`,
          email: null,
          phone: null,
          company_name: null,
          address: null,
          notes: null,
          metadata: '{}',
          created_at: now,
          updated_at: now,
        });
        jobRows.push({
          id: jobId,
          account_id: accountId,
          external_id: null,
          client_id: clientId,
          property_id: null,
          quote_id: null,
          request_id: null,
          number: `J-${String(index + 1).padStart(6, '0')}`,
          number_seq: index + 1,
          title: 'Weekly service',
          description: null,
          currency: 'USD',
          line_items: '[]',
          subtotal_amount: 0,
          tax_amount: 0,
          total_amount: 0,
          prices_include_tax: 0,
          rounding: 'per_line',
          discount: null,
          discount_amount: 0,
          tax_breakdown: null,
          scheduled_start: null,
          scheduled_end: null,
          status: 'scheduled',
          completed_at: null,
          visits_total: 0,
          visits_open: 0,
          visits_completed: 0,
          visits_next_start_at: null,
          metadata: '{}',
          custom_fields: '{}',
          created_at: now,
          updated_at: now,
        });
      }
      await trx.insertInto('clients').values(clientRows).execute();
      await trx.insertInto('jobs').values(jobRows).execute();
    });
  }
  const slots = 365 * 40;
  for (let from = 0; from < visits; from += 5000) {
    await db.transaction().execute(async (trx) => {
      for (let at = from; at < Math.min(visits, from + 5000); at += 500) {
        const rows: Omit<VisitRow, 'tags'>[] = [];
        const assignees: VisitAssigneeRow[] = [];
        for (let index = at; index < Math.min(visits, at + 500); index++) {
          // Spread evenly over the year whatever the count: the small account's visits are as dated as the large one's.
          const slot = Math.floor((index * slots) / visits);
          const start =
            shape === 'page'
              ? JUNE + (index % 7) * 24 * HOUR + 7 * HOUR + Math.floor(index / 7) * 15 * 60_000
              : YEAR + Math.floor(slot / 40) * 24 * HOUR + 7 * HOUR + (slot % 40) * 15 * 60_000;
          const end = start + (1 + (index % 3)) * HOUR;
          const past = end < NOW;
          const status =
            shape === 'page' ? 'scheduled' : past ? (index % 33 === 0 ? 'scheduled' : 'completed') : 'scheduled';
          const id = uuidv7();
          const on =
            shape === 'page'
              ? [[7], [], [index % MEMBERS]][index % 3]!
              : index % 10 === 0
                ? []
                : index % 20 === 1
                  ? [index % MEMBERS, (index + 7) % MEMBERS]
                  : [index % MEMBERS];
          const jobIndex = shape === 'page' && index % 2 === 0 ? 3 : index % jobs.length;
          rows.push({
            id,
            account_id: accountId,
            job_id: jobs[jobIndex]!,
            client_id: clients[jobIndex]!,
            property_id: null,
            title: 'Weekly service',
            instructions: null,
            status,
            all_day: 0,
            timezone: 'UTC',
            start_at: new Date(start).toISOString(),
            end_at: new Date(end).toISOString(),
            start_date: null,
            end_date: null,
            arrival_window_minutes: null,
            assignee_count: on.length,
            en_route_at: null,
            started_at: status === 'completed' ? new Date(start).toISOString() : null,
            completed_at: status === 'completed' ? new Date(end).toISOString() : null,
            canceled_at: null,
            cancel_reason: null,
            completion_notes: null,
            schedule_id: null,
            occurrence_key: null,
            is_exception: 0,
            hold_id: null,
            external_id: null,
            metadata: '{}',
            custom_fields: '{}',
            created_at: now,
            updated_at: now,
          });
          on.forEach((member, position) =>
            assignees.push({
              account_id: accountId,
              visit_id: id,
              team_member_id: members[member]!,
              position,
              start_at: new Date(start).toISOString(),
              end_at: new Date(end).toISOString(),
              status,
              created_at: now,
            }),
          );
        }
        await trx.insertInto('visits').values(rows).execute();
        if (assignees.length > 0) await trx.insertInto('visit_assignees').values(assignees).execute();
      }
    });
  }
  // What the visits service records on each write: the longest visit (3 hours here).
  await db.insertInto('visit_spans').values({ account_id: accountId, longest_minutes: 180 }).execute();
  return { accountId, members, clients };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

async function measure(base: string, key: string, url: string) {
  const headers = { authorization: `Bearer ${key}` };
  for (let warm = 0; warm < 5; warm += 1) await (await fetch(`${base}${url}`, { headers })).arrayBuffer();
  const latencies: number[] = [];
  let non200 = 0;
  let rows = 0;
  for (let request = 0; request < REQUESTS; request += 1) {
    const started = performance.now();
    const response = await fetch(`${base}${url}`, { headers });
    const text = await response.text();
    latencies.push(performance.now() - started);
    if (response.status !== 200) non200 += 1;
    else rows = (JSON.parse(text) as { data: unknown[] }).data.length;
  }
  latencies.sort((a, b) => a - b);
  return { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), non200, rows };
}

const scenarios = (account: Account): Array<[string, string]> => [
  ['a week for one assignee', `from_date=2026-06-01&to_date=2026-06-07&timezone=UTC&assignee_id=${account.members[7]}`],
  ['a month, unassigned=true', 'from=2026-06-01T00:00:00Z&to=2026-07-01T00:00:00Z&unassigned=true'],
  ['a month, client_id=', `from=2026-06-01T00:00:00Z&to=2026-07-01T00:00:00Z&client_id=${account.clients[3]}`],
  ['a month, late=true', 'from=2026-06-01T00:00:00Z&to=2026-07-01T00:00:00Z&late=true'],
  ['a week, the whole account', 'from=2026-06-01T00:00:00Z&to=2026-06-08T00:00:00Z'],
];

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  const big = await prepare(env);
  const small = await prepare(env);
  const database = openDatabase(config);
  const keys = await database.db.selectFrom('api_keys').select('account_id').orderBy('created_at').execute();
  const started = performance.now();
  const accounts = {
    large: { ...(await seedAccount(database, keys[0]!.account_id, VISITS)), key: big.key },
    small: { ...(await seedAccount(database, keys[1]!.account_id, SMALL, 'page')), key: small.key },
  };
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') {
    await sql`vacuum (analyze)`.execute(database.db);
    await sql`checkpoint`.execute(database.db);
  } else await sql`analyze`.execute(database.db);
  console.log(`${engine}: seeded ${VISITS} + ${SMALL} visits in ${seedSeconds} s`);
  const server = await startBms(env);
  const results = [];
  const smallScenarios = scenarios(accounts.small);
  for (const [index, [name, query]] of scenarios(accounts.large).entries()) {
    const large = await measure(server.url, accounts.large.key, `/v1/visits?limit=25&${query}`);
    const few = await measure(server.url, accounts.small.key, `/v1/visits?limit=25&${smallScenarios[index]![1]}`);
    const row = { scenario: name, large, small: few, ratioP50: round(large.p50 / few.p50) };
    results.push(row);
    console.log(engine, JSON.stringify(row));
  }
  await stop(server.process);
  await database.close();
  return { engine, seedSeconds, results };
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = await onEachEngine('calendar', runEngine);
  const lines = [
    '# Calendar benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `${VISITS} visits and ${MEMBERS} team members in one account (2026, ~${Math.round(VISITS / 365)} a day), against the same query of an account with ${SMALL} visits (all in the week asked, so that its pages are as full); ${REQUESTS} sequential requests each, limit 25. Target: p50 ratio ≤ 2.`,
    '',
  ];
  for (const run of runs) {
    lines.push(`## ${run.engine}`, '', `Seeded in ${run.seedSeconds} s.`, '');
    lines.push(
      '| scenario | p50 ms (large) | p99 ms (large) | rows | p50 ms (100 visits) | rows | p50 ratio | non-200 |',
    );
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of run.results)
      lines.push(
        `| ${row.scenario} | ${row.large.p50} | ${row.large.p99} | ${row.large.rows} | ${row.small.p50} | ${row.small.rows} | ${row.ratioP50} | ${row.large.non200 + row.small.non200} |`,
      );
    lines.push('');
  }
  const text = lines.join('\n');
  if (VISITS === 100_000) fs.writeFileSync(path.join(ROOT, 'bench/results/calendar-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
