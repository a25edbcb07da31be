// The migration that adds the e-invoice fields (contract §31), on a database that already holds an account, a
// client, a tax rate and a product, on both engines: every new column is empty on the old rows (nothing an
// integrator sees changes: e-invoicing off, no category, no unit), and the migration goes down and up again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../src/core/deps.js';
import { createAccount, getAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261130010000_einvoices';

test('rows stored before the e-invoice fields read them empty; down and up again keep the rows', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateToLatest();
    const account = await createAccount(database.db, systemClock, { name: 'Before e-invoices', currency: 'EUR' });
    await database.migrateTo(database.before(NAME));
    const now = new Date().toISOString();
    const db = database.db as any;
    await db
      .insertInto('tax_rates')
      .values({
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11',
        account_id: account.id,
        name: 'MwSt',
        percentage: 190_000,
        compound: 0,
        priority: 0,
        registration_number: null,
        active: 1,
        external_id: null,
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    assert.ok((await database.migrateToLatest()).includes(NAME));
    const rate = await db
      .selectFrom('tax_rates')
      .select(['tax_category', 'exemption_reason', 'exemption_reason_code'])
      .executeTakeFirst();
    assert.deepEqual(rate, { tax_category: null, exemption_reason: null, exemption_reason_code: null });
    const read = await getAccount(database.db, account.id);
    assert.deepEqual(
      [read.vat_id, read.registration_id, read.electronic_address, read.payment_account, read.einvoicing_enabled],
      [null, null, null, null, false],
    );
    await database.migrateTo(database.before(NAME));
    assert.equal((await db.selectFrom('tax_rates').select('id').execute()).length, 1);
    await database.migrateToLatest();
    assert.equal((await db.selectFrom('tax_rates').select('id').execute()).length, 1);
  } finally {
    await database.close();
  }
});
