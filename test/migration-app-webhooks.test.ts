// The migrations of apps' webhooks, logos, suspension and lapsed refresh tokens on a database that already holds
// data, on both engines: a business's endpoint, its attempts and an app made before keep every row, answer no
// app (`app_id` null), no logo and no suspension; down and up again keep them too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
const ENDPOINT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
const EVENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03';
const DELIVERY = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f04';
const APP = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f05';
const FIRST = '20261129210000_app_webhook_deliveries';

test('endpoints, attempts and apps made before keep their rows, with no app, logo or suspension', async () => {
  const database = await migratableDatabase();
  const { db } = database;
  try {
    await database.migrateTo(database.before(FIRST));
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
    await sql`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, attempt, status, next_attempt_at, created_at, updated_at)
      values (${DELIVERY}, ${ACCOUNT}, ${ENDPOINT}, ${EVENT}, ${'client.created'}, ${1}, ${'failed'}, ${now}, ${now}, ${now})`.execute(
      db,
    );
    await sql`insert into apps (id, account_id, name, client_type, redirect_uris, install_url, scopes, visibility, webhook_events, webhook_status, webhook_secret, metadata, created_at, updated_at)
      values (${APP}, ${ACCOUNT}, ${'Old app'}, ${'public'}, ${'["https://a.example/cb"]'}, ${'https://a.example/install'}, ${'["clients:read"]'}, ${'private'}, ${'["*"]'}, ${'enabled'}, ${'whsec_y'}, ${'{}'}, ${now}, ${now})`.execute(
      db,
    );
    const check = async () => {
      const endpoint = await db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([endpoint.id, endpoint.app_id, endpoint.app_install_id], [ENDPOINT, null, null]);
      const delivery = await db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([delivery.id, delivery.status, delivery.app_id], [DELIVERY, 'failed', null]);
      const app = await db.selectFrom('apps').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([app.id, app.logo_sha256, app.suspended_at], [APP, null, null]);
    };
    const applied = await database.migrateToLatest();
    assert.deepEqual(applied.slice(0, 4), [
      FIRST,
      '20261129210100_app_logos',
      '20261129210200_app_suspension',
      '20261129210300_live_refresh_tokens',
    ]);
    await check();
    await database.migrateTo(database.before(FIRST));
    const kept = await sql<{ count: number | string }>`select count(*) as count from webhook_deliveries`.execute(db);
    assert.equal(Number(kept.rows[0]!.count), 1, 'down keeps the business’s attempts');
    await database.migrateToLatest();
    await check();
  } finally {
    await database.close();
  }
});
