// The tax calculation of docs/api-contract.md §19 against figures worked by hand (the arithmetic is in each
// case's comment; nothing expected here is computed by src/), and the invariants of §19.5.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  priceDocument,
  type Discount,
  type PricingInput,
  type RateTerms,
  type Rounding,
} from '../src/modules/documents/tax.js';

const GST: RateTerms = { key: 'gst', percentage: 50_000n, compound: false }; // 5 %
const QST: RateTerms = { key: 'qst', percentage: 99_750n, compound: false }; // 9.975 %
const QST_COMPOUND: RateTerms = { key: 'qst', percentage: 95_000n, compound: true }; // 9.5 % on price + GST (before 2013)
const VAT19: RateTerms = { key: 'vat', percentage: 190_000n, compound: false }; // 19 %
const HST: RateTerms = { key: 'hst', percentage: 130_000n, compound: false }; // 13 %
const V1_13: RateTerms = { key: 'v1:13', percentage: 130_000n, compound: false }; // a version-1 tax_rate of 13

interface LineSpec {
  quantity: number;
  unit_amount: number;
  rates?: string[];
  discount?: Discount;
}

function input(
  lines: LineSpec[],
  rates: RateTerms[],
  options: { rounding?: Rounding; inclusive?: boolean; discount?: Discount } = {},
): PricingInput {
  return {
    lines: lines.map((line) => ({
      quantity: line.quantity,
      unit_amount: line.unit_amount,
      discount: line.discount ?? null,
      rate_keys: line.rates ?? [],
    })),
    rates,
    prices_include_tax: options.inclusive ?? false,
    rounding: options.rounding ?? 'per_line',
    discount: options.discount ?? null,
  };
}

/** Expected figures: [amount, {rate: tax}] per line, the breakdown {rate: [taxable, tax]}, and the totals. */
interface Expected {
  lines?: Array<[number, Record<string, number>]>;
  breakdown: Record<string, [number, number]>;
  discount: number;
  subtotal: number;
  tax: number;
  total: number;
}

function check(actual: ReturnType<typeof priceDocument>, expected: Expected) {
  if (expected.lines)
    assert.deepEqual(
      actual.lines.map((line) => [
        Number(line.amount),
        Object.fromEntries(line.taxes.map((entry) => [entry.key, Number(entry.amount)])),
      ]),
      expected.lines,
    );
  assert.deepEqual(
    Object.fromEntries(actual.breakdown.map((row) => [row.key, [Number(row.taxable_amount), Number(row.tax_amount)]])),
    expected.breakdown,
  );
  assert.deepEqual(
    [actual.discount_amount, actual.subtotal_amount, actual.tax_amount, actual.total_amount].map(Number),
    [expected.discount, expected.subtotal, expected.tax, expected.total],
  );
}

const fiftyLines = Array.from({ length: 50 }, () => ({ quantity: 1, unit_amount: 1999, rates: ['gst', 'qst'] }));

describe('tax: figures worked by hand', () => {
  test('5 % + 9.975 % on 50 lines of 19.99, per_line: each line 99.95 → 100 and 199.40025 → 199', () => {
    // subtotal 50 × 1999 = 99,950; GST 50 × 100 = 5,000; QST 50 × 199 = 9,950; tax 14,950; total 114,900.
    check(priceDocument(input(fiftyLines, [GST, QST], { rounding: 'per_line' })), {
      lines: Array.from({ length: 50 }, () => [1999, { gst: 100, qst: 199 }] as [number, Record<string, number>]),
      breakdown: { gst: [99_950, 5_000], qst: [99_950, 9_950] },
      discount: 0,
      subtotal: 99_950,
      tax: 14_950,
      total: 114_900,
    });
  });

  test('the same 50 lines per_document: each rate rounded once, then shared by largest remainder', () => {
    // GST: 50 × 99.95 = 4,997.5 → 4,998; each line's quota 4,998 / 50 = 99.96 → floors 99 (4,950), the 48
    // missing units go to lines 0–47 (equal remainders: lower index first): 48 × 100 + 2 × 99.
    // QST: 50 × 199.40025 = 9,970.0125 → 9,970; quota 199.4 → floors 199 (9,950), 20 missing → lines 0–19
    // get 200. Tax 4,998 + 9,970 = 14,968; total 99,950 + 14,968 = 114,918.
    const pricing = priceDocument(input(fiftyLines, [GST, QST], { rounding: 'per_document' }));
    check(pricing, {
      lines: Array.from(
        { length: 50 },
        (_, index) =>
          [1999, { gst: index < 48 ? 100 : 99, qst: index < 20 ? 200 : 199 }] as [number, Record<string, number>],
      ),
      breakdown: { gst: [99_950, 4_998], qst: [99_950, 9_970] },
      discount: 0,
      subtotal: 99_950,
      tax: 14_968,
      total: 114_918,
    });
  });

  test('QST compounding on GST: 9.5 % on 100.00 + 5.00 = 9.975 → 10.00 (half away from zero: 997.5 → 998)', () => {
    // GST 10,000 × 5 % = 500; QST (10,000 + 500) × 9.5 % = 997.5 → 998. Taxable: GST 10,000; QST 10,500.
    check(priceDocument(input([{ quantity: 1, unit_amount: 10_000, rates: ['gst', 'qst'] }], [GST, QST_COMPOUND])), {
      lines: [[10_000, { gst: 500, qst: 998 }]],
      breakdown: { gst: [10_000, 500], qst: [10_500, 998] },
      discount: 0,
      subtotal: 10_000,
      tax: 1_498,
      total: 11_498,
    });
  });

  test('compound tax is taken on the exact GST, not the rounded one', () => {
    // 10.68: GST 53.4 → 53. QST on 1,068 + 53.4 (exact) = 1,121.4 × 9.5 % = 106.533 → 107
    // (on the rounded 1,121 it would be 106.495 → 106). Taxable for QST: 1,068 + 53 = 1,121.
    check(priceDocument(input([{ quantity: 1, unit_amount: 1_068, rates: ['gst', 'qst'] }], [GST, QST_COMPOUND])), {
      lines: [[1_068, { gst: 53, qst: 107 }]],
      breakdown: { gst: [1_068, 53], qst: [1_121, 107] },
      discount: 0,
      subtotal: 1_068,
      tax: 160,
      total: 1_228,
    });
  });

  for (const rounding of ['per_line', 'per_document'] as const)
    test(`inclusive 19 % on 340.00 + 13.90 (${rounding}): the total is exactly 353.90`, () => {
      // Nets: 34,000 / 1.19 = 28,571.428… → 28,571 (tax 5,429); 1,390 / 1.19 = 1,168.067… → 1,168 (tax 222).
      // per_document: exact taxes 5,428.571… + 221.932… = 5,650.504… → 5,651; quotas add the 0.4958 difference
      // by size: 5,429.048 and 221.952 → floors 5,429 + 221, the missing unit to the larger remainder (line 1):
      // the same 5,429 and 222. Subtotal (the nets) 29,739 + tax 5,651 = 35,390 = 34,000 + 1,390.
      check(
        priceDocument(
          input(
            [
              { quantity: 1, unit_amount: 34_000, rates: ['vat'] },
              { quantity: 1, unit_amount: 1_390, rates: ['vat'] },
            ],
            [VAT19],
            { inclusive: true, rounding },
          ),
        ),
        {
          lines: [
            [28_571, { vat: 5_429 }],
            [1_168, { vat: 222 }],
          ],
          breakdown: { vat: [29_739, 5_651] },
          discount: 0,
          subtotal: 29_739,
          tax: 5_651,
          total: 35_390,
        },
      );
    });

  test('inclusive 5 % + 9.975 % on 114.98: the tax 14.98 shared over its rates by largest remainder', () => {
    // Net 11,498 / 1.14975 = 10,000.4348… → 10,000; tax 1,498. Exact GST 500.0217, QST 997.5434 (sum
    // 1,497.5651); the 0.4349 difference shared by size gives quotas 500.167 and 997.833 → floors 500 + 997,
    // the missing unit to QST (remainder .833): GST 500, QST 998.
    check(
      priceDocument(
        input([{ quantity: 1, unit_amount: 11_498, rates: ['gst', 'qst'] }], [GST, QST], { inclusive: true }),
      ),
      {
        lines: [[10_000, { gst: 500, qst: 998 }]],
        breakdown: { gst: [10_000, 500], qst: [10_000, 998] },
        discount: 0,
        subtotal: 10_000,
        tax: 1_498,
        total: 11_498,
      },
    );
  });

  test('a 100 % line discount leaves the line at 0 with no tax', () => {
    // Line 0: 2 × 50.00 = 10,000 − 100 % = 0, GST 0. Line 1: 10.00, GST 0.50. Discounts 10,000.
    check(
      priceDocument(
        input(
          [
            { quantity: 2, unit_amount: 5_000, rates: ['gst'], discount: { type: 'percent', value: 100 } },
            { quantity: 1, unit_amount: 1_000, rates: ['gst'] },
          ],
          [GST],
        ),
      ),
      {
        lines: [
          [0, { gst: 0 }],
          [1_000, { gst: 50 }],
        ],
        breakdown: { gst: [1_000, 50] },
        discount: 10_000,
        subtotal: 1_000,
        tax: 50,
        total: 1_050,
      },
    );
  });

  test('an amount discount over three equal lines: ties go to the lower index', () => {
    // 1.00 off three lines of 1.00: quotas 33.33… each → floors 33 (99), the missing unit to line 0.
    check(
      priceDocument(
        input(
          [
            { quantity: 1, unit_amount: 100 },
            { quantity: 1, unit_amount: 100 },
            { quantity: 1, unit_amount: 100 },
          ],
          [],
          { discount: { type: 'amount', value: 100 } },
        ),
      ),
      {
        lines: [
          [66, {}],
          [67, {}],
          [67, {}],
        ],
        breakdown: {},
        discount: 100,
        subtotal: 200,
        tax: 0,
        total: 200,
      },
    );
  });

  test('an amount discount over three lines by largest remainder, before tax', () => {
    // 1.00 off 10.00, 20.00, 30.00: quotas 16.667, 33.333, 50 → floors 16, 33, 50 (99); the missing unit to
    // the largest remainder (.667, line 0): 17, 33, 50. Amounts 983, 1,967, 2,950; GST 5 %: 49.15 → 49,
    // 98.35 → 98, 147.5 → 148 (half away from zero). Subtotal 5,900, tax 295, total 6,195.
    check(
      priceDocument(
        input(
          [
            { quantity: 1, unit_amount: 1_000, rates: ['gst'] },
            { quantity: 1, unit_amount: 2_000, rates: ['gst'] },
            { quantity: 1, unit_amount: 3_000, rates: ['gst'] },
          ],
          [GST],
          { discount: { type: 'amount', value: 100 } },
        ),
      ),
      {
        lines: [
          [983, { gst: 49 }],
          [1_967, { gst: 98 }],
          [2_950, { gst: 148 }],
        ],
        breakdown: { gst: [5_900, 295] },
        discount: 100,
        subtotal: 5_900,
        tax: 295,
        total: 6_195,
      },
    );
  });

  test('a percent document discount applies to each line: 10 % off 12.35 and 7.65', () => {
    // 1,235 × 10 % = 123.5 → 124 → 1,111; 765 × 10 % = 76.5 → 77 → 688. Discounts 201; HST 13 %:
    // 144.43 → 144, 89.44 → 89. Subtotal 1,799, tax 233, total 2,032.
    check(
      priceDocument(
        input(
          [
            { quantity: 1, unit_amount: 1_235, rates: ['hst'] },
            { quantity: 1, unit_amount: 765, rates: ['hst'] },
          ],
          [HST],
          { discount: { type: 'percent', value: 10 } },
        ),
      ),
      {
        lines: [
          [1_111, { hst: 144 }],
          [688, { hst: 89 }],
        ],
        breakdown: { hst: [1_799, 233] },
        discount: 201,
        subtotal: 1_799,
        tax: 233,
        total: 2_032,
      },
    );
  });

  test('a credit line with tax: its tax is negative and rounds half away from zero', () => {
    // 100.00 at 13 % = 13.00; −25.50 at 13 % = −3.315, in cents −331.5 → −332. Subtotal 7,450, tax 968.
    check(
      priceDocument(
        input(
          [
            { quantity: 1, unit_amount: 10_000, rates: ['hst'] },
            { quantity: 1, unit_amount: -2_550, rates: ['hst'] },
          ],
          [HST],
        ),
      ),
      {
        lines: [
          [10_000, { hst: 1_300 }],
          [-2_550, { hst: -332 }],
        ],
        breakdown: { hst: [7_450, 968] },
        discount: 0,
        subtotal: 7_450,
        tax: 968,
        total: 8_418,
      },
    );
  });

  test('a credit line per_document: the rounded total stays near each line’s own exact tax', () => {
    // Exact 1,300 and −331.5: total 968.5 → 969; the 0.5 difference shared by size (1,300 : 331.5):
    // quotas 1,300.398 and −331.398 → floors 1,300 and −332 (968), the missing unit to the larger
    // remainder (.602 against .398, line 1): 1,300 and −331.
    check(
      priceDocument(
        input(
          [
            { quantity: 1, unit_amount: 10_000, rates: ['hst'] },
            { quantity: 1, unit_amount: -2_550, rates: ['hst'] },
          ],
          [HST],
          { rounding: 'per_document' },
        ),
      ),
      {
        lines: [
          [10_000, { hst: 1_300 }],
          [-2_550, { hst: -331 }],
        ],
        breakdown: { hst: [7_450, 969] },
        discount: 0,
        subtotal: 7_450,
        tax: 969,
        total: 8_419,
      },
    );
  });

  test('a version-1 tax_rate keeps its figures: round(amount × rate / 100) per line', () => {
    // 3 × 33.33 = 9,999 at 13 % = 1,299.87 → 1,300; 0.5 × −10.01 = −500.5 → −501 at 13 % = −65.13 → −65.
    check(
      priceDocument(
        input(
          [
            { quantity: 3, unit_amount: 3_333, rates: ['v1:13'] },
            { quantity: 0.5, unit_amount: -1_001, rates: ['v1:13'] },
          ],
          [V1_13],
        ),
      ),
      {
        lines: [
          [9_999, { 'v1:13': 1_300 }],
          [-501, { 'v1:13': -65 }],
        ],
        breakdown: { 'v1:13': [9_498, 1_235] },
        discount: 0,
        subtotal: 9_498,
        tax: 1_235,
        total: 10_733,
      },
    );
  });

  test('JPY, no decimals: amounts are whole yen', () => {
    // 3 × ¥333 = ¥999 at 10 % = 99.9 → ¥100; 1 × ¥4 at 10 % = 0.4 → ¥0. Total ¥1,103.
    const JCT: RateTerms = { key: 'jct', percentage: 100_000n, compound: false };
    check(
      priceDocument(
        input(
          [
            { quantity: 3, unit_amount: 333, rates: ['jct'] },
            { quantity: 1, unit_amount: 4, rates: ['jct'] },
          ],
          [JCT],
        ),
      ),
      {
        lines: [
          [999, { jct: 100 }],
          [4, { jct: 0 }],
        ],
        breakdown: { jct: [1_003, 100] },
        discount: 0,
        subtotal: 1_003,
        tax: 100,
        total: 1_103,
      },
    );
  });

  test('KWD, three decimals: amounts are fils', () => {
    // 1.5 × 12.345 KWD = 18,517.5 fils → 18,518; VAT 5 % = 925.9 → 926. Total 19,444 fils (19.444 KWD).
    check(priceDocument(input([{ quantity: 1.5, unit_amount: 12_345, rates: ['gst'] }], [GST])), {
      lines: [[18_518, { gst: 926 }]],
      breakdown: { gst: [18_518, 926] },
      discount: 0,
      subtotal: 18_518,
      tax: 926,
      total: 19_444,
    });
  });
});

describe('tax: refusals', () => {
  const refusal = (pricing: PricingInput, fields: string[]) =>
    assert.throws(
      () => priceDocument(pricing),
      (error: { code?: string; details?: Array<{ field: string }> }) => {
        assert.equal(error.code, 'VALIDATION_ERROR');
        assert.deepEqual(
          error.details?.map((detail) => detail.field),
          fields,
        );
        return true;
      },
    );

  test('a line discount above the line is 422 on that line', () =>
    refusal(input([{ quantity: 1, unit_amount: 100, discount: { type: 'amount', value: 101 } }], []), [
      'line_items[0].discount',
    ]));
  test('a discount on a credit line is 422', () =>
    refusal(input([{ quantity: 1, unit_amount: -100, discount: { type: 'percent', value: 5 } }], []), [
      'line_items[0].discount',
    ]));
  test('a document discount above the lines is 422 on discount.value', () =>
    refusal(input([{ quantity: 1, unit_amount: 100 }], [], { discount: { type: 'amount', value: 101 } }), [
      'discount.value',
    ]));
  test('a percent with five decimals is 422', () =>
    refusal(input([{ quantity: 1, unit_amount: 100, discount: { type: 'percent', value: 1.00001 } }], []), [
      'line_items[0].discount.value',
    ]));
  test('a total below zero is 422', () => refusal(input([{ quantity: 1, unit_amount: -100 }], []), ['line_items']));
});
