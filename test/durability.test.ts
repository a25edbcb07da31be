// Durability under kill -9: the server runs as a child, takes concurrent creates, and is killed with
// SIGKILL at a random moment, 20 times over. Every create it acknowledged (201) must be there afterwards,
// and the SQLite file must pass its integrity check.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { sql } from 'kysely';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase, onPostgres } from './helpers/database.js';
import { startServer } from './helpers/processes.js';

const CYCLES = Number(process.env.BMS_DURABILITY_CYCLES ?? 20);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

test(`${CYCLES} SIGKILL cycles under concurrent creates lose no acknowledged write`, {
  timeout: 300_000,
}, async (t) => {
  const directory = temporaryDirectory('bms-durability-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => database.drop(),
    () => fs.rmSync(directory, { recursive: true, force: true }),
  );
  const env = { DATABASE_URL: database.url, NODE_ENV: 'development', LOG_LEVEL: 'warn' };
  const acknowledged: string[] = [];
  let key: string | undefined;
  let attempted = 0;

  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    const server = await startServer(env);
    key ??= /API key: (bms_[0-9A-Za-z]{40})/.exec(server.output())?.[1];
    assert.ok(key);
    let killed = false;
    const writer = async (worker: number) => {
      for (let index = 0; !killed; index += 1) {
        attempted += 1;
        try {
          const response = await fetch(`${server.baseUrl}/v1/clients`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `cycle ${cycle} worker ${worker} #${index}` }),
          });
          if (response.status === 201) acknowledged.push((await response.json()).data.id);
          else await response.arrayBuffer();
        } catch {
          return; // the connection died with the process: not acknowledged
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, worker) => writer(worker));
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
    server.child.kill('SIGKILL');
    killed = true;
    await server.exited;
    await Promise.all(writers);
  }

  const check = openDatabase(parseDatabaseUrl(database.url));
  try {
    const stored = new Set((await check.db.selectFrom('clients').select('id').execute()).map((row) => row.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.ok(
      acknowledged.length > CYCLES * 5,
      `enough writes were acknowledged (${acknowledged.length} of ${attempted})`,
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
