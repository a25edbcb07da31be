// The recurring-invoices migration on a database that already holds invoices, on both engines: every existing
// invoice answers recurring_invoice_id and occurrence_date null, every account the default limit; the migration
// goes down and up again with the rows kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { accountLimits, createAccount } from '../src/modules/accounts/index.js';
import { createClient } from '../src/modules/clients/index.js';
import { createInvoice, getInvoice } from '../src/modules/invoices/index.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261129010000_recurring_invoices';

test('invoices and accounts made before the migration keep working, down and up again', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before templates' });
    const ctx = {
      db: database.db,
      clock: systemClock,
      links: { publicBaseUrl: 'http://127.0.0.1:3000' },
      accountId: account.id,
      actor: SYSTEM_ACTOR,
    };
    const client = await createClient(ctx, { name: 'Acme' });
    const invoice = await createInvoice(ctx, {
      client_id: client.id,
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 5000 }],
    });
    // Down to the version before, where the rows were written as that version wrote them, then up again.
    await database.migrateTo(database.before(NAME));
    const kept = await database.db.selectFrom('invoices').select(['id', 'total_amount']).execute();
    assert.deepEqual(
      kept.map((row) => [row.id, Number(row.total_amount)]),
      [[invoice.id, 5000]],
    );
    assert.ok((await database.migrateToLatest()).includes(NAME));
    const read = await getInvoice(ctx, invoice.id, new Date());
    assert.equal(read.recurring_invoice_id, null);
    assert.equal(read.occurrence_date, null);
    assert.equal(read.total_amount, 5000);
    const row = await database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.max_recurring_invoices, null);
    assert.equal(accountLimits(row).recurring_invoices, 1000);
    assert.deepEqual(await database.db.selectFrom('recurring_invoices').selectAll().execute(), []);
  } finally {
    await database.close();
  }
});
