// Line items of quotes, jobs and invoices: their schemas and the exact computation of amounts and totals.
import { Type, type Static } from '@sinclair/typebox';
import { newId } from '../../core/deps.js';
import { validationError, type ErrorDetail } from '../../core/errors.js';
import { IdSchema } from '../../kernel/fields.js';
import { MAX_AMOUNT, toScaledInteger } from './money.js';
import { priceDocument, type PricedLine, type RateTerms } from './tax.js';

export const MAX_LINE_ITEMS = 200;

const amountBound = Number(MAX_AMOUNT);

export const LineItemInputSchema = Type.Object(
  {
    description: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '\\S',
      description: 'What was or will be done or supplied.',
      example: 'Replace kitchen faucet',
    }),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      description: 'Quantity, greater than 0, at most 1,000,000, at most 3 decimals.',
      example: 1.5,
    }),
    unit_amount: Type.Integer({
      minimum: -amountBound,
      maximum: amountBound,
      description: 'Price of one unit in minor units (cents); negative for a discount line.',
      example: 12000,
    }),
    tax_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        default: 0,
        description: 'Tax rate in percent, 0 to 100, at most 3 decimals.',
        example: 8.875,
      }),
    ),
  },
  { additionalProperties: false },
);

export const LineItemSchema = Type.Object({
  id: IdSchema,
  description: Type.String({ description: 'What was or will be done or supplied.', example: 'Replace kitchen faucet' }),
  quantity: Type.Number({ description: 'Quantity.', example: 1.5 }),
  unit_amount: Type.Integer({ description: 'Price of one unit in minor units.', example: 12000 }),
  tax_rate: Type.Number({ description: 'Tax rate in percent.', example: 8.875 }),
  amount: Type.Integer({
    description: 'round_half_up(quantity × unit_amount), in minor units. Read-only.',
    example: 18000,
  }),
  tax_amount: Type.Integer({
    description: 'round_half_up(amount × tax_rate / 100), in minor units. Read-only.',
    example: 1598,
  }),
});

export const LineItemsInputSchema = Type.Array(LineItemInputSchema, {
  maxItems: MAX_LINE_ITEMS,
  description: `The document's lines (at most ${MAX_LINE_ITEMS}); replaces the whole list on update.`,
});

export type LineItemInput = Static<typeof LineItemInputSchema>;
export type LineItem = Static<typeof LineItemSchema>;

export interface Totals {
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
}

/**
 * Computes each line and the document totals exactly (docs/api-contract.md §6, through the §19 calculation:
 * a version-1 `tax_rate` is one unnamed non-compound rate rounded per line). Throws VALIDATION_ERROR naming
 * the line for too many decimals, and for a total below zero or beyond the largest amount we store.
 */
export function computeLineItems(inputs: readonly LineItemInput[]): { lineItems: LineItem[]; totals: Totals } {
  const details: ErrorDetail[] = [];
  const rates = new Map<string, RateTerms>();
  const keys = inputs.map((input, index) => {
    const taxRate = toScaledInteger(input.tax_rate ?? 0);
    if (taxRate === undefined) {
      details.push({ field: `line_items[${index}].tax_rate`, message: 'must have at most 3 decimals' });
      return [];
    }
    if (taxRate === 0n) return [];
    const key = `v1:${taxRate}`;
    rates.set(key, { key, percentage: taxRate * 10n, compound: false });
    return [key];
  });
  if (details.length > 0) {
    // Report the quantities too, in one answer.
    inputs.forEach((input, index) => {
      if (toScaledInteger(input.quantity) === undefined)
        details.push({ field: `line_items[${index}].quantity`, message: 'must have at most 3 decimals' });
    });
    throw validationError(details);
  }
  const pricing = priceDocument({
    lines: inputs.map((input, index) => ({
      quantity: input.quantity,
      unit_amount: input.unit_amount,
      discount: null,
      rate_keys: keys[index] as string[],
    })),
    rates: [...rates.values()].sort((a, b) => (a.percentage < b.percentage ? -1 : 1)),
    prices_include_tax: false,
    rounding: 'per_line',
    discount: null,
  });
  const lineItems = inputs.map((input, index) => {
    const priced = pricing.lines[index] as PricedLine;
    return {
      id: newId(),
      description: input.description,
      quantity: input.quantity,
      unit_amount: input.unit_amount,
      tax_rate: input.tax_rate ?? 0,
      amount: Number(priced.amount),
      tax_amount: Number(priced.tax_amount),
    };
  });
  return {
    lineItems,
    totals: {
      subtotal_amount: Number(pricing.subtotal_amount),
      tax_amount: Number(pricing.tax_amount),
      total_amount: Number(pricing.total_amount),
    },
  };
}

/** Line items copied from another document get new ids; amounts are recomputed, never trusted. */
export function copyLineItems(items: readonly LineItem[]): LineItemInput[] {
  return items.map(({ description, quantity, unit_amount, tax_rate }) => ({
    description,
    quantity,
    unit_amount,
    tax_rate,
  }));
}
