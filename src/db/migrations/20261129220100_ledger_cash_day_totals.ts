// The ledger's cash day totals (docs/architecture.md, "Kept copies"; docs/decisions.md, "Reports at scale"): per
// account, currency, local day and tax rate, the sums of the cash basis's moves — payment money applied to invoices
// less its releases and credit-note refunds, each split cumulatively over its document's net and taxes — and of the
// money received but left unapplied, kept by `ledger` in each posting's transaction. Existing entries are summed in
// here once, by the same walk (a copy: a migration is history, written against the schema of its day).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

const INVOICE_TYPES = new Set(['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided']);
const CREDIT_NOTE_TYPES = new Set(['credit_note_issued', 'credit_note_voided']);
const CASH_TYPES = new Set(['applied', 'unapplied', 'credit_note_refunded', 'payment_received', 'payment_refunded']);
const AMOUNTS = [
  'net_amount',
  'no_tax_amount',
  'taxable_amount',
  'tax_amount',
  'invoices_tax_amount',
  'credit_notes_tax_amount',
  'unapplied_amount',
] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  let table = db.schema
    .createTable('ledger_cash_day_totals')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('effective_date', types.date, (column) => column.notNull())
    // '' for the day's totals; else the rate's key: its id (or `v1:` and its name) and percentage.
    .addColumn('rate_key', 'text', (column) => column.notNull())
    .addColumn('tax_rate_id', types.id)
    .addColumn('name', 'text')
    .addColumn('percentage', 'text')
    .addColumn('entry_count', 'bigint', (column) => column.notNull());
  for (const amount of AMOUNTS) table = table.addColumn(amount, 'bigint', (column) => column.notNull());
  await table
    .addColumn('last_sequence', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ledger_cash_day_totals_pk', ['account_id', 'currency', 'effective_date', 'rate_key'])
    .execute();

  const accounts = await db.selectFrom('accounts').select('id').orderBy('id').execute();
  for (const { id } of accounts) await backfillAccount(db, id);
}

interface Tax {
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable_amount: number;
  tax_amount: number;
}
interface Entry {
  sequence: number;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  applied_amount: number;
  invoice_id: string | null;
  credit_note_id: string | null;
  payment_id: string | null;
  net_amount: number | null;
  tax_amount: number | null;
  taxes: Tax[];
}
interface Rate {
  key: string;
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable: number;
  tax: number;
}
interface Move {
  creditNote: boolean;
  net: number;
  untaxed: number;
  tax: number;
  taxes: Rate[];
}

const keyOf = (tax: { tax_rate_id: string | null; name: string | null; percentage: number | null }) =>
  `${tax.tax_rate_id ?? `v1:${tax.name}`} ${tax.percentage}`;

/** Largest remainder, ties to the lower index; weights ≤ 0 take nothing; no positive weight: the first takes all. */
function largestRemainder(amount: number, weights: readonly number[]): number[] {
  const positive = weights.map((weight) => (weight > 0 ? BigInt(weight) : 0n));
  const whole = positive.reduce((sum, weight) => sum + weight, 0n);
  if (whole === 0n) return weights.map((_, index) => (index === 0 ? amount : 0));
  const sign = amount < 0 ? -1n : 1n;
  const total = BigInt(Math.abs(amount));
  const shares = positive.map((weight) => (total * weight) / whole);
  const remainders = positive.map((weight) => (total * weight) % whole);
  let left = total - shares.reduce((sum, share) => sum + share, 0n);
  const order = remainders
    .map((remainder, index) => ({ remainder, index }))
    .sort((a, b) => (a.remainder > b.remainder ? -1 : a.remainder < b.remainder ? 1 : a.index - b.index));
  for (const { index } of order) {
    if (left === 0n) break;
    shares[index]! += 1n;
    left -= 1n;
  }
  return shares.map((share) => Number(sign * share));
}

/** amount × part / whole, halves away from zero (0 when whole is 0). */
function proRata(amount: number, part: number, whole: number): number {
  if (whole === 0) return 0;
  const product = BigInt(amount) * BigInt(part);
  const divisor = BigInt(whole);
  const negative = product < 0n !== divisor < 0n;
  const absoluteProduct = product < 0n ? -product : product;
  const absoluteDivisor = divisor < 0n ? -divisor : divisor;
  const quotient = (absoluteProduct * 2n + absoluteDivisor) / (absoluteDivisor * 2n);
  return Number(negative ? -quotient : quotient);
}

function untaxedOf(net: number, taxables: readonly number[]): number {
  const magnitudes = taxables.map((taxable) => Math.abs(taxable));
  const sum = magnitudes.reduce((total, taxable) => total + taxable, 0);
  const taxed = sum <= Math.abs(net) ? sum : Math.max(0, ...magnitudes);
  const rest = Math.max(0, Math.abs(net) - taxed);
  return net < 0 ? -rest : rest;
}

/** One document's walk: its figures so far and what its money so far counted. */
function walk(history: readonly Entry[], creditNote: boolean, moves: Map<number, Move>): void {
  let net = 0;
  const rates = new Map<string, Rate>();
  let received = 0;
  let counted = { net: 0, untaxed: 0, taxes: new Map<string, { tax: number; taxable: number }>() };
  const add = (entry: Entry, sign: 1 | -1) => {
    net += sign * (entry.net_amount ?? entry.amount - (entry.tax_amount ?? 0));
    for (const tax of entry.taxes) {
      const key = keyOf(tax);
      const rate = rates.get(key) ?? { ...tax, key, taxable: 0, tax: 0 };
      rate.taxable += sign * Number(tax.taxable_amount);
      rate.tax += sign * Number(tax.tax_amount);
      rates.set(key, rate);
    }
  };
  const move = (change: number, sign: 1 | -1): Move => {
    received += change;
    const all = [...rates.values()];
    const whole = net + all.reduce((sum, rate) => sum + rate.tax, 0);
    const shares = largestRemainder(received, [net, ...all.map((rate) => rate.tax)]);
    const untaxed = proRata(
      received,
      untaxedOf(
        net,
        all.map((rate) => rate.taxable),
      ),
      whole,
    );
    const taxes = new Map<string, { tax: number; taxable: number }>();
    const moveTaxes: Rate[] = [];
    for (const [index, rate] of all.entries()) {
      const now = { tax: shares[index + 1]!, taxable: proRata(received, rate.taxable, whole) };
      const before = counted.taxes.get(rate.key) ?? { tax: 0, taxable: 0 };
      taxes.set(rate.key, now);
      moveTaxes.push({ ...rate, tax: sign * (now.tax - before.tax), taxable: sign * (now.taxable - before.taxable) });
    }
    for (const [key, before] of counted.taxes)
      if (!taxes.has(key))
        moveTaxes.push({
          key,
          tax_rate_id: null,
          name: null,
          percentage: null,
          tax: -sign * before.tax,
          taxable: -sign * before.taxable,
        });
    const result = {
      creditNote,
      tax: moveTaxes.reduce((sum, tax) => sum + tax.tax, 0),
      net: sign * (shares[0]! - counted.net),
      untaxed: sign * (untaxed - counted.untaxed),
      taxes: moveTaxes,
    };
    counted = { net: shares[0]!, untaxed, taxes };
    return result;
  };
  for (const entry of history) {
    if (!creditNote && INVOICE_TYPES.has(entry.type) && entry.credit_note_id === null) add(entry, 1);
    else if (creditNote && CREDIT_NOTE_TYPES.has(entry.type)) add(entry, -1);
    else if (!creditNote && appliedMoney(entry)) moves.set(entry.sequence, move(entry.applied_amount, 1));
    else if (creditNote && entry.type === 'credit_note_refunded') moves.set(entry.sequence, move(entry.amount, -1));
  }
}

const appliedMoney = (entry: Entry) =>
  entry.payment_id !== null && entry.invoice_id !== null && (entry.type === 'applied' || entry.type === 'unapplied');

const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** The same rows as `ledger`'s posting keeps (modules/ledger/ledger.cash-totals.ts), from the entries so far. */
async function backfillAccount(db: Kysely<any>, accountId: string): Promise<void> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select([
      'sequence',
      'currency',
      'type',
      'effective_date',
      'amount',
      'applied_amount',
      'invoice_id',
      'credit_note_id',
      'payment_id',
      'net_amount',
      'tax_amount',
      'taxes',
    ])
    .where('account_id', '=', accountId)
    .orderBy('sequence')
    .execute();
  const entries: Entry[] = rows.map((row) => ({
    ...row,
    sequence: Number(row.sequence),
    effective_date: day(row.effective_date),
    amount: Number(row.amount),
    applied_amount: Number(row.applied_amount),
    net_amount: numberOrNull(row.net_amount),
    tax_amount: numberOrNull(row.tax_amount),
    taxes: (row.taxes === null ? [] : typeof row.taxes === 'string' ? JSON.parse(row.taxes) : row.taxes) as Tax[],
  }));
  const invoices = new Map<string, Entry[]>();
  const notes = new Map<string, Entry[]>();
  for (const entry of entries) {
    if (entry.invoice_id !== null) invoices.set(entry.invoice_id, [...(invoices.get(entry.invoice_id) ?? []), entry]);
    if (entry.credit_note_id !== null)
      notes.set(entry.credit_note_id, [...(notes.get(entry.credit_note_id) ?? []), entry]);
  }
  const moves = new Map<number, Move>();
  for (const history of invoices.values()) walk(history, false, moves);
  for (const history of notes.values()) walk(history, true, moves);

  const totals = new Map<string, Record<string, unknown> & Record<(typeof AMOUNTS)[number], number>>();
  const add = (entry: Entry, rate: Rate | null, sums: Partial<Record<(typeof AMOUNTS)[number], number>>) => {
    const key = rate ? rate.key : '';
    const id = `${entry.currency} ${entry.effective_date} ${key}`;
    const total =
      totals.get(id) ??
      ({
        account_id: accountId,
        currency: entry.currency,
        effective_date: entry.effective_date,
        rate_key: key,
        tax_rate_id: rate?.tax_rate_id ?? null,
        name: rate?.name ?? null,
        percentage: rate?.percentage === null || rate?.percentage === undefined ? null : String(rate.percentage),
        entry_count: 0,
        ...Object.fromEntries(AMOUNTS.map((amount) => [amount, 0])),
        last_sequence: 0,
      } as unknown as Record<string, unknown> & Record<(typeof AMOUNTS)[number], number>);
    for (const [amount, value] of Object.entries(sums)) total[amount as (typeof AMOUNTS)[number]] += value ?? 0;
    total.entry_count = Number(total.entry_count) + 1;
    total.last_sequence = entry.sequence;
    totals.set(id, total);
  };
  for (const entry of entries) {
    if (!CASH_TYPES.has(entry.type)) continue;
    const move = moves.get(entry.sequence);
    let unapplied = 0;
    if (entry.type === 'payment_received' || entry.type === 'payment_refunded') unapplied = -entry.amount;
    else if (appliedMoney(entry)) unapplied = -entry.applied_amount;
    add(entry, null, {
      net_amount: move?.net ?? 0,
      no_tax_amount: move?.untaxed ?? 0,
      tax_amount: move?.tax ?? 0,
      unapplied_amount: unapplied,
    });
    for (const tax of move?.taxes ?? [])
      add(entry, tax, {
        taxable_amount: tax.taxable,
        tax_amount: tax.tax,
        [move!.creditNote ? 'credit_notes_tax_amount' : 'invoices_tax_amount']: tax.tax,
      });
  }
  const values = [...totals.values()];
  for (let start = 0; start < values.length; start += 200)
    await db
      .insertInto('ledger_cash_day_totals')
      .values(values.slice(start, start + 200))
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ledger_cash_day_totals').execute();
}
