// The ledger's day totals (docs/architecture.md, "Kept copies"): per account, currency, local day and tax rate,
// the sums of the document entries that accrual revenue and the tax summary read (docs/api-contract.md §24:
// "totals kept as entries post, never a scan of the account's documents"). Kept here, in the posting's
// transaction and under its sequence lock, so that no writer can post an entry without them; each row also
// keeps the last sequence summed in, so that a report at an older sequence takes back exactly the later entries.
import type { Executor } from '../../db/index.js';
import type { LedgerDayTotalRow } from '../../db/types.js';
import { type DayShare, findDayRows, keepDayRows, zeroAmounts } from './ledger.day-rows.js';

/** The entry types the day totals sum: the documents' (§24 "Accrual"). */
export const DAY_TOTAL_TYPES = [
  'invoice_issued',
  'invoice_adjusted',
  'late_fee',
  'invoice_voided',
  'credit_note_issued',
  'credit_note_voided',
] as const;
const SUMMED = new Set<string>(DAY_TOTAL_TYPES);

/** What an entry gives the day totals: an entry as posted or as read back (`taxes` parsed). */
export interface DayTotalSource {
  sequence: number;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  net_amount: number | null;
  tax_amount: number | null;
  taxes:
    | readonly {
        tax_rate_id: string | null;
        name: string | null;
        percentage: number | null;
        taxable_amount: number;
        tax_amount: number;
      }[]
    | null;
}

export const AMOUNT_COLUMNS = [
  'net_amount',
  'no_tax_amount',
  'taxable_amount',
  'tax_amount',
  'invoices_tax_amount',
  'credit_notes_tax_amount',
] as const;
export type DayTotalAmounts = Record<(typeof AMOUNT_COLUMNS)[number], number> & { entry_count: number };

/** One row's share of an entry. */
export interface DayTotalShare extends DayTotalAmounts, DayShare {}

/** A rate's key in the totals: its id (`v1:` and its name for a version-1 rate) and percentage. */
export function rateKeyOf(tax: { tax_rate_id: string | null; name: string | null; percentage: number | null }): string {
  return `${tax.tax_rate_id ?? `v1:${tax.name}`} ${tax.percentage}`;
}

/**
 * The net no rate applied to, as far as a document's figures tell (they do not say which lines a rate taxed):
 * its net less its rates' taxable amounts when they fit in it (rates on separate lines, as VAT's), else less the
 * largest (rates on the same lines, as GST and QST). Exact in both cases; a document mixing them is approximated.
 */
export function untaxedOf(net: number, taxables: readonly number[]): number {
  const magnitudes = taxables.map((taxable) => Math.abs(taxable));
  const sum = magnitudes.reduce((total, taxable) => total + taxable, 0);
  const taxed = sum <= Math.abs(net) ? sum : Math.max(0, ...magnitudes);
  const rest = Math.max(0, Math.abs(net) - taxed);
  return net < 0 ? -rest : rest;
}

const zero = (): DayTotalAmounts => zeroAmounts(AMOUNT_COLUMNS);

/** The rows an entry adds to: the day's ('' key) and one per rate it names; none for other types. */
export function dayTotalSharesOf(entry: DayTotalSource): DayTotalShare[] {
  if (!SUMMED.has(entry.type)) return [];
  const taxes = entry.taxes ?? [];
  const net = entry.net_amount ?? entry.amount - (entry.tax_amount ?? 0);
  const creditNote = entry.type.startsWith('credit_note');
  const shares: DayTotalShare[] = [
    {
      rate_key: '',
      tax_rate_id: null,
      name: null,
      percentage: null,
      ...zero(),
      entry_count: 1,
      net_amount: net,
      no_tax_amount: untaxedOf(
        net,
        taxes.map((tax) => tax.taxable_amount),
      ),
      tax_amount: entry.tax_amount ?? 0,
    },
  ];
  for (const tax of taxes)
    shares.push({
      rate_key: rateKeyOf(tax),
      tax_rate_id: tax.tax_rate_id,
      name: tax.name,
      percentage: tax.percentage === null ? null : String(tax.percentage),
      ...zero(),
      entry_count: 1,
      taxable_amount: tax.taxable_amount,
      tax_amount: tax.tax_amount,
      [creditNote ? 'credit_notes_tax_amount' : 'invoices_tax_amount']: tax.tax_amount,
    });
  return shares;
}

/** Adds the posted entries to their rows in one statement. Called by `postEntries` alone. */
export async function keepDayTotals(
  db: Executor,
  accountId: string,
  entries: readonly DayTotalSource[],
): Promise<void> {
  await keepDayRows(db, 'ledger_day_totals', accountId, entries, dayTotalSharesOf, AMOUNT_COLUMNS);
}

/** The day totals of every currency from `from` to `to`, by the primary key's (account, currency, day) prefix. */
export function findDayTotals(db: Executor, accountId: string, from: string, to: string) {
  return findDayRows<LedgerDayTotalRow>(db, 'ledger_day_totals', accountId, from, to, AMOUNT_COLUMNS);
}
