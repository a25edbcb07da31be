// A page of clients is bounded in bytes as well as in rows: clients stored larger than the API accepts (an
// import, a shell) end a page early, with has_more and a cursor that resumes it, every client exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Paging');

test('a page of clients is bounded in bytes (about 5 MB), each client counted as it is sent, and the next page resumes where it ended', async () => {
  const { accountId, key } = await suite.context.account('Large clients');
  const { v7 } = await import('uuid');
  // Longer than the API accepts (5,000 characters), as an import or a shell could store them: 100 clients
  // of ~60 KB are ~6 MB, more than a page may carry; a multi-byte character makes the exact count matter.
  const notes = `€${'x'.repeat(60 * 1024)}`;
  const start = Date.now() - 60_000;
  const ids: string[] = [];
  for (let n = 0; n < 100; n += 1) {
    const at = new Date(start + n).toISOString();
    const id = v7({ msecs: start + n });
    ids.push(id);
    await suite.context.database.db
      .insertInto('clients')
      .values({
        id,
        account_id: accountId,
        name: `Big ${n}`,
        sort_name: `big ${n}`,
        notes,
        metadata: '{}',
        created_at: at,
        updated_at: at,
      })
      .execute();
  }
  const seen: string[] = [];
  const sizes: number[] = [];
  let url = '/v1/clients?limit=100';
  for (;;) {
    const page = await suite.context.request('GET', url, { key });
    assert.equal(page.status, 200, page.text.slice(0, 200));
    sizes.push(Buffer.byteLength(page.text));
    seen.push(...page.body.data.map((client: { id: string }) => client.id));
    const { has_more: hasMore, next_cursor: cursor } = page.body.meta.pagination;
    if (!hasMore) break;
    assert.equal(page.headers.link, `</v1/clients?limit=100&cursor=${cursor}>; rel="next"`);
    url = `/v1/clients?limit=100&cursor=${cursor}`;
  }
  assert.ok(sizes[0]! <= 5 * 1024 * 1024 + 64 * 1024, `first page ${sizes[0]} bytes`);
  assert.ok(sizes[0]! > 4 * 1024 * 1024, `first page ${sizes[0]} bytes`);
  assert.equal(sizes.length, 2, 'the 100-client page ended early, once');
  assert.deepEqual(seen, [...ids].reverse(), 'every client exactly once, newest first');
});
