// The reports' hot reads answered from their indexes alone (docs/decisions.md, "Reports: SQLite's aging at speed").
// On SQLite, aging's pieces of the open items (still open: their sums per client and bucket, those with a later
// entry; closed: the spans open on the day) read every column they need from the index's keys, never a row of the
// table per item: a seek of the table per row was most of aging's time at 100,000 invoices. The two open-item
// indexes keep their names and first columns, so every plan that used them still does; PostgreSQL keeps them as
// they were (its aging met the target, and its planner prices a wider index's pages against a small account's rows).
// On both engines, job profitability's index of the kept invoice figures holds the figures it sums, the currency
// after the job, so that the sums per job and currency come in the index's order, never sorted (a piece is a range
// of jobs: the issue dates were never a range of it); and an old job profitability finds the invoices an entry after
// its sequence moved from the kept figures' last sequence, a range of a new index, rather than every later entry.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** What a report reads of an open item beside the index's first columns. */
const ITEM_COLUMNS = ['last_entry_on', 'last_sequence', 'amount', 'currency', 'kind', 'due_date', 'item_id'];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
async function replaceIndex(db: Kysely<any>, table: string, name: string, columns: string[]): Promise<void> {
  await db.schema.dropIndex(name).execute();
  await db.schema.createIndex(name).on(table).columns(columns).execute();
}

// `any`: see above.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') {
    await replaceIndex(db, 'ledger_open_items', 'ledger_open_items_account_span_idx', [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
      'client_id',
      ...ITEM_COLUMNS,
    ]);
    // One client's (its aging, its statement's balances, the by-invoice page's clients) likewise, so that it stays
    // the narrower range for one client's reads.
    await replaceIndex(db, 'ledger_open_items', 'ledger_open_items_account_client_span_idx', [
      'account_id',
      'client_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...ITEM_COLUMNS,
    ]);
  }
  await replaceIndex(db, 'ledger_invoice_figures', 'ledger_invoice_figures_account_job_idx', [
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
  await db.schema
    .createIndex('ledger_invoice_figures_account_sequence_idx')
    .on('ledger_invoice_figures')
    .columns(['account_id', 'last_sequence', 'invoice_id', 'job_id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_invoice_figures_account_sequence_idx').execute();
  await replaceIndex(db, 'ledger_invoice_figures', 'ledger_invoice_figures_account_job_idx', [
    'account_id',
    'job_id',
    'issue_date',
  ]);
  if (dialectOf(db) !== 'postgres') {
    await replaceIndex(db, 'ledger_open_items', 'ledger_open_items_account_client_span_idx', [
      'account_id',
      'client_id',
      'span_class',
      'opened_on',
      'closed_on',
    ]);
    await replaceIndex(db, 'ledger_open_items', 'ledger_open_items_account_span_idx', [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
    ]);
  }
}
