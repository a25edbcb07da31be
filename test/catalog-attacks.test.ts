// Attacks on the catalogue and tax (contract §19, §21 "Tax."): another account's rates, products and
// properties, figures at the limits, duplicate and compound-only rates, discounts, frozen rates; every refusal
// a 422/404 in the envelope, never a 500 or a wrong figure, on both engines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let otherKey: string;
let clientId: string;
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account('Mine'));
  ({ key: otherKey } = await context.account('Theirs'));
  clientId = (await api('POST', '/v1/clients', { name: 'Ada', email: 'ada@example.com' })).body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const theirs = (method: string, url: string, body?: unknown) => context.request(method, url, { key: otherKey, body });
const rate = async (body: Record<string, unknown>, as = api) => {
  const response = await as('POST', '/v1/tax-rates', body);
  assert.equal(response.status, 201, response.text);
  return response.body.data.id as string;
};
const refused = (
  response: {
    status: number;
    text: string;
    body: { error?: { code: string; details?: Array<{ field: string; message: string }> } };
  },
  status = 422,
) => {
  assert.equal(response.status, status, response.text);
  assert.ok(response.body.error?.code, response.text);
  return response.body.error?.details?.map((detail) => detail.field) ?? [];
};

test('a document amount discount that is not a whole number is a 422 naming discount.value, not a 500', async () => {
  const mine = await rate({ name: 'GST', percentage: 5 });
  for (const url of ['/v1/invoices/preview', '/v1/invoices', '/v1/quotes']) {
    const response = await api('POST', url, {
      client_id: clientId,
      discount: { type: 'amount', value: 1.5 },
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 1000, tax_rate_ids: [mine] }],
    });
    assert.deepEqual(refused(response), ['discount.value'], url);
  }
});

test('another account’s rate or product on a line is a 422 naming only that field (no cascade of missing fields), never used', async () => {
  const foreignRate = await rate({ name: 'Theirs', percentage: 7 }, theirs);
  const foreignProduct = await theirs('POST', '/v1/products', { name: 'Theirs', type: 'service', unit_amount: 500 });
  assert.equal(foreignProduct.status, 201, foreignProduct.text);
  const line = { description: 'Work', quantity: 1, unit_amount: 1000 };
  const rateRefused = await api('POST', '/v1/invoices/preview', {
    client_id: clientId,
    line_items: [{ ...line, tax_rate_ids: [foreignRate] }],
  });
  assert.deepEqual(refused(rateRefused), ['line_items[0].tax_rate_ids[0]']);
  assert.doesNotMatch(rateRefused.text, /Theirs/);
  const productRefused = await api('POST', '/v1/quotes', {
    client_id: clientId,
    line_items: [{ product_id: foreignProduct.body.data.id, quantity: 1, unit_amount: 1 }],
  });
  assert.deepEqual(refused(productRefused), ['line_items[0].product_id']);
  assert.equal((await api('GET', `/v1/tax-rates/${foreignRate}`)).status, 404);
  assert.equal((await api('PUT', `/v1/tax-rates/${foreignRate}`, { percentage: 1 })).status, 404);
  assert.equal((await api('DELETE', `/v1/products/${foreignProduct.body.data.id}`)).status, 404);
  const defaults = await api('PUT', '/v1/account', { default_tax_rate_ids: [foreignRate] });
  assert.deepEqual(refused(defaults), ['default_tax_rate_ids[0]']);
});

test('figures at the limits are stored exactly (bigint columns on PostgreSQL) or refused with a 422, never a 500', async () => {
  const five: string[] = [];
  for (let index = 0; index < 5; index += 1)
    five.push(await rate({ name: `R${index}`, percentage: 100, compound: index % 2 === 0, priority: index }));
  const line = { description: 'Work', quantity: 1_000_000, unit_amount: 99_999_999 };
  // 99,999,999,000,000 before tax, doubled by a 100 % rate: past 99,999,999,999,999.
  const over = await api('POST', '/v1/invoices', {
    client_id: clientId,
    line_items: [{ ...line, tax_rate_ids: [five[1]] }],
  });
  assert.deepEqual(refused(over), ['line_items']);
  // The same with the tax included: 5 rates of 100 % (3 compound), the total is exactly what was entered.
  const inclusive = await api('POST', '/v1/invoices', {
    client_id: clientId,
    prices_include_tax: true,
    line_items: [{ ...line, tax_rate_ids: five }],
  });
  assert.equal(inclusive.status, 201, inclusive.text);
  assert.equal(inclusive.body.data.total_amount, 99_999_999_000_000);
  assert.equal(inclusive.body.data.subtotal_amount + inclusive.body.data.tax_amount, 99_999_999_000_000);
  const read = await api('GET', `/v1/invoices/${inclusive.body.data.id}`);
  assert.equal(read.body.data.total_amount, 99_999_999_000_000);
  assert.deepEqual(read.body.data.tax_breakdown, inclusive.body.data.tax_breakdown);
  const product = await api('POST', '/v1/products', { name: 'Top', type: 'service', unit_amount: 100_000_000_000_000 });
  assert.deepEqual(refused(product), ['unit_amount']);
});

test('a rate edited while a quote was a draft: the approved quote becomes an invoice with the figures it was sent with', async () => {
  const gst = await rate({ name: 'GST', percentage: 5 });
  const quote = await api('POST', '/v1/quotes', {
    client_id: clientId,
    line_items: [{ description: 'Work', quantity: 1, unit_amount: 10_000, tax_rate_ids: [gst] }],
  });
  assert.equal(quote.body.data.tax_amount, 500);
  // Allowed: only a draft used it. The draft keeps its 5 % snapshot and is sent with it.
  assert.equal((await api('PUT', `/v1/tax-rates/${gst}`, { percentage: 6 })).status, 200);
  for (const status of ['sent', 'approved']) {
    const moved = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.data.tax_amount, 500);
  }
  const invoice = await api('POST', '/v1/invoices', { client_id: clientId, quote_id: quote.body.data.id });
  assert.equal(invoice.status, 201, invoice.text);
  assert.deepEqual(
    [invoice.body.data.tax_amount, invoice.body.data.total_amount, invoice.body.data.tax_breakdown[0].percentage],
    [500, 10_500, 5],
  );
});
