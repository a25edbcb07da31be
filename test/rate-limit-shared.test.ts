// Two server processes sharing one Redis share each key's bucket: the burst of 100 is shared, not doubled.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { startServer, type ServerProcess } from './helpers/processes.js';
import { startRedis, type TestRedis } from './helpers/redis.js';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  await server.exited;
}

test('two instances on one Redis admit one burst of 100 between them', async () => {
  const redis: TestRedis = await startRedis();
  cleanups.push(() => redis.stop());
  const directory = temporaryDirectory('bms-shared-');
  const database = await createTestDatabase(directory);
  cleanups.push(
    () => fs.rmSync(directory, { recursive: true, force: true }),
    () => database.drop(),
  );
  const env = { DATABASE_URL: database.url, NODE_ENV: 'development', REDIS_URL: redis.url, LOG_LEVEL: 'warn' };
  const first = await startServer(env);
  cleanups.push(() => stop(first));
  const second = await startServer(env);
  cleanups.push(() => stop(second));
  const key = /API key: (bms_[0-9A-Za-z]{40})/.exec(first.output())?.[1];
  assert.ok(key, 'the first instance created the key; the second shares the database');

  const started = Date.now();
  const counts = new Map<string, { ok: number; limited: number }>([
    [first.baseUrl, { ok: 0, limited: 0 }],
    [second.baseUrl, { ok: 0, limited: 0 }],
  ]);
  for (let index = 0; index < 160; index += 1) {
    const baseUrl = index % 2 === 0 ? first.baseUrl : second.baseUrl;
    const response: Response = await fetch(`${baseUrl}/v1/clients`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    const count = counts.get(baseUrl)!;
    if (response.status === 200) count.ok += 1;
    else if (response.status === 429) count.limited += 1;
    else assert.fail(`unexpected ${response.status}`);
  }
  const elapsedSeconds = (Date.now() - started) / 1000;
  const admitted = [...counts.values()].reduce((sum, count) => sum + count.ok, 0);
  // 100 from the burst plus at most one a second of refill while the loop ran; alone, each instance would admit 80.
  assert.ok(
    admitted >= 100 && admitted <= 100 + Math.ceil(elapsedSeconds) + 1,
    `admitted ${admitted} in ${elapsedSeconds}s`,
  );
  for (const [url, count] of counts)
    assert.ok(count.limited > 0, `${url} also refused once the shared bucket was empty`);
});
