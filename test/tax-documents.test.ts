// Tax through the API (contract section 19): the hand-worked table of test/tax.test.ts stored and answered by
// quotes and invoices (figures written out here, never computed by src/), preview equal to what POST stores and
// storing nothing, a property-based check of the invariants of §19.5 over random documents, and documents
// written before the change answering exactly the figures they had.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/core/deps.js';
import { SCOPES } from '../src/kernel/scopes.js';
import { createApiKey } from '../src/modules/api-keys/index.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { migratableDatabase } from './helpers/migration.js';

let context: TestContext;
let key: string;
let clientId: string;
const rates: Record<string, string> = {};
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await api('POST', '/v1/clients', { name: 'Ada', email: 'ada@example.com' })).body.data.id;
  for (const [name, body] of Object.entries({
    GST: { name: 'GST', percentage: 5, registration_number: '123456789 RT0001' },
    QST: { name: 'QST', percentage: 9.975, registration_number: '1234567890 TQ0001' },
    QSTC: { name: 'QST (compound)', percentage: 9.5, compound: true, priority: 1 },
    VAT: { name: 'MwSt', percentage: 19 },
    HST: { name: 'HST', percentage: 13 },
  }))
    rates[name] = (await api('POST', '/v1/tax-rates', body)).body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

interface Figures {
  subtotal: number;
  tax: number;
  total: number;
  discount: number;
  breakdown: Array<[string, number, number]>;
}

function figures(document: {
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  discount_amount: number;
  tax_breakdown: Array<{ name: string | null; taxable_amount: number; tax_amount: number }>;
}): Figures {
  return {
    subtotal: document.subtotal_amount,
    tax: document.tax_amount,
    total: document.total_amount,
    discount: document.discount_amount,
    breakdown: document.tax_breakdown.map((row) => [row.name ?? '', row.taxable_amount, row.tax_amount]),
  };
}

const fifty = (rateNames: string[]) =>
  Array.from({ length: 50 }, () => ({
    description: 'Filter',
    quantity: 1,
    unit_amount: 1999,
    tax_rate_ids: rateNames.map((name) => rates[name]),
  }));

describe('the hand-worked table, stored', () => {
  // [label, body besides client_id, expected figures]; the arithmetic is in test/tax.test.ts.
  const TABLE: Array<[string, () => Record<string, unknown>, Figures]> = [
    [
      '5 % + 9.975 % on 50 lines, per_line',
      () => ({ line_items: fifty(['GST', 'QST']), rounding: 'per_line' }),
      {
        subtotal: 99_950,
        tax: 14_950,
        total: 114_900,
        discount: 0,
        breakdown: [
          ['GST', 99_950, 5_000],
          ['QST', 99_950, 9_950],
        ],
      },
    ],
    [
      '5 % + 9.975 % on 50 lines, per_document',
      () => ({ line_items: fifty(['GST', 'QST']), rounding: 'per_document' }),
      {
        subtotal: 99_950,
        tax: 14_968,
        total: 114_918,
        discount: 0,
        breakdown: [
          ['GST', 99_950, 4_998],
          ['QST', 99_950, 9_970],
        ],
      },
    ],
    [
      'QST compounding on GST',
      () => ({
        line_items: [{ description: 'Work', quantity: 1, unit_amount: 10_000, tax_rate_ids: [rates.GST, rates.QSTC] }],
      }),
      {
        subtotal: 10_000,
        tax: 1_498,
        total: 11_498,
        discount: 0,
        breakdown: [
          ['GST', 10_000, 500],
          ['QST (compound)', 10_500, 998],
        ],
      },
    ],
    [
      'inclusive 19 % on 340.00 + 13.90',
      () => ({
        prices_include_tax: true,
        line_items: [
          { description: 'Boiler service', quantity: 1, unit_amount: 34_000, tax_rate_ids: [rates.VAT] },
          { description: 'Seal kit', quantity: 1, unit_amount: 1_390, tax_rate_ids: [rates.VAT] },
        ],
      }),
      { subtotal: 29_739, tax: 5_651, total: 35_390, discount: 0, breakdown: [['MwSt', 29_739, 5_651]] },
    ],
    [
      'a 100 % line discount',
      () => ({
        line_items: [
          {
            description: 'Free',
            quantity: 2,
            unit_amount: 5_000,
            tax_rate_ids: [rates.GST],
            discount: { type: 'percent', value: 100 },
          },
          { description: 'Paid', quantity: 1, unit_amount: 1_000, tax_rate_ids: [rates.GST] },
        ],
      }),
      { subtotal: 1_000, tax: 50, total: 1_050, discount: 10_000, breakdown: [['GST', 1_000, 50]] },
    ],
    [
      'an amount discount over three lines',
      () => ({
        discount: { type: 'amount', value: 100 },
        line_items: [1_000, 2_000, 3_000].map((unit_amount) => ({
          description: 'Part',
          quantity: 1,
          unit_amount,
          tax_rate_ids: [rates.GST],
        })),
      }),
      { subtotal: 5_900, tax: 295, total: 6_195, discount: 100, breakdown: [['GST', 5_900, 295]] },
    ],
    [
      'a credit line with tax',
      () => ({
        line_items: [
          { description: 'Work', quantity: 1, unit_amount: 10_000, tax_rate_ids: [rates.HST] },
          { description: 'Credit', quantity: 1, unit_amount: -2_550, tax_rate_ids: [rates.HST] },
        ],
      }),
      { subtotal: 7_450, tax: 968, total: 8_418, discount: 0, breakdown: [['HST', 7_450, 968]] },
    ],
    [
      'JPY, no decimals',
      () => ({
        currency: 'JPY',
        line_items: [
          { description: 'Work', quantity: 3, unit_amount: 333, tax_rate: 10 },
          { description: 'Small', quantity: 1, unit_amount: 4, tax_rate: 10 },
        ],
      }),
      { subtotal: 1_003, tax: 100, total: 1_103, discount: 0, breakdown: [['', 1_003, 100]] },
    ],
    [
      'KWD, three decimals',
      () => ({
        currency: 'KWD',
        line_items: [{ description: 'Work', quantity: 1.5, unit_amount: 12_345, tax_rate_ids: [rates.GST] }],
      }),
      { subtotal: 18_518, tax: 926, total: 19_444, discount: 0, breakdown: [['GST', 18_518, 926]] },
    ],
  ];

  for (const [label, body, expected] of TABLE)
    for (const kind of ['quotes', 'invoices'] as const)
      test(`${label} (${kind}): preview and POST answer the figures, GET the same`, async () => {
        const preview = await api('POST', `/v1/${kind}/preview`, { client_id: clientId, ...body() });
        assert.equal(preview.status, 200, preview.text);
        assert.deepEqual(figures(preview.body.data), expected);
        const made = await api('POST', `/v1/${kind}`, { client_id: clientId, ...body() });
        assert.equal(made.status, 201, made.text);
        assert.deepEqual(figures(made.body.data), expected);
        assert.deepEqual(figures((await api('GET', `/v1/${kind}/${made.body.data.id}`)).body.data), expected);
      });

  test('a printed rate carries its name, registration number and percentage in the breakdown', async () => {
    const made = await api('POST', '/v1/invoices', {
      client_id: clientId,
      line_items: fifty(['GST', 'QST']).slice(0, 1),
    });
    assert.deepEqual(
      made.body.data.tax_breakdown.map((row: Record<string, unknown>) => [
        row.tax_rate_id,
        row.name,
        row.registration_number,
        row.percentage,
        row.compound,
      ]),
      [
        [rates.GST, 'GST', '123456789 RT0001', 5, false],
        [rates.QST, 'QST', '1234567890 TQ0001', 9.975, false],
      ],
    );
    assert.deepEqual(made.body.data.line_items[0].taxes, [
      { tax_rate_id: rates.GST, name: 'GST', percentage: 5, compound: false, amount: 100 },
      { tax_rate_id: rates.QST, name: 'QST', percentage: 9.975, compound: false, amount: 199 },
    ]);
  });
});

describe('where a line’s taxes come from', () => {
  test('its own tax_rate_ids, else its product’s, else the property’s, else the account’s; [] is tax-free', async () => {
    const product = (
      await api('POST', '/v1/products', {
        type: 'service',
        name: 'Drain cleaning',
        description: 'Drain cleaning, up to 1 hour',
        unit_amount: 10_000,
        default_quantity: 2,
        tax_rate_ids: [rates.HST],
      })
    ).body.data;
    const untaxed = (
      await api('POST', '/v1/products', { type: 'fee', name: 'Permit', unit_amount: 5_000, taxable: false })
    ).body.data;
    const plain = (await api('POST', '/v1/products', { type: 'material', name: 'Pipe', unit_amount: 1_000 })).body.data;
    const property = (
      await api('POST', '/v1/properties', {
        client_id: clientId,
        address: { line1: '1 Rue', country: 'CA' },
        default_tax_rate_ids: [rates.GST, rates.QST],
      })
    ).body.data;
    await api('PUT', '/v1/account', { default_tax_rate_ids: [rates.VAT] });
    try {
      const quote = await api('POST', '/v1/quotes', {
        client_id: clientId,
        property_id: property.id,
        line_items: [
          { product_id: product.id },
          { product_id: untaxed.id },
          { product_id: plain.id },
          { product_id: plain.id, tax_rate_ids: [] },
          { description: 'Labour', quantity: 1, unit_amount: 1_000, tax_rate_ids: [rates.HST] },
        ],
      });
      assert.equal(quote.status, 201, quote.text);
      const lines = quote.body.data.line_items;
      // The product fills what the line lacks: description, unit amount and quantity.
      assert.deepEqual(
        [lines[0].description, lines[0].quantity, lines[0].unit_amount, lines[0].amount],
        ['Drain cleaning, up to 1 hour', 2, 10_000, 20_000],
      );
      assert.deepEqual(
        lines.map((line: { taxes: Array<{ name: string }> }) => line.taxes.map((tax) => tax.name)),
        [['HST'], [], ['GST', 'QST'], [], ['HST']],
      );
      const withoutProperty = await api('POST', '/v1/quotes', {
        client_id: clientId,
        line_items: [{ product_id: plain.id }],
      });
      assert.deepEqual(
        withoutProperty.body.data.line_items[0].taxes.map((tax: { name: string }) => tax.name),
        ['MwSt'],
      );
      const both = await api('POST', '/v1/quotes', {
        client_id: clientId,
        line_items: [{ description: 'X', quantity: 1, unit_amount: 1, tax_rate: 5, tax_rate_ids: [] }],
      });
      assert.equal(both.status, 422);
      assert.equal(both.body.error.details[0].field, 'line_items[0].tax_rate_ids');
    } finally {
      await api('PUT', '/v1/account', { default_tax_rate_ids: [] });
    }
  });
});

describe('preview', () => {
  test('stores nothing: no quote, no event, no converted request', async () => {
    const before = (await api('GET', '/v1/quotes?limit=100')).body.data.length;
    const events = (await api('GET', '/v1/events?limit=100')).body.data.length;
    const request = (await api('POST', '/v1/service-requests', { client_id: clientId, title: 'Leak' })).body.data;
    const eventsAfterRequest = (await api('GET', '/v1/events?limit=100')).body.data.length;
    assert.equal(eventsAfterRequest, events + 1);
    const preview = await api('POST', '/v1/quotes/preview', {
      client_id: clientId,
      request_id: request.id,
      line_items: [{ description: 'Fix', quantity: 1, unit_amount: 100 }],
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.data.number, null);
    assert.equal((await api('GET', '/v1/quotes?limit=100')).body.data.length, before);
    assert.equal((await api('GET', '/v1/events?limit=100')).body.data.length, eventsAfterRequest);
    assert.equal((await api('GET', `/v1/service-requests/${request.id}`)).body.data.status, 'new');
    assert.equal((await api('GET', `/v1/quotes/${preview.body.data.id}`)).status, 404);
  });

  test('answers the same 422 as POST for a bad body', async () => {
    const body = { client_id: clientId, line_items: [{ description: 'X', quantity: 1, unit_amount: -100 }] };
    const preview = await api('POST', '/v1/invoices/preview', body);
    const made = await api('POST', '/v1/invoices', body);
    assert.equal(preview.status, 422);
    assert.deepEqual(preview.body.error.details, made.body.error.details);
  });
});

describe('invariants over random documents (fast-check)', () => {
  const RATE_NAMES = ['GST', 'QST', 'QSTC', 'VAT', 'HST'];
  const line = fc.record({
    description: fc.constant('Line'),
    quantity: fc.integer({ min: 1, max: 20_000 }).map((thousandths) => thousandths / 1000),
    unit_amount: fc.integer({ min: -3_000, max: 250_000 }),
    tax_rate_ids: fc.subarray(RATE_NAMES, { maxLength: 4 }),
    discount: fc.option(
      fc.oneof(
        fc.record({
          type: fc.constant('percent'),
          value: fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000),
        }),
        fc.record({ type: fc.constant('amount'), value: fc.integer({ min: 0, max: 500 }) }),
      ),
      { nil: undefined },
    ),
  });
  const documentBody = fc.record({
    line_items: fc.array(line, { minLength: 1, maxLength: 8 }),
    prices_include_tax: fc.boolean(),
    rounding: fc.constantFrom('per_line', 'per_document'),
    discount: fc.option(
      fc.oneof(
        fc.record({ type: fc.constant('percent'), value: fc.integer({ min: 0, max: 500_000 }).map((n) => n / 10_000) }),
        fc.record({ type: fc.constant('amount'), value: fc.integer({ min: 0, max: 2_000 }) }),
      ),
      { nil: null },
    ),
  });

  test('lines sum to the breakdown, the breakdown to the tax, subtotal + tax = total; preview = POST', async () => {
    await fc.assert(
      fc.asyncProperty(documentBody, async (generated) => {
        const body = {
          client_id: clientId,
          ...generated,
          line_items: generated.line_items.map(({ discount, tax_rate_ids, ...rest }) => ({
            ...rest,
            tax_rate_ids: tax_rate_ids.map((name) => rates[name]),
            ...(discount ? { discount } : {}),
          })),
        };
        const preview = await api('POST', '/v1/invoices/preview', body);
        const made = await api('POST', '/v1/invoices', body);
        if (made.status === 422) {
          assert.equal(preview.status, 422, preview.text);
          assert.deepEqual(preview.body.error.details, made.body.error.details);
          return;
        }
        assert.equal(made.status, 201, made.text);
        const document = made.body.data;
        const strip = (value: Record<string, unknown>) => ({
          ...value,
          id: undefined,
          created_at: undefined,
          updated_at: undefined,
          line_items: (value.line_items as Array<Record<string, unknown>>).map((item) => ({ ...item, id: undefined })),
        });
        assert.deepEqual(strip(preview.body.data), strip(document));
        for (const row of document.tax_breakdown) {
          const fromLines = document.line_items
            .flatMap((item: { taxes: Array<{ tax_rate_id: string; amount: number }> }) => item.taxes)
            .filter((tax: { tax_rate_id: string }) => tax.tax_rate_id === row.tax_rate_id)
            .reduce((sum: number, tax: { amount: number }) => sum + tax.amount, 0);
          assert.equal(fromLines, row.tax_amount);
        }
        const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
        assert.equal(
          sum(document.tax_breakdown.map((row: { tax_amount: number }) => row.tax_amount)),
          document.tax_amount,
        );
        assert.equal(sum(document.line_items.map((item: { amount: number }) => item.amount)), document.subtotal_amount);
        assert.equal(document.subtotal_amount + document.tax_amount, document.total_amount);
        // Each line's amount is round(quantity × unit_amount) less its discounts; with tax included, that is
        // its net plus its tax, and the total is their sum.
        for (const item of document.line_items) {
          const gross = Math.round((Math.round(item.quantity * 1000) * item.unit_amount) / 1000);
          const entered = gross - item.discount_amount;
          assert.ok(
            Math.abs(entered - (document.prices_include_tax ? item.amount + item.tax_amount : item.amount)) <= 1,
          );
        }
      }),
      { numRuns: 30 },
    );
  });
});

test('documents and clients written before the change answer exactly the figures they had', async () => {
  const migratable = await migratableDatabase();
  const { config, database } = migratable;
  try {
    await migratable.migrateTo(migratable.before('20261126030000_catalogue'));
    const now = '2026-11-20T10:00:00.000Z';
    const accountId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
    const client = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
    const invoiceId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03';
    // Version-1 lines as the code before the change stored them: 3 × 33.33 at 13 % (9,999, tax 1,299.87 →
    // 1,300); 0.5 × −10.01 at 13 % (−500.5 → −501, tax −65.13 → −65); 2 × 12.50 at 8.875 % (2,500, tax
    // 221.875 → 222). Subtotal 11,998, tax 1,457, total 13,455.
    const lines = [
      {
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11',
        description: 'Labour',
        quantity: 3,
        unit_amount: 3333,
        tax_rate: 13,
        amount: 9999,
        tax_amount: 1300,
      },
      {
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f12',
        description: 'Credit',
        quantity: 0.5,
        unit_amount: -1001,
        tax_rate: 13,
        amount: -501,
        tax_amount: -65,
      },
      {
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f13',
        description: 'Parts',
        quantity: 2,
        unit_amount: 1250,
        tax_rate: 8.875,
        amount: 2500,
        tax_amount: 222,
      },
    ];
    await sql`insert into accounts (id, name, currency, payment_terms_days, timezone, created_at, updated_at)
      values (${accountId}, ${'Before'}, ${'USD'}, ${30}, ${'UTC'}, ${now}, ${now})`.execute(database.db);
    await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${client}, ${accountId}, ${'Old client'}, ${'old client'}, ${'{}'}, ${now}, ${now})`.execute(database.db);
    await sql`insert into invoices (id, account_id, client_id, currency, line_items, subtotal_amount, tax_amount,
      total_amount, amount_paid, status, metadata, created_at, updated_at)
      values (${invoiceId}, ${accountId}, ${client}, ${'USD'}, ${JSON.stringify(lines)}, ${11998}, ${1457}, ${13455},
      ${0}, ${'draft'}, ${'{}'}, ${now}, ${now})`.execute(database.db);
    assert.ok((await migratable.migrateToLatest()).includes('20261126030000_catalogue'));

    const logStream = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const app = await buildApp(config, { database, clock: systemClock, logStream });
    try {
      const created = await createApiKey(database.db, systemClock, config.apiKeyPepper, {
        accountId,
        name: 'old',
        scopes: [...SCOPES],
      });
      const call = async (method: string, url: string, body?: unknown) => {
        const response = await app.inject({
          method: method as 'GET',
          url,
          headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        return { status: response.statusCode, body: JSON.parse(response.body) };
      };
      const expectedLines = lines.map((stored) => ({
        ...stored,
        product_id: null,
        name: null,
        tax_rate_ids: [],
        discount: null,
        discount_amount: 0,
        taxes: [
          { tax_rate_id: null, name: null, percentage: stored.tax_rate, compound: false, amount: stored.tax_amount },
        ],
        // Contract §29's fields of a line, neutral on a line stored before them.
        unit_code: null,
        unit_cost_amount: null,
        time_entry_ids: [],
      }));
      const expected = {
        subtotal_amount: 11_998,
        tax_amount: 1_457,
        total_amount: 13_455,
        discount_amount: 0,
        prices_include_tax: false,
        rounding: 'per_line',
        discount: null,
        tax_breakdown: [
          {
            tax_rate_id: null,
            name: null,
            registration_number: null,
            percentage: 8.875,
            compound: false,
            taxable_amount: 2_500,
            tax_amount: 222,
          },
          {
            tax_rate_id: null,
            name: null,
            registration_number: null,
            percentage: 13,
            compound: false,
            taxable_amount: 9_498,
            tax_amount: 1_235,
          },
        ],
      };
      const pick = (invoice: Record<string, unknown>) =>
        Object.fromEntries(Object.keys(expected).map((name) => [name, invoice[name]]));
      const read = (await call('GET', `/v1/invoices/${invoiceId}`)).body.data;
      assert.deepEqual(pick(read), expected);
      assert.deepEqual(read.line_items, expectedLines);
      // An edit that leaves the lines alone changes no figure; the same lines sent again by a version-1
      // client give the same figures.
      assert.deepEqual(pick((await call('PUT', `/v1/invoices/${invoiceId}`, { notes: 'Thanks' })).body.data), expected);
      const resent = await call('PUT', `/v1/invoices/${invoiceId}`, {
        line_items: lines.map(({ description, quantity, unit_amount, tax_rate }) => ({
          description,
          quantity,
          unit_amount,
          tax_rate,
        })),
      });
      assert.equal(resent.status, 200, JSON.stringify(resent.body));
      assert.deepEqual(pick(resent.body.data), expected);
      assert.deepEqual(
        resent.body.data.line_items.map((item: Record<string, unknown>) => ({ ...item, id: undefined })),
        expectedLines.map((item) => ({ ...item, id: undefined })),
      );
      // The account answers the new defaults, which change nothing.
      const account = (await call('GET', '/v1/account')).body.data;
      assert.deepEqual(
        [account.default_tax_rate_ids, account.prices_include_tax, account.rounding],
        [[], false, 'per_line'],
      );
    } finally {
      await app.close();
    }
  } finally {
    await migratable.close();
  }
});
