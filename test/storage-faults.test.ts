// Storage that cannot take writes (SQLite: disk full, by a page limit; PostgreSQL: a read-only database):
// writes answer 503 SERVICE_UNAVAILABLE with Retry-After, /ready reports it, reads keep working even when
// the key's last_used_at cannot be written, and everything recovers when the storage does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

/** Makes the database refuse writes; returns how to undo it. */
async function breakStorage(context: TestContext): Promise<() => Promise<void>> {
  const { database } = context.config;
  if (database.kind === 'sqlite') {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(context.database.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(context.database.db);
    return async () => {
      await sql.raw('pragma max_page_count = 1073741823').execute(context.database.db);
    };
  }
  // From the maintenance database: sessions on the test database are read-only too once it is.
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: process.env.BMS_TEST_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const name = new URL(database.url).pathname.slice(1);
  // Every session opened from now on is read-only; the pool's open ones are ended, so it opens new ones.
  const endSessions = `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`;
  await admin(`alter database ${name} set default_transaction_read_only = on`);
  await admin(endSessions);
  return async () => {
    await admin(`alter database ${name} reset default_transaction_read_only`);
    await admin(endSessions);
  };
}

test(`writes on storage that refuses them answer 503, reads go on, /ready reports it (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  const clock = new ManualClock(new Date());
  const context = await createTestContext({ clock });
  try {
    const { accountId, key } = await context.account();
    // Enough rows that SQLite's next write needs a new page.
    for (let index = 0; index < 20; index += 1)
      await context.request('POST', '/v1/clients', { key, body: { name: `Client ${index}`, notes: 'x'.repeat(2000) } });
    const existing = (await context.request('POST', '/v1/clients', { key, body: { name: 'Readable' } })).body.data.id;
    const fresh = (await context.key(accountId, ['clients:read'])).key; // never used: its first use writes last_used_at
    const restore = await breakStorage(context);

    let refused;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      refused = await context.request('POST', '/v1/clients', {
        key,
        body: { name: 'No room', notes: 'y'.repeat(5000) },
      });
      if (refused.status === 503) break; // the pool's first query may meet a connection ended a moment ago
    }
    assert.equal(refused!.status, 503, refused!.text);
    assert.equal(refused!.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(refused!.headers['retry-after'], '5');

    const read = await context.request('GET', `/v1/clients/${existing}`, { key: fresh });
    assert.equal(read.status, 200, `a read with a key whose last_used_at cannot be written: ${read.text}`);
    const ready = await context.request('GET', '/ready');
    assert.equal(ready.status, 503);
    assert.match(ready.body.error.message, /refused a write/);

    await restore();
    let created;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      created = await context.request('POST', '/v1/clients', { key, body: { name: 'Room again' } });
      if (created.status === 201) break;
    }
    assert.equal(created!.status, 201, created!.text);
    clock.advance(31_000);
    assert.equal((await context.request('GET', '/ready')).status, 200, 'ready again once writes succeed');
    assert.ok(
      context.logs.some((line) => line.includes('storage unavailable')),
      'logged',
    );
  } finally {
    await context.close();
  }
});
