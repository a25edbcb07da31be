// What PDFs and the client hub print of tax (contract section 19): one row per rate with its name and
// registration number, the discount, and exactly the API's figures. The PDF's text is extracted with poppler's
// pdftotext; the expected rows are written out here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { renderHtml, renderText, type MailSnapshot } from '../src/mail/document-mail.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let clientId: string;
const rates: Record<string, string> = {};
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await api('POST', '/v1/clients', { name: 'Ada', email: 'ada@example.com' })).body.data.id;
  rates.GST = (
    await api('POST', '/v1/tax-rates', { name: 'GST', percentage: 5, registration_number: '123456789 RT0001' })
  ).body.data.id;
  rates.QST = (
    await api('POST', '/v1/tax-rates', { name: 'QST', percentage: 9.975, registration_number: '1234567890 TQ0001' })
  ).body.data.id;
  rates.VAT = (await api('POST', '/v1/tax-rates', { name: 'MwSt', percentage: 19 })).body.data.id;
  // A name that already says its percentage, as many businesses write it.
  rates.USt = (await api('POST', '/v1/tax-rates', { name: 'USt 7 %', percentage: 7 })).body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

// [label, body, the summary rows printed: label and amount, in order]
const DOCUMENTS: Array<[string, () => Record<string, unknown>, Array<[string, string]>]> = [
  [
    '5 % + 9.975 % on 50 lines, per_document',
    () => ({
      rounding: 'per_document',
      line_items: Array.from({ length: 50 }, () => ({
        description: 'Filter',
        quantity: 1,
        unit_amount: 1999,
        tax_rate_ids: [rates.GST, rates.QST],
      })),
    }),
    [
      ['Subtotal', '$999.50'],
      ['GST 5% (reg. 123456789 RT0001)', '$49.98'],
      ['QST 9.975% (reg. 1234567890 TQ0001)', '$99.70'],
      ['Total', '$1,149.18'],
    ],
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
    [
      ['Discount (in the amounts above)', '-$1.00'],
      ['Subtotal', '$59.00'],
      ['GST 5% (reg. 123456789 RT0001)', '$2.95'],
      ['Total', '$61.95'],
    ],
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
    [
      ['Subtotal', '$297.39'],
      ['MwSt 19%', '$56.51'],
      ['Total', '$353.90'],
    ],
  ],
  [
    'a rate named with its percentage prints it once',
    () => ({ line_items: [{ description: 'Seal kit', quantity: 1, unit_amount: 1_390, tax_rate_ids: [rates.USt] }] }),
    [
      ['Subtotal', '$13.90'],
      ['USt 7 %', '$0.97'],
      ['Total', '$14.87'],
    ],
  ],
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const [label, body, rows] of DOCUMENTS)
  test(`${label}: the PDF and the hub print one row per rate, the discount and the API's figures`, async () => {
    const made = await api('POST', '/v1/invoices', { client_id: clientId, ...body() });
    assert.equal(made.status, 201, made.text);
    const invoice = (await api('PUT', `/v1/invoices/${made.body.data.id}`, { status: 'sent' })).body.data;
    const pdf = await api('GET', `/v1/invoices/${invoice.id}/pdf`);
    assert.equal(pdf.status, 200);
    const file = path.join(context.directory, `${invoice.id}.pdf`);
    fs.writeFileSync(file, pdf.raw);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    // The summary block lists exactly these rows, in this order, each label beside its amount.
    const printed = rows.map(([rowLabel, amount]) => {
      const match = new RegExp(`${escape(rowLabel)}\\s+${escape(amount)}`).exec(text);
      assert.ok(match, `the PDF prints "${rowLabel}  ${amount}":\n${text.slice(-1500)}`);
      return match.index;
    });
    assert.deepEqual(
      printed,
      [...printed].sort((a, b) => a - b),
    );
    // The same figures as the API's, one tax row per breakdown row.
    const money = (minor: number) => `$${(minor / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    assert.equal(rows.find(([name]) => name === 'Total')?.[1], money(invoice.total_amount));
    assert.equal(rows.find(([name]) => name === 'Subtotal')?.[1], money(invoice.subtotal_amount));
    assert.deepEqual(
      rows
        .filter(([name]) => !['Total', 'Subtotal'].includes(name) && !name.startsWith('Discount'))
        .map(([, amount]) => amount),
      invoice.tax_breakdown.map((row: { tax_amount: number }) => money(row.tax_amount)),
    );

    const hub = await context.request('GET', new URL(invoice.hosted_url).pathname);
    assert.equal(hub.status, 200);
    for (const [rowLabel, amount] of rows)
      assert.match(hub.text, new RegExp(`<dt>${escape(rowLabel)}</dt><dd>${escape(amount)}</dd>`), rowLabel);
  });

test('the e-mail prints the same rows: one per rate with its registration number, the discount, the total', () => {
  const snapshot: MailSnapshot = {
    kind: 'invoice',
    business: { name: 'Cooper Plumbing' },
    client: { name: 'Ada', email: 'ada@example.com', company_name: null },
    document: {
      id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      number: 'INV-000001',
      title: null,
      currency: 'USD',
      line_items: [
        {
          description: 'Part',
          quantity: 1,
          unit_amount: 1_000,
          tax_rate: 0,
          amount: 983,
          tax_label: '5%',
          discount_amount: 17,
        },
        {
          description: 'Part',
          quantity: 1,
          unit_amount: 2_000,
          tax_rate: 0,
          amount: 1_967,
          tax_label: '5%',
          discount_amount: 33,
        },
        {
          description: 'Part',
          quantity: 1,
          unit_amount: 3_000,
          tax_rate: 0,
          amount: 2_950,
          tax_label: '5%',
          discount_amount: 50,
        },
      ],
      subtotal_amount: 5_900,
      tax_amount: 295,
      total_amount: 6_195,
      tax_breakdown: [{ name: 'GST', registration_number: '123456789 RT0001', percentage: 5, tax_amount: 295 }],
      discount_amount: 100,
      amount_due: 6_195,
      issue_date: '2026-11-26',
      due_date: null,
      valid_until: null,
      notes: null,
    },
    message: null,
  };
  const text = renderText(snapshot);
  for (const row of [
    'Discount (in the amounts above): -$1.00',
    'Subtotal: $59.00',
    'GST 5% (reg. 123456789 RT0001): $2.95',
    'Total: $61.95',
    '- Part: 1 × $10.00 − $0.17 discount = $9.83 (+ 5% tax)',
  ])
    assert.ok(text.includes(row), `${row}\n${text}`);
  assert.match(renderHtml(snapshot), /GST 5% \(reg\. 123456789 RT0001\)<\/td><td [^>]*><strong>\$2\.95<\/strong>/);
});
