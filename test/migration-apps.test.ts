// The apps migrations on a database that already holds data, on both engines: events recorded before answer
// `app_id: null` in their actor, and the idempotency records kept under a key survive the table's rebuild (its
// foreign key to api_keys goes, so that an install's id may own records), and a replay still finds them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
const KEY = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
const EVENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03';
const INSTALL = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f04';

test('events and idempotency records made before the apps migrations are kept, and an install may own records', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before('20261129120000_apps'));
    const now = '2026-11-20T10:00:00.000Z';
    const later = '2026-11-21T10:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Before apps'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    await sql`insert into api_keys (id, account_id, name, prefix, key_hash, scopes, allowed_cidrs, created_by_type, created_at, updated_at)
      values (${KEY}, ${ACCOUNT}, ${'k'}, ${'bms_abc'}, ${'hash'}, ${'["clients:read"]'}, ${'[]'}, ${'cli'}, ${now}, ${now})`.execute(
      database.db,
    );
    await sql`insert into events (id, account_id, type, resource_id, data, actor_type, actor_id, created_at)
      values (${EVENT}, ${ACCOUNT}, ${'client.created'}, ${ACCOUNT}, ${'{"object":{"id":"x"}}'}, ${'api_key'}, ${KEY}, ${now})`.execute(
      database.db,
    );
    await sql`insert into idempotency_keys (api_key_id, key, request_hash, status, response_status, response_body, locked_until, expires_at, created_at)
      values (${KEY}, ${'k-1'}, ${'h'}, ${'done'}, ${201}, ${'{}'}, ${now}, ${later}, ${now})`.execute(database.db);
    const applied = await database.migrateToLatest();
    assert.ok(applied.includes('20261129120000_apps'));
    assert.ok(applied.includes('20261129120100_idempotency_per_install'));
    const event = await database.db.selectFrom('events').selectAll().where('id', '=', EVENT).executeTakeFirstOrThrow();
    assert.equal(event.actor_app_id, null);
    const kept = await database.db.selectFrom('idempotency_keys').selectAll().execute();
    assert.deepEqual(
      kept.map((row) => [row.api_key_id, row.key, row.response_status]),
      [[KEY, 'k-1', 201]],
    );
    // An install's id (no API key) may own a record now; the pair stays unique.
    const record = {
      key: 'k-1',
      request_hash: 'h',
      status: 'done',
      locked_until: now,
      expires_at: later,
      created_at: now,
    };
    await database.db
      .insertInto('idempotency_keys')
      .values({ api_key_id: INSTALL, ...record })
      .execute();
    await assert.rejects(
      database.db
        .insertInto('idempotency_keys')
        .values({ api_key_id: INSTALL, ...record })
        .execute(),
    );
  } finally {
    await database.close();
  }
});
