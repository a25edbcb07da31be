// The time-zone and team-members migration (contract section 14) on a database that already holds data, on
// both engines: existing accounts answer timezone UTC, existing objects external_id null, and the API works
// on them at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { createTestContext } from './helpers/context.js';
import { migratableDatabase } from './helpers/migration.js';

test('accounts and clients made before the migration: timezone UTC, external_id null, then usable', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before('20261125010000_time_and_team'));
    const now = '2026-11-20T10:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${'019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01'}, ${'Before'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(
      database.db,
    );
    await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${'019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'}, ${'019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01'}, ${'Old client'},
      ${'old client'}, ${'{}'}, ${now}, ${now})`.execute(database.db);
    assert.ok((await database.migrateToLatest()).includes('20261125010000_time_and_team'));
    const account = await database.db.selectFrom('accounts').select('timezone').executeTakeFirstOrThrow();
    assert.equal(account.timezone, 'UTC');
    const client = await database.db.selectFrom('clients').select('external_id').executeTakeFirstOrThrow();
    assert.equal(client.external_id, null);
  } finally {
    await database.close();
  }
});

test('an account made by this version answers timezone UTC and can take an external_id at once', async () => {
  const context = await createTestContext();
  try {
    const { key } = await context.account();
    assert.equal((await context.request('GET', '/v1/account', { key })).body.data.timezone, 'UTC');
    const client = await context.request('POST', '/v1/clients', { key, body: { name: 'New', external_id: 'x-1' } });
    assert.equal(client.body.data.external_id, 'x-1');
  } finally {
    await context.close();
  }
});
