// GET one client gives the object as the database holds it now, whatever changed it: this process's writes,
// a delete, or another connection (another process, `bms` on the same file). On SQLite the answer of a GET is
// kept and given again while nothing was committed since it was read (modules/clients/client-cache.ts, "answers").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let other: Database;

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  other = openDatabase(parseDatabaseUrl(context.databaseUrl));
});
after(async () => {
  await other.close();
  await context.close();
});

async function get(id: string, apiKey = key) {
  return context.request('GET', `/v1/clients/${id}`, { key: apiKey });
}

test('the same object twice: the same data and ETag, a new request id each time', async () => {
  const id = (await context.request('POST', '/v1/clients', { key, body: { name: 'Twice' } })).body.data.id;
  const [first, second] = [await get(id), await get(id)];
  assert.deepEqual([first.status, second.status], [200, 200]);
  assert.deepEqual(second.body.data, first.body.data);
  assert.equal(second.headers.etag, first.headers.etag);
  assert.notEqual(second.body.meta.request_id, first.body.meta.request_id);
  assert.equal(second.headers['x-request-id'], second.body.meta.request_id);
});

test('a change committed by another connection shows in the next GET, with a new ETag', async () => {
  const id = (await context.request('POST', '/v1/clients', { key, body: { name: 'Before' } })).body.data.id;
  const before = await get(id);
  assert.equal(before.body.data.name, 'Before');
  await other.db.updateTable('clients').set({ name: 'Changed elsewhere' }).where('id', '=', id).execute();
  const after = await get(id);
  assert.equal(after.body.data.name, 'Changed elsewhere');
  assert.notEqual(after.headers.etag, before.headers.etag);
});

test('an update, then a delete, through the API show in the next GET', async () => {
  const id = (await context.request('POST', '/v1/clients', { key, body: { name: 'Kept' } })).body.data.id;
  await get(id);
  const updated = await context.request('PUT', `/v1/clients/${id}`, { key, body: { phone: '+1 555 0199' } });
  const fetched = await get(id);
  assert.equal(fetched.body.data.phone, '+1 555 0199');
  assert.equal(fetched.headers.etag, updated.headers.etag);
  assert.equal((await context.request('DELETE', `/v1/clients/${id}`, { key })).status, 200);
  const gone = await get(id);
  assert.deepEqual([gone.status, gone.body.error.code], [404, 'NOT_FOUND']);
});

test("another account's key never gets the object, before or after the owner read it", async () => {
  const id = (await context.request('POST', '/v1/clients', { key, body: { name: 'Mine' } })).body.data.id;
  const { key: otherKey } = await context.account('Other Business');
  assert.equal((await get(id, otherKey)).status, 404);
  assert.equal((await get(id)).status, 200);
  assert.equal((await get(id, otherKey)).status, 404);
});
