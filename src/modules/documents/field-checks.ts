// A quote's, job's or invoice's own checks of its lines and discount that need no database (a line's fields
// required without a product among them): the same ones the pricing runs on a valid body (documents/tax.ts,
// pricing.ts), for a body the schema or a reference refused too, so one 422 names every wrong field (contract §21;
// http/field-checks.ts).
import type { ErrorDetail } from '../../core/errors.js';
import { toScaledInteger } from './money.js';
import { type Discount, discountOf } from './tax.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A discount the schema let through in its shape: its value checked as its type reads it. */
function checkDiscount(discount: unknown, field: string, details: ErrorDetail[]): void {
  if (!isObject(discount) || typeof discount.value !== 'number') return;
  if (discount.type !== 'percent' && discount.type !== 'amount') return;
  discountOf(discount as Discount, 0n, field, details);
}

export async function documentFieldChecks(body: unknown): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  if (!isObject(body)) return details;
  const lines = Array.isArray(body.line_items) ? body.line_items : [];
  lines.forEach((line, index) => {
    if (!isObject(line)) return;
    const field = `line_items[${index}]`;
    for (const name of ['quantity', 'tax_rate'] as const) {
      const value = line[name];
      if (typeof value === 'number' && toScaledInteger(value) === undefined)
        details.push({ field: `${field}.${name}`, message: 'must have at most 3 decimals' });
    }
    checkDiscount(line.discount, `${field}.discount`, details);
    // What the pricing says of a line without a product (documents/pricing.ts), in its words.
    if (line.product_id === undefined)
      for (const name of ['description', 'quantity', 'unit_amount'] as const)
        if (line[name] === undefined)
          details.push({ field: `${field}.${name}`, message: 'is required unless product_id gives it' });
    if (line.tax_rate !== undefined && line.tax_rate_ids !== undefined)
      details.push({ field: `${field}.tax_rate_ids`, message: 'not together with tax_rate: give one or the other' });
  });
  checkDiscount(body.discount, 'discount', details);
  return details;
}
