// Helpers to run the real `bms` command and the real server as child processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { patient } from './patience.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/bms.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runBms(args: string[], env: Record<string, string>): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    encoding: 'utf8',
    timeout: patient(30_000),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `runBms` without blocking the test's event loop: needed while the test's own app shares the SQLite file,
 * whose open group-commit batch (docs/decisions.md "Writes: group commit") commits only when the loop turns.
 */
export function runBmsAsync(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawnBms(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), patient(30_000));
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/** `bms` as a child process that runs while the test goes on (runBms blocks the test's event loop). */
export function spawnBms(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The parent's environment without settings that would leak into the child's configuration. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      value !== undefined &&
      ![
        'DATABASE_URL',
        'PORT',
        'HOST',
        'NODE_ENV',
        'LOG_LEVEL',
        'REDIS_URL',
        'SMTP_URL',
        'BMS_BOOTSTRAP_KEY',
        'API_KEY_PEPPER',
      ].includes(name)
    )
      env[name] = value;
  }
  return env;
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` free ports, all different: each is held until every one is found (two calls of freePort one after
 * the other may be given the same port, closed a moment before).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * Starts `bms serve` (the compiled server) and waits until /health answers. Overload shedding is off
 * unless `env` turns it on: a CPU-starved test machine must not shed (test/overload.test.ts covers it). Each
 * route's schemas are compiled on its first request (`COMPILE_SCHEMAS=on-first-use`, half the start's CPU)
 * unless `env` says `at-start`, as test/server.test.ts does.
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: {
      ...cleanEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      COMPILE_SCHEMAS: 'on-first-use',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  // A loaded 2-core machine has been seen to take 40 s to start a server; a healthy one takes about 1 s. The
  // minute is scaled by the machine's load (a 2-core machine at load 30 took longer than a minute).
  const deadline = Date.now() + patient(60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return { child, baseUrl, output: () => output, exited };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy:\n${output}`);
}
