// The three READMEs' SDK examples, run unchanged from fresh directories outside the repository, with the
// SDKs installed as their READMEs say: `npm run sdk:pack` builds the JS tarball and the Python wheel, a
// CommonJS and an ESM project `npm install` the tarball (the TypeScript compiled with `strict`), and a new
// virtual environment `pip install`s the wheel. The guide's webhook receivers (docs/guide/webhooks.md) are
// started, sent a signed delivery and a forged one, and stopped.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';
import { run, signedFixture } from './helpers/sdk.js';

let context: TestContext;
let baseUrl: string;
let packs: string;
let tarball: string;
let wheel: string;
const directories: string[] = [];

function directory(prefix: string): string {
  const made = temporaryDirectory(prefix);
  directories.push(made);
  return made;
}

before(async () => {
  context = await createTestContext();
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
  packs = directory('bms-sdk-packs-');
  const packed = await run(process.execPath, [path.join(ROOT, 'scripts/sdk-pack.mjs'), '--out', packs], {
    cwd: ROOT,
    env: process.env,
  });
  assert.equal(packed.status, 0, packed.output);
  [tarball, wheel] = packed.output.trim().split('\n').slice(-2) as [string, string];
});
after(async () => {
  for (const made of directories) fs.rmSync(made, { recursive: true, force: true });
  await context.close();
});

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');
const blocks = (text: string, language: string): string[] =>
  [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const VERSION = JSON.parse(read('sdks/js/package.json')).version as string;

/** A new npm project outside the repository with the tarball installed, as the JS README says. */
async function npmProject(kind: 'commonjs' | 'module'): Promise<string> {
  const project = directory(`bms-sdk-${kind}-`);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: `consumer-${kind}`, type: kind }));
  const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], {
    cwd: project,
    env: process.env,
  });
  assert.equal(installed.status, 0, installed.output);
  const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
  assert.match(manifest.dependencies['@bms/sdk'], /^file:.*bms-sdk-\d+\.\d+\.\d+\.tgz$/);
  assert.ok(!fs.lstatSync(path.join(project, 'node_modules/@bms/sdk')).isSymbolicLink(), 'a copy, not a link');
  return project;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a README receiver, posts a signed delivery, a forged one, one that is not UTF-8 and the first again,
 * and returns what it printed on stdout.
 */
async function exerciseReceiver(command: string, args: string[], cwd: string): Promise<string> {
  const fixture = signedFixture();
  const port = await freePort();
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, BMS_WEBHOOK_SECRET: fixture.secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  let output = '';
  child.stdout!.on('data', (chunk) => {
    printed += String(chunk);
    output += String(chunk);
  });
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  try {
    const post = (headers: Record<string, string>, body: string | Blob) =>
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
    let signed: Response | undefined;
    for (let attempt = 0; attempt < 100 && !signed; attempt++) {
      signed = await post(fixture.headers, fixture.payload).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    }
    assert.equal(signed?.status, 204, output);
    assert.equal((await post(fixture.wrongSecret, fixture.payload)).status, 400, output);
    assert.equal((await post(fixture.headers, new Blob([new Uint8Array([0xff, 0xfe, 0x00])]))).status, 400, output);
    assert.equal((await post(fixture.headers, fixture.payload)).status, 204, 'a second delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    return printed;
  } finally {
    child.kill();
  }
}

describe('the READMEs, from fresh directories outside the repository', () => {
  test('sdk:pack writes a tarball and a wheel of one version, and leaves the source tree clean', () => {
    assert.equal(path.basename(tarball), `bms-sdk-${VERSION}.tgz`);
    assert.equal(path.basename(wheel), `bms_sdk-${VERSION}-py3-none-any.whl`);
    assert.ok(!path.relative(ROOT, packs).startsWith('sdks'));
    assert.ok(!fs.existsSync(path.join(ROOT, 'sdks/python/build')), 'no build/ in sdks/python');
    assert.deepEqual(
      fs.readdirSync(path.join(ROOT, 'sdks/python')).filter((name) => name.endsWith('.egg-info')),
      [],
    );
    const versions = {
      'sdks/js/package.json': VERSION,
      'sdks/js/src/transport.ts': /export const VERSION = '([^']+)'/.exec(read('sdks/js/src/transport.ts'))?.[1],
      'sdks/python/pyproject.toml': /^version = "([^"]+)"/m.exec(read('sdks/python/pyproject.toml'))?.[1],
      'sdks/python/bms_sdk/_transport.py': /^VERSION = "([^"]+)"/m.exec(read('sdks/python/bms_sdk/_transport.py'))?.[1],
      'sdks/js/CHANGELOG.md': /^## (\S+)/m.exec(read('sdks/js/CHANGELOG.md'))?.[1],
      'sdks/python/CHANGELOG.md': /^## (\S+)/m.exec(read('sdks/python/CHANGELOG.md'))?.[1],
      'sdks/js/README.md': /bms-sdk-(\d+\.\d+\.\d+)\.tgz/.exec(read('sdks/js/README.md'))?.[1],
      'sdks/python/README.md': /bms_sdk-(\d+\.\d+\.\d+)-py3/.exec(read('sdks/python/README.md'))?.[1],
    };
    for (const [file, version] of Object.entries(versions)) assert.equal(version, VERSION, file);
  });

  test('both packages say where they come from: repository, homepage and issues, the same as BMS’s own', async () => {
    const root = JSON.parse(read('package.json')) as { repository: { url: string } };
    const repository = root.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    assert.match(repository, /^https:\/\//);
    const listed = await run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: packs, env: process.env });
    const manifest = JSON.parse(listed.output) as Record<string, unknown> & { repository: Record<string, string> };
    assert.deepEqual(manifest.repository, { type: 'git', url: root.repository.url, directory: 'sdks/js' });
    assert.ok(String(manifest.homepage).startsWith(repository), String(manifest.homepage));
    assert.equal(manifest.bugs, `${repository}/issues`);
    const metadata = await run(
      'python3',
      [
        '-c',
        'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); print(w.read(next(n for n in w.namelist() if n.endswith(".dist-info/METADATA"))).decode())',
        wheel,
      ],
      { cwd: packs, env: process.env },
    );
    assert.equal(metadata.status, 0, metadata.output);
    assert.match(metadata.output, /^Requires-Python: >=3\.10$/m);
    for (const label of ['Homepage', 'Repository', 'Issues', 'Changelog'])
      assert.match(
        metadata.output,
        new RegExp(`^Project-URL: ${label}, ${repository.replace(/[.]/g, '\\.')}`, 'm'),
        label,
      );
  });

  test('JS README: strict TypeScript in a CommonJS and an ESM project, and require() from plain CommonJS', async () => {
    const { key } = await context.account('README');
    const env = { ...process.env, BMS_API_KEY: key, BMS_BASE_URL: baseUrl };
    const readme = read('sdks/js/README.md');
    const source = blocks(readme, 'ts').join('\n');
    assert.ok(blocks(readme, 'ts').length >= 4);
    const imports = source.split('\n').filter((line) => line.startsWith('import '));
    const body = source
      .split('\n')
      .filter((line) => !line.startsWith('import '))
      .join('\n');
    // Neither project has DOM or @types/node: the two globals the examples use are declared.
    const globals =
      'declare const console: { log(...values: unknown[]): void; error(...values: unknown[]): void };\ndeclare const process: { env: Record<string, string | undefined> };\n';
    const projects = {
      commonjs: {
        compilerOptions: { module: 'commonjs', esModuleInterop: true },
        // CommonJS has no top-level await: the same statements in an async function.
        program: `${imports.join('\n')}\n${globals}async function main(): Promise<void> {\n${body}\n}\nmain().catch((error: unknown) => { console.error(error); throw error; });\n`,
      },
      module: {
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
        program: `${imports.join('\n')}\n${globals}${body}\n`,
      },
    } as const;
    for (const [kind, project] of Object.entries(projects) as Array<
      [keyof typeof projects, (typeof projects)[keyof typeof projects]]
    >) {
      const cwd = await npmProject(kind);
      const compilerOptions = {
        ...project.compilerOptions,
        target: 'ES2022',
        lib: ['ES2022'],
        types: [],
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
      };
      fs.writeFileSync(path.join(cwd, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['example.ts'] }));
      fs.writeFileSync(path.join(cwd, 'example.ts'), project.program);
      const compiled = await run(process.execPath, [tsc, '-p', '.'], { cwd, env: process.env });
      assert.equal(compiled.status, 0, `${kind}: ${compiled.output}`);
      const result = await run(process.execPath, ['out/example.js'], { cwd, env });
      assert.equal(result.status, 0, `${kind}: ${result.output}`);
      assert.match(result.output, /19598/);
      assert.match(result.output, /^304 0\b/m, 'a PDF asked for with its ETag: 304, empty bytes');
      if (kind === 'commonjs') {
        const manifest = await run(
          process.execPath,
          ['-e', "const p = require('@bms/sdk/package.json'); console.log(p.name, p.version)"],
          { cwd, env },
        );
        assert.equal(manifest.output.trim(), `@bms/sdk ${VERSION}`, 'the ./package.json export');
        const scripts = blocks(readme, 'js');
        assert.ok(
          scripts.some((script) => script.includes("require('@bms/sdk')")),
          'a require() example',
        );
        for (const [index, script] of scripts.entries()) {
          fs.writeFileSync(path.join(cwd, `plain-${index}.js`), script);
          const plain = await run(process.execPath, [`plain-${index}.js`], { cwd, env });
          assert.equal(plain.status, 0, `plain-${index}.js: ${plain.output}`);
        }
      }
    }
  });

  test('Python README: in a new virtual environment with the wheel installed', async () => {
    const { key } = await context.account('Python README');
    const cwd = directory('bms-sdk-venv-');
    const created = await run('python3', ['-m', 'venv', '.venv'], { cwd, env: process.env });
    assert.equal(created.status, 0, created.output);
    const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INDEX: '1' };
    const installed = await run(path.join(cwd, '.venv/bin/pip'), ['install', wheel], { cwd, env: pipEnv });
    assert.equal(installed.status, 0, installed.output);
    fs.writeFileSync(path.join(cwd, 'readme_example.py'), blocks(read('sdks/python/README.md'), 'python').join('\n'));
    const python = path.join(cwd, '.venv/bin/python');
    // Development mode shows every ResourceWarning (an unclosed connection, socket or transport).
    const result = await run(python, ['-X', 'dev', '-W', 'default', 'readme_example.py'], {
      cwd,
      env: { ...process.env, BMS_API_KEY: key, BMS_BASE_URL: baseUrl, PYTHONPATH: '' },
    });
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /19598/);
    assert.match(result.output, /found Ada Lovelace/);
    assert.doesNotMatch(result.output, /ResourceWarning|unclosed/, 'nothing left open, the asyncio client included');
    assert.match(result.output, /^304 b''/m, 'a PDF asked for with its ETag: 304, empty bytes');
    const where = await run(
      python,
      [
        '-c',
        'import bms_sdk, importlib.metadata as m; print(bms_sdk.__file__, bms_sdk.__version__, m.version("bms-sdk"))',
      ],
      { cwd, env: { ...process.env, PYTHONPATH: '' } },
    );
    assert.match(
      where.output,
      new RegExp(`\\.venv/lib/python3\\.\\d+/site-packages/bms_sdk/__init__\\.py ${VERSION} ${VERSION}`),
    );
  });

  test('main README: the JS snippet; the guide: both webhook receivers, fed a signed and a forged delivery', async () => {
    const { key } = await context.account('Main README');
    const readme = read('README.md');
    const guide = read('docs/guide/webhooks.md');
    const snippets = blocks(readme, 'js');
    const receiver = blocks(guide, 'js').find((script) => script.startsWith('// receiver.mjs'));
    assert.ok(receiver && snippets.length >= 1);
    const cwd = await npmProject('module');
    const env = { ...process.env, BMS_API_KEY: key, BMS_BASE_URL: baseUrl };
    for (const [index, snippet] of snippets.entries()) {
      fs.writeFileSync(path.join(cwd, `snippet-${index}.mjs`), snippet);
      const result = await run(process.execPath, [`snippet-${index}.mjs`], { cwd, env });
      assert.equal(result.status, 0, result.output);
    }
    fs.writeFileSync(path.join(cwd, 'receiver.mjs'), receiver);
    const printed = await exerciseReceiver(process.execPath, ['receiver.mjs'], cwd);
    assert.deepEqual(printed.trim().split('\n'), ['invoice.paid x'], printed);

    const pythonReceiver = blocks(guide, 'python').find((script) => script.startsWith('# receiver.py'));
    assert.ok(pythonReceiver);
    const venv = directory('bms-sdk-receiver-');
    assert.equal((await run('python3', ['-m', 'venv', '.venv'], { cwd: venv, env: process.env })).status, 0);
    const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INDEX: '1' };
    const installed = await run(path.join(venv, '.venv/bin/pip'), ['install', wheel], { cwd: venv, env: pipEnv });
    assert.equal(installed.status, 0, installed.output);
    fs.writeFileSync(path.join(venv, 'receiver.py'), pythonReceiver);
    const printedPython = await exerciseReceiver(path.join(venv, '.venv/bin/python'), ['receiver.py'], venv);
    assert.deepEqual(printedPython.trim().split('\n'), ['invoice.paid x'], printedPython);
  });
});
