#!/usr/bin/env node
// `npm run build` (and `npm install`'s prepare): compiles src/ to dist/ and builds the JavaScript SDK, then
// stamps dist/ with the time. `npm start` calls it with --if-stale, which builds only when a source, a
// tsconfig or the lockfile is newer than the stamp, so `npm install && npm start` compiles once, not twice.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.built');
const sources = [
  'src',
  'sdks/js/src',
  'tsconfig.json',
  'tsconfig.build.json',
  'sdks/js/tsconfig.json',
  'package-lock.json',
];

/** The newest modification time under a file or folder. */
function newest(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

function isStale() {
  const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !fs.existsSync(path.join(root, 'sdks/js/dist'))) return true;
  return sources.some((source) => newest(path.join(root, source)) > built);
}

if (process.argv.includes('--if-stale')) {
  const stale = isStale();
  // --dry-run only says which it would do (the test of this script).
  if (process.argv.includes('--dry-run')) console.log(stale ? 'stale' : 'fresh');
  if (!stale || process.argv.includes('--dry-run')) process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
execFileSync(npm, ['--prefix', 'sdks/js', 'run', 'build'], { cwd: root, stdio: 'inherit' });
fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
