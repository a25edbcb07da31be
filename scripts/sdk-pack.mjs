#!/usr/bin/env node
// `npm run sdk:pack [-- --out DIR]`: builds both SDKs into installable files without a registry: the JS
// SDK as an npm tarball (`bms-sdk-<version>.tgz`, what `npm publish` would upload) and the Python SDK as a
// wheel (`bms_sdk-<version>-py3-none-any.whl`). The wheel is built from a copy of sdks/python in a
// temporary folder, so nothing (build/, *.egg-info) is written into the source tree; the JS SDK is built in a
// copy too, so two packs at once (the test suite's two engine passes) never see each other's half-cleaned
// dist/, and sdks/js/dist (which the SDK tests link to) is left as it was. Default output:
// dist/sdks/ at the repository root. Prints the two paths, one a line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out');
const out = path.resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1] : path.join(root, 'dist/sdks'));
fs.mkdirSync(out, { recursive: true });

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const js = path.join(root, 'sdks/js');
const { version } = JSON.parse(fs.readFileSync(path.join(js, 'package.json'), 'utf8'));
const pyproject = fs.readFileSync(path.join(root, 'sdks/python/pyproject.toml'), 'utf8');
const pythonVersion = /^version = "([^"]+)"$/m.exec(pyproject)?.[1];
if (pythonVersion !== version) throw new Error(`the JS SDK is ${version} but the Python SDK is ${pythonVersion}`);

const jsCopy = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-sdk-js-'));
let tarball;
try {
  fs.cpSync(js, jsCopy, { recursive: true, filter: (file) => !/[/\\](dist|node_modules)$/.test(file) });
  // The build's compiler is the repository's own (the `tsc` its script names).
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(jsCopy, 'node_modules'), 'junction');
  run(npm, ['run', 'build'], jsCopy);
  const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', out], jsCopy));
  tarball = path.join(out, packed[0].filename);
} finally {
  fs.rmSync(jsCopy, { recursive: true, force: true });
}

// Offline: the system's setuptools and wheel (Debian's python3-wheel), no build isolation, no index.
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const source = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-sdk-python-'));
try {
  fs.cpSync(path.join(root, 'sdks/python'), source, {
    recursive: true,
    filter: (file) => !/(__pycache__|\.egg-info|[/\\]build|[/\\]tests)$/.test(file),
  });
  run(
    python,
    [
      '-m',
      'pip',
      'wheel',
      '--no-build-isolation',
      '--no-deps',
      '--no-index',
      '--disable-pip-version-check',
      '-w',
      out,
      source,
    ],
    source,
  );
} finally {
  fs.rmSync(source, { recursive: true, force: true });
}
const wheel = path.join(out, `bms_sdk-${version}-py3-none-any.whl`);
if (!fs.existsSync(wheel)) throw new Error(`no ${wheel}`);
console.log(tarball);
console.log(wheel);
