// Products and tax rates (contract section 19): fields and defaults, validation, a product's code unique among
// active products, a rate's terms frozen once a document past draft used it, deletes refused while something
// refers, external_id, the account's and a property's default rates, and the events product.* / tax_rate.*.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const created = async (url: string, body: Record<string, unknown>) => {
  const response = await api('POST', url, body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};
const fields = (response: { body: { error?: { details?: Array<{ field: string }> } } }) =>
  response.body.error?.details?.map((detail) => detail.field);

test('a tax rate: defaults compound false, priority 0, active; percentage with 4 decimals', async () => {
  const rate = await created('/v1/tax-rates', {
    name: 'QST',
    percentage: 9.975,
    registration_number: '1234567890 TQ0001',
  });
  assert.deepEqual(
    { ...rate, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      object: 'tax_rate',
      name: 'QST',
      percentage: 9.975,
      compound: false,
      priority: 0,
      registration_number: '1234567890 TQ0001',
      // Contract section 31: no VAT category until given one.
      tax_category: null,
      exemption_reason: null,
      exemption_reason_code: null,
      active: true,
      external_id: null,
      metadata: {},
      created_at: undefined,
      updated_at: undefined,
    },
  );
  const five = await api('POST', '/v1/tax-rates', { name: 'X', percentage: 1.00001 });
  assert.equal(five.status, 422);
  assert.deepEqual(fields(five), ['percentage']);
  for (const [body, field] of [
    [{ name: 'X', percentage: 101 }, 'percentage'],
    [{ name: 'X', percentage: -1 }, 'percentage'],
    [{ name: '', percentage: 5 }, 'name'],
    [{ name: 'X', percentage: 5, priority: 10 }, 'priority'],
  ] as const) {
    const response = await api('POST', '/v1/tax-rates', body);
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.deepEqual(fields(response), [field]);
  }
  const events = await api('GET', `/v1/events?type=tax_rate.*&resource_id=${rate.id}`);
  assert.deepEqual(
    events.body.data.map((event: { type: string }) => event.type),
    ['tax_rate.created'],
  );
});

test('percentage, compound and priority freeze once a document past draft used the rate; the name does not', async () => {
  const rate = await created('/v1/tax-rates', { name: 'GST', percentage: 5 });
  const client = await created('/v1/clients', { name: 'Ada', email: 'ada@example.com' });
  const quote = await created('/v1/quotes', {
    client_id: client.id,
    line_items: [{ description: 'Work', quantity: 1, unit_amount: 10_000, tax_rate_ids: [rate.id] }],
  });
  // A draft does not freeze it.
  let change = await api('PUT', `/v1/tax-rates/${rate.id}`, { percentage: 6 });
  assert.equal(change.status, 200, change.text);
  change = await api('PUT', `/v1/tax-rates/${rate.id}`, { percentage: 5 });
  assert.equal(change.status, 200, change.text);
  assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' })).status, 200);
  for (const body of [{ percentage: 6 }, { compound: true }, { priority: 1 }]) {
    const refused = await api('PUT', `/v1/tax-rates/${rate.id}`, body);
    assert.equal(refused.status, 409, JSON.stringify(body));
    assert.equal(refused.body.error.code, 'INVALID_STATE');
  }
  // The same value again, a new name, deactivation: allowed.
  assert.equal((await api('PUT', `/v1/tax-rates/${rate.id}`, { percentage: 5, name: 'GST/TPS' })).status, 200);
  assert.equal((await api('PUT', `/v1/tax-rates/${rate.id}`, { active: false })).status, 200);
  // The sent quote keeps its snapshot: the old name and the figures.
  const kept = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  assert.equal(kept.tax_amount, 500);
  assert.equal(kept.tax_breakdown[0].name, 'GST');
  // An inactive rate takes no new line, but stays valid on the document that has it.
  const other = await api('POST', '/v1/quotes', {
    client_id: client.id,
    line_items: [{ description: 'Work', quantity: 1, unit_amount: 100, tax_rate_ids: [rate.id] }],
  });
  assert.equal(other.status, 422, other.text);
  assert.deepEqual(fields(other), ['line_items[0].tax_rate_ids[0]']);
  const again = await api('PUT', `/v1/quotes/${quote.id}`, {
    line_items: [{ description: 'More work', quantity: 2, unit_amount: 10_000, tax_rate_ids: [rate.id] }],
  });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.tax_amount, 1_000);
  // Delete is refused while a document names it.
  const deleted = await api('DELETE', `/v1/tax-rates/${rate.id}`);
  assert.equal(deleted.status, 409);
  assert.equal(deleted.body.error.code, 'CONFLICT');
});

test('a product: defaults, the code unique among active products, delete refused while a line refers', async () => {
  const product = await created('/v1/products', {
    type: 'service',
    name: 'Drain cleaning',
    code: 'SVC-DRAIN',
    unit_amount: 14_500,
    unit_label: 'hour',
  });
  assert.deepEqual(
    { ...product, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      object: 'product',
      type: 'service',
      name: 'Drain cleaning',
      description: null,
      code: 'SVC-DRAIN',
      unit_amount: 14_500,
      currency: 'USD',
      unit_label: 'hour',
      // Contract section 31: no unit code until given one.
      unit_code: null,
      default_quantity: 1,
      tax_rate_ids: null,
      taxable: true,
      cost_amount: null,
      duration_minutes: null,
      active: true,
      external_id: null,
      metadata: {},
      // Contract section 27: every custom field defined for products (none yet).
      custom_fields: {},
      created_at: undefined,
      updated_at: undefined,
    },
  );
  const duplicate = await api('POST', '/v1/products', { type: 'service', name: 'Other', code: 'SVC-DRAIN' });
  assert.equal(duplicate.status, 409);
  assert.deepEqual(fields(duplicate), ['code']);
  // Inactive products do not hold their code.
  assert.equal((await api('PUT', `/v1/products/${product.id}`, { active: false })).status, 200);
  const second = await created('/v1/products', { type: 'service', name: 'Other', code: 'SVC-DRAIN' });
  const reactivate = await api('PUT', `/v1/products/${product.id}`, { active: true });
  assert.equal(reactivate.status, 409);
  assert.equal((await api('DELETE', `/v1/products/${second.id}`)).status, 200);
  assert.equal((await api('PUT', `/v1/products/${product.id}`, { active: true })).status, 200);

  const external = await created('/v1/products', { type: 'fee', name: 'Call-out', external_id: 'erp-1' });
  const twice = await api('POST', '/v1/products', { type: 'fee', name: 'Call-out 2', external_id: 'erp-1' });
  assert.equal(twice.status, 409);
  assert.match(twice.body.error.message, new RegExp(external.id));
  assert.equal((await api('GET', '/v1/products?external_id=erp-1')).body.data[0].id, external.id);

  const notTaxable = await api('POST', '/v1/products', {
    type: 'fee',
    name: 'X',
    taxable: false,
    tax_rate_ids: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'],
  });
  assert.equal(notTaxable.status, 422);
  const unknownRate = await api('POST', '/v1/products', {
    type: 'fee',
    name: 'X',
    tax_rate_ids: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'],
  });
  assert.equal(unknownRate.status, 422);
  assert.deepEqual(fields(unknownRate), ['tax_rate_ids[0]']);

  const client = await created('/v1/clients', { name: 'Ada' });
  await created('/v1/jobs', {
    client_id: client.id,
    title: 'Drain',
    line_items: [{ product_id: product.id }],
  });
  const refused = await api('DELETE', `/v1/products/${product.id}`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'CONFLICT');
  assert.match(refused.body.error.message, /1 job/);

  const listed = await api('GET', '/v1/products?q=drain&active=true');
  assert.deepEqual(
    listed.body.data.map((row: { id: string }) => row.id),
    [product.id],
  );
  const events = await api('GET', `/v1/events?type=product.*&resource_id=${second.id}`);
  assert.deepEqual(
    events.body.data.map((event: { type: string }) => event.type),
    ['product.deleted', 'product.created'],
  );
});

test('the account and a property take default rates; an unknown rate is 422 naming its position', async () => {
  const rate = await created('/v1/tax-rates', { name: 'VAT', percentage: 19 });
  const account = await api('PUT', '/v1/account', {
    default_tax_rate_ids: [rate.id],
    prices_include_tax: true,
    rounding: 'per_document',
  });
  assert.equal(account.status, 200, account.text);
  assert.deepEqual(
    {
      default_tax_rate_ids: account.body.data.default_tax_rate_ids,
      prices_include_tax: account.body.data.prices_include_tax,
      rounding: account.body.data.rounding,
    },
    { default_tax_rate_ids: [rate.id], prices_include_tax: true, rounding: 'per_document' },
  );
  const bad = await api('PUT', '/v1/account', { default_tax_rate_ids: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'] });
  assert.equal(bad.status, 422);
  assert.deepEqual(fields(bad), ['default_tax_rate_ids[0]']);
  const client = await created('/v1/clients', { name: 'Ada' });
  const property = await created('/v1/properties', {
    client_id: client.id,
    address: { line1: '1 Main St', country: 'DE' },
    default_tax_rate_ids: [rate.id],
  });
  assert.deepEqual(property.default_tax_rate_ids, [rate.id]);
  await api('PUT', '/v1/account', { default_tax_rate_ids: [], prices_include_tax: false, rounding: 'per_line' });
});
