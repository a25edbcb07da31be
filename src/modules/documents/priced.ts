// What quotes, jobs and invoices share: line items stored with their totals, a currency, a number.
import { type Executor, fromJson } from '../../db/index.js';
import { addDaysToDate, localDate, startOfLocalDay } from '../../core/time.js';
import { findAccount } from '../accounts/index.js';
import {
  breakdownOfVersion1,
  presentLineItem,
  type DiscountInput,
  type LineItem,
  type TaxBreakdown,
} from './line-items.js';
import type { Rounding } from './tax.js';

export interface PricedRow {
  currency: string;
  line_items: string;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  prices_include_tax: number;
  rounding: string;
  discount: string | null;
  discount_amount: number;
  tax_breakdown: string | null;
}

export function presentPriced(row: PricedRow) {
  const lineItems = lineItemsOf(row);
  return {
    currency: row.currency,
    line_items: lineItems,
    prices_include_tax: Number(row.prices_include_tax) === 1,
    rounding: row.rounding as Rounding,
    discount: row.discount === null ? null : fromJson<DiscountInput>(row.discount),
    discount_amount: Number(row.discount_amount ?? 0),
    subtotal_amount: Number(row.subtotal_amount),
    tax_amount: Number(row.tax_amount),
    total_amount: Number(row.total_amount),
    tax_breakdown:
      row.tax_breakdown === null ? breakdownOfVersion1(lineItems) : fromJson<TaxBreakdown>(row.tax_breakdown),
  };
}

/** A document's stored lines as the API answers them (lines stored before §19 included). */
export function lineItemsOf(row: { line_items: string }): LineItem[] {
  return fromJson<LineItem[]>(row.line_items).map(presentLineItem);
}

export async function accountCurrency(db: Executor, accountId: string): Promise<string> {
  return (await findAccount(db, accountId))?.currency ?? 'USD';
}

/**
 * Today's date in the account's time zone, YYYY-MM-DD (docs/api-contract.md §14): what is_overdue, the
 * overdue filter, an invoice's default issue_date and a quote's expiry compare with.
 */
export function localToday(now: Date, timezone: string): string {
  const at = now.getTime();
  const day = localDays.get(timezone);
  if (day !== undefined && at >= day.from && at < day.until) return day.date;
  const date = localDate(now, timezone);
  const from = Date.parse(startOfLocalDay(date, timezone));
  const until = Date.parse(startOfLocalDay(addDaysToDate(date, 1), timezone));
  // Kept only when the day's bounds hold this instant (they always do where the local date moves forward).
  if (at >= from && at < until) localDays.set(timezone, { date, from, until });
  return date;
}

/**
 * The local day each zone was last asked about, with the instants it begins and ends (the next day's
 * start, exclusive): every page of invoices asks for today, and an answer through Temporal is costly to make
 * per request; within those bounds the answer is the same. One entry per zone
 * name asked (canonical names, a few hundred at most).
 */
const localDays = new Map<string, { date: string; from: number; until: number }>();

export function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00.000Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return value.toISOString().slice(0, 10);
}
