// The ledger's invoice figures (docs/architecture.md, "Kept copies"; docs/decisions.md, "Reports at scale"): per
// account and invoice, what its entries give job profitability — issue date, client and currency (of its issued
// entry or latest restatement), void or not, net, its credit notes' nets, cost, product lines without a cost — with
// its job and the last sequence that moved it, kept by `ledger` in each posting's transaction; job profitability
// sums them in the database. Existing invoices' entries are summed in here once (the same walk, copied: a
// migration is history).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const INVOICE_DOCUMENT = new Set(['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided']);

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('ledger_invoice_figures')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('invoice_id', types.id, (column) => column.notNull())
    .addColumn('job_id', types.id)
    .addColumn('client_id', types.id, (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('issue_date', types.date, (column) => column.notNull())
    .addColumn('voided', 'integer', (column) => column.notNull())
    .addColumn('net_amount', 'bigint', (column) => column.notNull())
    .addColumn('credited_amount', 'bigint', (column) => column.notNull())
    .addColumn('cost_amount', 'bigint', (column) => column.notNull())
    .addColumn('lines_without_cost', 'bigint', (column) => column.notNull())
    .addColumn('entry_count', 'bigint', (column) => column.notNull())
    .addColumn('last_sequence', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ledger_invoice_figures_pk', ['account_id', 'invoice_id'])
    .execute();
  // Job profitability's sums: a period's invoices, or one job's.
  await db.schema
    .createIndex('ledger_invoice_figures_account_issue_idx')
    .on('ledger_invoice_figures')
    .columns(['account_id', 'issue_date'])
    .execute();
  await db.schema
    .createIndex('ledger_invoice_figures_account_job_idx')
    .on('ledger_invoice_figures')
    .columns(['account_id', 'job_id', 'issue_date'])
    .execute();

  const accounts = await db.selectFrom('accounts').select('id').orderBy('id').execute();
  for (const { id } of accounts) await backfillAccount(db, id);
}

const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** The same rows as `ledger`'s posting keeps (modules/ledger/ledger.invoice-figures.ts), from the entries so far. */
async function backfillAccount(db: Kysely<any>, accountId: string): Promise<void> {
  const entries = await db
    .selectFrom('ledger_entries')
    .select([
      'sequence',
      'invoice_id',
      'client_id',
      'currency',
      'type',
      'effective_date',
      'amount',
      'credit_note_id',
      'net_amount',
      'tax_amount',
      'cost_amount',
      'lines_without_cost',
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'is not', null)
    .orderBy('sequence')
    .execute();
  const histories = new Map<string, Record<string, any>[]>();
  for (const entry of entries) histories.set(entry.invoice_id, [...(histories.get(entry.invoice_id) ?? []), entry]);
  const invoices = await db
    .selectFrom('invoices')
    .select(['id', 'job_id'])
    .where('account_id', '=', accountId)
    .execute();
  const jobOf = new Map(invoices.map((row) => [row.id, row.job_id ?? null]));
  const rows: Record<string, unknown>[] = [];
  for (const [invoiceId, history] of histories) {
    let figures: Record<string, any> | null = null;
    let amount = 0;
    for (const [index, entry] of history.entries()) {
      if (entry.credit_note_id !== null) {
        if (figures && (entry.type === 'credit_note_issued' || entry.type === 'credit_note_voided'))
          figures.credited += numberOrNull(entry.net_amount) ?? 0;
        continue;
      }
      if (!INVOICE_DOCUMENT.has(entry.type)) continue;
      const previous = history[index - 1];
      const restated =
        entry.type === 'invoice_adjusted' &&
        previous?.type === 'invoice_adjusted' &&
        previous.credit_note_id === null &&
        Number(previous.sequence) === Number(entry.sequence) - 1 &&
        amount === 0;
      if (entry.type === 'invoice_issued' || restated || !figures) {
        figures ??= { voided: 0, net: 0, credited: 0, cost: 0, withoutCost: 0, entries: 0 };
        figures.issueDate = day(entry.effective_date);
        figures.clientId = entry.client_id;
        figures.currency = entry.currency;
      }
      if (entry.type === 'invoice_voided') figures.voided = 1;
      amount += Number(entry.amount);
      figures.net += numberOrNull(entry.net_amount) ?? Number(entry.amount) - (numberOrNull(entry.tax_amount) ?? 0);
      figures.cost += numberOrNull(entry.cost_amount) ?? 0;
      figures.withoutCost += numberOrNull(entry.lines_without_cost) ?? 0;
      figures.entries += 1;
    }
    if (!figures) continue;
    rows.push({
      account_id: accountId,
      invoice_id: invoiceId,
      job_id: jobOf.get(invoiceId) ?? null,
      client_id: figures.clientId,
      currency: figures.currency,
      issue_date: figures.issueDate,
      voided: figures.voided,
      net_amount: figures.net,
      credited_amount: figures.credited,
      cost_amount: figures.cost,
      lines_without_cost: figures.withoutCost,
      entry_count: figures.entries,
      last_sequence: Math.max(...history.map((entry) => Number(entry.sequence))),
    });
  }
  for (let start = 0; start < rows.length; start += 200)
    await db
      .insertInto('ledger_invoice_figures')
      .values(rows.slice(start, start + 200))
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ledger_invoice_figures').execute();
}
