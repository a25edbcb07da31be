// `npm install && npm start` compiles once: install's prepare builds and stamps dist/, and start's prestart
// (scripts/build.mjs --if-stale) builds again only when a source is newer than that stamp. The script is checked
// in a copy of the checkout's layout, so the test needs no dist/ of its own (the fast tier does not build).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers/processes.js';

// Engine-independent: run once, in the SQLite pass.
const onPostgres = process.env.BMS_TEST_DATABASE === 'postgres';

test('npm start does not compile again what npm install compiled, and does after a source changed', {
  skip: onPostgres && 'engine-independent: run in the SQLite pass',
}, (t) => {
  const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(packageJson.scripts.prestart, 'node scripts/build.mjs --if-stale');
  assert.equal(packageJson.scripts.prepare, 'npm run build');

  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-build-'));
  t.after(() => fs.rmSync(copy, { recursive: true, force: true }));
  for (const folder of ['scripts', 'src', 'sdks/js/src', 'sdks/js/dist', 'dist'])
    fs.mkdirSync(path.join(copy, folder), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'scripts/build.mjs'), path.join(copy, 'scripts/build.mjs'));
  fs.writeFileSync(path.join(copy, 'src/main.ts'), 'export {};\n');
  const wouldBuild = (): string =>
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--dry-run'], {
      cwd: copy,
      encoding: 'utf8',
    }).trim();

  assert.equal(wouldBuild(), 'stale', 'nothing built yet');
  // What npm run build leaves: the stamp, newer than every source.
  const stamp = path.join(copy, 'dist', '.built');
  fs.writeFileSync(stamp, 'built\n');
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(stamp, later, later);
  assert.equal(wouldBuild(), 'fresh');
  // A source newer than the stamp.
  const newer = new Date(later.getTime() + 60_000);
  fs.utimesSync(path.join(copy, 'src/main.ts'), newer, newer);
  assert.equal(wouldBuild(), 'stale');
});
