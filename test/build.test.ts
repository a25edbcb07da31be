// `npm install && npm start` compiles once: install's prepare builds and stamps dist/, and start's prestart
// (scripts/build.mjs --if-stale) builds again only when a source is newer than that stamp.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers/processes.js';

const stamp = path.join(ROOT, 'dist', '.built');
const wouldBuild = (): string =>
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--dry-run'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();

// Engine-independent, and it moves the stamp's time: run once, in the SQLite pass.
const onPostgres = process.env.BMS_TEST_DATABASE === 'postgres';

test('npm start does not compile again what npm install compiled, and does after a source changed', {
  skip: onPostgres && 'engine-independent: run in the SQLite pass',
}, () => {
  const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(packageJson.scripts.prestart, 'node scripts/build.mjs --if-stale');
  assert.equal(packageJson.scripts.prepare, 'npm run build');
  assert.ok(fs.existsSync(stamp), 'npm run build leaves dist/.built (the suite builds before it runs)');
  const built = fs.statSync(stamp);
  assert.equal(wouldBuild(), 'fresh');
  // A source newer than the stamp: the stamp is moved back to 2000 (older than any source, however long ago the
  // last one changed), then restored.
  fs.utimesSync(stamp, built.atime, new Date('2000-01-01T00:00:00Z'));
  try {
    assert.equal(wouldBuild(), 'stale');
  } finally {
    fs.utimesSync(stamp, built.atime, built.mtime);
  }
  assert.equal(wouldBuild(), 'fresh');
});
