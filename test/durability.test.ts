// Durability under kill -9: the server runs as a child, takes concurrent creates, and is killed with
// SIGKILL at a random moment once writes are flowing, 20 times over. Every create it acknowledged (201) must be
// there afterwards, and the SQLite file must pass its integrity check. How many writes a cycle gets through
// depends on the machine's load and is reported, not asserted (the write rate is bench/'s subject).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { sql } from 'kysely';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase, onPostgres } from './helpers/database.js';
import { eventually } from './helpers/patience.js';
import { startServer } from './helpers/processes.js';

const CYCLES = Number(process.env.BMS_DURABILITY_CYCLES ?? 20);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Writes each cycle sees acknowledged before its kill is armed: the kill lands among writes in flight. */
const ACKNOWLEDGED_BEFORE_KILL = 5;

/**
 * Runs `cycles` server lives on a fresh database: eight writers POST `/v1/clients`, each client named
 * `<label> <cycle>-<writer>-<n>` and sent with `headers(name)`, until the server is killed with SIGKILL
 * 0–300 ms after its first 5 acknowledged writes (however long a loaded machine takes to get there). Answers
 * the acknowledged (201) client ids, the requests attempted, and the database's URL.
 */
async function killCycles(
  cycles: number,
  label: string,
  headers: (name: string) => Record<string, string>,
): Promise<{ acknowledged: string[]; attempted: number; url: string }> {
  const directory = temporaryDirectory(`bms-durability-${label}-`);
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => database.drop(),
    () => fs.rmSync(directory, { recursive: true, force: true }),
  );
  const env = { DATABASE_URL: database.url, NODE_ENV: 'development', LOG_LEVEL: 'warn' };
  const acknowledged: string[] = [];
  let key: string | undefined;
  let attempted = 0;

  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const server = await startServer(env);
    key ??= /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
    assert.ok(key);
    let killed = false;
    const writer = async (worker: number) => {
      for (let index = 0; !killed; index += 1) {
        attempted += 1;
        const name = `${label} ${cycle}-${worker}-${index}`;
        try {
          const response = await fetch(`${server.baseUrl}/v1/clients`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers(name) },
            body: JSON.stringify({ name }),
          });
          if (response.status === 201) acknowledged.push((await response.json()).data.id);
          else await response.arrayBuffer();
        } catch {
          return; // the connection died with the process: not acknowledged
        }
      }
    };
    const before = acknowledged.length;
    const writers = Array.from({ length: 8 }, (_, worker) => writer(worker));
    await eventually(
      () => acknowledged.length - before >= ACKNOWLEDGED_BEFORE_KILL || server.child.exitCode !== null,
      () => `cycle ${cycle}: ${acknowledged.length - before} writes acknowledged:\n${server.output()}`,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
    server.child.kill('SIGKILL');
    killed = true;
    await server.exited;
    await Promise.all(writers);
  }
  return { acknowledged, attempted, url: database.url };
}

test(`${CYCLES} SIGKILL cycles under concurrent creates lose no acknowledged write`, {
  timeout: 900_000,
}, async (t) => {
  const { acknowledged, attempted, url } = await killCycles(CYCLES, 'cycle', () => ({}));

  const check = openDatabase(parseDatabaseUrl(url));
  try {
    const stored = new Set((await check.db.selectFrom('clients').select('id').execute()).map((row) => row.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.ok(
      acknowledged.length >= CYCLES * ACKNOWLEDGED_BEFORE_KILL,
      `every cycle had writes acknowledged (${acknowledged.length} of ${attempted})`,
    );
    assert.deepEqual(lost, [], `${lost.length} acknowledged writes lost`);
    t.diagnostic(
      `${CYCLES} kill -9 cycles: ${acknowledged.length} writes acknowledged of ${attempted} attempted, ${lost.length} lost`,
    );
    if (!onPostgres) {
      const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(check.db);
      assert.deepEqual(integrity.rows, [{ integrity_check: 'ok' }]);
    }
  } finally {
    await check.close();
  }
});

const KEYED_CYCLES = Number(process.env.BMS_DURABILITY_KEYED_CYCLES ?? 5);

test(`${KEYED_CYCLES} SIGKILL cycles under creates with an Idempotency-Key: every client has its kept response and every kept response its client`, {
  timeout: 900_000,
}, async (t) => {
  // The client's name is its Idempotency-Key: the check below pairs them.
  const { acknowledged, attempted, url } = await killCycles(KEYED_CYCLES, 'keyed', (name) => ({
    'idempotency-key': name,
  }));

  const check = openDatabase(parseDatabaseUrl(url));
  try {
    const clients = await check.db
      .selectFrom('clients')
      .select(['id', 'name'])
      .where('name', 'like', 'keyed %')
      .execute();
    const records = await check.db
      .selectFrom('idempotency_keys')
      .select(['key', 'status', 'response_body'])
      .where('key', 'like', 'keyed %')
      .execute();
    const stored = new Set(clients.map((row) => row.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.ok(
      acknowledged.length >= KEYED_CYCLES * ACKNOWLEDGED_BEFORE_KILL,
      `every cycle had writes acknowledged (${acknowledged.length})`,
    );
    assert.deepEqual(lost, [], `${lost.length} acknowledged writes lost`);
    const done = new Map(
      records
        .filter((row) => row.status === 'done')
        .map((row) => [row.key, JSON.parse(String(row.response_body)).data.id as string]),
    );
    const withoutRecord = clients.filter((client) => done.get(client.name) !== client.id);
    assert.deepEqual(
      withoutRecord.map((client) => [client.name, records.find((row) => row.key === client.name)?.status ?? 'none']),
      [],
      'a client without its kept response',
    );
    const withoutClient = [...done].filter(([, id]) => !stored.has(id));
    assert.deepEqual(withoutClient, [], 'a kept response without its client');
    const running = records.filter((row) => row.status !== 'done').length;
    t.diagnostic(
      `${KEYED_CYCLES} kill -9 cycles with Idempotency-Key: ${acknowledged.length} acknowledged of ${attempted}, ${clients.length} clients, ${done.size} kept responses, ${running} claims of killed requests, ${lost.length} lost`,
    );
  } finally {
    await check.close();
  }
});
