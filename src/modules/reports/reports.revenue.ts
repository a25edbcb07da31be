// Revenue and the tax summary (docs/api-contract.md §24): both count the same revenue moves of a date range,
// accrual (documents' entries as issued, adjusted and voided) or cash (payment money applied to invoices less
// its releases, and credit-note refunds, split cumulatively over the document's net and taxes).
import { Temporal } from '@js-temporal/polyfill';
import type { Context } from '../../kernel/context.js';
import { findTaxRates } from '../catalog/index.js';
import type { LedgerDayTotalRow } from '../../db/types.js';
import {
  AMOUNT_COLUMNS,
  CASH_AMOUNT_COLUMNS,
  CASH_TYPES,
  cashMovesOf,
  cashSharesOf,
  DAY_TOTAL_TYPES,
  dayTotalSharesOf,
  findCashDayTotals,
  findDayTotals,
} from '../ledger/index.js';
import { checkRange, paged, pageRows, reportOf, type Standing } from './reports.common.js';
import * as repository from './reports.repository.js';
import type { PeriodRow, Report, RevenueInput, TaxRow, TaxSummaryInput } from './reports.schemas.js';

type Basis = 'accrual' | 'cash';

/** One rate's part of a move. */
interface MoveTax {
  key: string;
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable: number;
  tax: number;
}

/** A change of revenue on a day: its net, the part no rate applied to, its tax, and each rate's part of it. */
interface Move {
  date: string;
  creditNote: boolean;
  net: number;
  untaxed: number;
  tax: number;
  taxes: MoveTax[];
}

/** The kept day totals as moves: a day's document totals, and each rate's (its tax counted in the day's). */
function movesOfTotals(rows: readonly LedgerDayTotalRow[]): Move[] {
  const moves: Move[] = [];
  for (const row of rows) {
    if (row.rate_key === '') {
      moves.push({
        date: row.effective_date,
        creditNote: false,
        net: row.net_amount,
        untaxed: row.no_tax_amount,
        tax: row.tax_amount,
        taxes: [],
      });
      continue;
    }
    const rate = {
      key: row.rate_key,
      tax_rate_id: row.tax_rate_id,
      name: row.name,
      percentage: row.percentage === null ? null : Number(row.percentage),
      taxable: row.taxable_amount,
    };
    for (const [creditNote, tax] of [
      [false, row.invoices_tax_amount],
      [true, row.credit_notes_tax_amount],
    ] as const)
      moves.push({
        date: row.effective_date,
        creditNote,
        net: 0,
        untaxed: 0,
        tax: 0,
        taxes: [{ ...rate, taxable: creditNote ? 0 : rate.taxable, tax }],
      });
  }
  return moves;
}

async function movesOf(ctx: Context, standing: Standing, from: string, to: string, basis: Basis) {
  if (basis === 'accrual') {
    const { rows, others } = await accrualTotals(ctx, standing, from, to);
    return { moves: movesOfTotals(rows), others, unapplied: 0 };
  }
  const { rows, others } = await cashTotals(ctx, standing, from, to);
  const unapplied = rows.reduce((sum, row) => sum + (row.rate_key === '' ? row.unapplied_amount : 0), 0);
  return { moves: movesOfTotals(rows), others, unapplied };
}

/**
 * Kept day rows at the standing's sequence: each row less the shares of the entries after the sequence that it had
 * summed in (its `last_sequence` says which; the entries come from the end of the (account, sequence) index). Rows
 * no entry up to the sequence made are left out, so that an old answer is repeated exactly; other currencies' rows
 * are only counted.
 */
function atSequence<Row extends LedgerDayTotalRow>(
  standing: Standing,
  kept: Row[],
  later: readonly { sequence: number; currency: string; effective_date: string }[],
  sharesOf: (index: number) => readonly object[],
  columns: readonly string[],
) {
  const byKey = new Map(kept.map((row) => [`${row.currency} ${row.effective_date} ${row.rate_key}`, row]));
  for (const [index, entry] of later.entries())
    for (const found of sharesOf(index)) {
      const share = found as Record<string, number> & { rate_key: string };
      const target = byKey.get(`${entry.currency} ${entry.effective_date} ${share.rate_key}`);
      if (!target || entry.sequence > target.last_sequence) continue;
      const row = target as unknown as Record<string, number>;
      row.entry_count! -= share.entry_count!;
      for (const column of columns) row[column]! -= share[column]!;
    }
  const counts = new Map<string, number>();
  const mine: Row[] = [];
  for (const row of kept) {
    if (row.entry_count === 0) continue;
    if (row.currency === standing.currency) mine.push(row);
    else if (row.rate_key === '') counts.set(row.currency, (counts.get(row.currency) ?? 0) + row.entry_count);
  }
  const others = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, count]) => ({ currency, count }));
  return { rows: mine, others };
}

/**
 * The days of kept rows that an entry after the standing's sequence moved (their `last_sequence` says so): the only
 * days whose entries after it are read, so that an old answer never reads the later entries of other days.
 */
function daysMovedAfter(standing: Standing, kept: readonly LedgerDayTotalRow[]): string[] {
  const days = kept.filter((row) => row.last_sequence > standing.sequence).map((row) => row.effective_date);
  return [...new Set(days)];
}

/** The accrual figures dated from–to at the standing's sequence, from the ledger's kept day totals. */
async function accrualTotals(ctx: Context, standing: Standing, from: string, to: string) {
  const kept = await findDayTotals(ctx.db, ctx.accountId, from, to);
  const later = await repository.findEntries(ctx.db, ctx.accountId, {
    after: standing.sequence,
    days: daysMovedAfter(standing, kept),
    types: DAY_TOTAL_TYPES,
    withTaxes: true,
  });
  return atSequence(standing, kept, later, (index) => dayTotalSharesOf(later[index]!), AMOUNT_COLUMNS);
}

/**
 * The cash figures dated from–to at the standing's sequence (§24 "Cash"), from the ledger's kept cash day totals; the
 * moves of the entries after the sequence are computed again from their documents' entries, to be taken back.
 */
async function cashTotals(ctx: Context, standing: Standing, from: string, to: string) {
  const kept = await findCashDayTotals(ctx.db, ctx.accountId, from, to);
  const later = await repository.findEntries(ctx.db, ctx.accountId, {
    after: standing.sequence,
    days: daysMovedAfter(standing, kept),
    types: CASH_TYPES,
  });
  const moves = await cashMovesOf(ctx.db, ctx.accountId, later);
  return atSequence(
    standing,
    kept,
    later,
    (index) => cashSharesOf(later[index]!, moves.get(later[index]!.sequence)),
    CASH_AMOUNT_COLUMNS,
  );
}

/** The periods of `interval` from `from` to `to`, the first and last cut at them; weeks start on Monday. */
export function periodsOf(
  from: string,
  to: string,
  interval: 'day' | 'week' | 'month' | 'quarter',
): [string, string][] {
  const last = Temporal.PlainDate.from(to);
  const periods: [string, string][] = [];
  let start = Temporal.PlainDate.from(from);
  while (Temporal.PlainDate.compare(start, last) <= 0) {
    let end: Temporal.PlainDate;
    if (interval === 'day') end = start;
    else if (interval === 'week') end = start.add({ days: 7 - start.dayOfWeek });
    else if (interval === 'month') end = start.with({ day: start.daysInMonth });
    else {
      const quarterEnd = start.with({ month: Math.ceil(start.month / 3) * 3, day: 1 });
      end = quarterEnd.with({ day: quarterEnd.daysInMonth });
    }
    if (Temporal.PlainDate.compare(end, last) > 0) end = last;
    periods.push([start.toString(), end.toString()]);
    start = end.add({ days: 1 });
  }
  return periods;
}

type RevenueParameters = { currency: string; from: string; to: string; interval: string; basis: Basis };
type RevenueTotals = {
  net_amount: number;
  tax_amount: number;
  gross_amount: number;
  unapplied_received_amount?: number;
};

export async function revenue(
  ctx: Context,
  standing: Standing,
  input: RevenueInput,
): Promise<Report<RevenueParameters, RevenueTotals, PeriodRow>> {
  checkRange(input.from, input.to);
  const interval = input.interval ?? 'month';
  const basis = input.basis ?? 'accrual';
  const { moves, others, unapplied } = await movesOf(ctx, standing, input.from, input.to, basis);
  const rows: PeriodRow[] = periodsOf(input.from, input.to, interval).map(([start, end]) => ({
    period_start: start,
    period_end: end,
    net_amount: 0,
    tax_amount: 0,
    gross_amount: 0,
  }));
  // Periods are in order and contiguous: a binary search finds a move's.
  const rowOf = (date: string) => {
    let low = 0;
    let high = rows.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (rows[middle]!.period_start <= date) low = middle;
      else high = middle - 1;
    }
    return rows[low]!;
  };
  const totals: RevenueTotals = { net_amount: 0, tax_amount: 0, gross_amount: 0 };
  for (const move of moves) {
    const tax = move.tax;
    const row = rowOf(move.date);
    row.net_amount += move.net;
    row.tax_amount += tax;
    row.gross_amount += move.net + tax;
    totals.net_amount += move.net;
    totals.tax_amount += tax;
    totals.gross_amount += move.net + tax;
  }
  if (basis === 'cash') totals.unapplied_received_amount = unapplied;
  const parameters = { currency: standing.currency, from: input.from, to: input.to, interval, basis };
  const page = pageRows(standing, rows, (row) => [row.period_start], ['date']);
  return paged(reportOf('revenue', standing, parameters, others, totals, page.rows), page.next);
}

type TaxParameters = { currency: string; from: string; to: string; basis: Basis };
type TaxTotals = { taxable_amount: number; tax_amount: number; no_tax_amount: number };

export async function taxSummary(
  ctx: Context,
  standing: Standing,
  input: TaxSummaryInput,
): Promise<Report<TaxParameters, TaxTotals, TaxRow>> {
  checkRange(input.from, input.to);
  const basis = input.basis ?? 'accrual';
  const { moves, others } = await movesOf(ctx, standing, input.from, input.to, basis);
  const rows = new Map<string, TaxRow>();
  const totals: TaxTotals = { taxable_amount: 0, tax_amount: 0, no_tax_amount: 0 };
  for (const move of moves) {
    totals.no_tax_amount += move.untaxed;
    for (const tax of move.taxes) {
      const row = rows.get(tax.key) ?? {
        tax_rate_id: tax.tax_rate_id,
        name: tax.name,
        percentage: tax.percentage,
        compound: false,
        registration_number: null,
        taxable_amount: 0,
        tax_amount: 0,
        invoices_tax_amount: 0,
        credit_notes_tax_amount: 0,
      };
      if (row.name === null && tax.name !== null)
        Object.assign(row, { tax_rate_id: tax.tax_rate_id, name: tax.name, percentage: tax.percentage });
      row.taxable_amount += tax.taxable;
      row.tax_amount += tax.tax;
      if (move.creditNote) row.credit_notes_tax_amount += tax.tax;
      else row.invoices_tax_amount += tax.tax;
      rows.set(tax.key, row);
      totals.taxable_amount += tax.taxable;
      totals.tax_amount += tax.tax;
    }
  }
  const rateIds = [...new Set([...rows.values()].flatMap((row) => (row.tax_rate_id ? [row.tax_rate_id] : [])))];
  const rates = new Map((await findTaxRates(ctx.db, ctx.accountId, rateIds)).map((rate) => [rate.id, rate]));
  const answered = [...rows].map(([key, row]) => {
    const rate = row.tax_rate_id ? rates.get(row.tax_rate_id) : undefined;
    const answer = rate
      ? { ...row, compound: Boolean(rate.compound), registration_number: rate.registration_number ?? null }
      : row;
    return { key, row: answer };
  });
  // By name, percentage, then the rate's key (its id, or a version-1 rate's name).
  const page = pageRows(standing, answered, ({ key, row }) => [row.name ?? '', row.percentage ?? -1, key], [
    'text',
    'number',
    'text',
  ]);
  const parameters = { currency: standing.currency, from: input.from, to: input.to, basis };
  const report = reportOf(
    'tax_summary',
    standing,
    parameters,
    others,
    totals,
    page.rows.map(({ row }) => row),
  );
  return paged(report, page.next);
}
