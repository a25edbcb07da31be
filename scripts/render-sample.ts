// Renders the README's sample invoice (docs/sample-invoice.pdf and page 1 as docs/sample-invoice.png, the
// latter with poppler's pdftoppm) through the same pool and renderer as the API, and page 1 of the same invoice
// for a US account (Letter, en-US) and a German one (A4, de-DE, EUR) as docs/sample-invoice-letter.png and
// docs/sample-invoice-a4.png: `node --import tsx scripts/render-sample.ts`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PdfPool } from '../src/mail/pdf-pool.js';
import type { MailSnapshot } from '../src/mail/document-mail.js';
import { logoPng } from '../test/helpers/images.js';

const lines: ReadonlyArray<readonly [string, number, number, number, string?]> = [
  ['Call-out and diagnosis', 1, 8500, 0],
  [
    'Labour: replace corroded supply pipe under the kitchen sink, pressure-test the line, and check the shut-off valves',
    2.5,
    7200,
    8.875,
  ],
  ['Copper pipe, 15 mm (per metre)', 4, 1150, 8.875],
  ['Compression fittings', 6, 325, 8.875],
  [
    'Thermostatic mixing valve',
    1,
    13900,
    8.875,
    'Anti-scald, 3/4 in. — Ζεστό νερό / горячая вода, fitted at the water heater outlet',
  ],
  ['Loyalty discount', 1, -2500, 0],
] as const;
const items = lines.map(([name, quantity, unit, tax, description]) => {
  const net = Math.round(quantity * unit);
  return {
    name: description ? name : null,
    description: description ?? name,
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
  locale: 'en-US',
  paper_size: 'letter',
  timezone: 'America/Chicago',
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
    line_items: items,
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

// The same invoice from a business in Germany: A4, dates and amounts as de-DE prints them, in euros.
const german: MailSnapshot = {
  ...snapshot,
  locale: 'de-DE',
  paper_size: 'a4',
  timezone: 'Europe/Berlin',
  business: {
    ...snapshot.business,
    name: 'Müller Sanitär',
    legal_name: 'Müller Sanitär GmbH',
    email: 'buero@mueller-sanitaer.example',
    phone: '+49 30 1234567',
    website: 'https://mueller-sanitaer.example',
    address: { line1: 'Hauptstraße 1', line2: null, city: 'Berlin', region: null, postal_code: '10115', country: 'DE' },
    tax_id: 'DE123456789',
    payment_instructions:
      'Überweisung auf IBAN DE89 3704 0044 0532 0130 00, mit der Rechnungsnummer als Verwendungszweck.',
    footer: 'Müller Sanitär GmbH · Amtsgericht Charlottenburg HRB 123456 · Vielen Dank für Ihren Auftrag',
  },
  document: { ...snapshot.document, currency: 'EUR' },
};

const pool = new PdfPool({ threads: 1, timeoutMs: 30_000 });
// The logo as the API has it: decoded and scaled once by the pool.
const logo = await pool.logo('sample', 'sample', async () => logoPng());
const pdf = await pool.render({ snapshot, logo, fallbackDate: snapshot.document.updated_at! });
const germanPdf = await pool.render({ snapshot: german, logo: null, fallbackDate: snapshot.document.updated_at! });
await pool.close();
fs.writeFileSync('docs/sample-invoice.pdf', pdf);
/** Page 1 of `file` as `<output>.png` at `dpi`. */
const png = (file: string, output: string, dpi: number) =>
  execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', '1', '-l', '1', '-singlefile', file, output]);
png('docs/sample-invoice.pdf', 'docs/sample-invoice', 100);
png('docs/sample-invoice.pdf', 'docs/sample-invoice-letter', 60);
const germanFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bms-sample-')), 'sample-invoice-a4.pdf');
fs.writeFileSync(germanFile, germanPdf);
png(germanFile, 'docs/sample-invoice-a4', 60);
fs.rmSync(path.dirname(germanFile), { recursive: true });
console.log(
  'wrote docs/sample-invoice.pdf, docs/sample-invoice.png, docs/sample-invoice-letter.png and docs/sample-invoice-a4.png',
);
