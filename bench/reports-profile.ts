// Where a report's time goes on SQLite (bench/README.md, "Reports at scale"): on a database a `bench:reports` run
// left (its file as the argument), each report the run measures is asked again in-process on a read snapshot as the
// server reads it, with every query logged. Per query shape: how many times it ran, its time through Kysely (the
// query, its rows made into objects), the query alone (`select count(*)` of it) and its rows as arrays; the rest of
// the report's time is its JavaScript (the sums, the rows) and its turns of the event loop (the idle time between
// its pieces, from the loop's utilization).
// `node --import tsx bench/reports-profile.ts /tmp/bms-bench-…/reports.sqlite` (after `npm run bench:reports` at
// the size wanted, SCALE_ENGINE=sqlite).
import { performance } from 'node:perf_hooks';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Tables } from '../src/db/types.js';
import type { Context } from '../src/kernel/context.js';
import { lastEntrySequence } from '../src/modules/ledger/index.js';
import type { Standing } from '../src/modules/reports/index.js';
import { agedReceivables } from '../src/modules/reports/reports.receivables.js';
import { jobProfitability } from '../src/modules/reports/reports.jobs.js';

const file = process.argv[2];
if (!file) throw new Error('usage: reports-profile.ts FILE');
const DAY = 86_400_000;
const TODAY = new Date().toISOString().slice(0, 10);
const dayBefore = (days: number) => new Date(Date.parse(TODAY) - days * DAY).toISOString().slice(0, 10);
const round = (value: number) => Math.round(value * 100) / 100;

interface Logged {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}

async function profile(
  name: string,
  run: (ctx: Context, standing: Standing) => Promise<unknown>,
  times = 5,
  sequenceOf: (latest: number) => number = (latest) => latest,
) {
  const best: { total: number; idle: number; queries: Logged[] }[] = [];
  for (let time = 0; time < times; time++) {
    const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    const queries: Logged[] = [];
    const db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: connection }),
      log: (event) => {
        if (event.level === 'query')
          queries.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
      },
    });
    const account = connection.prepare('select id from accounts order by created_at desc limit 1').get() as {
      id: string;
    };
    const sequence = sequenceOf(await lastEntrySequence(db, account.id));
    const standing: Standing = {
      currency: 'USD',
      timezone: 'UTC',
      sequence,
      today: TODAY,
      after: null,
      limit: 100,
      computedAt: new Date().toISOString(),
    };
    queries.length = 0;
    const startUse = performance.eventLoopUtilization();
    const started = performance.now();
    await db.transaction().execute((trx) => run({ db: trx, accountId: account.id } as unknown as Context, standing));
    const total = performance.now() - started;
    const use = performance.eventLoopUtilization(startUse);
    best.push({ total, idle: use.idle, queries: [...queries] });
    await db.destroy();
  }
  best.sort((a, b) => a.total - b.total);
  const chosen = best[Math.floor(best.length / 2)]!;
  // The queries again on a warm connection of their own: alone (a count of the rows), and as arrays.
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  const shapes = new Map<
    string,
    { count: number; kysely: number; alone: number; arrays: number; rows: number; plan: string }
  >();
  for (const query of chosen.queries) {
    const shape = query.sql.replace(/\?(, \?)*/g, '?').slice(0, 90);
    const parameters = query.parameters as unknown[];
    const figures = shapes.get(shape) ?? { count: 0, kysely: 0, alone: 0, arrays: 0, rows: 0, plan: '' };
    const statement = connection.prepare(query.sql);
    if (statement.reader && figures.plan === '')
      figures.plan = (connection.prepare(`explain query plan ${query.sql}`).all(parameters) as { detail: string }[])
        .map((step) =>
          step.detail.replace(/USING (COVERING )?INDEX \w+/, (found) => found.replace(/ledger_open_items_/, '')),
        )
        .filter((detail, index, all) => all.indexOf(detail) === index)
        .join('; ')
        .slice(0, 160);
    let at = performance.now();
    if (statement.reader) {
      connection.prepare(`select count(*) from (${query.sql})`).pluck().get(parameters);
      figures.alone += performance.now() - at;
      at = performance.now();
      figures.rows += (statement.raw(true).all(parameters) as unknown[]).length;
      figures.arrays += performance.now() - at;
    }
    figures.count += 1;
    figures.kysely += query.ms;
    shapes.set(shape, figures);
  }
  connection.close();
  const queryMs = chosen.queries.reduce((sum, query) => sum + query.ms, 0);
  console.log(
    `\n## ${name}: ${round(chosen.total)} ms (median of ${times}); queries through Kysely ${round(queryMs)} ms, ` +
      `idle (turns of the loop) ${round(chosen.idle)} ms, ` +
      `the rest (JavaScript) ${round(chosen.total - queryMs - chosen.idle)} ms`,
  );
  console.log(
    '| query | runs | rows | Kysely ms | alone ms | as arrays ms | plan |\n|---|---:|---:|---:|---:|---:|---|',
  );
  for (const [shape, figures] of [...shapes].sort(([, a], [, b]) => b.kysely - a.kysely))
    console.log(
      `| ${shape} | ${figures.count} | ${figures.rows} | ${round(figures.kysely)} | ${round(figures.alone)} | ${round(figures.arrays)} | ${figures.plan} |`,
    );
}

const asOf = dayBefore(120);
await profile('aged receivables by client, as_of 120 days back', (ctx, standing) =>
  agedReceivables(ctx, standing, { as_of: asOf } as never),
);
await profile('aged receivables by invoice, as_of 120 days back', (ctx, standing) =>
  agedReceivables(ctx, standing, { as_of: asOf, group_by: 'invoice' } as never),
);
await profile(
  'aged receivables by client, as_of 120 days back, at ledger_sequence = 90 % of the latest',
  (ctx, standing) => agedReceivables(ctx, standing, { as_of: asOf } as never),
  5,
  (latest) => Math.floor(latest * 0.9),
);
await profile('aged receivables today', (ctx, standing) => agedReceivables(ctx, standing, {} as never));
await profile('job profitability, a year', (ctx, standing) =>
  jobProfitability(ctx, standing, { from: dayBefore(365), to: TODAY } as never),
);
