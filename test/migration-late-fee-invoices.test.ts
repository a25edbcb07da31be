// The migration that lets a late fee be an invoice of its own (contract §32, "Late fees and frozen e-invoices"), on
// a database that already holds a sent invoice with a reminder step and its fee, on both engines: the invoice
// answers `late_fee_for_invoice_id: null`, its step `late_fee_invoice_id: null` beside the fee it charged; and the
// migration goes down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migratableDatabase, sentInvoiceAtLatest } from './helpers/migration.js';

const NAME = '20261130020000_late_fee_invoices';

test('an invoice and its reminder step stored before the migration read with no fee invoice, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    const { account, invoice, read: readInvoice } = await sentInvoiceAtLatest(database, 'Before late fee invoices');
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const db = database.db as any;
    await db
      .insertInto('invoice_reminders')
      .values({
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f21',
        account_id: account.id,
        invoice_id: invoice.id,
        step: 2,
        sent_at: now,
        delivery_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f22',
        late_fee_amount: 185,
        created_at: now,
      })
      .execute();
    assert.ok((await database.migrateToLatest()).includes(NAME));

    const read = await readInvoice();
    assert.equal(read.late_fee_for_invoice_id, null);
    assert.deepEqual(read.reminders, [
      {
        step: 2,
        sent_at: now,
        delivery_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f22',
        late_fee_amount: 185,
        late_fee_invoice_id: null,
      },
    ]);
    await database.migrateTo(database.before(NAME));
    assert.equal((await db.selectFrom('invoice_reminders').select('id').execute()).length, 1);
    await database.migrateToLatest();
    assert.equal((await db.selectFrom('invoice_reminders').select('id').execute()).length, 1);
    assert.equal((await readInvoice()).late_fee_for_invoice_id, null);
  } finally {
    await database.close();
  }
});
