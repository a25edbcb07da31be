// A quote's deposit (docs/api-contract.md §23, "Deposits"): asked as an amount or a percent of the total, paid
// by payments naming the quote (the invoices module records them and calls here, with the quote's row locked),
// so the quote keeps what they hold less refunds (`deposit_paid_amount`) and answers its three figures.
import { fieldError, invalidState } from '../../core/errors.js';
import type { QuoteRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { parsePercentage, percentageNumber } from '../catalog/index.js';
import { multiplyDivideRounded } from '../documents/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { requireReference } from '../shared/index.js';
import { QUOTE_LIFECYCLE } from './quotes.lifecycle.js';
import * as repository from './quotes.repository.js';
import type { Deposit, Quote } from './quotes.schemas.js';

/** The deposit as asked, from its columns. */
export function depositOf(row: Pick<QuoteRow, 'deposit_type' | 'deposit_value'>): Deposit | null {
  if (row.deposit_type === null || row.deposit_value === null) return null;
  if (row.deposit_type === 'percent') return { type: 'percent', value: percentageNumber(BigInt(row.deposit_value)) };
  return { type: 'amount', value: Number(row.deposit_value) };
}

/** The deposit in minor units: an amount as given; a percent of the total, halves away from zero, exactly. */
export function depositAmountOf(row: Pick<QuoteRow, 'deposit_type' | 'deposit_value' | 'total_amount'>): number {
  if (row.deposit_type === null || row.deposit_value === null) return 0;
  if (row.deposit_type === 'amount') return Number(row.deposit_value);
  return Number(multiplyDivideRounded(BigInt(row.total_amount), BigInt(row.deposit_value), 1_000_000n));
}

/** The three read-only figures of a quote's deposit. */
export function depositFigures(row: QuoteRow) {
  const amount = depositAmountOf(row);
  const paid = Number(row.deposit_paid_amount);
  return { deposit_amount: amount, deposit_paid_amount: paid, deposit_due_amount: Math.max(0, amount - paid) };
}

/**
 * The columns of a deposit given on a create or an update, checked against the quote's total as it will be:
 * an amount is an integer 1 … total; a percent is above 0, at most 100, with at most 4 decimals (`422`).
 * `undefined` leaves the columns as they are (the caller still checks them against a new total).
 */
export function depositColumns(
  deposit: Deposit | null | undefined,
): Pick<QuoteRow, 'deposit_type' | 'deposit_value'> | undefined {
  if (deposit === undefined) return undefined;
  if (deposit === null) return { deposit_type: null, deposit_value: null };
  if (deposit.type === 'amount') {
    if (!Number.isSafeInteger(deposit.value) || deposit.value < 1)
      throw fieldError('deposit.value', 'an amount deposit is a whole number of minor units, at least 1');
    return { deposit_type: 'amount', deposit_value: deposit.value };
  }
  const scaled = deposit.value > 0 ? parsePercentage(deposit.value) : undefined;
  if (scaled === undefined || scaled === 0n)
    throw fieldError('deposit.value', 'a percent deposit is above 0, at most 100, with at most 4 decimals');
  return { deposit_type: 'percent', deposit_value: Number(scaled) };
}

/** An amount deposit above the quote's total is `422` (at create, and at an update of either). */
export function assertDepositWithinTotal(row: Pick<QuoteRow, 'deposit_type' | 'deposit_value' | 'total_amount'>): void {
  if (row.deposit_type === 'amount' && Number(row.deposit_value) > Number(row.total_amount))
    throw fieldError('deposit.value', `must not exceed the quote's total_amount (${Number(row.total_amount)})`);
}

/** The quote a deposit payment names, locked until the transaction ends: approved or converted, else `409`. */
export async function lockQuoteForDeposit(tx: Context, quoteId: string): Promise<QuoteRow> {
  const quote = await requireReference('quote_id', 'quote', quoteId, (id) =>
    repository.findQuote(tx.db, tx.accountId, id, true),
  );
  if (quote.status !== 'approved' && quote.status !== 'converted')
    throw invalidState(`Quote ${quote.id} is '${quote.status}'; a deposit is paid on an approved or converted quote.`);
  return quote;
}

/**
 * Adds `change` (a payment, or minus a refund) to what the quote's deposit payments hold, with its row locked by
 * the caller: `quote.updated`, and `quote.deposit_paid` when `deposit_due_amount` reaches 0.
 */
export async function changeDepositPaid(
  tx: Context,
  quote: QuoteRow,
  change: number,
  present: (row: QuoteRow) => Quote,
): Promise<void> {
  const now = tx.clock.now().toISOString();
  const updated =
    (await repository.updateQuote(tx.db, tx.accountId, quote.id, {
      deposit_paid_amount: Number(quote.deposit_paid_amount) + change,
      updated_at: now,
    })) ?? quote;
  const before = present(quote);
  const after = present(updated);
  await recordChange(tx, { resource: 'quote', before, after, statusEvents: QUOTE_LIFECYCLE.events });
  if (before.deposit_due_amount > 0 && after.deposit_due_amount === 0)
    await recordEvent(tx, 'quote.deposit_paid', after);
}
