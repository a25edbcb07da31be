// A quote's, job's or invoice's own checks of its lines and discount that need no database: the same ones
// the pricing runs on a valid body (documents/tax.ts, pricing.ts), for a body the schema refused too, so one
// 422 names every wrong field (http/field-checks.ts).
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
  });
  checkDiscount(body.discount, 'discount', details);
  return details;
}
