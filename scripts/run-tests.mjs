#!/usr/bin/env node
// `npm test`: runs every test file twice, on SQLite and on PostgreSQL. The PostgreSQL cluster is a
// throwaway one, made here from the machine's binaries (initdb, pg_ctl), on a free port, as the
// `postgres` user when running as root (PostgreSQL refuses to run as root), and removed at the end.
import { spawn } from 'node:child_process';
import { startPostgres } from './postgres.mjs';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: run-tests.mjs test/*.test.ts');

function runPass(name, env) {
  return new Promise((resolve) => {
    console.log(`\n# === ${name} ===`);
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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
  for (const [name, database] of [
    ['SQLite', 'sqlite'],
    ['PostgreSQL', 'postgres'],
  ]) {
    if (passes.includes(database))
      results.push({
        name,
        ...(await runPass(name, { BMS_TEST_DATABASE: database, BMS_TEST_POSTGRES_URL: postgres.url })),
      });
  }
} finally {
  postgres.stop();
}
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
console.log(
  `\n${results.map((result) => `${result.name}: ${result.passed} passed, ${result.failed} failed`).join('; ')}`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = results.every((result) => result.code === 0) && failed === 0 ? 0 : 1;
