// Group commit (SQLite; PostgreSQL keeps a transaction per request and must answer the same): concurrent
// writes commit together, each in its own savepoint, so one request's failure undoes its own work alone and
// answers its own error, and an idempotent retry still replays within a batch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { committedBatches } from '../src/db/sqlite/group-commit.js';
import { inTransaction } from '../src/kernel/context.js';
import { recordEvent } from '../src/modules/events/index.js';
import { createClient, deleteClient, updateClient } from '../src/modules/clients/clients.service.js';
import { createTestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const engine = onPostgres ? 'PostgreSQL' : 'SQLite';

test(`a 409 among 49 good creates sent together: the 49 are stored and answered 201 (${engine})`, async () => {
  const context = await createTestContext();
  try {
    const { key } = await context.account();
    const before = committedBatches(context.database.db);
    // The fiftieth takes the external_id of the first while neither is committed: its insert fails on the
    // unique index inside its own savepoint, in the batch the other 49 commit in.
    const bodies = Array.from({ length: 50 }, (_, index) => ({
      name: `Batch client ${index}`,
      external_id: `batch-${index === 49 ? 0 : index}`,
    }));
    const responses = await Promise.all(bodies.map((body) => context.request('POST', '/v1/clients', { key, body })));
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 201).length, 49, statuses.join(','));
    const refused = responses.filter((response) => response.status === 409);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.body.error.code, 'CONFLICT');
    assert.ok(
      [0, 49].includes(responses.indexOf(refused[0]!)),
      'the refused one is one of the two with external_id batch-0',
    );
    if (before !== undefined) {
      const batches = committedBatches(context.database.db)! - before;
      assert.ok(batches < 49, `49 creates committed in ${batches} batches, not one each`);
    }

    // Every answered 201 is stored, with its event; the refused one left nothing behind.
    const stored = await context.request('GET', '/v1/clients?limit=100', { key });
    const names = new Set(stored.body.data.map((client: { name: string }) => client.name));
    assert.equal(names.size, 49);
    for (const [index, response] of responses.entries()) {
      assert.equal(names.has(`Batch client ${index}`), response.status === 201, `client ${index}`);
    }
    const events = await context.request('GET', '/v1/events?type=client.created&limit=100', { key });
    assert.equal(events.body.data.length, 49);
  } finally {
    await context.close();
  }
});

test(`an idempotent retry in the same batch as its first request creates once and answers the same (${engine})`, async () => {
  const context = await createTestContext();
  try {
    const { key } = await context.account();
    const headers = { 'idempotency-key': 'batch-retry-1' };
    const body = { name: 'Only once' };
    const responses = await Promise.all([
      context.request('POST', '/v1/clients', { key, body, headers }),
      ...Array.from({ length: 10 }, (_, index) =>
        context.request('POST', '/v1/clients', { key, body: { name: `Neighbour ${index}` } }),
      ),
      context.request('POST', '/v1/clients', { key, body, headers }),
    ]);
    const first = responses[0]!;
    const second = responses.at(-1)!;
    const winner = first.status === 201 && first.headers['idempotent-replayed'] === undefined ? first : second;
    const other = winner === first ? second : first;
    assert.equal(winner.status, 201, winner.text);
    // The other is the replay of the first, or the contract's "still being processed" 409 with Retry-After.
    if (other.status === 201) {
      assert.equal(other.headers['idempotent-replayed'], 'true');
      assert.equal(other.body.data.id, winner.body.data.id);
    } else {
      assert.equal(other.status, 409, other.text);
      assert.equal(other.headers['retry-after'], '1');
    }
    for (const neighbour of responses.slice(1, -1)) assert.equal(neighbour.status, 201);

    const retry = await context.request('POST', '/v1/clients', { key, body, headers });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body.data.id, winner.body.data.id);
    const listed = await context.request('GET', '/v1/clients?limit=100', { key });
    assert.equal(listed.body.data.filter((client: { name: string }) => client.name === 'Only once').length, 1);
  } finally {
    await context.close();
  }
});

test(`an event and its webhook deliveries roll back with their own transaction, not the batch's others (${engine})`, async () => {
  const context = await createTestContext();
  try {
    const { accountId, key } = await context.account();
    const endpoint = await context.request('POST', '/v1/webhook-endpoints', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const ctx = context.systemContext(accountId);
    const objectIds = Array.from({ length: 10 }, (_, index) => `00000000-0000-7000-8000-00000000000${index}`);
    const outcomes = await Promise.allSettled(
      objectIds.map((id, index) =>
        inTransaction(ctx, async (tx) => {
          await recordEvent(tx, 'client.created', { id });
          // The fourth fails after its event and its delivery row were written.
          if (index === 3) throw new Error('the change failed after its event');
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      objectIds.map((_, index) => (index === 3 ? 'rejected' : 'fulfilled')),
    );
    const events = await context.database.db
      .selectFrom('events')
      .select(['id', 'resource_id'])
      .where('account_id', '=', accountId)
      .where('type', '=', 'client.created')
      .execute();
    assert.deepEqual(
      events.map((event) => event.resource_id).sort(),
      objectIds.filter((_, index) => index !== 3),
    );
    const deliveries = await context.database.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(deliveries.map((delivery) => delivery.event_id).sort(), events.map((event) => event.id).sort());
  } finally {
    await context.close();
  }
});

// Each request's savepoint keeps the pages it changes in a sub-journal; past 64 KB SQLite spills it to a
// temporary file unless temp_store is MEMORY (issue 36: a create wrote and read one per request).
test(`the writer keeps savepoints' sub-journals in memory (${engine})`, async (t) => {
  if (onPostgres) return t.skip('SQLite only');
  const context = await createTestContext();
  try {
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(context.database.db);
    assert.deepEqual(rows, [{ temp_store: 2 }], '2: MEMORY');
  } finally {
    await context.close();
  }
});

// SQLite makes a batch's new search rows once, just before its COMMIT (migration 20261128080000): a client
// must still be found by `q` as soon as its create is answered, a refused create must leave no search row,
// and an update or delete in the same batch as the create must leave the search row as the client is.
test(`a client is found by q once its create is answered, also when its batch held a refusal, a rename or a delete (${engine})`, async () => {
  const context = await createTestContext();
  try {
    const { accountId, key } = await context.account();
    const bodies = Array.from({ length: 30 }, (_, index) => ({
      name: `Quokka ${index}`,
      external_id: `quokka-${index === 29 ? 0 : index}`,
    }));
    const responses = await Promise.all(bodies.map((body) => context.request('POST', '/v1/clients', { key, body })));
    const created = responses.filter((response) => response.status === 201).map((response) => response.body.data.id);
    assert.equal(created.length, 29);
    const found = await context.request('GET', '/v1/clients?q=quokka&limit=100', { key });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.data.map((client: { id: string }) => client.id).sort(), created.sort());

    const ctx = context.systemContext(accountId);
    const none = { deleteWithClient: async () => {} };
    // Made and changed in one transaction each, all three in one batch: the search row follows the client.
    const [renamed, , kept] = await Promise.all([
      inTransaction(ctx, async (tx) => {
        const client = await createClient(tx, { name: 'Wombat before' });
        return updateClient(tx, client.id, { name: 'Numbat after', email: 'numbat@example.com' });
      }),
      inTransaction(ctx, async (tx) => {
        const client = await createClient(tx, { name: 'Wombat deleted' });
        await deleteClient(tx, client.id, undefined, none);
      }),
      createClient(ctx, { name: 'Wombat kept' }),
    ]);
    const search = async (q: string) =>
      (await context.request('GET', `/v1/clients?q=${encodeURIComponent(q)}&limit=100`, { key })).body.data.map(
        (client: { id: string }) => client.id,
      );
    assert.deepEqual(await search('wombat'), [kept.id]);
    assert.deepEqual(await search('numbat'), [renamed.id]);
    assert.deepEqual(await search('numbat@exa'), [renamed.id]);
    if (!onPostgres) {
      const counts = await sql<{ queued: number; rows: number; clients: number }>`select
        (select count(*) from client_search_pending) as queued,
        (select count(*) from clients_fts) as rows,
        (select count(*) from clients) as clients`.execute(context.database.db);
      assert.deepEqual(counts.rows, [{ queued: 0, rows: 31, clients: 31 }]);
    }
  } finally {
    await context.close();
  }
});
