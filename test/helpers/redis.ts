// A throwaway redis-server on a free port for the tests. A missing redis-server is an error, never a
// skip: .ci/run installs it (apt-get install -y redis-server).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './processes.js';

export interface TestRedis {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  if (spawnSync('redis-server', ['--version']).status !== 0)
    throw new Error('redis-server is not installed: run `apt-get install -y redis-server` (.ci/run does)');
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  client.disconnect();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
