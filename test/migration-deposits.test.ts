// The deposits migration on a database that already holds a sent quote, a sent invoice with a payment, a refund
// and the payment's application, on both engines: every row reads as before (a payment names its invoice and no
// quote, a quote has no deposit), every index of payments is still there, the keys that name payments still
// hold, and a deposit can then be stored; going down refuses while a deposit is stored and keeps it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261129170000_deposits';

test('payments, refunds and applications made before the migration read as before, with their indexes; down refuses to drop a deposit', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(NAME));
    // Rows written as the version before wrote them: through SQL of that schema (no quote_id, no deposit columns,
    // nor the columns later versions added to accounts and clients).
    const now = new Date().toISOString();
    const account = { id: '019a8f4e-7c1a-7d2b-9a3e-0000000000a1' };
    const client = { id: '019a8f4e-7c1a-7d2b-9a3e-0000000000c1' };
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${account.id}, ${'Before deposits'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    await sql`insert into clients (id, account_id, name, sort_name, email, metadata, created_at, updated_at)
      values (${client.id}, ${account.id}, ${'Acme'}, ${'acme'}, ${'ap@acme.example'}, ${'{}'}, ${now}, ${now})`.execute(
      database.db,
    );
    const quoteId = '019a8f4e-7c1a-7d2b-9a3e-000000000001';
    const invoiceId = '019a8f4e-7c1a-7d2b-9a3e-000000000002';
    const paymentId = '019a8f4e-7c1a-7d2b-9a3e-000000000003';
    const lines = JSON.stringify([]);
    const priced = {
      line_items: lines,
      subtotal_amount: 12_345,
      tax_amount: 0,
      total_amount: 12_345,
      prices_include_tax: 0,
      rounding: 'line',
      discount: null,
      discount_amount: 0,
      tax_breakdown: JSON.stringify([]),
    };
    const db = database.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    await db
      .insertInto('quotes')
      .values({
        id: quoteId,
        account_id: account.id,
        client_id: client.id,
        currency: 'USD',
        ...priced,
        status: 'approved',
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('invoices')
      .values({
        id: invoiceId,
        account_id: account.id,
        client_id: client.id,
        quote_id: quoteId,
        currency: 'USD',
        ...priced,
        amount_paid: 5_000,
        status: 'sent',
        issue_date: '2026-11-01',
        due_date: '2026-12-01',
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('payments')
      .values({
        id: paymentId,
        account_id: account.id,
        invoice_id: invoiceId,
        client_id: client.id,
        amount: 6_000,
        amount_refunded: 1_000,
        amount_applied: 5_000,
        overpayment: 'reject',
        currency: 'USD',
        method: 'cash',
        reference: 'OLD-1',
        paid_at: now,
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('payment_refunds')
      .values({
        id: '019a8f4e-7c1a-7d2b-9a3e-000000000004',
        account_id: account.id,
        payment_id: paymentId,
        amount: 1_000,
        created_at: now,
      })
      .execute();
    await db
      .insertInto('applications')
      .values({
        id: '019a8f4e-7c1a-7d2b-9a3e-000000000005',
        account_id: account.id,
        client_id: client.id,
        currency: 'USD',
        source_type: 'payment',
        payment_id: paymentId,
        invoice_id: invoiceId,
        amount: 5_000,
        applied_on: '2026-11-01',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const indexesBefore = await paymentIndexes(database.db);

    assert.ok((await database.migrateToLatest()).includes(NAME));

    const payment = await db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    assert.equal(payment.invoice_id, invoiceId);
    assert.equal(payment.quote_id, null);
    assert.equal(Number(payment.amount), 6_000);
    assert.equal(Number(payment.amount_refunded), 1_000);
    assert.equal(Number(payment.amount_applied), 5_000);
    assert.equal(payment.reference, 'OLD-1');
    const quote = await db.selectFrom('quotes').selectAll().where('id', '=', quoteId).executeTakeFirstOrThrow();
    assert.deepEqual([quote.deposit_type, quote.deposit_value, Number(quote.deposit_paid_amount)], [null, null, 0]);
    assert.equal((await db.selectFrom('payment_refunds').selectAll().execute()).length, 1);
    assert.equal((await db.selectFrom('applications').selectAll().execute()).length, 1);
    // Every index payments had is still there, with the quote's one added.
    const indexesAfter = await paymentIndexes(database.db);
    assert.deepEqual(
      indexesAfter.filter((name) => name !== 'payments_account_quote_idx'),
      indexesBefore,
    );
    assert.ok(indexesAfter.includes('payments_account_quote_idx'));
    // The reference stays unique, the keys that name payments still hold, and exactly one document is required.
    const duplicate = { ...payment, id: '019a8f4e-7c1a-7d2b-9a3e-000000000006' };
    await assert.rejects(db.insertInto('payments').values(duplicate).execute());
    await assert.rejects(
      db
        .insertInto('payment_refunds')
        .values({
          id: '019a8f4e-7c1a-7d2b-9a3e-000000000007',
          account_id: account.id,
          payment_id: '019a8f4e-7c1a-7d2b-9a3e-0000000000ff',
          amount: 1,
          created_at: now,
        })
        .execute(),
    );
    await assert.rejects(
      db
        .insertInto('payments')
        .values({ ...payment, id: '019a8f4e-7c1a-7d2b-9a3e-000000000008', reference: null, quote_id: quoteId })
        .execute(),
    );
    // A deposit can be stored now; going down would lose it, so it refuses and keeps it.
    await db
      .insertInto('payments')
      .values({
        ...payment,
        id: '019a8f4e-7c1a-7d2b-9a3e-000000000009',
        invoice_id: null,
        quote_id: quoteId,
        reference: null,
      })
      .execute();
    const { Migrator } = await import('kysely');
    const { MIGRATIONS } = await import('../src/db/migrate.js');
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => MIGRATIONS } });
    const down = await migrator.migrateTo(database.before(NAME));
    assert.notEqual(down.error, undefined);
    assert.equal((await db.selectFrom('payments').selectAll().execute()).length, 2);
    assert.deepEqual(await paymentIndexes(database.db), indexesAfter);
    // Without the deposit, down and up again keep every row and index.
    await db.deleteFrom('payments').where('quote_id', '=', quoteId).execute();
    await database.migrateTo(database.before(NAME));
    assert.deepEqual(await paymentIndexes(database.db), indexesBefore);
    assert.equal((await db.selectFrom('payments').selectAll().execute()).length, 1);
    assert.ok((await database.migrateToLatest()).includes(NAME));
    assert.deepEqual(await paymentIndexes(database.db), indexesAfter);
    assert.equal((await db.selectFrom('payment_refunds').selectAll().execute()).length, 1);
  } finally {
    await database.close();
  }
});

/** The names of payments' indexes, sorted (SQLite's own automatic ones and PostgreSQL's primary key aside). */
async function paymentIndexes(db: import('../src/db/database.js').Db): Promise<string[]> {
  const rows = onPostgres
    ? await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'payments'`.execute(db)
    : await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'index' and tbl_name = 'payments' and sql is not null`.execute(db);
  return rows.rows
    .map((row) => row.name)
    .filter((name) => name !== 'payments_pkey')
    .sort();
}
