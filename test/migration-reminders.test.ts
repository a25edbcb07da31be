// The reminders migration on a database that already holds an account, a sent invoice and its queued e-mail, on
// both engines: the account answers reminders off with no steps, the invoice reminders on with none sent, the
// e-mail a delivery of kind document; and the migration goes down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase, sentInvoiceAtLatest } from './helpers/migration.js';

const NAME = '20261129110000_reminders';

test('an account, a sent invoice and its e-mail made before the migration read as before, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    const { account, invoice, read: readInvoice } = await sentInvoiceAtLatest(database, 'Before reminders');
    await database.migrateTo(database.before(NAME));
    assert.ok((await database.migrateToLatest()).includes(NAME));

    const read = await getAccount(database.db, account.id);
    assert.deepEqual(read.reminders, { enabled: false, send_time: '09:00', steps: [] });
    const after = await readInvoice();
    assert.equal(after.status, 'sent');
    assert.equal(after.reminders_enabled, true);
    assert.deepEqual(after.reminders, []);
    assert.equal(after.next_reminder_at, null);
    const message = await database.db
      .selectFrom('outbox_messages')
      .select(['kind', 'reminder_step'])
      .where('document_id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(message, { kind: null, reminder_step: null });
  } finally {
    await database.close();
  }
});
