// SIGTERM under load: 16 keep-alive connections create clients as fast as they can while the server is
// told to stop. Every request the server took in is answered and stored, every 201 is stored, nothing
// stored went unanswered, no 5xx is sent, and the process exits 0 soon after (keep-alive connections left idle
// by their last answer are closed, not waited for).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { runBms, startServer } from './helpers/processes.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

test('SIGTERM under load: no accepted request is dropped, then exit 0', { timeout: 120_000 }, async () => {
  const directory = temporaryDirectory('bms-shutdown-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => database.drop(),
    () => fs.rmSync(directory, { recursive: true, force: true }),
  );
  const env = { DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  const migrated = runBms(['migrate'], env);
  assert.equal(migrated.status, 0, migrated.stderr);
  const created = runBms(['accounts', 'create', '--name', 'Load', '--json'], env);
  assert.equal(created.status, 0, created.stderr + created.stdout);
  const account = JSON.parse(created.stdout);
  const { key } = JSON.parse(
    runBms(
      [
        'keys',
        'create',
        '--account',
        account.id,
        '--name',
        'load',
        '--scopes',
        'clients:write',
        '--burst',
        '1000000',
        '--per-minute',
        '1000000',
        '--per-day',
        '100000000',
        '--json',
      ],
      env,
    ).stdout,
  );
  const server = await startServer(env);

  const answered = new Map<string, number>();
  const failures: string[] = [];
  let signalled = false;
  let answeredAfterSignal = 0;
  const writer = async (worker: number) => {
    for (let index = 0; ; index += 1) {
      const name = `worker ${worker} #${index}`;
      try {
        const response = await fetch(`${server.baseUrl}/v1/clients`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        await response.arrayBuffer();
        answered.set(name, response.status);
        if (signalled) answeredAfterSignal += 1;
      } catch (error) {
        // Refused (the listener is closed) or closed before the request was sent: never taken in.
        failures.push(`${name}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`);
        return;
      }
    }
  };
  const writers = Array.from({ length: 16 }, (_, worker) => writer(worker));
  await new Promise((resolve) => setTimeout(resolve, 700));
  signalled = true;
  const signalledAt = Date.now();
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, `exits 0 after draining:\n${server.output()}`);
  // Within an orchestrator's grace period (Kubernetes: 30 s), not after the 72 s keep-alive timeout of a
  // connection whose request was in flight at the signal.
  const exitSeconds = (Date.now() - signalledAt) / 1000;
  assert.ok(exitSeconds < 20, `exits within 20 s of the signal, not ${exitSeconds} s`);
  await Promise.all(writers);

  const check = openDatabase(parseDatabaseUrl(database.url));
  try {
    const stored = new Set((await check.db.selectFrom('clients').select('name').execute()).map((row) => row.name));
    const statuses = [...answered.values()];
    assert.ok(statuses.filter((status) => status === 201).length > 50, `the load ran: ${statuses.length} answers`);
    assert.deepEqual(
      statuses.filter((status) => status !== 201),
      [],
      'every answered request was served, none refused with 5xx',
    );
    for (const [name] of answered) assert.ok(stored.has(name), `acknowledged ${name} is stored`);
    for (const name of stored)
      assert.ok(answered.has(name), `stored ${name} was answered: the server dropped no request it took in`);
    console.log(
      `# SIGTERM under load: ${answered.size} answered (${answeredAfterSignal} after the signal), ${failures.length} connections refused or closed, ${stored.size} stored`,
    );
  } finally {
    await check.close();
  }
});
