// Line items of quotes, jobs and invoices: their schemas (docs/api-contract.md §6, with §19's products,
// named rates and discounts), how a stored line is answered, and the version-1 computation.
import { Type, type Static } from '@sinclair/typebox';
import { newId } from '../../core/deps.js';
import { validationError, type ErrorDetail } from '../../core/errors.js';
import { IdSchema, Nullable } from '../../kernel/fields.js';
import { MAX_AMOUNT, toScaledInteger } from './money.js';
import { priceDocument, type PricedLine, type RateTerms } from './tax.js';

export const MAX_LINE_ITEMS = 200;

const amountBound = Number(MAX_AMOUNT);

export const DiscountSchema = Type.Object(
  {
    type: Type.Unsafe<'percent' | 'amount'>({
      type: 'string',
      enum: ['percent', 'amount'],
      description: 'percent: value is a percentage (0–100, at most 4 decimals); amount: value is in minor units.',
      example: 'percent',
    }),
    value: Type.Number({
      minimum: 0,
      maximum: amountBound,
      description: 'The percentage, or the amount in minor units (a whole number), taken off before tax.',
      example: 10,
    }),
  },
  { additionalProperties: false, description: 'A discount before tax.', example: { type: 'percent', value: 10 } },
);

export const TaxRateIdsInput = Type.Array(Type.String({ format: 'uuid', description: 'A tax rate id.' }), {
  maxItems: 5,
  uniqueItems: true,
  description:
    'The line’s tax rates (at most 5); [] makes it tax-free. Absent: its product’s rates, else the property’s default_tax_rate_ids, else the account’s. Not together with tax_rate.',
  example: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'],
});

export const LineItemInputSchema = Type.Object(
  {
    product_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'A product of the account: fills the name, description, unit amount, quantity and taxes the line does not give (copied: editing the product later changes no document).',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03',
      }),
    ),
    name: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: '\\S',
          description:
            'A short name printed in bold above the description (a product’s name). Absent: the product’s name, else none.',
          example: 'Water heater',
        }),
      ),
    ),
    description: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: '\\S',
        description: 'What was or will be done or supplied. Required unless product_id gives it.',
        example: 'Replace kitchen faucet',
      }),
    ),
    quantity: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description:
          'Quantity, greater than 0, at most 1,000,000, at most 3 decimals. Required unless product_id gives it.',
        example: 1.5,
      }),
    ),
    unit_amount: Type.Optional(
      Type.Integer({
        minimum: -amountBound,
        maximum: amountBound,
        description:
          'Price of one unit in minor units (cents); negative for a credit line. Required unless product_id gives it. With prices_include_tax, tax included.',
        example: 12000,
      }),
    ),
    tax_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description:
          'Version 1: one unnamed rate in percent, 0 to 100, at most 3 decimals; 0 (the default) is no rate. Not together with tax_rate_ids.',
        example: 8.875,
      }),
    ),
    tax_rate_ids: Type.Optional(TaxRateIdsInput),
    discount: Type.Optional(Nullable(DiscountSchema)),
    unit_code: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z0-9]{2,3}$',
          description:
            'The unit of quantity (UN/ECE Recommendation 20 or 21: HUR, KGM, C62, …) an e-invoice states. Absent: its product’s, else none (an e-invoice says C62).',
          example: 'HUR',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const LineTaxSchema = Type.Object({
  tax_rate_id: Nullable(IdSchema),
  name: Nullable(Type.String({ description: 'The rate’s name (null for a version-1 tax_rate).', example: 'GST' })),
  percentage: Type.Number({ description: 'Percent.', example: 5 }),
  compound: Type.Boolean({ description: 'Applied on the amount plus the non-compound taxes.', example: false }),
  amount: Type.Integer({ description: 'This rate’s tax on the line, in minor units.', example: 900 }),
});

export const LineItemSchema = Type.Object({
  id: IdSchema,
  product_id: Nullable(IdSchema),
  name: Nullable(
    Type.String({ description: 'Printed in bold above the description; null without one.', example: 'Water heater' }),
  ),
  description: Type.String({ description: 'What was or will be done or supplied.', example: 'Replace kitchen faucet' }),
  quantity: Type.Number({ description: 'Quantity.', example: 1.5 }),
  unit_amount: Type.Integer({ description: 'Price of one unit in minor units.', example: 12000 }),
  tax_rate: Type.Number({ description: 'Version 1’s unnamed rate in percent; 0 for none.', example: 0 }),
  tax_rate_ids: Type.Array(IdSchema, { description: 'The named rates the line carries (after resolution).' }),
  discount: Nullable(DiscountSchema),
  discount_amount: Type.Integer({
    description: 'Its own discount plus its share of the document’s, in minor units. Read-only.',
    example: 0,
  }),
  amount: Type.Integer({
    description:
      'round(quantity × unit_amount) less its discounts, before tax, in minor units (with prices including tax: the net). Read-only.',
    example: 18000,
  }),
  tax_amount: Type.Integer({ description: 'The sum of its taxes, in minor units. Read-only.', example: 1598 }),
  taxes: Type.Array(LineTaxSchema, { description: 'One per rate, in the rates’ order. Read-only.' }),
  unit_code: Nullable(
    Type.String({
      description:
        'The unit of quantity (UN/ECE Recommendation 20 or 21): as given, else its product’s; HUR for a line of billed time; null for none (an e-invoice says C62).',
      example: 'HUR',
    }),
  ),
  unit_cost_amount: Nullable(
    Type.Integer({
      description:
        'Internal: what one unit costs the business, in minor units, copied from the product’s cost_amount when the line is made (never back-filled; null without one). Job costing counts it; it is never printed, e-mailed or shown on the client hub. Read-only.',
      example: 5200,
    }),
  ),
  time_entry_ids: Type.Array(IdSchema, {
    description:
      'The time entries this line bills (POST /v1/invoices/{id}/time-entries); [] for a line not made from time. Read-only: a PUT of line_items may send them back unchanged to keep the line.',
  }),
});

export const TaxBreakdownSchema = Type.Array(
  Type.Object({
    tax_rate_id: Nullable(IdSchema),
    name: Nullable(Type.String({ example: 'GST' })),
    registration_number: Nullable(Type.String({ example: '123456789 RT0001' })),
    percentage: Type.Number({ example: 5 }),
    compound: Type.Boolean({ example: false }),
    taxable_amount: Type.Integer({
      description:
        'What the rate was taken on, in minor units (the nets with prices including tax; with a compound rate, the amounts plus the non-compound taxes).',
      example: 18000,
    }),
    tax_amount: Type.Integer({ description: 'The rate’s tax, in minor units.', example: 900 }),
  }),
  {
    description:
      'One row per rate used, in order (priority, then creation): a snapshot, so a sent document never changes. Read-only.',
    example: [
      {
        tax_rate_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02',
        name: 'GST',
        registration_number: '123456789 RT0001',
        percentage: 5,
        compound: false,
        taxable_amount: 18000,
        tax_amount: 900,
      },
    ],
  },
);

export const LineItemsInputSchema = Type.Array(LineItemInputSchema, {
  maxItems: MAX_LINE_ITEMS,
  description: `The document's lines (at most ${MAX_LINE_ITEMS}); replaces the whole list on update.`,
});

/** An invoice's lines on update: a line of billed time is kept by sending its time_entry_ids back unchanged. */
export const InvoiceLineItemsInputSchema = Type.Array(
  Type.Object(
    {
      ...LineItemInputSchema.properties,
      time_entry_ids: Type.Optional(
        Type.Array(Type.String({ format: 'uuid' }), {
          maxItems: MAX_LINE_ITEMS,
          description:
            'A line of billed time, kept: its time_entry_ids exactly as answered, with its quantity and unit_amount unchanged (else 422). A time line left out releases its entries. [] or absent: an ordinary line.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: MAX_LINE_ITEMS,
    description: `The invoice's lines (at most ${MAX_LINE_ITEMS}); replaces the whole list. A line of billed time is kept by sending back its time_entry_ids, quantity and unit_amount unchanged.`,
  },
);

export type LineItemInput = Static<typeof LineItemInputSchema> & {
  /** An invoice's line sent back with its entries (InvoiceLineItemsInputSchema). */
  time_entry_ids?: string[] | undefined;
  /** Internal, never from a body: what a stored or copied line keeps rather than taking again from its product. */
  kept?: KeptLineFields | undefined;
};

/** What a line keeps when it is priced again or copied: its unit, its cost as made, the time it bills. */
export interface KeptLineFields {
  unit_code: string | null;
  unit_cost_amount: number | null;
  time_entry_ids: string[];
}
export type LineItem = Static<typeof LineItemSchema>;
export type LineTax = Static<typeof LineTaxSchema>;
export type TaxBreakdown = Static<typeof TaxBreakdownSchema>;
export type DiscountInput = Static<typeof DiscountSchema>;

/** A line of version 1: a description, quantity, unit amount and an optional unnamed rate. */
export interface Version1LineInput {
  description: string;
  quantity: number;
  unit_amount: number;
  tax_rate?: number;
}

export interface Totals {
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
}

/** A stored line as the API answers it: lines stored before §19 get its fields' neutral values. */
export function presentLineItem(
  stored: Partial<LineItem> & Pick<LineItem, 'id' | 'description' | 'quantity' | 'unit_amount' | 'amount'>,
): LineItem {
  const taxRate = stored.tax_rate ?? 0;
  const taxAmount = stored.tax_amount ?? 0;
  return {
    id: stored.id,
    product_id: stored.product_id ?? null,
    name: stored.name ?? null,
    description: stored.description,
    quantity: stored.quantity,
    unit_amount: stored.unit_amount,
    tax_rate: taxRate,
    tax_rate_ids: stored.tax_rate_ids ?? [],
    discount: stored.discount ?? null,
    discount_amount: stored.discount_amount ?? 0,
    amount: stored.amount,
    tax_amount: taxAmount,
    taxes:
      stored.taxes ??
      (taxRate === 0
        ? []
        : [{ tax_rate_id: null, name: null, percentage: taxRate, compound: false, amount: taxAmount }]),
    unit_code: stored.unit_code ?? null,
    unit_cost_amount: stored.unit_cost_amount ?? null,
    time_entry_ids: stored.time_entry_ids ?? [],
  };
}

/** The breakdown of a document stored before §19: one row per version-1 rate, lowest first. */
export function breakdownOfVersion1(lines: readonly LineItem[]): TaxBreakdown {
  const rows = new Map<number, { taxable: number; tax: number }>();
  for (const line of lines) {
    if (line.tax_rate === 0) continue;
    const row = rows.get(line.tax_rate) ?? { taxable: 0, tax: 0 };
    row.taxable += line.amount;
    row.tax += line.tax_amount;
    rows.set(line.tax_rate, row);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([percentage, { taxable, tax }]) => ({
      tax_rate_id: null,
      name: null,
      registration_number: null,
      percentage,
      compound: false,
      taxable_amount: taxable,
      tax_amount: tax,
    }));
}

/** Version 1's key for an unnamed rate: `v1:` and its thousandths of a percent. */
export function version1Key(thousandths: bigint): string {
  return `v1:${thousandths}`;
}

/**
 * Computes each line and the document totals exactly for version-1 lines (docs/api-contract.md §6, through
 * the §19 calculation: a `tax_rate` is one unnamed non-compound rate rounded per line). Throws
 * VALIDATION_ERROR naming the line for too many decimals, and for a total below zero or beyond the largest
 * amount we store.
 */
export function computeLineItems(inputs: readonly Version1LineInput[]): { lineItems: LineItem[]; totals: Totals } {
  const details: ErrorDetail[] = [];
  const rates = new Map<string, RateTerms>();
  const keys = inputs.map((input, index) => {
    const taxRate = toScaledInteger(input.tax_rate ?? 0);
    if (taxRate === undefined) {
      details.push({ field: `line_items[${index}].tax_rate`, message: 'must have at most 3 decimals' });
      return [];
    }
    if (taxRate === 0n) return [];
    const key = version1Key(taxRate);
    rates.set(key, { key, percentage: taxRate * 10n, compound: false });
    return [key];
  });
  if (details.length > 0) {
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
  const lineItems = inputs.map((input, index) =>
    presentLineItem({
      id: newId(),
      description: input.description,
      quantity: input.quantity,
      unit_amount: input.unit_amount,
      tax_rate: input.tax_rate ?? 0,
      amount: Number((pricing.lines[index] as PricedLine).amount),
      tax_amount: Number((pricing.lines[index] as PricedLine).tax_amount),
    }),
  );
  return {
    lineItems,
    totals: {
      subtotal_amount: Number(pricing.subtotal_amount),
      tax_amount: Number(pricing.tax_amount),
      total_amount: Number(pricing.total_amount),
    },
  };
}
