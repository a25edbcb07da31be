// The migration that lets a late fee be an invoice of its own (contract §32, "Late fees and frozen e-invoices"), on
// a database that already holds a sent invoice with a reminder step and its fee, on both engines: the invoice
// answers `late_fee_for_invoice_id: null`, its step `late_fee_invoice_id: null` beside the fee it charged; and the
// migration goes down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { createAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261130020000_late_fee_invoices';

test('an invoice and its reminder step stored before the migration read with no fee invoice, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before late fee invoices' });
    const ctx = {
      db: database.db,
      clock: systemClock,
      links: { publicBaseUrl: 'http://127.0.0.1:3000' },
      accountId: account.id,
      actor: SYSTEM_ACTOR,
    };
    const { createClient } = await import('../src/modules/clients/clients.service.js');
    const { createInvoice, getInvoice, SENDABLE_INVOICE } = await import('../src/modules/invoices/index.js');
    const { sendDocument } = await import('../src/modules/sent-documents/index.js');
    const client = await createClient(ctx, { name: 'Acme', email: 'ap@acme.example' });
    const invoice = await createInvoice(ctx, {
      client_id: client.id,
      line_items: [{ description: 'Service', quantity: 1, unit_amount: 12345 }],
    });
    await sendDocument(ctx, SENDABLE_INVOICE, invoice.id, undefined);
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

    const read = await getInvoice(ctx, invoice.id, new Date());
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
    assert.equal((await getInvoice(ctx, invoice.id, new Date())).late_fee_for_invoice_id, null);
  } finally {
    await database.close();
  }
});
