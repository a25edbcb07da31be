// The attachments and signatures migrations on a database that already holds an account, on both engines: the
// account starts with no attachment bytes and the default quota, and both migrations go down and up again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase } from './helpers/migration.js';

const FIRST = '20261129230000_attachments';
const SECOND = '20261129230100_quote_signatures';

test('an existing account: no bytes used, the default quota; down and up again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before attachments' });
    await database.migrateTo(database.before(FIRST));
    // biome-ignore lint/suspicious/noExplicitAny: the tables as they were before these migrations
    const db = database.db as any;
    const migrated = await database.migrateToLatest();
    assert.ok(migrated.includes(FIRST) && migrated.includes(SECOND));
    const row = await db
      .selectFrom('accounts')
      .select(['attachment_bytes', 'max_attachment_bytes'])
      .where('id', '=', account.id)
      .executeTakeFirst();
    assert.deepEqual({ used: Number(row.attachment_bytes), quota: row.max_attachment_bytes }, { used: 0, quota: null });
    assert.deepEqual(await db.selectFrom('attachments').selectAll().execute(), []);
    assert.deepEqual(await db.selectFrom('quote_signatures').selectAll().execute(), []);
    await database.migrateTo(database.before(FIRST));
    assert.equal((await db.selectFrom('accounts').select('id').where('id', '=', account.id).execute()).length, 1);
    await database.migrateToLatest();
  } finally {
    await database.close();
  }
});
