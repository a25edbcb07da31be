// What a credit note's lines are (docs/api-contract.md §22, "Lines or an amount"): its own lines, or an amount.
// Against an invoice the amount is shared over the invoice's lines of gross (amount + taxes) above 0, pro rata by
// largest remainder (ties to the lower index), each share a line with that line's description and rates, priced
// tax-included, so the total is the amount exactly. Without an invoice: one line, `reason` or "Credit".
import { fieldError } from '../../core/errors.js';
import type { InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { type PricedColumns, pricingForNew, presentPriced, shareInProportion } from '../documents/index.js';

type LineInput = NonNullable<Parameters<typeof pricingForNew>[1]['line_items']>[number];

/** The shares of `amount` over gross amounts (largest remainder, ties to the lower index). */
export function shareOverGross(amount: number, gross: readonly number[]): number[] {
  return shareInProportion(
    BigInt(amount),
    gross.map((value) => BigInt(value)),
  ).map(Number);
}

/** The lines an amount against an invoice becomes: one per invoice line of gross above 0. */
export function linesOfInvoiceAmount(invoice: InvoiceRow, amount: number): LineInput[] {
  const lines = presentPriced(invoice).line_items.filter((line) => line.amount + line.tax_amount > 0);
  if (lines.length === 0) throw fieldError('amount', 'the invoice has no line above 0 to credit');
  const shares = shareOverGross(
    amount,
    lines.map((line) => line.amount + line.tax_amount),
  );
  return lines.flatMap((line, index) => {
    const share = shares[index]!;
    if (share === 0) return [];
    const rateIds = line.taxes.flatMap((tax) => (tax.tax_rate_id ? [tax.tax_rate_id] : []));
    const rates =
      rateIds.length > 0
        ? { tax_rate_ids: rateIds }
        : line.tax_rate > 0
          ? { tax_rate: line.tax_rate }
          : { tax_rate_ids: [] };
    return [{ description: line.description, quantity: 1, unit_amount: share, ...rates }];
  });
}

/** The priced columns of a note made of lines or an amount. */
export async function priceCreditNote(
  tx: Context,
  input: {
    line_items?: LineInput[] | undefined;
    amount?: number | null | undefined;
    tax_rate_ids?: string[] | null | undefined;
    reason?: string | null | undefined;
    prices_include_tax?: boolean | undefined;
    rounding?: 'per_line' | 'per_document' | undefined;
    discount?: Parameters<typeof pricingForNew>[1]['discount'];
  },
  basis: { currency: string; propertyId: string | null; invoice: InvoiceRow | undefined },
): Promise<PricedColumns> {
  if (input.amount === undefined || input.amount === null)
    return pricingForNew(tx, input, { currency: basis.currency, propertyId: basis.propertyId });
  const lines = basis.invoice
    ? linesOfInvoiceAmount(basis.invoice, input.amount)
    : [
        {
          description: input.reason ?? 'Credit',
          quantity: 1,
          unit_amount: input.amount,
          ...(input.tax_rate_ids ? { tax_rate_ids: input.tax_rate_ids } : {}),
        },
      ];
  const priced = await pricingForNew(
    tx,
    {
      line_items: lines,
      prices_include_tax: true,
      rounding: input.rounding ?? (basis.invoice?.rounding as 'per_line' | 'per_document' | undefined),
    },
    { currency: basis.currency, propertyId: basis.propertyId },
  );
  // Priced tax-included, the total is the entered gross amounts: the amount, exactly (§19.4).
  if (Number(priced.total_amount) !== input.amount) throw new Error('a credit note amount priced to another total');
  return priced;
}
