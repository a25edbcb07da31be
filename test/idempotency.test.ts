// Idempotency-Key on POST: a retry replays the first response and creates nothing; another body is 422;
// a retry while the first runs is 409; validation failures are not kept; keys are per API key; records
// last 24 hours; a retried send queues one e-mail.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { SCOPES } from '../src/kernel/scopes.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
let context: TestContext;
let key: string;
let accountId: string;

function post(url: string, body: unknown, idempotencyKey?: string, apiKey = key) {
  return context.request('POST', url, {
    key: apiKey,
    body,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });
}

async function count(table: 'clients' | 'outbox_messages') {
  const rows = await context.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(rows.count);
}

before(async () => {
  context = await createTestContext({ clock });
  ({ key, accountId } = await context.account());
});
after(() => context.close());

test('a retry with the same key and body replays the first response and creates nothing', async () => {
  const before = await count('clients');
  const first = await post('/v1/clients', { name: 'Jane', email: 'jane@example.com' }, 'create-jane-1');
  assert.equal(first.status, 201);
  const retry = await post('/v1/clients', { email: 'jane@example.com', name: 'Jane' }, 'create-jane-1');
  assert.equal(retry.status, 201, 'the same request, fields in another order');
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(retry.headers.location, first.headers.location);
  assert.deepEqual(retry.body, first.body, 'the very same body, request id included');
  assert.ok(first.headers.etag);
  assert.equal(retry.headers.etag, first.headers.etag, 'the same ETag');
  assert.equal(first.headers['idempotent-replayed'], undefined);
  assert.equal(await count('clients'), before + 1);
});

test('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
  await post('/v1/clients', { name: 'Ann' }, 'reuse-1');
  const reused = await post('/v1/clients', { name: 'Bob' }, 'reuse-1');
  assert.deepEqual([reused.status, reused.body.error.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
  const otherPath = await post('/v1/service-requests', { name: 'Ann' }, 'reuse-1');
  assert.equal(otherPath.status, 422, 'another endpoint is another request too');
});

test('a retry while the first request is still running is 409 CONFLICT', async () => {
  const apiKeyId = (
    await context.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow()
  ).id;
  const body = { name: 'Slow' };
  // The first request holds the key (as it would mid-flight): its record is still running.
  const first = await post('/v1/clients', body, 'running-1');
  await context.database.db
    .updateTable('idempotency_keys')
    .set({ status: 'running', locked_until: new Date(clock.now().getTime() + 60_000).toISOString() })
    .where('api_key_id', '=', apiKeyId)
    .where('key', '=', 'running-1')
    .execute();
  const retry = await post('/v1/clients', body, 'running-1');
  assert.deepEqual([retry.status, retry.body.error.code], [409, 'CONFLICT']);
  assert.equal(
    retry.headers['retry-after'],
    '1',
    'Retry-After tells a client (and the SDKs) this 409 is worth retrying',
  );
  // A holder that died lets go when its lease runs out: the retry then runs (the first's work is not
  // visible to it, as with any request that never answered).
  clock.advance(60_000);
  const afterLease = await post('/v1/clients', body, 'running-1');
  assert.equal(afterLease.status, 201);
  assert.notEqual(afterLease.body.data.id, first.body.data.id);
});

test('concurrent requests with one key: one runs, the others wait their turn or are refused, one client made', async () => {
  const before = await count('clients');
  const responses = await Promise.all(
    Array.from({ length: 5 }, () => post('/v1/clients', { name: 'Concurrent' }, 'concurrent-1')),
  );
  const statuses = responses.map((response) => response.status).sort();
  assert.ok(
    statuses.every((status) => status === 201 || status === 409),
    statuses.join(),
  );
  assert.equal(await count('clients'), before + 1, 'exactly one client created');
  const created = responses.filter((response) => response.status === 201).map((response) => response.body.data.id);
  assert.equal(new Set(created).size, 1, 'every 201 is the same client');
});

test('validation failures are not kept: the same key works once the body is fixed', async () => {
  const invalid = await post('/v1/clients', { name: 'Jane', email: 'not-an-email' }, 'fix-me-1');
  assert.equal(invalid.status, 422);
  const fixed = await post('/v1/clients', { name: 'Jane', email: 'jane@example.com' }, 'fix-me-1');
  assert.equal(fixed.status, 201, fixed.text);
  const badReference = await post('/v1/quotes', { client_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }, 'fix-me-2');
  assert.equal(badReference.status, 422, 'a validation failure found by the service is not kept either');
  const good = await post('/v1/quotes', { client_id: fixed.body.data.id }, 'fix-me-2');
  assert.equal(good.status, 201);
});

test('state errors are kept and replayed like successes', async () => {
  const client = (await post('/v1/clients', { name: 'State' })).body.data.id;
  const quote = (await post('/v1/quotes', { client_id: client })).body.data.id;
  const refused = await post('/v1/jobs', { quote_id: quote }, 'state-1');
  assert.equal(refused.status, 409);
  const replay = await post('/v1/jobs', { quote_id: quote }, 'state-1');
  assert.deepEqual([replay.status, replay.headers['idempotent-replayed']], [409, 'true']);
});

test('keys belong to one API key', async () => {
  const other = (await context.key(accountId, SCOPES)).key;
  const mine = await post('/v1/clients', { name: 'Mine' }, 'shared-string');
  const theirs = await post('/v1/clients', { name: 'Theirs' }, 'shared-string', other);
  assert.deepEqual([mine.status, theirs.status], [201, 201]);
  assert.notEqual(mine.body.data.id, theirs.body.data.id);
});

test('a record lasts 24 hours', async () => {
  const first = await post('/v1/clients', { name: 'Day' }, 'day-1');
  clock.advance(24 * 60 * 60 * 1000 - 1000);
  assert.equal(
    (await post('/v1/clients', { name: 'Day' }, 'day-1')).body.data.id,
    first.body.data.id,
    'replayed within 24 hours',
  );
  clock.advance(2000);
  const later = await post('/v1/clients', { name: 'Day' }, 'day-1');
  assert.equal(later.status, 201);
  assert.notEqual(later.body.data.id, first.body.data.id, 'a new request after 24 hours');
});

test('a retried send queues one e-mail', async () => {
  const client = (await post('/v1/clients', { name: 'Send', email: 'send@example.com' })).body.data.id;
  const invoice = (
    await post('/v1/invoices', { client_id: client, line_items: [{ description: 'x', quantity: 1, unit_amount: 100 }] })
  ).body.data.id;
  const before = await count('outbox_messages');
  const first = await post(`/v1/invoices/${invoice}/send`, { message: 'Hi' }, 'send-1');
  const retry = await post(`/v1/invoices/${invoice}/send`, { message: 'Hi' }, 'send-1');
  assert.deepEqual([first.status, retry.status, retry.headers['idempotent-replayed']], [200, 200, 'true']);
  assert.equal(await count('outbox_messages'), before + 1);
});

test('a key longer than 255 characters is a 422 on the header', async () => {
  const response = await post('/v1/clients', { name: 'Long' }, 'k'.repeat(256));
  assert.equal(response.status, 422);
  assert.equal(response.body.error.details[0].field, 'idempotency-key');
});

test('a send without a body and the same send with {} or null are one request under one key', async () => {
  const client = (await post('/v1/clients', { name: 'Send twice', email: 'twice@example.com' })).body.data.id;
  const invoice = (
    await post('/v1/invoices', {
      client_id: client,
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 100 }],
    })
  ).body.data.id;
  const first = await context.request('POST', `/v1/invoices/${invoice}/send`, {
    key,
    headers: { 'idempotency-key': 'send-once' },
  });
  assert.equal(first.status, 200, first.text);
  for (const rawBody of ['{}', 'null']) {
    const again = await context.request('POST', `/v1/invoices/${invoice}/send`, {
      key,
      rawBody,
      headers: { 'idempotency-key': 'send-once', 'content-type': 'application/json' },
    });
    assert.equal(again.status, 200, `${rawBody}: ${again.text}`);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  }
  const queued = await context.database.db
    .selectFrom('outbox_messages')
    .select('id')
    .where('document_id', '=', invoice)
    .execute();
  assert.equal(queued.length, 1, 'one e-mail');
});

test('the kept response commits with the request’s writes: when keeping it fails, neither is stored', async () => {
  const apiKeyId = (
    await context.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow()
  ).id;
  // Keeping the response (the record's UPDATE to done) fails after the client, its event and the record's
  // claim were written: the request answers 500 and none of its writes remain.
  const db = context.database.db;
  if (onPostgres) {
    await sql`create function refuse_keeping() returns trigger language plpgsql as $$ begin raise exception 'keeping refused'; end $$`.execute(
      db,
    );
    await sql`create trigger refuse_keeping before update on idempotency_keys for each row execute function refuse_keeping()`.execute(
      db,
    );
  } else {
    await sql`create trigger refuse_keeping before update on idempotency_keys begin select raise(abort, 'keeping refused'); end`.execute(
      db,
    );
  }
  const countNamed = async () =>
    Number(
      (
        await db
          .selectFrom('clients')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('name', '=', 'Atomic')
          .executeTakeFirstOrThrow()
      ).count,
    );
  const events = async () =>
    Number(
      (
        await db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('type', '=', 'client.created')
          .executeTakeFirstOrThrow()
      ).count,
    );
  const eventsBefore = await events();
  try {
    const failed = await post('/v1/clients', { name: 'Atomic' }, 'atomic-1');
    assert.equal(failed.status, 500, failed.text);
    assert.equal(await countNamed(), 0, 'the client was rolled back with its kept response');
    assert.equal(await events(), eventsBefore, 'its event too');
    const record = await db
      .selectFrom('idempotency_keys')
      .select('status')
      .where('api_key_id', '=', apiKeyId)
      .where('key', '=', 'atomic-1')
      .executeTakeFirst();
    assert.equal(record, undefined, 'and the key is free again');
  } finally {
    await sql`drop trigger refuse_keeping${sql.raw(onPostgres ? ' on idempotency_keys' : '')}`.execute(db);
    if (onPostgres) await sql`drop function refuse_keeping()`.execute(db);
  }
  const retried = await post('/v1/clients', { name: 'Atomic' }, 'atomic-1');
  assert.equal(retried.status, 201, retried.text);
  assert.equal(retried.headers['idempotent-replayed'], undefined, 'the retry runs: nothing was kept');
  const replayed = await post('/v1/clients', { name: 'Atomic' }, 'atomic-1');
  assert.deepEqual([replayed.status, replayed.headers['idempotent-replayed']], [201, 'true']);
  assert.equal(replayed.body.data.id, retried.body.data.id);
  assert.equal(await countNamed(), 1, 'one client, with its kept response');
  assert.equal(await events(), eventsBefore + 1);
});

test('a preview with an Idempotency-Key runs in its own rolled-back transaction and is replayed', async () => {
  const client = (await post('/v1/clients', { name: 'Preview' })).body.data.id;
  const body = { client_id: client, line_items: [{ description: 'Work', quantity: 2, unit_amount: 150 }] };
  const first = await post('/v1/invoices/preview', body, 'preview-1');
  assert.equal(first.status, 200, first.text);
  const retry = await post('/v1/invoices/preview', body, 'preview-1');
  assert.deepEqual([retry.status, retry.headers['idempotent-replayed']], [200, 'true']);
  const invoices = await context.database.db
    .selectFrom('invoices')
    .select('id')
    .where('client_id', '=', client)
    .execute();
  assert.deepEqual(invoices, [], 'nothing stored');
});
