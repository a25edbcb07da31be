// A throwaway PostgreSQL cluster from the machine's binaries (initdb, pg_ctl) on a free port, run as the
// `postgres` user when we are root (PostgreSQL refuses to run as root). Used by the tests and benchmarks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function findBinary(name) {
  for (const directory of (process.env.PATH ?? '').split(':'))
    if (fs.existsSync(path.join(directory, name))) return path.join(directory, name);
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort().reverse() : [];
  for (const version of versions) {
    const candidate = path.join('/usr/lib/postgresql', version, 'bin', name);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} not found: the PostgreSQL server binaries are needed for the tests`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `durable: false` turns off fsync, for throwaway test data. `keep`: a folder whose cluster is used again if it
 * holds one (made there if not) and left in place at the stop, for a benchmark's seed kept across runs.
 * `settings`: more server settings, each passed as `-c name=value` (e.g. `shared_buffers`).
 */
export async function startPostgres({ durable = false, keep = undefined, settings = {} } = {}) {
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  const directory = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bms-pg-'));
  fs.mkdirSync(directory, { recursive: true });
  const asUser = [];
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
    }
    execFileSync('chown', ['postgres', directory]);
    asUser.push('runuser', '-u', 'postgres', '--');
  }
  const run = (command, args) =>
    asUser.length
      ? execFileSync(asUser[0], [...asUser.slice(1), command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  const data = path.join(directory, 'data');
  if (!fs.existsSync(path.join(data, 'PG_VERSION')))
    run(initdb, ['-D', data, '-U', 'bms', '-A', 'trust', '-E', 'UTF8', '--no-locale']);
  const port = await freePort();
  const unsafe = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const more = Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=300${unsafe}${more}`;
  run(pgCtl, ['-D', data, '-o', options, '-l', path.join(directory, 'log'), '-w', 'start']);
  return {
    url: `postgres://bms@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        // A kept cluster is stopped cleanly (its next start needs no recovery, its statistics are kept).
        run(pgCtl, ['-D', data, '-m', keep ? 'fast' : 'immediate', '-w', 'stop']);
      } finally {
        if (!keep) fs.rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}
