// Renders the README's sample invoice (docs/sample-invoice.pdf and page 1 as docs/sample-invoice.png, the
// latter with poppler's pdftoppm) through the same pool and renderer as the API: `node --import tsx scripts/render-sample.ts`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { PdfPool } from '../src/mail/pdf-pool.js';
import type { MailSnapshot } from '../src/mail/document-mail.js';
import { logoPng } from '../test/helpers/images.js';

const lines = [
  ['Call-out and diagnosis', 1, 8500, 0],
  [
    'Labour: replace corroded supply pipe under the kitchen sink, pressure-test the line, and check the shut-off valves',
    2.5,
    7200,
    8.875,
  ],
  ['Copper pipe, 15 mm (per metre)', 4, 1150, 8.875],
  ['Compression fittings', 6, 325, 8.875],
  ['Thermostatic mixing valve — Ζεστό νερό / горячая вода', 1, 13900, 8.875],
  ['Loyalty discount', 1, -2500, 0],
] as const;
const items = lines.map(([description, quantity, unit, tax]) => {
  const net = Math.round(quantity * unit);
  return {
    description,
    quantity,
    unit_amount: unit,
    tax_rate: tax,
    amount: net,
    tax_amount: Math.round((net * tax) / 100),
  };
});
const subtotal = items.reduce((sum, item) => sum + item.amount, 0);
const tax = items.reduce((sum, item) => sum + item.tax_amount, 0);
const snapshot: MailSnapshot = {
  kind: 'invoice',
  business: {
    name: 'Cooper Plumbing',
    legal_name: 'Cooper Plumbing LLC',
    email: 'office@cooperplumbing.example',
    phone: '+1 555 0100',
    website: 'https://cooperplumbing.example',
    address: {
      line1: '1 Main Street',
      line2: null,
      city: 'Springfield',
      region: 'IL',
      postal_code: '62701',
      country: 'US',
    },
    tax_id: 'EIN 12-3456789',
    payment_instructions:
      'Bank transfer to Springfield Savings, account 0532 0130 00, routing 071000013. Please put the invoice number in the reference.',
    footer: 'Cooper Plumbing LLC · Licensed plumbing contractor, Illinois 058-123456 · Thank you for your business',
  },
  client: {
    name: 'Jane Doe',
    email: 'jane@example.com',
    company_name: 'Doe Bakery',
    address: {
      line1: '12 Elm Street',
      line2: 'Unit 4',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62704',
      country: 'US',
    },
  },
  service_address: {
    name: 'Bakery kitchen',
    address: {
      line1: '88 Market Square',
      line2: 'Rear entrance',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62701',
      country: 'US',
    },
  },
  document: {
    id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    number: 'INV-000042',
    status: 'sent',
    updated_at: '2026-11-21T10:00:00.000Z',
    title: null,
    currency: 'USD',
    line_items: items.map(({ tax_amount: _tax, ...item }) => item),
    subtotal_amount: subtotal,
    tax_amount: tax,
    total_amount: subtotal + tax,
    amount_paid: 10_000,
    amount_due: subtotal + tax - 10_000,
    issue_date: '2026-11-21',
    due_date: '2026-12-05',
    valid_until: null,
    notes: 'Thanks for having us, Jane! The old valve is in a bag under the sink in case you want to keep it.',
  },
  message: null,
};

const pool = new PdfPool({ threads: 1, timeoutMs: 30_000 });
const pdf = await pool.render({ snapshot, logo: logoPng(), fallbackDate: snapshot.document.updated_at! });
await pool.close();
fs.writeFileSync('docs/sample-invoice.pdf', pdf);
execFileSync('pdftoppm', [
  '-png',
  '-r',
  '100',
  '-f',
  '1',
  '-l',
  '1',
  '-singlefile',
  'docs/sample-invoice.pdf',
  'docs/sample-invoice',
]);
console.log('wrote docs/sample-invoice.pdf and docs/sample-invoice.png');
