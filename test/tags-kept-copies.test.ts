// A client's kept copies (modules/clients/client-cache.ts) and its tags' names: a rename or a delete of a tag
// changes no client row (contract §27: one row), so it is the commit, not the row's version, that makes a kept
// copy stale. Reads through the copies (GET, a list's page, their JSON and ETag) after renames by the API and by
// hand in SQL answer the names the rows give, on both engines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;

before(async () => {
  context = await createTestContext();
});
after(() => context.close());

test('GET and a list of clients answer a tag’s new name after its rename, by the API or by hand, and lose a deleted tag', async () => {
  const { key } = await context.account();
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const client = (await api('POST', '/v1/clients', { name: 'Kept Copy', tags: ['VIP', 'North'] })).body.data;
  const read = async () => {
    const one = await api('GET', `/v1/clients/${client.id}`);
    const listed = await api('GET', '/v1/clients?limit=5');
    return { tags: one.body.data.tags, etag: one.headers.etag, listed: listed.body.data[0].tags };
  };
  const first = await read();
  assert.deepEqual(first, { ...first, tags: ['VIP', 'North'], listed: ['VIP', 'North'] });
  assert.deepEqual(await read(), first, 'read again: from the copies where they are kept');
  const tags = Object.fromEntries((await api('GET', '/v1/tags')).body.data.map((tag: any) => [tag.name, tag.id]));

  assert.equal((await api('PUT', `/v1/tags/${tags.VIP}`, { name: 'Gold' })).status, 200);
  const renamed = await read();
  assert.deepEqual(
    [renamed.tags, renamed.listed],
    [
      ['Gold', 'North'],
      ['Gold', 'North'],
    ],
  );
  assert.notEqual(renamed.etag, first.etag);

  await sql`update tags set name = ${'Platinum'}, name_key = ${'platinum'} where id = ${tags.VIP}`.execute(
    context.database.db,
  );
  const byHand = await read();
  assert.deepEqual(
    [byHand.tags, byHand.listed],
    [
      ['Platinum', 'North'],
      ['Platinum', 'North'],
    ],
  );

  assert.equal((await api('DELETE', `/v1/tags/${tags.North}`)).status, 200);
  const deleted = await read();
  assert.deepEqual([deleted.tags, deleted.listed], [['Platinum'], ['Platinum']]);
});
