#!/usr/bin/env node
// `npm test`: runs every test file twice, on SQLite and on PostgreSQL. The PostgreSQL cluster is a
// throwaway one, made here from the machine's binaries (initdb, pg_ctl), on a free port, as the
// `postgres` user when running as root (PostgreSQL refuses to run as root), and removed at the end.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: run-tests.mjs test/*.test.ts');

function findBinary(name) {
  for (const directory of (process.env.PATH ?? '').split(':')) if (fs.existsSync(path.join(directory, name))) return path.join(directory, name);
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

async function startPostgres() {
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-pg-'));
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
  const run = (command, args) => (asUser.length ? execFileSync(asUser[0], [...asUser.slice(1), command, ...args], { stdio: 'pipe' }) : execFileSync(command, args, { stdio: 'pipe' }));
  const data = path.join(directory, 'data');
  run(initdb, ['-D', data, '-U', 'bms', '-A', 'trust', '-E', 'UTF8', '--no-locale']);
  const port = await freePort();
  // Throwaway data: no fsync, so the suite is not slowed by disk flushes.
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run(pgCtl, ['-D', data, '-o', options, '-l', path.join(directory, 'log'), '-w', 'start']);
  return {
    url: `postgres://bms@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

function runPass(name, env) {
  return new Promise((resolve) => {
    console.log(`\n# === ${name} ===`);
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('exit', (code) => {
      const count = (label) => Number(output.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
      resolve({ code, passed: count('pass'), failed: count('fail') });
    });
  });
}

// BMS_TEST_PASSES=postgres (or sqlite) runs one pass only, for quicker work on one engine.
const passes = (process.env.BMS_TEST_PASSES ?? 'sqlite,postgres').split(',');
const postgres = await startPostgres();
const results = [];
try {
  for (const [name, database] of [['SQLite', 'sqlite'], ['PostgreSQL', 'postgres']]) {
    if (passes.includes(database)) results.push({ name, ...(await runPass(name, { BMS_TEST_DATABASE: database, BMS_TEST_POSTGRES_URL: postgres.url })) });
  }
} finally {
  postgres.stop();
}
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
console.log(`\n${results.map((result) => `${result.name}: ${result.passed} passed, ${result.failed} failed`).join('; ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = results.every((result) => result.code === 0) && failed === 0 ? 0 : 1;
