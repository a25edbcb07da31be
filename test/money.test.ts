// Money: line amounts and taxes rounded half up (away from zero) per line, computed exactly, checked
// against hand-worked figures and against an independent decimal computation, and through the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { computeLineItems, type Version1LineInput as LineItemInput } from '../src/modules/documents/line-items.js';
import { multiplyDivideRounded, toScaledInteger } from '../src/modules/documents/money.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const line = (quantity: number, unit_amount: number, tax_rate?: number): LineItemInput => ({
  description: 'x',
  quantity,
  unit_amount,
  ...(tax_rate === undefined ? {} : { tax_rate }),
});

// [label, lines, expected per-line [amount, tax], expected totals [subtotal, tax, total]]
const CASES: Array<[string, LineItemInput[], Array<[number, number]>, [number, number, number]]> = [
  ['a plain line', [line(2, 1250)], [[2500, 0]], [2500, 0, 2500]],
  ['half a cent rounds up', [line(0.5, 1)], [[1, 0]], [1, 0, 1]],
  ['just under half a cent rounds down', [line(0.499, 1)], [[0, 0]], [0, 0, 0]],
  ['1.005 × 100 is exactly 100.5 -> 101 (a float would say 100.49999…)', [line(1.005, 100)], [[101, 0]], [101, 0, 101]],
  [
    '0.1 + 0.2 style: 3 lines of 0.1 × 10',
    [line(0.1, 10), line(0.1, 10), line(0.1, 10)],
    [
      [1, 0],
      [1, 0],
      [1, 0],
    ],
    [3, 0, 3],
  ],
  ['8.875 % tax on 1000 = 88.75 -> 89', [line(1, 1000, 8.875)], [[1000, 89]], [1000, 89, 1089]],
  ['8.875 % tax on 999 = 88.66… -> 89', [line(1, 999, 8.875)], [[999, 89]], [999, 89, 1088]],
  ['8.875 % on 200 = 17.75 -> 18', [line(1, 200, 8.875)], [[200, 18]], [200, 18, 218]],
  [
    'tax is rounded per line, not on the sum',
    [line(1, 5, 10), line(1, 5, 10)],
    [
      [5, 1],
      [5, 1],
    ],
    [10, 2, 12],
  ],
  [
    'a negative discount line rounds half away from zero',
    [line(1, 10001), line(0.5, -1001, 10)],
    [
      [10001, 0],
      [-501, -50],
    ],
    [9500, -50, 9450],
  ],
  [
    'a discount to exactly zero is allowed',
    [line(1, 500, 20), line(1, -500, 20)],
    [
      [500, 100],
      [-500, -100],
    ],
    [0, 0, 0],
  ],
  ['largest quantity', [line(1_000_000, 99)], [[99_000_000, 0]], [99_000_000, 0, 99_000_000]],
  ['three-decimal quantity and rate together', [line(2.333, 3333, 7.125)], [[7776, 554]], [7776, 554, 8330]],
  ['100 % tax', [line(1, 12345, 100)], [[12345, 12345]], [12345, 12345, 24690]],
  [
    'a large but safe amount',
    [line(1000, 99_999_999_999)],
    [[99_999_999_999_000, 0]],
    [99_999_999_999_000, 0, 99_999_999_999_000],
  ],
];

/** An independent check: the same rule in decimal strings and BigInt, written differently. */
function reference(quantity: number, unit: number, rate: number): [bigint, bigint] {
  const [qWhole, qFraction = ''] = String(quantity).split('.');
  const [rWhole, rFraction = ''] = String(rate).split('.');
  const q = BigInt(qWhole + qFraction.padEnd(3, '0'));
  const r = BigInt(rWhole + rFraction.padEnd(3, '0'));
  const halfUp = (numerator: bigint, denominator: bigint) => {
    const sign = numerator < 0n ? -1n : 1n;
    const absolute = numerator * sign;
    const quotient = absolute / denominator;
    const remainder = absolute % denominator;
    return sign * (remainder * 2n >= denominator ? quotient + 1n : quotient);
  };
  const amount = halfUp(q * BigInt(unit), 1000n);
  return [amount, halfUp(amount * r, 100_000n)];
}

describe('the money table', () => {
  for (const [label, lines, perLine, totals] of CASES) {
    test(label, () => {
      const { lineItems, totals: computed } = computeLineItems(lines);
      assert.deepEqual(
        lineItems.map((item) => [item.amount, item.tax_amount]),
        perLine,
      );
      assert.deepEqual([computed.subtotal_amount, computed.tax_amount, computed.total_amount], totals);
    });
  }

  test('200 random lines agree with an independent decimal computation', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const lines = Array.from({ length: 200 }, () =>
      line(
        Math.round(random() * 1_000_000) / 1000 || 0.001,
        Math.round((random() - 0.2) * 1_000_000),
        Math.round(random() * 25_000) / 1000,
      ),
    );
    const { lineItems, totals } = computeLineItems(lines);
    let subtotal = 0n;
    let tax = 0n;
    lines.forEach((input, index) => {
      const [amount, lineTax] = reference(input.quantity, input.unit_amount, input.tax_rate ?? 0);
      assert.equal(BigInt(lineItems[index]!.amount), amount, `line ${index}`);
      assert.equal(BigInt(lineItems[index]!.tax_amount), lineTax, `line ${index} tax`);
      subtotal += amount;
      tax += lineTax;
    });
    assert.equal(BigInt(totals.subtotal_amount), subtotal);
    assert.equal(BigInt(totals.tax_amount), tax);
    assert.equal(BigInt(totals.total_amount), subtotal + tax);
  });

  test('decimal parsing is exact and refuses a fourth decimal', () => {
    assert.equal(toScaledInteger(1.005), 1005n);
    assert.equal(toScaledInteger(0.001), 1n);
    assert.equal(toScaledInteger(1_000_000), 1_000_000_000n);
    assert.equal(toScaledInteger(1.0005), undefined);
    assert.equal(toScaledInteger(1e-7), undefined);
    assert.equal(multiplyDivideRounded(-5n, 1n, 10n), -1n, '-0.5 rounds away from zero');
    assert.equal(multiplyDivideRounded(5n, 1n, 10n), 1n);
    assert.equal(multiplyDivideRounded(-4n, 1n, 10n), 0n);
  });
});

describe('money through the API', () => {
  let context: TestContext;
  let key: string;
  let clientId: string;
  before(async () => {
    context = await createTestContext();
    ({ key } = await context.account());
    clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'Money' } })).body.data.id;
  });
  after(() => context.close());

  test('totals are computed, stored and returned on create, get, list and update', async () => {
    const created = await context.request('POST', '/v1/invoices', {
      key,
      body: { client_id: clientId, line_items: [line(1, 1000, 8.875), line(0.5, -1001, 10)] },
    });
    assert.equal(created.status, 201, created.text);
    const invoice = created.body.data;
    assert.deepEqual(
      [invoice.subtotal_amount, invoice.tax_amount, invoice.total_amount, invoice.amount_due],
      [499, 39, 538, 538],
    );
    assert.deepEqual(
      invoice.line_items.map((item: { amount: number; tax_amount: number }) => [item.amount, item.tax_amount]),
      [
        [1000, 89],
        [-501, -50],
      ],
    );
    assert.equal(invoice.currency, 'USD');
    const listed = await context.request('GET', '/v1/invoices', { key });
    assert.equal(listed.body.data[0].total_amount, 538);
    const updated = await context.request('PUT', `/v1/invoices/${invoice.id}`, {
      key,
      body: { line_items: [line(3, 333, 8.875)] },
    });
    assert.deepEqual(
      [updated.body.data.subtotal_amount, updated.body.data.tax_amount, updated.body.data.total_amount],
      [999, 89, 1088],
    );
    assert.equal(updated.body.data.line_items.length, 1, 'line_items replaces the whole list');
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a total below zero', [line(1, 100), line(1, -200)], 'line_items'],
    ['a fourth decimal in quantity', [line(1.0005, 100)], 'line_items[0].quantity'],
    ['a fourth decimal in tax_rate', [line(1, 100, 8.8755)], 'line_items[0].tax_rate'],
    ['zero quantity', [line(0, 100)], 'line_items[0].quantity'],
    ['quantity over 1,000,000', [line(1_000_001, 1)], 'line_items[0].quantity'],
    ['a fractional unit_amount', [line(1, 10.5)], 'line_items[0].unit_amount'],
    ['unit_amount as a string', [{ description: 'x', quantity: 1, unit_amount: '100' }], 'line_items[0].unit_amount'],
    ['a tax rate over 100', [line(1, 100, 100.001)], 'line_items[0].tax_rate'],
    ['a negative tax rate', [line(1, 100, -1)], 'line_items[0].tax_rate'],
    ['an empty description', [{ description: '', quantity: 1, unit_amount: 1 }], 'line_items[0].description'],
    ['a read-only amount', [{ ...line(1, 1), amount: 1 }], 'line_items[0].amount'],
    ['a line total beyond the largest amount', [line(1_000_000, 99_999_999_999_999)], 'line_items[0].amount'],
    ['201 lines', Array.from({ length: 201 }, () => line(1, 1)), 'line_items'],
  ];
  for (const [label, lineItems, field] of invalid) {
    test(`${label}: 422 on ${field}, nothing stored`, async () => {
      const before = (await context.request('GET', '/v1/invoices?limit=100', { key })).body.data.length;
      const response = await context.request('POST', '/v1/invoices', {
        key,
        body: { client_id: clientId, line_items: lineItems },
      });
      assert.equal(response.status, 422, response.text);
      assert.ok(
        response.body.error.details.some((detail: { field: string }) => detail.field === field),
        JSON.stringify(response.body.error.details),
      );
      assert.equal((await context.request('GET', '/v1/invoices?limit=100', { key })).body.data.length, before);
    });
  }

  test('200 lines are accepted', async () => {
    const response = await context.request('POST', '/v1/quotes', {
      key,
      body: { client_id: clientId, line_items: Array.from({ length: 200 }, (_, index) => line(1.5, index + 1, 8.875)) },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.line_items.length, 200);
    assert.equal(
      response.body.data.subtotal_amount,
      response.body.data.line_items.reduce((sum: number, item: { amount: number }) => sum + item.amount, 0),
    );
  });

  test('currency must be an upper-case ISO code', async () => {
    const response = await context.request('POST', '/v1/quotes', {
      key,
      body: { client_id: clientId, currency: 'usd' },
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.error.details[0].field, 'currency');
    const euro = await context.request('POST', '/v1/quotes', { key, body: { client_id: clientId, currency: 'EUR' } });
    assert.equal(euro.body.data.currency, 'EUR');
  });
});

test('a number that a double cannot keep as written is refused, not rounded (1.00000000000000000001 is not 1)', async () => {
  const context = await createTestContext();
  try {
    const { key } = await context.account();
    const client = (await context.request('POST', '/v1/clients', { key, body: { name: 'Exact' } })).body.data.id;
    const send = (quantity: string) =>
      context.request('POST', '/v1/invoices', {
        key,
        rawBody: `{"client_id":"${client}","notes":"9.99999999999999999999 in text is text","line_items":[{"description":"x","quantity":${quantity},"unit_amount":100}]}`,
        headers: { 'content-type': 'application/json' },
      });
    for (const quantity of ['1.00000000000000000001', '12345678901234567890', '0.30000000000000000001']) {
      const response = await send(quantity);
      assert.equal(response.status, 422, quantity);
      assert.match(response.body.error.details[0].message, /cannot be kept exactly/);
    }
    for (const [quantity, kept] of [
      ['1.5', 1.5],
      ['2.50', 2.5],
      ['1e2', 100],
      ['1E-3', 0.001],
    ] as const) {
      const response = await send(quantity);
      assert.equal(response.status, 201, `${quantity}: ${response.text}`);
      assert.equal(response.body.data.line_items[0].quantity, kept);
    }
  } finally {
    await context.close();
  }
});
