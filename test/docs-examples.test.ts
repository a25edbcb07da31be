// Every shell example in the README and the guide runs, as written, against a listening server: each page's
// blocks in order in one bash (`set -euo pipefail`, so an unset variable or a failed command fails the page),
// after the guide's setup block. Only what a reader would change is changed: the address and key placeholders
// (`http://127.0.0.1:3000`, `bms_...`) and `https://example.com/`, whose receiver here is a local one. Every
// answer's status is recorded: a 4xx or 5xx the page does not announce (`# => 409`) fails it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/** A block marked so (the line before its fence) is shown, not run: it starts the server or the test suite. */
const NOT_RUN = /^<!-- example: not run\b/;

interface Block {
  file: string;
  line: number;
  code: string;
}

/** The ```sh blocks of a Markdown file, with the line each starts on; those marked not to run left out. */
function shellBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (!/^```(sh|bash)\s*$/.test(lines[index]!)) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    assert.ok(end > index, `${file}:${index + 1}: a code block that does not end`);
    if (!NOT_RUN.test(lines[index - 1] ?? ''))
      blocks.push({ file, line: index + 1, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return blocks;
}

const SETUP = shellBlocks('docs/guide/README.md');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs/guide'))
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .map((name) => `docs/guide/${name}`),
];

let context: TestContext;
let baseUrl: string;
let key: string;
let receiver: Receiver;
let imports: ImportWorker;
const work = fs.mkdtempSync(path.join(ROOT, '.test-tmp-examples-'));

before(async () => {
  context = await createTestContext();
  baseUrl = (await context.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  ({ key } = await context.account('Cooper Plumbing'));
  receiver = await startReceiver();
  // The guide's imports are read by the imports worker, as `bms serve` runs it.
  imports = new ImportWorker(context.app, { error() {} });
  imports.start();
  // The documents page uploads ./logo.png, which a reader has of their own; the tour runs a script of the
  // repository (`node scripts/…`), as a reader in the repository would.
  fs.copyFileSync(path.join(ROOT, 'docs/hub-quote-360.png'), path.join(work, 'logo.png'));
  fs.symlinkSync(path.join(ROOT, 'scripts'), path.join(work, 'scripts'));
});
after(async () => {
  await imports.stop();
  await receiver.close();
  await context.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a script in bash in the examples' folder, with 90 s to finish. */
function runBash(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: work, LANG: 'C.UTF-8' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The block as a reader on this machine would type it. */
function localised(code: string): string {
  return code
    .replaceAll('http://127.0.0.1:3000', baseUrl)
    .replace(/^export BMS_KEY=bms_\S*/gm, `export BMS_KEY=${key}`)
    .replaceAll('https://example.com/', `${receiver.url.replace(/\/$/, '')}/`);
}

/** The statuses a block announces (`# => 409`, `# => 200 …, or 409 …`), each allowed once per announcement. */
function announced(code: string): number[] {
  const statuses: number[] = [];
  for (const match of code.matchAll(/# => (\d{3})\b([^\n]*)/g)) {
    statuses.push(Number(match[1]));
    for (const other of match[2]!.matchAll(/\bor (\d{3})\b/g)) statuses.push(Number(other[1]));
  }
  return statuses;
}

// curl's status of every answer goes to a file (its output is left to the example: jq reads it).
const PRELUDE = String.raw`set -euo pipefail
curl() { command curl --write-out '%{stderr}@@status %{http_code}\n' "$@"; }
`;

for (const page of PAGES) {
  test(`every shell example in ${page} runs as written`, async () => {
    const blocks = shellBlocks(page);
    if (blocks.length === 0) return;
    const script = [PRELUDE, ...SETUP.map((block) => localised(block.code))];
    for (const block of blocks) script.push(`# --- ${block.file}:${block.line}`, localised(block.code));
    // Not spawnSync: the server answering the examples runs in this process.
    const run = await runBash(script.join('\n'));
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, `${page}: the examples stopped with exit ${run.status}:\n${output.slice(-3000)}`);
    const statuses = [...run.stderr.matchAll(/@@status (\d{3})/g)].map((match) => Number(match[1]));
    assert.ok(statuses.length > 0, `${page}: its examples made no request`);
    const allowed = announced(blocks.map((block) => block.code).join('\n'));
    for (const status of statuses.filter((status) => status >= 400)) {
      const at = allowed.indexOf(status);
      assert.ok(at >= 0, `${page}: an answer ${status} that the page does not announce:\n${output.slice(-3000)}`);
      allowed.splice(at, 1);
    }
    assert.ok(!statuses.includes(0), `${page}: a request got no answer`);
  });
}
