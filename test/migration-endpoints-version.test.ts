// Migration 20261127140000 on a database that already holds an account and an endpoint, on both engines: the
// version of an account's webhook endpoints, which counted up, is a new random number at each change from
// then on (events/subscriber-cache.ts), and going back down counts up again from 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11';
const ENDPOINT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f12';

test('endpoints version: counting up before the migration, random after, counting up again after its down', async () => {
  const database = await migratableDatabase();
  const db = database.db;
  const version = async () =>
    Number(
      (await db.selectFrom('accounts').select('webhook_endpoints_version').executeTakeFirstOrThrow())
        .webhook_endpoints_version,
    );
  const toggle = async (status: string) =>
    sql`update webhook_endpoints set status = ${status} where id = ${ENDPOINT}`.execute(db);
  try {
    await database.migrateTo('20261127030000_webhook_endpoints_version');
    const now = '2026-11-20T10:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
    await sql`insert into webhook_endpoints (id, account_id, url, enabled_events, status, secret, metadata, created_at, updated_at)
      values (${ENDPOINT}, ${ACCOUNT}, ${'https://example.com/hook'}, ${'["*"]'}, ${'enabled'}, ${'whsec_x'}, ${'{}'}, ${now}, ${now})`.execute(
      db,
    );
    assert.equal(await version(), 1, 'counting up: the insert made it 1');

    await database.migrateToLatest();
    assert.equal(await version(), 1, 'the migration keeps the version an account has');
    const seen = new Set<number>([1]);
    for (const status of ['disabled', 'enabled', 'disabled', 'enabled']) {
      await toggle(status);
      const next = await version();
      assert.ok(Number.isSafeInteger(next) && next >= 0, `${next} is a whole number JavaScript holds exactly`);
      assert.ok(!seen.has(next), `each change gives a version not seen before (${[...seen]} then ${next})`);
      seen.add(next);
    }

    await database.migrateTo('20261127030000_webhook_endpoints_version');
    assert.equal(await version(), 0, 'down: back to counting, from 0');
    await toggle('disabled');
    // SQLite's update trigger raises the old and the new account (the same one here); PostgreSQL's raises it once.
    assert.equal(await version(), onPostgres ? 1 : 2, 'counting up again');
  } finally {
    await database.close();
  }
});
