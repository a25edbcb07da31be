// The attachments and signatures migrations on a database that already holds an account, on both engines: the
// account starts with no attachment bytes and the default quota, and both migrations go down and up again; the
// account's quote_signature setting starts typed.
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

test('the queue of files to remove, on a database that holds an attachment: empty, then takes a delete’s file; down and up again', async () => {
  const database = await migratableDatabase();
  const REMOVALS = '20261130040000_attachment_removals';
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before the queue' });
    await database.migrateTo(database.before(REMOVALS));
    // biome-ignore lint/suspicious/noExplicitAny: the tables as they were before this migration
    const db = database.db as any;
    const now = '2026-11-29T10:00:00.000Z';
    await db
      .insertInto('attachments')
      .values({
        id: '0195d1f0-0000-7000-8000-00000000a001',
        account_id: account.id,
        parent_type: 'client',
        parent_id: '0195d1f0-0000-7000-8000-00000000c001',
        kind: 'upload',
        filename: 'notes.txt',
        content_type: 'text/plain',
        size_bytes: 5,
        sha256: 'a'.repeat(64),
        visible_on_hub: 0,
        caption: null,
        location_removed: 0,
        created_by: '{"type":"api_key","id":null}',
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    assert.ok((await database.migrateToLatest()).includes(REMOVALS));
    assert.deepEqual(await db.selectFrom('attachment_removals').selectAll().execute(), []);
    const queued = { account_id: account.id, sha256: 'a'.repeat(64), queued_at: now };
    await db.insertInto('attachment_removals').values(queued).execute();
    // Queued twice, kept once (the key is the account and the bytes).
    await db
      .insertInto('attachment_removals')
      .values(queued)
      .onConflict((conflict: { columns(names: string[]): { doNothing(): unknown } }) =>
        conflict.columns(['account_id', 'sha256']).doNothing(),
      )
      .execute();
    assert.equal((await db.selectFrom('attachment_removals').selectAll().execute()).length, 1);
    await database.migrateTo(database.before(REMOVALS));
    assert.equal((await db.selectFrom('attachments').select('id').execute()).length, 1);
    await database.migrateToLatest();
  } finally {
    await database.close();
  }
});

test('the quote_signature setting on a database that holds an account: typed; down and up again', async () => {
  const database = await migratableDatabase();
  const SETTING = '20261130100000_quote_signature_setting';
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before drawn signatures' });
    await database.migrateTo(database.before(SETTING));
    // biome-ignore lint/suspicious/noExplicitAny: the tables as they were before this migration
    const db = database.db as any;
    assert.ok((await database.migrateToLatest()).includes(SETTING));
    const row = await db
      .selectFrom('accounts')
      .select('quote_signature')
      .where('id', '=', account.id)
      .executeTakeFirst();
    assert.equal(row.quote_signature, 'typed');
    await db.updateTable('accounts').set({ quote_signature: 'drawn' }).where('id', '=', account.id).execute();
    await database.migrateTo(database.before(SETTING));
    assert.equal((await db.selectFrom('accounts').select('id').where('id', '=', account.id).execute()).length, 1);
    await database.migrateToLatest();
  } finally {
    await database.close();
  }
});
