// Attachments and kill -9 (contract section 30: "written to a temporary name, fsynced, renamed before its row
// commits"; "a worker removes files no row names after 24 hours"): the real server, killed with SIGKILL while an
// upload streams and again under a burst of small uploads, leaves no row without its file; the sweeper, a day
// later, leaves no file that no row names and nothing staged, and keeps every file a row names. Runs on a shared
// SQLite file in one pass and on PostgreSQL in the other.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LocalStore, sweepOrphans } from '../src/modules/attachments/index.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { png } from './helpers/images.js';
import { startServer, type ServerProcess } from './helpers/processes.js';

const DAY = 24 * 3600 * 1000;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
let context: TestContext;
let key: string;
let jobId: string;
let directory: string;

before(async () => {
  context = await createTestContext();
  cleanups.push(() => context.close());
  ({ key } = await context.account());
  const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Crash Client' } });
  const job = await context.request('POST', '/v1/jobs', {
    key,
    body: { client_id: client.body.data.id, title: 'Roof' },
  });
  jobId = job.body.data.id;
  directory = path.join(context.directory, 'attachments');
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function start(): Promise<ServerProcess> {
  const server = await startServer({
    DATABASE_URL: context.databaseUrl,
    ATTACHMENTS_DIR: directory,
    NODE_ENV: 'development',
    BMS_BOOTSTRAP_KEY: 'false',
    LOG_LEVEL: 'warn',
  });
  cleanups.push(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  return server;
}

/** Every row's file, and whether it is in the store. */
async function rowsAndFiles() {
  const rows = await context.database.db.selectFrom('attachments').select(['account_id', 'sha256']).execute();
  return rows.map((row) => ({
    key: `${row.account_id}/${row.sha256}`,
    present: fs.existsSync(path.join(directory, row.account_id, row.sha256)),
  }));
}

function storedFiles(): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory)
    .filter((name) => !name.startsWith('.'))
    .flatMap((account) => fs.readdirSync(path.join(directory, account)).map((name) => `${account}/${name}`));
}

function staged(): string[] {
  const folder = path.join(directory, '.staging');
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
}

/** A raw upload that sends `size` bytes of a PNG-headed body and never ends it. */
function endlessUpload(baseUrl: string) {
  const url = new URL(`/v1/attachments?parent_type=job&parent_id=${jobId}&filename=big.png`, baseUrl);
  const request = http.request({
    host: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png', 'transfer-encoding': 'chunked' },
  });
  request.on('error', () => {});
  request.write(png(8, 8, () => [1, 2, 3]));
  request.write(Buffer.alloc(1024 * 1024, 7));
  return request;
}

async function upload(baseUrl: string, index: number): Promise<number> {
  try {
    const response = await fetch(
      `${baseUrl}/v1/attachments?parent_type=job&parent_id=${jobId}&filename=p${index}.png`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
        body: new Uint8Array(png(4, 4, () => [index % 256, (index >> 8) % 256, 9])),
      },
    );
    return response.status;
  } catch {
    return 0;
  }
}

test('kill -9 mid-upload, then under a burst: no row without its file; a day later the sweeper leaves no orphan', async () => {
  let server = await start();
  assert.equal(await upload(server.baseUrl, 0), 201);

  // Killed while a body streams into its staged file.
  const request = endlessUpload(server.baseUrl);
  const deadline = Date.now() + 30_000;
  while (!staged().some((name) => fs.statSync(path.join(directory, '.staging', name)).size > 0)) {
    assert.ok(Date.now() < deadline, 'the upload was staged');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  server.child.kill('SIGKILL');
  await server.exited;
  request.destroy();
  assert.ok(staged().length >= 1, 'the killed upload left its staged file');

  // Killed under a burst of small uploads, at some moment between their renames and commits.
  server = await start();
  const burst = Array.from({ length: 40 }, (_, index) => upload(server.baseUrl, index + 1));
  await new Promise((resolve) => setTimeout(resolve, 150));
  server.child.kill('SIGKILL');
  await server.exited;
  await Promise.all(burst);

  const rows = await rowsAndFiles();
  assert.ok(rows.length >= 1);
  assert.deepEqual(
    rows.filter((row) => !row.present),
    [],
    'no row without its file',
  );

  // The sweeper now leaves young files alone: an upload in flight may be about to commit its row.
  const store = new LocalStore(directory);
  const before = storedFiles();
  await sweepOrphans(context.database.db, store, new Date());
  assert.deepEqual(storedFiles().sort(), before.sort());

  // A day later: every file no row names is gone, the staged ones too; every row keeps its file.
  await sweepOrphans(context.database.db, store, new Date(Date.now() + DAY + 60_000));
  const named = new Set((await rowsAndFiles()).map((row) => row.key));
  assert.deepEqual(
    storedFiles().filter((file) => !named.has(file)),
    [],
    'no file the sweeper keeps without a row',
  );
  assert.deepEqual(staged(), []);
  assert.deepEqual(
    (await rowsAndFiles()).filter((row) => !row.present),
    [],
  );
});
