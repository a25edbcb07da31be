// The reports' hot reads answered from their indexes alone (docs/decisions.md, "Reports: SQLite's aging at speed"):
// aging's pieces of the open items (still open: their sums per client and bucket, those with a later entry; closed:
// the spans open on the day) and job profitability's pieces of the kept invoice figures read every column they need
// from the index's keys, never a row of the table per item (on SQLite, a seek of the table per row was most of
// aging's time at 100,000 invoices). The two indexes keep their names and first columns, so every plan that used
// them still does; the figures' has the currency after the job, so that their sums per job and currency come in the
// index's order, never sorted (a piece is a range of jobs: the issue dates were never a range of it). And an old job-profitability answer finds the invoices an entry after its sequence moved from the
// kept figures' last sequence, a range of a new index, rather than reading every later entry.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_open_items_account_span_idx').execute();
  await db.schema
    .createIndex('ledger_open_items_account_span_idx')
    .on('ledger_open_items')
    .columns([
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
      'last_entry_on',
      'last_sequence',
      'amount',
      'currency',
      'client_id',
      'kind',
      'due_date',
      'item_id',
    ])
    .execute();
  await db.schema.dropIndex('ledger_invoice_figures_account_job_idx').execute();
  await db.schema
    .createIndex('ledger_invoice_figures_account_job_idx')
    .on('ledger_invoice_figures')
    .columns([
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
    ])
    .execute();
  await db.schema
    .createIndex('ledger_invoice_figures_account_sequence_idx')
    .on('ledger_invoice_figures')
    .columns(['account_id', 'last_sequence', 'invoice_id', 'job_id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_invoice_figures_account_sequence_idx').execute();
  await db.schema.dropIndex('ledger_invoice_figures_account_job_idx').execute();
  await db.schema
    .createIndex('ledger_invoice_figures_account_job_idx')
    .on('ledger_invoice_figures')
    .columns(['account_id', 'job_id', 'issue_date'])
    .execute();
  await db.schema.dropIndex('ledger_open_items_account_span_idx').execute();
  await db.schema
    .createIndex('ledger_open_items_account_span_idx')
    .on('ledger_open_items')
    .columns(['account_id', 'span_class', 'opened_on', 'closed_on'])
    .execute();
}
