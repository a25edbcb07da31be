// The S3-compatible store (contract section 30, `ATTACHMENTS_STORE=s3`), against a local S3-compatible server
// (s3rver) started here: the store's interface (put, head, get with a range, list after a key, delete, the
// readiness check), then the API on it: an upload stored under `<account id>/<sha256>`, its download and a
// range, /ready, and the sweeper removing an orphan a day old from the bucket.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { S3Store, sweepOrphans } from '../src/modules/attachments/index.js';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { jpegWithGps, LATITUDE_BYTES } from './helpers/uploads.js';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const DAY = 24 * 3600 * 1000;
const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
let endpoint: string;
let directory: string;
let store: S3Store;
let context: TestContext;

/** Puts bytes through a staged file, as uploads do (the client hashes a file stream by reading it again). */
async function putBytes(key: string, bytes: Buffer) {
  const file = path.join(directory, `staged-${Math.random().toString(16).slice(2)}`);
  fs.writeFileSync(file, bytes);
  await store.putStaged(key, file, { size: bytes.length, sha256: sha256(bytes), contentType: 'text/plain' });
  fs.rmSync(file, { force: true });
}

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

before(async () => {
  directory = temporaryDirectory('bms-s3-');
  server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(directory, 's3rver'),
    configureBuckets: [{ name: 'bms', configs: [] }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  const settings = {
    endpoint,
    region: 'us-east-1',
    bucket: 'bms',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  };
  store = new S3Store(settings, path.join(directory, 'local'));
  context = await createTestContext({
    env: {
      ATTACHMENTS_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: 'bms',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
  });
});

after(async () => {
  await context?.close();
  await store?.close();
  await server?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

test('the store: put (from a staged file), head, get and a range, list after a key, delete, check', async () => {
  const bytes = Buffer.from('0123456789abcdef');
  const key = `${ACCOUNT}/${sha256(bytes)}`;
  await putBytes(key, bytes);
  const head = await store.head(key);
  assert.equal(head?.size, 16);
  assert.deepEqual(await text(await store.get(key)), bytes);
  assert.deepEqual(await text(await store.get(key, { start: 2, end: 5 })), Buffer.from('2345'));
  const other = Buffer.from('another');
  const otherKey = `${ACCOUNT}/${sha256(other)}`;
  await putBytes(otherKey, other);
  const listed = (await store.list(`${ACCOUNT}/`)).map((file) => file.key);
  assert.deepEqual(listed, [key, otherKey].sort());
  assert.deepEqual(
    (await store.list(`${ACCOUNT}/`, listed[0])).map((file) => file.key),
    [listed[1]],
  );
  // The same key again keeps the bytes (a key names them).
  await putBytes(key, bytes);
  assert.deepEqual(await text(await store.get(key)), bytes);
  await store.delete(otherKey);
  assert.equal(await store.head(otherKey), undefined);
  await store.check();
});

test('the API on the S3 store: upload, download, range, /ready; the sweeper removes a day-old orphan', async () => {
  const { key, accountId } = await context.account();
  const client = await context.request('POST', '/v1/clients', { key, body: { name: 'S3 Client' } });
  const response = await context.request(
    'POST',
    `/v1/attachments?parent_type=client&parent_id=${client.body.data.id}&filename=roof.jpg`,
    { key, rawBody: jpegWithGps(), headers: { 'content-type': 'image/jpeg' } },
  );
  assert.equal(response.status, 201, response.text);
  const attachment = response.body.data;
  assert.equal(attachment.location_removed, true);
  const head = await store.head(`${accountId}/${attachment.sha256}`);
  assert.equal(head?.size, attachment.size_bytes);
  const download = await context.request('GET', `/v1/attachments/${attachment.id}/content`, { key });
  assert.equal(download.status, 200);
  assert.equal(sha256(download.raw), attachment.sha256);
  assert.ok(!download.raw.includes(LATITUDE_BYTES));
  const range = await context.request('GET', `/v1/attachments/${attachment.id}/content`, {
    key,
    headers: { range: 'bytes=0-3' },
  });
  assert.equal(range.status, 206);
  assert.deepEqual(range.raw, download.raw.subarray(0, 4));
  assert.equal((await context.request('GET', '/ready')).status, 200);

  const orphan = Buffer.from('nobody names me');
  const orphanKey = `${accountId}/${sha256(orphan)}`;
  await putBytes(orphanKey, orphan);
  await sweepOrphans(context.database.db, store, new Date());
  assert.ok(await store.head(orphanKey), 'a young orphan is left alone');
  await sweepOrphans(context.database.db, store, new Date(Date.now() + DAY + 60_000));
  assert.equal(await store.head(orphanKey), undefined, 'a day-old orphan is removed');
  assert.ok(await store.head(`${accountId}/${attachment.sha256}`), 'a named file is kept');
});
