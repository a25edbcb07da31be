// The custom fields benchmark (contract section 27): 1,000,000 clients in one account with 10 custom fields of
// every type and tags, on SQLite and on PostgreSQL. Every filter shape's page (p50 and p99 of sequential requests)
// against the first page's (target ≤ 2×), custom fields' and tags' (tags_any, tags_all), and a create with 10
// custom fields against one without (target ≥ 0.7× the rate); and a tag's rename (one row, §27).
// `npm run bench:custom-fields`; CF_ROWS=10000 CF_REQUESTS=20 CF_ENGINE=sqlite for a quick run. To profile the
// creates: CF_CREATES=with (or without) measures only those, CF_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR" gives
// the server's node flags.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { SQLITE_CLEAR_QUEUED, SQLITE_INDEX_QUEUED } from '../src/db/client-search.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { cpuMs, ROOT, prepare, startBms, stop, work, startPostgresDatabase } from './lib.js';

const ROWS = Number(process.env.CF_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.CF_REQUESTS ?? 200);
const WRITES = Number(process.env.CF_WRITES ?? Math.max(20, REQUESTS));
/** Which creates to measure: `both` (the ratio), or `with` or `without` custom fields alone (a profile's run). */
const CREATES = process.env.CF_CREATES ?? 'both';
/** In how many blocks each kind of create is made, alternating with the other kind's. */
const BLOCKS = Number(process.env.CF_BLOCKS ?? 4);
const SERVER_FLAGS = (process.env.CF_SERVER_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
const START = Date.parse('2020-01-01T00:00:00.000Z');
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const TIERS = ['gold', 'silver', 'bronze'];
const SERVICES = ['lawn', 'snow', 'pool', 'gutter'];
/** The tags: [name, which clients hold it]. */
const TAGS: Array<[string, (index: number) => boolean]> = [
  ['VIP', (index) => index % 10 === 0],
  ['North', (index) => index % 5 === 0],
  ['Insurance', (index) => index % 3 === 0],
  ['Rare', (index) => index % 100_003 === 7],
  ['Everyone', () => true],
];

/** The ten fields: [key, type, options]. */
const FIELDS: Array<[string, string, string[]?]> = [
  ['region', 'text'],
  ['gate_code', 'text'],
  ['visits', 'number'],
  ['rating', 'number'],
  ['budget', 'money'],
  ['since', 'date'],
  ['renewal', 'date'],
  ['vip', 'boolean'],
  ['tier', 'select', TIERS],
  ['services', 'multi_select', SERVICES],
];

const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const date = (index: number) => new Date(START + (index % 2000) * 86_400_000).toISOString().slice(0, 10);

/** One client's values, by key (what its JSON column and its value rows hold). */
function valuesOf(index: number): Record<string, unknown> {
  return {
    region: REGIONS[index % REGIONS.length],
    gate_code: String(1000 + (index % 9000)),
    visits: index % 50,
    rating: (index % 100) / 10,
    budget: (index % 1000) * 100,
    since: date(index),
    renewal: date(index + 365),
    vip: index % 10 === 0,
    tier: TIERS[index % TIERS.length],
    services: index % 2 === 0 ? [SERVICES[index % 4]] : [SERVICES[index % 4], SERVICES[(index + 1) % 4]],
  };
}

/** The definitions, then the clients with their JSON and value rows, straight into the tables. */
async function seedRows(database: Database, accountId: string): Promise<{ seconds: number }> {
  const started = performance.now();
  const { db } = database;
  const now = new Date(START).toISOString();
  const fields = FIELDS.map(([key, type, options], position) => ({
    id: uuidv7(),
    account_id: accountId,
    resource: 'client',
    key,
    label: key,
    description: null,
    type,
    required: 0,
    options: JSON.stringify((options ?? []).map((value) => ({ value, label: value, archived: false }))),
    bounds: JSON.stringify(type === 'text' ? { max_length: 500, multiline: false } : {}),
    printable: 0,
    position,
    metadata: '{}',
    deleted_at: null,
    created_at: now,
    updated_at: now,
  }));
  await db.insertInto('custom_fields').values(fields).execute();
  const tags = TAGS.map(([name, holds]) => {
    let count = 0;
    for (let index = 0; index < ROWS; index += 1) if (holds(index)) count += 1;
    return { id: uuidv7(), account_id: accountId, name, name_key: name.toLowerCase(), client_count: count, holds };
  });
  await db
    .insertInto('tags')
    .values(tags.map(({ holds: _holds, ...tag }) => ({ ...tag, created_at: now, updated_at: now })))
    .execute();
  const BATCH = 200;
  for (let from = 0; from < ROWS; from += 10 * BATCH) {
    await db.transaction().execute(async (trx) => {
      for (let at = from; at < Math.min(ROWS, from + 10 * BATCH); at += BATCH) {
        const clients = [];
        const values = [];
        const links = [];
        for (let index = at; index < Math.min(ROWS, at + BATCH); index += 1) {
          const id = uuidv7();
          const custom = valuesOf(index);
          const name = `Client ${index}`;
          const stamp = new Date(START + index * 1000).toISOString();
          clients.push({
            id,
            account_id: accountId,
            name,
            sort_name: name.toLowerCase(),
            email: null,
            phone: null,
            company_name: null,
            address: null,
            notes: null,
            external_id: null,
            metadata: '{}',
            custom_fields: JSON.stringify(custom),
            created_at: stamp,
            updated_at: stamp,
          });
          // The client's tags are its links, each at its place in the client's list.
          let position = 0;
          for (const tag of tags)
            if (tag.holds(index))
              links.push({
                account_id: accountId,
                tag_id: tag.id,
                resource: 'client',
                object_id: id,
                position: position++,
                object_created_at: stamp,
              });
          for (const field of fields) {
            const value = custom[field.key];
            const row = {
              account_id: accountId,
              field_id: field.id,
              object_id: id,
              text_value: null,
              number_value: null,
              amount_value: null,
              object_created_at: stamp,
            };
            if (field.type === 'number') values.push({ ...row, number_value: value as number });
            else if (field.type === 'money') values.push({ ...row, amount_value: value as number });
            else if (field.type === 'multi_select')
              for (const one of value as string[]) values.push({ ...row, text_value: one });
            else values.push({ ...row, text_value: String(value).toLowerCase() });
          }
        }
        await trx.insertInto('clients').values(clients).execute();
        await trx.insertInto('custom_field_values').values(values).execute();
        await trx.insertInto('tag_links').values(links).execute();
      }
    });
  }
  return { seconds: round((performance.now() - started) / 1000, 1) };
}

/**
 * Every scenario's latencies, measured in `CF_ROUNDS` rounds (4 by default) that each make every scenario's share
 * of its `REQUESTS` in turn, after a warming pass of 20 requests each: so that the server's warming (its first
 * requests run before the JIT has compiled them) and the machine's drift fall on every scenario alike, and the
 * first page, the ratios' base, is not the one measured coldest.
 */
async function measureAll(base: string, key: string) {
  const headers = { authorization: `Bearer ${key}` };
  const rounds = Number(process.env.CF_ROUNDS ?? 4);
  const measured = SCENARIOS.map(() => ({ latencies: [] as number[], non200: 0, rows: 0, hasMore: false }));
  for (const [, url] of SCENARIOS)
    for (let warm = 0; warm < 20; warm += 1) await (await fetch(`${base}${url}`, { headers })).arrayBuffer();
  for (let round = 0; round < rounds; round += 1)
    for (const [index, [, url]] of SCENARIOS.entries()) {
      const into = measured[index]!;
      for (let request = 0; request < Math.ceil(REQUESTS / rounds); request += 1) {
        const started = performance.now();
        const response = await fetch(`${base}${url}`, { headers });
        const body = (await response.json()) as { data?: unknown[]; meta?: { pagination?: { has_more: boolean } } };
        into.latencies.push(performance.now() - started);
        if (response.status !== 200) into.non200 += 1;
        into.rows = body.data?.length ?? 0;
        into.hasMore = body.meta?.pagination?.has_more ?? false;
      }
    }
  return measured.map(({ latencies, ...rest }) => {
    latencies.sort((a, b) => a - b);
    return { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), ...rest };
  });
}

/**
 * A tag's rename and back (PUT /v1/tags/:id), in ms each: one row however many clients hold it (§27). `name`'s
 * tag is held by 1 in 10 clients.
 */
async function renames(base: string, key: string, name: string): Promise<{ p50: number; holders: number }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const listed = (await (await fetch(`${base}/v1/tags?q=${name.toLowerCase()}`, { headers })).json()) as {
    data: Array<{ id: string; counts: { client: number } }>;
  };
  const tag = listed.data[0]!;
  const latencies: number[] = [];
  for (let index = 0; index < 10; index += 1) {
    const started = performance.now();
    const response = await fetch(`${base}/v1/tags/${tag.id}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ name: index % 2 === 0 ? `${name} renamed` : name }),
    });
    latencies.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`rename: ${response.status} ${await response.text()}`);
  }
  latencies.sort((a, b) => a - b);
  return { p50: round(percentile(latencies, 50)), holders: tag.counts.client };
}

/**
 * Creates per second, sequential, with and without ten custom field values, and the server's CPU time per create
 * (µs). The creates of each kind are made in `CF_BLOCKS` blocks (4 by default), alternating with the other kind's
 * and each pair in turn starting with the other, so that neither kind pays alone for what the server does first
 * after the filters (or for the machine's load changing over the run). A 503 (the server shedding load) is retried
 * after its Retry-After, as the SDKs do; the time waited counts, and the refusals are reported.
 */
type Creates = { ms: number; cpuMs: number; count: number; shed: number };
async function writes(
  base: string,
  key: string,
  custom: boolean,
  pid: number | undefined,
  from: number,
  count: number,
) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  let shed = 0;
  for (let index = from; index < from + count; index += 1) {
    const body = { name: `Written ${index}`, ...(custom ? { custom_fields: valuesOf(index) } : {}) };
    for (;;) {
      const response = await fetch(`${base}/v1/clients`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status === 201) break;
      if (response.status !== 503) throw new Error(`create: ${response.status} ${await response.text()}`);
      shed += 1;
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
    }
  }
  return { ms: performance.now() - started, cpuMs: cpuMs(pid) - cpuBefore, count, shed };
}

/** `WRITES` creates each way (or one way: CF_CREATES), in alternating blocks, summed. */
async function alternatingWrites(base: string, key: string, pid: number | undefined) {
  const kinds = CREATES === 'both' ? [false, true] : [CREATES === 'with'];
  const total = new Map(kinds.map((custom) => [custom, { ms: 0, cpuMs: 0, count: 0, shed: 0 } as Creates]));
  const size = Math.ceil(WRITES / BLOCKS);
  for (let block = 0; block < BLOCKS; block += 1) {
    const count = Math.min(size, WRITES - block * size);
    for (const custom of block % 2 === 0 ? kinds : [...kinds].reverse()) {
      const done = await writes(base, key, custom, pid, block * size, count);
      const sum = total.get(custom)!;
      for (const name of ['ms', 'cpuMs', 'count', 'shed'] as const) sum[name] += done[name];
    }
  }
  const figures = (custom: boolean) => {
    const sum = total.get(custom);
    if (!sum) return { perSecond: Number.NaN, cpuMicros: Number.NaN, shed: 0 };
    return {
      perSecond: round(sum.count / (sum.ms / 1000), 1),
      cpuMicros: Math.round((sum.cpuMs * 1000) / sum.count),
      shed: sum.shed,
    };
  };
  return { without: figures(false), withFields: figures(true) };
}

const c = '/v1/clients?limit=25';
const SCENARIOS: Array<[string, string]> = [
  ['first page (default -created_at)', c],
  ['text = (1 in 5)', `${c}&custom_fields.region=north`],
  ['text, any of', `${c}&custom_fields.region=north,east`],
  ['text = (rare: one gate code)', `${c}&custom_fields.gate_code=4321`],
  ['number .gte/.lte', `${c}&custom_fields.visits.gte=10&custom_fields.visits.lte=12`],
  ['number = (rare)', `${c}&custom_fields.rating=9.9`],
  ['money .lte', `${c}&custom_fields.budget.lte=500`],
  ['date range', `${c}&custom_fields.since.gte=2021-01-01&custom_fields.since.lte=2021-01-31`],
  ['boolean', `${c}&custom_fields.vip=true`],
  ['select, any of', `${c}&custom_fields.tier=gold,silver`],
  ['multi_select holds any', `${c}&custom_fields.services=pool`],
  ['two filters', `${c}&custom_fields.region=south&custom_fields.tier=gold`],
  ['text =, sort=name', `${c}&custom_fields.region=north&sort=name`],
  ['tags_any (1 in 10)', `${c}&tags_any=vip`],
  ['tags_any (rare)', `${c}&tags_any=rare`],
  ['tags_any, two tags', `${c}&tags_any=vip,insurance`],
  ['tags_all, two tags (1 in 30)', `${c}&tags_all=vip,insurance`],
  ['tags_any and a custom field', `${c}&tags_any=north&custom_fields.tier=gold`],
];

async function runEngine(
  engine: 'SQLite' | 'PostgreSQL',
  env: Record<string, string>,
  config: Parameters<typeof openDatabase>[0],
) {
  const { key, accountId } = await prepare(env);
  const database = openDatabase(config);
  const seeded = await seedRows(database, accountId);
  console.log(`${engine}: seeded ${ROWS} clients with ${FIELDS.length} custom fields in ${seeded.seconds} s`);
  const { sql } = await import('kysely');
  if (engine === 'PostgreSQL') await sql`vacuum (analyze)`.execute(database.db);
  else {
    // Clients written directly wait in the search queue a create's batch empties (db/sqlite/text-search.ts):
    // indexed here, as bench/run.ts does, so the first create measured does not index a million rows.
    await sql.raw(SQLITE_INDEX_QUEUED).execute(database.db);
    await sql.raw(SQLITE_CLEAR_QUEUED).execute(database.db);
    await sql`analyze`.execute(database.db);
  }
  await database.close();
  const server = await startBms(env, SERVER_FLAGS);
  const measured = await measureAll(server.url, key);
  const first = measured[0]!;
  const results = measured.map((figures, index) => ({
    scenario: SCENARIOS[index]![0],
    ...figures,
    ratioP50: round(figures.p50 / first.p50),
    ratioP99: round(figures.p99 / first.p99),
  }));
  for (const result of results) console.log(engine, result);
  const { without, withFields } = await alternatingWrites(server.url, key, server.process.pid);
  const write = {
    withoutPerSecond: without.perSecond,
    withPerSecond: withFields.perSecond,
    ratio: round(withFields.perSecond / without.perSecond),
    withoutCpuMicros: without.cpuMicros,
    withCpuMicros: withFields.cpuMicros,
    shed: without.shed + withFields.shed,
  };
  console.log(engine, 'creates', write);
  const rename = await renames(server.url, key, 'VIP');
  console.log(engine, 'tag rename', rename);
  await stop(server.process);
  return { engine, seedSeconds: seeded.seconds, results, write, rename };
}

function markdown(runs: Array<Awaited<ReturnType<typeof runEngine>>>, machine: Record<string, unknown>): string {
  const lines = [
    '# Custom fields benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `${ROWS} clients with ${FIELDS.length} custom fields and ${TAGS.length} tags in one account; ${REQUESTS} sequential requests per row, in ${process.env.CF_ROUNDS ?? 4} rounds of every row in turn after 20 each to warm; ${WRITES} creates each way. Targets: each filter's ratio ≤ 2 to the first page; creates with 10 fields ≥ 0.7× the rate without.`,
    '',
  ];
  for (const run of runs) {
    lines.push(
      `## ${run.engine}`,
      '',
      `Seeded in ${run.seedSeconds} s. Creates: ${run.write.withoutPerSecond}/s without, ${run.write.withPerSecond}/s with 10 custom fields (${run.write.ratio}×; ${run.write.shed} refused with 503 and retried); the server's CPU a create: ${run.write.withoutCpuMicros} µs without, ${run.write.withCpuMicros} µs with. A rename of a tag ${run.rename.holders} clients hold: ${run.rename.p50} ms (p50 of 10).`,
      '',
    );
    lines.push(
      '| scenario | p50 ms | p99 ms | p50 ratio | p99 ratio | non-200 | rows (has_more) |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of run.results)
      lines.push(
        `| ${row.scenario} | ${row.p50} | ${row.p99} | ${row.ratioP50} | ${row.ratioP99} | ${row.non200} | ${row.rows}${row.hasMore ? ' (more)' : ''} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = [];
  const only = process.env.CF_ENGINE;
  if (only !== 'postgres') {
    const file = path.join(work, 'custom-fields.sqlite');
    runs.push(await runEngine('SQLite', { DATABASE_URL: `sqlite:${file}` }, { kind: 'sqlite', path: file }));
  }
  if (only !== 'sqlite') {
    const postgres = await startPostgresDatabase('custom_fields');
    try {
      runs.push(
        await runEngine(
          'PostgreSQL',
          { DATABASE_URL: postgres.url },
          { kind: 'postgres', url: postgres.url, poolMax: 4 },
        ),
      );
    } finally {
      postgres.stop();
    }
  }
  const text = markdown(runs, machine);
  if (ROWS === 1_000_000) fs.writeFileSync(path.join(ROOT, 'bench/results/custom-fields-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
