// What quotes, jobs and invoices share: line items stored with their totals, a currency, a number.
import type { Executor } from '../../db/database.js';
import { localDate } from '../../core/time.js';
import { fromJson } from '../../db/values.js';
import { findAccount } from '../accounts/index.js';
import { computeLineItems, type LineItem, type LineItemInput } from './line-items.js';

export interface PricedRow {
  currency: string;
  line_items: string;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
}

/** The stored columns for a list of lines: the lines with their computed amounts, and the totals. */
export function pricedColumns(inputs: readonly LineItemInput[]) {
  const { lineItems, totals } = computeLineItems(inputs);
  return { line_items: JSON.stringify(lineItems), ...totals };
}

export function presentPriced(row: PricedRow) {
  return {
    currency: row.currency,
    line_items: fromJson<LineItem[]>(row.line_items),
    subtotal_amount: Number(row.subtotal_amount),
    tax_amount: Number(row.tax_amount),
    total_amount: Number(row.total_amount),
  };
}

export function lineItemsOf(row: { line_items: string }): LineItem[] {
  return fromJson<LineItem[]>(row.line_items);
}

export async function accountCurrency(db: Executor, accountId: string): Promise<string> {
  return (await findAccount(db, accountId))?.currency ?? 'USD';
}

/**
 * Today's date in the account's time zone, YYYY-MM-DD (docs/api-contract.md §14): what is_overdue, the
 * overdue filter, an invoice's default issue_date and a quote's expiry compare with.
 */
export function localToday(now: Date, timezone: string): string {
  return localDate(now, timezone);
}

export function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00.000Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return value.toISOString().slice(0, 10);
}
