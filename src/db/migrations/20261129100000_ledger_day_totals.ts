// The ledger's day totals (docs/architecture.md, "Kept copies"; docs/decisions.md, "Reports"): per account,
// currency, local day and tax rate, the sums of the document entries (invoices issued, adjusted, voided, late
// fees; credit notes issued and voided) that accrual revenue and the tax summary read, kept by `ledger` in each
// posting's transaction. Existing entries are summed in here once.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const DOCUMENT_TYPES = [
  'invoice_issued',
  'invoice_adjusted',
  'late_fee',
  'invoice_voided',
  'credit_note_issued',
  'credit_note_voided',
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('ledger_day_totals')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('effective_date', types.date, (column) => column.notNull())
    // '' for the day's document totals; else the rate's key: its id (or `v1:` and its name) and percentage.
    .addColumn('rate_key', 'text', (column) => column.notNull())
    .addColumn('tax_rate_id', types.id)
    .addColumn('name', 'text')
    .addColumn('percentage', 'text')
    .addColumn('entry_count', 'bigint', (column) => column.notNull())
    .addColumn('net_amount', 'bigint', (column) => column.notNull())
    .addColumn('no_tax_amount', 'bigint', (column) => column.notNull())
    .addColumn('taxable_amount', 'bigint', (column) => column.notNull())
    .addColumn('tax_amount', 'bigint', (column) => column.notNull())
    .addColumn('invoices_tax_amount', 'bigint', (column) => column.notNull())
    .addColumn('credit_notes_tax_amount', 'bigint', (column) => column.notNull())
    .addColumn('last_sequence', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ledger_day_totals_pk', ['account_id', 'currency', 'effective_date', 'rate_key'])
    .execute();

  const accounts = await db.selectFrom('accounts').select('id').orderBy('id').execute();
  for (const { id } of accounts) await backfillAccount(db, id);
}

type Total = Record<string, unknown> & { entry_count: number; last_sequence: number };
const AMOUNTS = [
  'net_amount',
  'no_tax_amount',
  'taxable_amount',
  'tax_amount',
  'invoices_tax_amount',
  'credit_notes_tax_amount',
] as const;

/** The same sums as `ledger`'s posting keeps (modules/ledger/ledger.day-totals.ts), over the entries so far. */
async function backfillAccount(db: Kysely<any>, accountId: string): Promise<void> {
  const entries = await db
    .selectFrom('ledger_entries')
    .select(['sequence', 'currency', 'type', 'effective_date', 'amount', 'net_amount', 'tax_amount', 'taxes'])
    .where('account_id', '=', accountId)
    .where('type', 'in', DOCUMENT_TYPES)
    .orderBy('sequence')
    .execute();
  const totals = new Map<string, Total>();
  const add = (
    entry: Record<string, any>,
    key: string,
    fields: Record<string, unknown>,
    sums: Partial<Record<(typeof AMOUNTS)[number], number>>,
  ) => {
    const day =
      entry.effective_date instanceof Date
        ? entry.effective_date.toISOString().slice(0, 10)
        : String(entry.effective_date);
    const id = `${entry.currency} ${day} ${key}`;
    const total =
      totals.get(id) ??
      ({
        account_id: accountId,
        currency: entry.currency,
        effective_date: day,
        rate_key: key,
        tax_rate_id: null,
        name: null,
        percentage: null,
        entry_count: 0,
        ...Object.fromEntries(AMOUNTS.map((amount) => [amount, 0])),
        last_sequence: 0,
        ...fields,
      } as Total);
    for (const [amount, value] of Object.entries(sums)) total[amount] = Number(total[amount]) + (value ?? 0);
    total.entry_count += 1;
    total.last_sequence = Number(entry.sequence);
    totals.set(id, total);
  };
  for (const entry of entries) {
    const taxes = (
      entry.taxes === null ? [] : typeof entry.taxes === 'string' ? JSON.parse(entry.taxes) : entry.taxes
    ) as {
      tax_rate_id: string | null;
      name: string | null;
      percentage: number | null;
      taxable_amount: number;
      tax_amount: number;
    }[];
    const net =
      entry.net_amount === null ? Number(entry.amount) - Number(entry.tax_amount ?? 0) : Number(entry.net_amount);
    const magnitudes = taxes.map((tax) => Math.abs(Number(tax.taxable_amount)));
    const sum = magnitudes.reduce((total, value) => total + value, 0);
    const taxed = sum <= Math.abs(net) ? sum : Math.max(0, ...magnitudes);
    const untaxed = Math.max(0, Math.abs(net) - taxed) * (net < 0 ? -1 : 1);
    const creditNote = String(entry.type).startsWith('credit_note');
    add(entry, '', {}, { net_amount: net, no_tax_amount: untaxed, tax_amount: Number(entry.tax_amount ?? 0) });
    for (const tax of taxes) {
      const key = `${tax.tax_rate_id ?? `v1:${tax.name}`} ${tax.percentage}`;
      add(
        entry,
        key,
        {
          tax_rate_id: tax.tax_rate_id,
          name: tax.name,
          percentage: tax.percentage === null ? null : String(tax.percentage),
        },
        {
          taxable_amount: Number(tax.taxable_amount),
          tax_amount: Number(tax.tax_amount),
          [creditNote ? 'credit_notes_tax_amount' : 'invoices_tax_amount']: Number(tax.tax_amount),
        },
      );
    }
  }
  const rows = [...totals.values()];
  for (let start = 0; start < rows.length; start += 200)
    await db
      .insertInto('ledger_day_totals')
      .values(rows.slice(start, start + 200))
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ledger_day_totals').execute();
}
