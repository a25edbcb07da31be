#!/usr/bin/env node
// `npm test`: runs every test file on SQLite and on PostgreSQL, the two passes side by side (each its own
// `node --test` process) unless BMS_TEST_SEQUENTIAL=1 asks for one after the other. The PostgreSQL cluster is
// a throwaway one, made here from the machine's binaries (initdb, pg_ctl), on a free port, as the `postgres`
// user when running as root (PostgreSQL refuses to run as root), and removed at the end.
//
// `--fast` (`npm run test:fast`): only the in-process suites (no `bms` child process, no browser, no Redis,
// no SDK toolchains), on SQLite only, with no PostgreSQL cluster started.
//
// The in-process suites run in groups, several files to a process (see `processesOf`); each suite that starts
// other processes keeps a process of its own.
//
// The files run compiled, from the copy `compile-tests.mjs` brings up to date first (the output names them by
// their sources again, and their source maps give the `.ts` lines).
//
// The closing lines: each engine's passed, failed and cancelled counts, then `N passed, N failed` (failed
// counts the cancelled too), after the names of the tests that failed (so the tail of a CI log says which). The
// exit code is non-zero when any test failed or was cancelled, or a pass ended
// without its summary.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileForTests } from './compile-tests.mjs';
import { startPostgres } from './postgres.mjs';

const args = process.argv.slice(2);
const fast = args.includes('--fast');
let files = args.filter((arg) => arg !== '--fast');
if (files.length === 0) throw new Error('usage: run-tests.mjs [--fast] test/*.test.ts');

/**
 * What makes a suite leave the test process: the real `bms` command or server, a browser, Redis, another
 * program (the SDKs' toolchains, spectral, nginx). pdftotext and pdfimages, run on a PDF the suite rendered in
 * process, do not count.
 */
const OUT_OF_PROCESS =
  /\b(runBms|runBmsAsync|spawnBms|startServer|startRedis|spawnSync|fork)\b|\bspawn\(|playwright|helpers\/sdk\.js/;
const outOfProcess = new Set(files.filter((file) => OUT_OF_PROCESS.test(fs.readFileSync(file, 'utf8'))));
if (fast) files = files.filter((file) => !outOfProcess.has(file));

// BMS_TEST_PASSES=postgres (or sqlite) runs one pass only, for quicker work on one engine.
const passes = fast ? ['sqlite'] : (process.env.BMS_TEST_PASSES ?? 'sqlite,postgres').split(',');
const sequential = process.env.BMS_TEST_SEQUENTIAL === '1';
const concurrency = process.env.BMS_TEST_CONCURRENCY ?? '2';
const engines = [
  ['SQLite', 'sqlite'],
  ['PostgreSQL', 'postgres'],
].filter(([, database]) => passes.includes(database));
const sideBySide = !sequential && engines.length > 1;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiling = Date.now();
const compiled = await compileForTests(root);
console.log(
  `# compiled ${compiled.compiled} of ${compiled.total} files into ${compiled.out} (${Date.now() - compiling} ms)`,
);

/**
 * How long each file takes, to start the longest first, so a long file does not end the pass running alone while
 * the other slots have nothing left. Each pass keeps its files' times in the temporary folder for the next run; a
 * file not timed there (a fresh machine: CI) takes the time `test-file-times.json` gives, seconds from a whole
 * run on a two-core machine, kept in the repository as a hint of the order only; a file new to both, a minute if
 * it starts other processes, else ten seconds.
 */
const timesFile = (database) => path.join(os.tmpdir(), `bms-test-file-times-${database}.json`);
function readTimes(database) {
  try {
    return JSON.parse(fs.readFileSync(timesFile(database), 'utf8'));
  } catch {
    return {};
  }
}
const seeded = JSON.parse(fs.readFileSync(new URL('./test-file-times.json', import.meta.url), 'utf8'));
function timesOf(database) {
  const times = readTimes(database);
  return (file) =>
    times[path.resolve(file)] ??
    (seeded[database]?.[path.relative(root, path.resolve(file))] ?? (outOfProcess.has(file) ? 60 : 10)) * 1000;
}
function longestFirst(database) {
  const took = timesOf(database);
  return [...files].sort((a, b) => took(b) - took(a));
}
function keepTimes(database, perFile) {
  if (perFile.size === 0) return;
  const times = {
    ...readTimes(database),
    ...Object.fromEntries([...perFile].map(([file, ms]) => [path.resolve(file), ms])),
  };
  try {
    fs.writeFileSync(timesFile(database), JSON.stringify(times));
  } catch {
    // the next run keeps the given order
  }
}

/**
 * The processes of a pass, in the order to start them: the in-process files dealt into groups, longest first onto
 * the group with least time so far, each group one process that imports its files one after another, each inside
 * a suite named by the file (its hooks stay its own: a file's `after` runs before the next file starts), and each
 * out-of-process file a process of its own. Loading the app and building a first test app is then paid once per
 * group, not once per file. The fast tier makes as many groups as files run at once; the whole suite twice as
 * many, so its groups end about when its longest files do. Answers the entry files, the groups' written beside
 * the compiled tests, longest first.
 */
function processesOf(database, ordered) {
  const took = timesOf(database);
  const grouped = ordered.filter((file) => !outOfProcess.has(file));
  const count = Math.min(Number(concurrency) * (fast ? 1 : 2), grouped.length);
  const groups = Array.from({ length: count }, () => ({ ms: 0, files: [] }));
  for (const file of grouped) {
    const lightest = groups.reduce((least, group) => (group.ms < least.ms ? group : least));
    lightest.files.push(file);
    lightest.ms += took(file);
  }
  const entries = groups.map((group, index) => {
    const entry = path.join(compiled.out, 'test', `group-${database}-${index + 1}.mjs`);
    const suites = group.files.map(
      (file) =>
        `describe(${JSON.stringify(path.relative(root, file))}, async () => {\n  await import(${JSON.stringify(compiled.toCompiled(file))});\n});\n`,
    );
    fs.writeFileSync(entry, `import { describe } from 'node:test';\n${suites.join('')}`);
    return { entry, ms: group.ms };
  });
  for (const file of ordered)
    if (outOfProcess.has(file)) entries.push({ entry: compiled.toCompiled(file), ms: took(file) });
  return entries.sort((a, b) => b.ms - a.ms).map(({ entry }) => entry);
}

function runPass(name, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    console.log(`\n# === ${name} (${files.length} files, concurrency ${concurrency}) ===`);
    const times = path.join(os.tmpdir(), `bms-test-times-${process.pid}-${env.BMS_TEST_DATABASE}.tsv`);
    const ordered = longestFirst(env.BMS_TEST_DATABASE);
    const child = spawn(
      process.execPath,
      [
        '--enable-source-maps',
        '--test',
        // A group's process ends when its last file has; a handle a failed test left open does not keep it.
        '--test-force-exit',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${new URL('./test-file-times.mjs', import.meta.url).pathname}`,
        `--test-reporter-destination=${times}`,
        ...processesOf(env.BMS_TEST_DATABASE, ordered),
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    // Each line names sources, not compiled files, and side by side, says which pass it comes from.
    const relay = (stream, sink) => {
      let partial = '';
      const write = (line) => {
        const source = compiled.toSource(line);
        if (stream === child.stdout) output += `${source}\n`;
        sink.write(sideBySide ? `[${name}] ${source}\n` : `${source}\n`);
      };
      stream.setEncoding('utf8').on('data', (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) write(line);
      });
      stream.on('end', () => partial && write(partial));
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on('close', (code) => {
      const count = (label) => output.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1];
      const perFile = new Map();
      try {
        for (const line of fs.readFileSync(times, 'utf8').split('\n').filter(Boolean)) {
          const [compiledFile, ms] = line.split('\t');
          const file = path.resolve(root, compiled.toSource(compiledFile));
          perFile.set(file, (perFile.get(file) ?? 0) + Number(ms));
        }
        fs.rmSync(times, { force: true });
        keepTimes(env.BMS_TEST_DATABASE, perFile);
      } catch {
        // no times: the pass ended early
      }
      const slowest = [...perFile]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([file, ms]) => `${path.basename(file)} ${Math.round(ms / 1000)} s`);
      const summarised = count('pass') !== undefined;
      // Each failed test: its TAP line, its suites before it, and the first line of its error.
      const failures = [];
      const lines = output.split('\n');
      lines.forEach((line, at) => {
        const failed = /^(\s*)not ok \d+ - (.*)$/.exec(line);
        if (!failed) return;
        const block = lines.slice(at + 1, at + 12);
        const errorAt = block.findIndex((next) => /^\s+error: /.test(next));
        // A multi-line error (`error: |-`) says what it is on its next line.
        const error =
          errorAt < 0
            ? undefined
            : `${block[errorAt].trim()}${block[errorAt].trim().endsWith('|-') ? ` ${block[errorAt + 1]?.trim()}` : ''}`;
        const where = block.find((next) => /^\s+location: /.test(next))?.match(/([^/]+\.test\.ts:\d+)/)?.[1];
        const said = [where, error].filter(Boolean).join(' ');
        failures.push(`${failed[1] ? '  ' : ''}${failed[2]}${said ? ` — ${said}` : ''}`);
      });
      resolve({
        name,
        code,
        summarised,
        passed: Number(count('pass') ?? 0),
        failed: Number(count('fail') ?? 0),
        cancelled: Number(count('cancelled') ?? 0),
        seconds: Math.round((Date.now() - started) / 1000),
        slowest,
        failures,
      });
    });
  });
}

const started = Date.now();
const postgres = passes.includes('postgres') ? await startPostgres() : undefined;
let results = [];
try {
  const run = ([name, database]) =>
    runPass(name, { BMS_TEST_DATABASE: database, ...(postgres ? { BMS_TEST_POSTGRES_URL: postgres.url } : {}) });
  if (sideBySide) results = await Promise.all(engines.map(run));
  else for (const engine of engines) results.push(await run(engine));
} finally {
  postgres?.stop();
}
const sum = (field) => results.reduce((total, result) => total + result[field], 0);
const minutes = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
console.log('');
for (const result of results)
  if (result.slowest.length) console.log(`${result.name}, the slowest files: ${result.slowest.join(', ')}`);
for (const result of results)
  if (result.failures.length) console.log(`${result.name}, what failed:\n${result.failures.join('\n')}`);
for (const result of results)
  if (!result.summarised) console.log(`${result.name}: the pass ended (exit ${result.code}) without its summary`);
console.log(
  `${results
    .map(
      (result) =>
        `${result.name}: ${result.passed} passed, ${result.failed} failed, ${result.cancelled} cancelled (${minutes(result.seconds)})`,
    )
    .join('; ')}; ${minutes(Math.round((Date.now() - started) / 1000))} in all`,
);
console.log(`${sum('passed')} passed, ${sum('failed') + sum('cancelled')} failed`);
const clean = results.every((result) => result.code === 0 && result.summarised);
process.exitCode = results.length > 0 && clean && sum('failed') === 0 && sum('cancelled') === 0 ? 0 : 1;
