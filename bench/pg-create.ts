// Where a durable create's time goes on PostgreSQL (issue 60): `node --import tsx bench/pg-create.ts` (after
// `npm run build`). The bench's durable cluster (shared_buffers as bench/lib.ts sets it) with pg_stat_statements
// loaded, BMS on it, `wrk -t1 -c50` posting the client of `bench:hot` for PG_CREATE_SECONDS (10) after 3 s of
// warm-up. Prints the creates a second, the CPU a create of the server and of every PostgreSQL process (the
// backends, the WAL writer, the checkpointer: /proc), the statements by execution time, and the WAL's writes
// and flushes. PG_CREATE_DROP=<index,…> drops those indexes first (what an index costs a create);
// PG_CREATE_SETTINGS=<name=value,…> starts the cluster with those settings (what a setting changes).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { cpuMs, prepare, startBms, startPostgresDatabase, stop, work } from './lib.js';

const SECONDS = Number(process.env.PG_CREATE_SECONDS ?? 10);
const CLIENT = { name: 'Bench client', email: 'bench@example.com', address: { city: 'Springfield' } };

/** The CPU so far of the cluster's processes: its backends and its own (WAL writer, checkpointer, …). */
const postgresCpuMs = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuMs(pid) || 0), 0);

function wrk(url: string, key: string, seconds: number): string {
  const script = path.join(work, 'create.lua');
  fs.writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${key}"\nwrk.body = '${JSON.stringify(CLIENT)}'\n`,
  );
  return spawnSync('wrk', [
    '-t1',
    '-c50',
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    `${url}/v1/clients`,
  ]).stdout.toString();
}

const settings = Object.fromEntries(
  (process.env.PG_CREATE_SETTINGS ?? '')
    .split(',')
    .filter(Boolean)
    .map((setting) => setting.split('=') as [string, string]),
);
const postgres = await startPostgresDatabase('pg_create', undefined, {
  shared_preload_libraries: 'pg_stat_statements',
  ...settings,
});
try {
  const env = { DATABASE_URL: postgres.url };
  const { key } = await prepare(env);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  for (const index of (process.env.PG_CREATE_DROP ?? '').split(',').filter(Boolean))
    await admin.query(`drop index ${pg.escapeIdentifier(index)}`);
  await admin.query('create extension if not exists pg_stat_statements');
  const server = await startBms(env);
  wrk(server.url, key, 3);
  await admin.query('select pg_stat_statements_reset()');
  await admin.query(`select pg_stat_reset_shared('wal')`);
  // After the warm-up the server's pool holds its connections, so their backends are the ones that will work.
  const pids = (await admin.query('select pid from pg_stat_activity')).rows.map((row) => Number(row.pid));
  const before = { server: cpuMs(server.process.pid), postgres: postgresCpuMs(pids), at: performance.now() };
  const out = wrk(server.url, key, SECONDS);
  const seconds = (performance.now() - before.at) / 1000;
  const serverMs = cpuMs(server.process.pid) - before.server;
  const postgresMs = postgresCpuMs(pids) - before.postgres;
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const creates = perSecond * seconds;
  const share = (ms: number) =>
    `${Math.round((ms * 1000) / creates)} µs a create (${Math.round(ms / seconds / 10)} % of a core)`;
  console.log(
    `creates a second: ${perSecond}; p50 ${/^\s*50%\s+(\S+)/m.exec(out)?.[1]}, p99 ${/^\s*99%\s+(\S+)/m.exec(out)?.[1]}`,
  );
  console.log(`CPU: server ${share(serverMs)}; PostgreSQL ${share(postgresMs)}`);
  const statements = await admin.query(
    `select calls, round((total_exec_time / calls)::numeric, 3) as mean_ms, round((wal_records::numeric / calls), 1) as wal_records, round(wal_bytes / calls) as wal_bytes, round((shared_blks_dirtied::numeric / calls), 2) as dirtied, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) as statement
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and calls >= $1
       order by total_exec_time desc limit 8`,
    [Math.floor(creates / 2)],
  );
  console.table(statements.rows);
  const wal = (await admin.query('select wal_records, wal_bytes, wal_write, wal_sync from pg_stat_wal')).rows[0];
  console.log(
    `WAL a create: ${(wal.wal_records / creates).toFixed(1)} records, ${Math.round(wal.wal_bytes / creates)} bytes; flushes a create: ${(wal.wal_sync / creates).toFixed(2)}`,
  );
  await admin.end();
  await stop(server.process);
} finally {
  postgres.stop();
}
process.exit(0);
