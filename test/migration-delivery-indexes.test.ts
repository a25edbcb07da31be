// Migration 20261127200000 on a database that already holds an account, an endpoint, an event and its
// attempts, on both engines: webhook_deliveries keeps its rows with two indexes fewer (issue 36), still at
// most one pending attempt per (event, endpoint) but any number of finished ones, and its down restores the
// indexes it dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11';
const ENDPOINT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f12';
const EVENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f13';
const BEFORE = '20261127140000_webhook_endpoints_version_random';

test('delivery indexes: two fewer, rows kept, one pending attempt per (event, endpoint), down restores them', async () => {
  const database = await migratableDatabase();
  const db = database.db;
  const indexes = async () => {
    const rows = onPostgres
      ? (
          await sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = 'webhook_deliveries' and indexname <> 'webhook_deliveries_pkey'`.execute(
            db,
          )
        ).rows
      : (
          await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'webhook_deliveries' and name not like 'sqlite_autoindex_%'`.execute(
            db,
          )
        ).rows;
    return rows.map((row) => row.name).sort();
  };
  let next = 0;
  const attempt = (status: string) => {
    next += 1;
    const id = `019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f${String(20 + next)}`;
    const at = `2026-11-20T10:00:0${next}.000Z`;
    return sql`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, attempt, status, next_attempt_at, created_at, updated_at)
      values (${id}, ${ACCOUNT}, ${ENDPOINT}, ${EVENT}, ${'client.created'}, ${next}, ${status}, ${at}, ${at}, ${at})`.execute(
      db,
    );
  };
  const count = async () =>
    Number(
      (await sql<{ count: number | string }>`select count(*) as count from webhook_deliveries`.execute(db)).rows[0]!
        .count,
    );
  try {
    await database.migrateTo(BEFORE);
    const now = '2026-11-20T10:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
    await sql`insert into webhook_endpoints (id, account_id, url, enabled_events, status, secret, metadata, created_at, updated_at)
      values (${ENDPOINT}, ${ACCOUNT}, ${'https://example.com/hook'}, ${'["*"]'}, ${'enabled'}, ${'whsec_x'}, ${'{}'}, ${now}, ${now})`.execute(
      db,
    );
    await sql`insert into events (id, account_id, type, resource_id, data, actor_type, actor_id, created_at)
      values (${EVENT}, ${ACCOUNT}, ${'client.created'}, ${ACCOUNT}, ${'{}'}, ${'api_key'}, ${null}, ${now})`.execute(
      db,
    );
    await attempt('failed');
    await attempt('failed');
    await attempt('pending');
    const before = [
      'webhook_deliveries_due_idx',
      'webhook_deliveries_endpoint_idx',
      'webhook_deliveries_endpoint_status_idx',
      'webhook_deliveries_event_idx',
      'webhook_deliveries_one_pending_idx',
    ];
    assert.deepEqual(await indexes(), before);

    await database.migrateToLatest();
    assert.deepEqual(await indexes(), [
      // Attempts to apps, by app (migration 20261129210000): a partial index, holding none of these.
      'webhook_deliveries_app_status_idx',
      'webhook_deliveries_due_idx',
      'webhook_deliveries_endpoint_status_idx',
      'webhook_deliveries_event_attempts_idx',
    ]);
    assert.equal(await count(), 3, 'the attempts are kept');
    await assert.rejects(attempt('pending'), 'a second pending attempt of the same (event, endpoint) is refused');
    await attempt('succeeded');
    await attempt('failed');
    assert.equal(await count(), 5, 'finished attempts of the same (event, endpoint): as many as there are');
    await sql`update webhook_deliveries set status = 'failed' where status = 'pending'`.execute(db);
    await attempt('pending');
    assert.equal(await count(), 6, 'once the pending one is finished, the next may wait');

    await database.migrateTo(BEFORE);
    assert.deepEqual(await indexes(), before, 'down: the indexes as they were');
    await assert.rejects(attempt('pending'), 'down: still one pending attempt');
    await database.migrateToLatest();
  } finally {
    await database.close();
  }
});
