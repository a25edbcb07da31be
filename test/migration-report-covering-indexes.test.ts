// The reports' covering indexes' migration on a database with kept open items and invoice figures, on both engines:
// up widens job profitability's index and, on SQLite, aging's (same names, same first columns) so that their reads
// need no row of the table, and adds the figures' (account, last sequence) index; the kept rows are untouched and
// read through the new indexes; down gives back the indexes as they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { figuresMovedAfterQuery, jobSumsQuery } from '../src/modules/ledger/ledger.invoice-figures.js';
import { settledOpenItemSumsQuery } from '../src/modules/ledger/ledger.open-items.js';
import { onPostgres } from './helpers/database.js';
import { indexColumns, insertOldAccount, migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a21';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b21';
const JOB = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9c21';
const INVOICES = ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d21', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d22'];
const MIGRATION = '20261130190000_report_covering_indexes';

test('the reports indexes are widened over kept rows, which read as before, and narrowed again by down', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    await insertOldAccount(database.db, ACCOUNT, 'Old books', now);
    // Two invoices of 10,000 and 5,000, issued on 2 and 20 October, due 30 days later, still open, moved last at
    // sequences 3 and 7.
    await db
      .insertInto('ledger_open_items')
      .values(
        INVOICES.map((id, index) => ({
          account_id: ACCOUNT,
          kind: 'invoice',
          item_id: id,
          client_id: CLIENT,
          currency: 'USD',
          opened_on: index === 0 ? '2026-10-02' : '2026-10-20',
          closed_on: '9999-12-31',
          span_class: 99,
          last_entry_on: index === 0 ? '2026-10-02' : '2026-10-20',
          due_date: index === 0 ? '2026-11-01' : '2026-11-19',
          amount: index === 0 ? 10_000 : 5_000,
          last_sequence: index === 0 ? 3 : 7,
        })),
      )
      .execute();
    await db
      .insertInto('ledger_invoice_figures')
      .values(
        INVOICES.map((id, index) => ({
          account_id: ACCOUNT,
          invoice_id: id,
          job_id: JOB,
          client_id: CLIENT,
          currency: 'USD',
          issue_date: index === 0 ? '2026-10-02' : '2026-10-20',
          voided: 0,
          net_amount: index === 0 ? 10_000 : 5_000,
          credited_amount: 0,
          cost_amount: index === 0 ? 4_000 : 1_000,
          lines_without_cost: 0,
          entry_count: 1,
          last_sequence: index === 0 ? 3 : 7,
        })),
      )
      .execute();

    // Up to this migration (a later one widens the open-item indexes again).
    await database.migrateTo(MIGRATION);
    // SQLite's open-item indexes hold every column aging reads; PostgreSQL's are as they were.
    const itemColumns = onPostgres
      ? []
      : ['last_entry_on', 'last_sequence', 'amount', 'currency', 'kind', 'due_date', 'item_id'];
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_span_idx'), [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...(onPostgres ? [] : ['client_id']),
      ...itemColumns,
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_client_span_idx'), [
      'account_id',
      'client_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...itemColumns,
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_invoice_figures_account_job_idx'), [
      'account_id',
      'job_id',
      'currency',
      'issue_date',
      'voided',
      'last_sequence',
      'client_id',
      'net_amount',
      'credited_amount',
      'cost_amount',
      'lines_without_cost',
      'entry_count',
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_invoice_figures_account_sequence_idx'), [
      'account_id',
      'last_sequence',
      'invoice_id',
      'job_id',
    ]);
    // As of 15 November at sequence 10: the first invoice is 14 days past due (1-30), the second current.
    const sums = await settledOpenItemSumsQuery(database.db, ACCOUNT, '2026-11-15', 10, ['2026-10-16']).execute();
    assert.deepEqual(
      sums.map((row) => [row.kind, ...[row.bucket_0, row.bucket_1, row.bucket_2, row.count].map(Number)]),
      [['invoice', 5_000, 10_000, 0, 2]],
    );
    const jobs = await jobSumsQuery(database.db, ACCOUNT, {
      from: '2026-10-01',
      to: '2026-10-31',
      through: 10,
    }).execute();
    assert.deepEqual(
      jobs.map((row) => [row.job_id, row.currency, Number(row.revenue_amount), Number(row.cost_amount)]),
      [[JOB, 'USD', 15_000, 5_000]],
    );
    // At sequence 5 the second invoice (last moved at 7) is one an entry after the answer's sequence moved.
    const moved = await figuresMovedAfterQuery(database.db, ACCOUNT, 5, 10).execute();
    assert.deepEqual(moved, [{ invoice_id: INVOICES[1], job_id: JOB }]);

    await database.migrateTo(database.before(MIGRATION));
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_span_idx'), [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_client_span_idx'), [
      'account_id',
      'client_id',
      'span_class',
      'opened_on',
      'closed_on',
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_invoice_figures_account_job_idx'), [
      'account_id',
      'job_id',
      'issue_date',
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_invoice_figures_account_sequence_idx'), []);
    const kept = await sql<{ count: number }>`select count(*) as count from ledger_open_items`.execute(db);
    assert.equal(Number(kept.rows[0]!.count), 2);
  } finally {
    await database.close();
  }
});
