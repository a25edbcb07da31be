// Contract section 26, the change feed: GET /v1/changes answers each object changed after the cursor once, at its
// latest change, in commit order, deletions included; a cursor is a position, never a time, so 1,000 changes in
// one millisecond all come, and a transaction that commits after a later one is not skipped; none comes twice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../src/modules/clients/index.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const clock = new ManualClock(new Date('2026-11-25T10:00:00.000Z'));
let context: TestContext;

interface Change {
  object: string;
  kind: string;
  id: string;
  deleted: boolean;
  changed_at: string;
  data: { id: string; name?: string } | null;
}

async function page(key: string, query: string) {
  const response = await context.request('GET', `/v1/changes?${query}`, { key });
  assert.equal(response.status, 200, response.text);
  assert.ok(response.body.meta.pagination.next_cursor, 'a cursor on every page, empty ones too');
  return {
    changes: response.body.data as Change[],
    cursor: response.body.meta.pagination.next_cursor as string,
    hasMore: response.body.meta.pagination.has_more as boolean,
  };
}

/** Every change after `since`, page by page. */
async function drain(key: string, since: string | undefined, limit = 100) {
  const all: Change[] = [];
  let cursor = since;
  for (;;) {
    const next = await page(key, `limit=${limit}${cursor ? `&since=${cursor}` : ''}`);
    all.push(...next.changes);
    cursor = next.cursor;
    if (!next.hasMore) return { changes: all, cursor };
  }
}

before(async () => {
  context = await createTestContext({ clock });
});
after(async () => {
  await context.close();
});

describe('GET /v1/changes', () => {
  test('an object once, at its latest change, as GET answers it; a deletion with data null; a cursor on an empty page', async () => {
    const { key } = await context.account('Feed basics');
    const first = await context.request('POST', '/v1/clients', { key, body: { name: 'Ann' } });
    const second = await context.request('POST', '/v1/clients', { key, body: { name: 'Ben' } });
    await context.request('PUT', `/v1/clients/${first.body.data.id}`, { key, body: { name: 'Ann Lee' } });
    await context.request('DELETE', `/v1/clients/${second.body.data.id}`, { key });
    const { changes, cursor } = await drain(key, undefined);
    assert.deepEqual(
      changes.map((change) => [change.kind, change.id, change.deleted]),
      [
        ['client', first.body.data.id, false],
        ['client', second.body.data.id, true],
      ],
    );
    const got = await context.request('GET', `/v1/clients/${first.body.data.id}`, { key });
    assert.deepEqual(changes[0]!.data, got.body.data);
    assert.equal(changes[0]!.object, 'change');
    assert.equal(changes[1]!.data, null);
    const empty = await page(key, `since=${cursor}`);
    assert.deepEqual(empty.changes, []);
    assert.equal(empty.hasMore, false);
    // Later changes come after the cursor, and only they.
    await context.request('PUT', `/v1/clients/${first.body.data.id}`, { key, body: { name: 'Ann Park' } });
    const later = await drain(key, empty.cursor);
    assert.deepEqual(
      later.changes.map((change) => change.data?.name),
      ['Ann Park'],
    );
  });

  test('1,000 changes in one millisecond all come, none twice, across pages of 100', async () => {
    const { key } = await context.account('Feed millisecond');
    // The app's clock stands still while the 1,000 are made (ManualClock moves only when told).
    clock.set(new Date('2026-11-25T11:00:00.000Z'));
    const made: string[] = [];
    for (let batch = 0; batch < 20; batch += 1) {
      const operations = Array.from({ length: 50 }, (_, index) => ({
        method: 'POST',
        path: '/v1/clients',
        body: { name: `Client ${batch * 50 + index}` },
      }));
      const response = await context.request('POST', '/v1/change-sets', { key, body: { operations } });
      assert.equal(response.status, 200, response.text);
      made.push(...response.body.data.results.map((result: { data: { id: string } }) => result.data.id));
    }
    const { changes } = await drain(key, undefined, 100);
    assert.equal(new Set(changes.map((change) => change.changed_at)).size, 1, 'all in one millisecond');
    assert.equal(changes.length, 1000);
    assert.equal(new Set(changes.map((change) => change.id)).size, 1000, 'none twice');
    assert.deepEqual(changes.map((change) => change.id).sort(), [...made].sort());
  });

  test('a transaction that commits after a later one is not skipped, and nothing comes twice', async () => {
    const { key, accountId } = await context.account('Feed order');
    const ctx = context.systemContext(accountId);
    const start = await drain(key, undefined);
    assert.equal(start.changes.length, 0);
    if (onPostgres) {
      // A begins and writes first; B begins later, writes, and commits first; A commits last.
      const a = await context.database.db.startTransaction().execute();
      const b = await context.database.db.startTransaction().execute();
      const early = await createClient({ ...ctx, db: a }, { name: 'Early writer' } as never);
      const late = await createClient({ ...ctx, db: b }, { name: 'Late writer' } as never);
      await b.commit().execute();
      const seen = await drain(key, start.cursor);
      assert.deepEqual(
        seen.changes.map((change) => change.id),
        [late.id],
      );
      await a.commit().execute();
      const rest = await drain(key, seen.cursor);
      assert.deepEqual(
        rest.changes.map((change) => change.id),
        [early.id],
      );
    } else {
      // SQLite has one writer: transactions commit in the order they write (the feed's sequencing waits its turn).
      const a = await context.database.db.startTransaction().execute();
      const early = await createClient({ ...ctx, db: a }, { name: 'Early writer' } as never);
      await a.commit().execute();
      const rest = await drain(key, start.cursor);
      assert.deepEqual(
        rest.changes.map((change) => change.id),
        [early.id],
      );
    }
  });

  test('each kind needs its read scope: the default is the kinds the key reads; naming another is 403', async () => {
    const { key, accountId } = await context.account('Feed scopes');
    await context.request('POST', '/v1/clients', { key, body: { name: 'Scoped' } });
    await context.request('POST', '/v1/products', { key, body: { name: 'Gutter guard', unit_amount: 1500 } });
    const { key: clientsOnly } = await context.key(accountId, ['clients:read']);
    const { changes } = await drain(clientsOnly, undefined);
    assert.deepEqual(
      changes.map((change) => change.kind),
      ['client'],
    );
    const refused = await context.request('GET', '/v1/changes?kinds=product', { key: clientsOnly });
    assert.equal(refused.status, 403, refused.text);
    const unknown = await context.request('GET', '/v1/changes?kinds=planet', { key });
    assert.equal(unknown.status, 422);
  });

  test('a cursor older than 90 days is 422 on since with reason "expired"', async () => {
    const { key } = await context.account('Feed expiry');
    const { cursor } = await page(key, 'limit=10');
    clock.set(new Date(clock.now().getTime() + 91 * 86_400_000));
    const response = await context.request('GET', `/v1/changes?since=${cursor}`, { key });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error.details[0].field, 'since');
    assert.equal(response.body.error.details[0].reason, 'expired');
    const garbage = await context.request('GET', '/v1/changes?since=not-a-cursor', { key });
    assert.equal(garbage.status, 422);
  });
});
