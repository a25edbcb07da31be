// Contract section 10: the business profile and its logo, the PDF of a quote or invoice through the API
// (its content read back with pdf.js, its bytes stable per revision, ETag and 304, pagination), and the
// delivery of every send with the document's delivery_status, against a real SMTP server and a dead port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OutboxWorker, type OutboxWorkerOptions } from '../src/workers/outbox-worker.js';
import { smtpTransport } from '../src/mail/transports.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { damagedPng, jpegFixture, logoPng } from './helpers/images.js';
import { freePort } from './helpers/processes.js';
import { pdfPageSizes, pdfPages, pdfText, startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { png, rgbaPng } from './helpers/images.js';
import { clientSuite } from './helpers/state-table.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
const quiet = { info() {}, warn() {}, error() {} };
const WORKER: OutboxWorkerOptions = {
  pollMs: 10,
  leaseMs: 60_000,
  retryBaseMs: 1,
  maxAttempts: 1,
  fromAddress: 'billing@cooper-plumbing.test',
  jitter: 0,
};
const ADDRESS = {
  line1: '12 Elm Street',
  line2: 'Unit 4',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62704',
  country: 'US',
};
const PROFILE = {
  name: 'Cooper Plumbing',
  legal_name: 'Cooper Plumbing LLC',
  email: 'office@cooper-plumbing.test',
  phone: '+1 555 0100',
  website: 'https://cooper-plumbing.test',
  address: { line1: '1 Main Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
  tax_id: 'EIN 12-3456789',
  payment_terms_days: 14,
  payment_instructions: 'Bank transfer to IBAN DE89 3704 0044 0532 0130 00, reference the invoice number.',
  invoice_footer: 'Cooper Plumbing LLC, registered in Illinois',
  quote_footer: 'Quotes are valid for 30 days.',
};
const LINES = [
  { description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 },
  { description: 'Kitchen faucet', quantity: 1, unit_amount: 8999 },
];

let context: TestContext;
let key: string;
let clientId: string;
let smtp: TestSmtpServer;

async function api(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
  return context.request(method, url, { key, body, ...(headers ? { headers } : {}) });
}

async function created(url: string, body: unknown) {
  const response = await api('POST', url, body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account('Cooper Plumbing'));
  clientId = (
    await created('/v1/clients', {
      name: 'Jane Doe',
      email: 'jane@example.com',
      company_name: 'Doe Bakery',
      address: ADDRESS,
    })
  ).id;
  smtp = await startSmtpServer();
});
after(async () => {
  await smtp.close();
  await context.close();
});

describe('the business profile', () => {
  test('an account starts with its name, currency and 30-day terms, and no logo', async () => {
    const response = await api('GET', '/v1/account');
    assert.equal(response.status, 200, response.text);
    const account = response.body.data;
    assert.deepEqual(
      {
        object: account.object,
        name: account.name,
        currency: account.currency,
        payment_terms_days: account.payment_terms_days,
        has_logo: account.has_logo,
        tax_id: account.tax_id,
        address: account.address,
      },
      {
        object: 'account',
        name: 'Cooper Plumbing',
        currency: 'USD',
        payment_terms_days: 30,
        has_logo: false,
        tax_id: null,
        address: null,
      },
    );
    assert.ok(response.headers.etag);
  });

  test('PUT sets every field of the contract; absent fields are kept, null clears', async () => {
    const response = await api('PUT', '/v1/account', PROFILE);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.address, { line2: null, ...PROFILE.address });
    for (const [field, value] of Object.entries(PROFILE))
      if (field !== 'address') assert.deepEqual(response.body.data[field], value, field);
    const cleared = await api('PUT', '/v1/account', { phone: null });
    assert.deepEqual([cleared.body.data.phone, cleared.body.data.tax_id], [null, PROFILE.tax_id]);
    await api('PUT', '/v1/account', { phone: PROFILE.phone });
  });

  test('invalid fields are refused with every field named, and nothing changes', async () => {
    const before = (await api('GET', '/v1/account')).body.data;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: 'not-an-address' }, 'email'],
      [{ website: 'ftp://cooper.test' }, 'website'],
      [{ website: 'cooper dot test' }, 'website'],
      [{ address: { country: 'USA' } }, 'address.country'],
      [{ address: { line1: 'x'.repeat(201) } }, 'address.line1'],
      [{ payment_instructions: 'x'.repeat(2001) }, 'payment_instructions'],
      [{ invoice_footer: 'x'.repeat(1001) }, 'invoice_footer'],
      [{ payment_terms_days: 366 }, 'payment_terms_days'],
      [{ payment_terms_days: 1.5 }, 'payment_terms_days'],
      [{ currency: 'usd' }, 'currency'],
      [{ name: '   ' }, 'name'],
      [{ name: null }, 'name'],
      [{ has_logo: true }, 'has_logo'],
    ];
    for (const [body, field] of cases) {
      const response = await api('PUT', '/v1/account', body);
      assert.equal(response.status, 422, `${JSON.stringify(body).slice(0, 60)}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.ok(
        response.body.error.details.some((detail: { field: string }) => detail.field === field),
        `${field} in ${JSON.stringify(response.body.error.details)}`,
      );
    }
    assert.deepEqual((await api('GET', '/v1/account')).body.data, before);
  });

  test('If-Match guards a change; a read-only key cannot write', async () => {
    const current = await api('GET', '/v1/account');
    const stale = await api('PUT', '/v1/account', { phone: '+1 555 0199' }, { 'if-match': '"stale"' });
    assert.equal(stale.status, 412);
    const fresh = await api(
      'PUT',
      '/v1/account',
      { phone: PROFILE.phone },
      { 'if-match': String(current.headers.etag) },
    );
    assert.equal(fresh.status, 200, fresh.text);
    const { key: readOnly } = await context.key((await api('GET', '/v1/account')).body.data.id, ['account:read']);
    assert.equal((await context.request('GET', '/v1/account', { key: readOnly })).status, 200);
    const refused = await context.request('PUT', '/v1/account', { key: readOnly, body: { name: 'Hijacked' } });
    assert.deepEqual([refused.status, refused.body.error.code], [403, 'INSUFFICIENT_SCOPE']);
  });

  test('payment_terms_days sets the due date of an invoice sent without one', async () => {
    const invoice = await created('/v1/invoices', { client_id: clientId, line_items: LINES });
    const sent = await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
    assert.deepEqual(
      [sent.body.data.issue_date, sent.body.data.due_date],
      ['2026-11-21', '2026-12-05'],
      'issue date + 14 days',
    );
    const dated = await created('/v1/invoices', { client_id: clientId, line_items: LINES, issue_date: '2026-11-01' });
    assert.equal(dated.due_date, '2026-11-15');
  });

  test('locale starts as en-US and paper_size as the country’s: Letter for a US business, A4 for a German one', async () => {
    const { key: fresh } = await context.account('Fresh Start');
    const read = async () => (await context.request('GET', '/v1/account', { key: fresh })).body.data;
    const put = async (body: Record<string, unknown>) => {
      const response = await context.request('PUT', '/v1/account', { key: fresh, body });
      assert.equal(response.status, 200, response.text);
      const { locale, paper_size, paper_size_source } = response.body.data;
      return [locale, paper_size, paper_size_source];
    };
    const account = await read();
    assert.deepEqual([account.locale, account.paper_size, account.paper_size_source], ['en-US', 'letter', 'country']);
    // The address's country decides; without an address, the locale's region.
    assert.deepEqual(await put({ address: { city: 'Berlin', country: 'DE' } }), ['en-US', 'a4', 'country']);
    assert.deepEqual(await put({ address: { city: 'Toronto', country: 'CA' } }), ['en-US', 'letter', 'country']);
    assert.deepEqual(await put({ address: { city: 'Manila', country: 'PH' } }), ['en-US', 'letter', 'country']);
    assert.deepEqual(await put({ address: { city: 'Sydney', country: 'AU' } }), ['en-US', 'a4', 'country']);
    assert.deepEqual(await put({ address: null, locale: 'de-DE' }), ['de-DE', 'a4', 'country']);
    assert.deepEqual(await put({ locale: 'es-MX' }), ['es-MX', 'letter', 'country']);
    // Answered in canonical form.
    assert.deepEqual(await put({ locale: 'EN-gb' }), ['en-GB', 'a4', 'country']);
    // A chosen size wins over the country until it is cleared.
    assert.deepEqual(await put({ paper_size: 'letter' }), ['en-GB', 'letter', 'account']);
    assert.deepEqual(await put({ address: { country: 'FR' } }), ['en-GB', 'letter', 'account']);
    assert.deepEqual(await put({ paper_size: null }), ['en-GB', 'a4', 'country']);
    assert.deepEqual(await put({ paper_size: 'a4', address: { country: 'US' } }), ['en-GB', 'a4', 'account']);
  });

  test('a locale that is no BCP 47 tag, or one the server cannot format in, and a paper size other than letter or a4 are 422 on the field', async () => {
    const before = (await api('GET', '/v1/account')).body.data;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ locale: 'en_US' }, 'locale'],
      [{ locale: 'English' }, 'locale'],
      [{ locale: 'en-US-' }, 'locale'],
      [{ locale: 'qx-QX' }, 'locale'],
      [{ locale: '' }, 'locale'],
      [{ locale: null }, 'locale'],
      [{ locale: 42 }, 'locale'],
      [{ locale: `en-${'a'.repeat(40)}` }, 'locale'],
      [{ paper_size: 'legal' }, 'paper_size'],
      [{ paper_size: 'A4' }, 'paper_size'],
      [{ paper_size_source: 'account' }, 'paper_size_source'],
    ];
    for (const [body, field] of cases) {
      const response = await api('PUT', '/v1/account', body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.ok(
        response.body.error.details.some((detail: { field: string }) => detail.field === field),
        `${field} in ${JSON.stringify(response.body.error.details)}`,
      );
    }
    assert.deepEqual((await api('GET', '/v1/account')).body.data, before);
  });
});

describe('the logo', () => {
  const upload = (content_type: string, data: Buffer | string) =>
    api('PUT', '/v1/account/logo', { content_type, data: typeof data === 'string' ? data : data.toString('base64') });

  test('a real PNG and a real JPEG are accepted, replace each other, and DELETE removes the logo', async () => {
    const png = await upload('image/png', logoPng());
    assert.equal(png.status, 200, png.text);
    assert.equal(png.body.data.has_logo, true);
    const jpeg = await upload('image/jpeg', jpegFixture());
    assert.equal(jpeg.status, 200, jpeg.text);
    const stored = await context.database.db.selectFrom('account_logos').select(['content_type', 'data']).execute();
    assert.deepEqual(
      stored.map((row) => [row.content_type, Buffer.from(row.data).equals(jpegFixture())]),
      [['image/jpeg', true]],
    );
    const removed = await api('DELETE', '/v1/account/logo');
    assert.deepEqual([removed.status, removed.body.data.has_logo], [200, false]);
    assert.equal((await api('DELETE', '/v1/account/logo')).status, 200, 'removing no logo is not an error');
  });

  test('what is not a real image of the stated type is refused on data, and nothing is stored', async () => {
    const cases: Array<[string, Buffer | string, RegExp]> = [
      ['image/png', Buffer.from('Just a text file renamed to logo.png\n'), /is not a PNG image/],
      ['image/jpeg', logoPng(), /is not a JPEG image/],
      ['image/png', jpegFixture(), /is not a PNG image/],
      ['image/png', damagedPng(), /renderer can read/],
      ['image/png', 'not base64!', /base64/],
      ['image/png', Buffer.alloc(600 * 1024, 1), /.+/],
      ['image/png', '', /.+/],
    ];
    for (const [type, data, message] of cases) {
      const response = await upload(type, data);
      assert.equal(response.status, 422, `${type} ${String(data).slice(0, 20)}: ${response.text.slice(0, 200)}`);
      const detail = response.body.error.details.find((entry: { field: string }) => entry.field === 'data');
      assert.ok(detail, response.text.slice(0, 300));
      assert.match(detail.message, message);
    }
    const gif = await upload('image/gif', logoPng());
    assert.deepEqual([gif.status, gif.body.error.details[0].field], [422, 'content_type']);
    assert.equal((await api('GET', '/v1/account')).body.data.has_logo, false);
    assert.equal((await context.database.db.selectFrom('account_logos').selectAll().execute()).length, 0);
  });
});

describe('the PDF of an invoice or a quote', () => {
  let invoiceId: string;

  before(async () => {
    await api('PUT', '/v1/account', PROFILE);
    invoiceId = (
      await created('/v1/invoices', { client_id: clientId, line_items: LINES, notes: 'Thanks for having us!' })
    ).id;
  });

  test('a draft: inline, named by its id, with the business, the client, every line and the totals', async () => {
    const response = await api('GET', `/v1/invoices/${invoiceId}/pdf`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['content-type'], 'application/pdf');
    assert.equal(response.headers['content-disposition'], `inline; filename="${invoiceId}.pdf"`);
    assert.equal(response.raw.subarray(0, 5).toString(), '%PDF-');
    const text = await pdfText(response.raw);
    for (const expected of [
      'Cooper Plumbing',
      'Cooper Plumbing LLC',
      '1 Main Street',
      'Springfield IL 62701',
      'Tax ID: EIN 12-3456789',
      'office@cooper-plumbing.test',
      'Jane Doe',
      'Doe Bakery',
      '12 Elm Street',
      'Unit 4',
      'Springfield IL 62704',
      'Labour',
      'Kitchen faucet',
      '$60.00',
      '$89.99',
      '8.875%',
      '$209.99',
      '$10.65',
      '$220.64',
      'Bank transfer to IBAN DE89 3704 0044 0532 0130 00, reference the invoice number.',
      'Thanks for having us!',
      'Cooper Plumbing LLC, registered in Illinois',
      'Page 1 of 1',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}`);
    }
    assert.match(text, /Subtotal\s+\$209\.99/);
    assert.match(text, /Total\s+\$220\.64/);
    assert.doesNotMatch(text, /PAID|VOID/);
  });

  test('one revision gives the same bytes and ETag; If-None-Match answers 304; a change gives a new ETag', async () => {
    const first = await api('GET', `/v1/invoices/${invoiceId}/pdf`);
    const second = await api('GET', `/v1/invoices/${invoiceId}/pdf`);
    assert.ok(first.raw.equals(second.raw), 'identical bytes');
    assert.equal(first.headers.etag, second.headers.etag);
    const etag = String(first.headers.etag);
    const unchanged = await api('GET', `/v1/invoices/${invoiceId}/pdf`, undefined, { 'if-none-match': etag });
    assert.deepEqual([unchanged.status, unchanged.raw.length, unchanged.headers.etag], [304, 0, etag]);
    assert.equal(
      (await api('GET', `/v1/invoices/${invoiceId}/pdf`, undefined, { 'if-none-match': `"other", W/${etag}` })).status,
      304,
      'a list, and a weak tag, match too',
    );

    clock.advance(1000);
    await api('PUT', `/v1/invoices/${invoiceId}`, { notes: 'Thanks again!' });
    const edited = await api('GET', `/v1/invoices/${invoiceId}/pdf`, undefined, { 'if-none-match': etag });
    assert.equal(edited.status, 200, 'the document changed');
    assert.notEqual(edited.headers.etag, etag);
    assert.ok((await pdfText(edited.raw)).includes('Thanks again!'));

    await api('PUT', '/v1/account', { tax_id: 'EIN 98-7654321' });
    const profile = await api('GET', `/v1/invoices/${invoiceId}/pdf`, undefined, {
      'if-none-match': String(edited.headers.etag),
    });
    assert.equal(profile.status, 200, 'the business profile changed');
    assert.ok((await pdfText(profile.raw)).includes('Tax ID: EIN 98-7654321'));
    await api('PUT', '/v1/account', { tax_id: PROFILE.tax_id });
  });

  test('the PDF through the API is the very one e-mailed, numbered; a logo replaces the name in the header', async () => {
    await api('PUT', '/v1/account/logo', { content_type: 'image/png', data: logoPng().toString('base64') });
    const sent = await api('POST', `/v1/invoices/${invoiceId}/send`);
    assert.equal(sent.status, 200, sent.text);
    const worker = new OutboxWorker(context.database, smtpTransport(smtp.url), clock, WORKER, quiet, context.app.pdf);
    while (await worker.deliverNext());
    const mail = (await smtp.waitFor(1)).find((message) => message.attachments[0]?.filename === 'INV-000002.pdf');
    assert.ok(mail, 'the e-mail with INV-000002.pdf');
    const file = await api('GET', `/v1/invoices/${invoiceId}/pdf`);
    assert.equal(file.headers['content-disposition'], 'inline; filename="INV-000002.pdf"');
    assert.ok(file.raw.equals(mail.attachments[0]!.content), 'the same bytes as the attachment');
    assert.ok(file.raw.includes('/Subtype /Image'), 'the logo is embedded');
    await api('DELETE', '/v1/account/logo');
  });

  test('a paid invoice is stamped PAID with amount paid and due; a void one VOID', async () => {
    const paid = await created('/v1/invoices', { client_id: clientId, line_items: LINES });
    await api('PUT', `/v1/invoices/${paid.id}`, { status: 'sent' });
    await api('PUT', `/v1/invoices/${paid.id}`, { status: 'paid' });
    const paidText = await pdfText((await api('GET', `/v1/invoices/${paid.id}/pdf`)).raw);
    assert.match(paidText, /PAID/);
    assert.match(paidText, /Amount paid\s+\$220\.64/);
    assert.match(paidText, /Amount due\s+\$0\.00/);
    const voided = await created('/v1/invoices', { client_id: clientId, line_items: LINES });
    await api('PUT', `/v1/invoices/${voided.id}`, { status: 'sent' });
    await api('PUT', `/v1/invoices/${voided.id}`, { status: 'void' });
    assert.match(await pdfText((await api('GET', `/v1/invoices/${voided.id}/pdf`)).raw), /VOID/);
  });

  test('200 lines of 500 characters paginate: every line once, headers repeated, page n of m, totals at the end', async () => {
    const lines = Array.from({ length: 200 }, (_, index) => ({
      description: `Line ${index + 1}: ${'Ζεστό νερό, водонагреватель, łazienka; '.repeat(13).slice(0, 480)}`,
      quantity: 1,
      unit_amount: 100,
    }));
    const invoice = await created('/v1/invoices', { client_id: clientId, line_items: lines });
    const response = await api('GET', `/v1/invoices/${invoice.id}/pdf`);
    assert.equal(response.status, 200, response.text);
    const pages = await pdfPages(response.raw);
    // About 12 wrapped lines per row, 4 rows a page: some 50 pages; far more would mean rows wasting pages.
    assert.ok(pages.length >= 40 && pages.length <= 60, `${pages.length} pages`);
    pages.forEach((page, index) => {
      assert.ok(page.includes(`Page ${index + 1} of ${pages.length}`), `page ${index + 1} says so`);
      if (page.includes('Line '))
        assert.match(
          page,
          /#\s+Description\s+Qty\s+Unit price\s+Tax\s+Amount/,
          `page ${index + 1} repeats the table header`,
        );
    });
    const all = pages.join('\n');
    for (let number = 1; number <= 200; number += 1)
      assert.equal(all.split(`Line ${number}: `).length - 1, 1, `line ${number} printed once`);
    assert.match(all.slice(all.indexOf('Line 200: ')), /Total\s+\$200\.00/, 'the totals come after the last line');
  });

  test('a quote: its own label, validity and footer; errors stay JSON envelopes', async () => {
    const quote = await created('/v1/quotes', {
      client_id: clientId,
      title: 'New faucet',
      line_items: LINES,
      valid_until: '2026-12-31',
    });
    const response = await api('GET', `/v1/quotes/${quote.id}/pdf`);
    assert.equal(response.status, 200, response.text);
    const text = await pdfText(response.raw);
    for (const expected of [
      'QUOTE',
      'New faucet',
      'Valid until',
      'December 31, 2026',
      'PREPARED FOR',
      'Quotes are valid for 30 days.',
    ])
      assert.ok(text.includes(expected), expected);
    assert.ok(!text.includes('IBAN'), 'payment instructions are for invoices');
    const missing = await api('GET', '/v1/quotes/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01/pdf');
    assert.deepEqual(
      [missing.status, missing.headers['content-type'], missing.body.error.code],
      [404, 'application/json; charset=utf-8', 'NOT_FOUND'],
    );
    const malformed = await api('GET', '/v1/invoices/not-an-id/pdf');
    assert.deepEqual([malformed.status, malformed.body.error.code], [404, 'NOT_FOUND']);
  });
});

describe('deliveries and delivery_status', () => {
  async function sentInvoice(): Promise<string> {
    const invoice = await created('/v1/invoices', { client_id: clientId, line_items: LINES });
    const sent = await api('POST', `/v1/invoices/${invoice.id}/send`);
    assert.deepEqual([sent.status, sent.body.data.delivery_status], [200, 'queued']);
    return invoice.id;
  }
  const deliveries = async (path: string) => (await api('GET', `${path}/deliveries`)).body.data;
  const worker = (transport = smtpTransport(smtp.url)) =>
    new OutboxWorker(context.database, transport, clock, WORKER, quiet, context.app.pdf);

  test('null before any send; queued, then delivered by the SMTP server, with the delivery object of the contract', async () => {
    const draft = await created('/v1/invoices', { client_id: clientId, line_items: LINES });
    assert.equal(draft.delivery_status, null);
    assert.deepEqual(await deliveries(`/v1/invoices/${draft.id}`), []);

    const id = await sentInvoice();
    const [queued] = await deliveries(`/v1/invoices/${id}`);
    assert.deepEqual(
      {
        object: queued.object,
        channel: queued.channel,
        to: queued.to,
        status: queued.status,
        attempts: queued.attempts,
        last_error: queued.last_error,
        delivered_at: queued.delivered_at,
        failed_at: queued.failed_at,
      },
      {
        object: 'delivery',
        channel: 'email',
        to: 'jane@example.com',
        status: 'queued',
        attempts: 0,
        last_error: null,
        delivered_at: null,
        failed_at: null,
      },
    );
    assert.match(queued.subject, /^Invoice INV-\d{6} from Cooper Plumbing$/);

    while (await worker().deliverNext());
    const [delivered] = await deliveries(`/v1/invoices/${id}`);
    assert.deepEqual(
      [delivered.id, delivered.status, delivered.attempts, delivered.delivered_at],
      [queued.id, 'delivered', 1, clock.now().toISOString()],
    );
    const mail = smtp.messages.find((message) => message.messageId === delivered.message_id);
    assert.ok(mail, 'the message_id is the e-mail’s Message-ID');
    assert.equal((await api('GET', `/v1/invoices/${id}`)).body.data.delivery_status, 'delivered');
  });

  test('against a dead port: failed, with the error and no credentials; delivery_status follows', async () => {
    const id = await sentInvoice();
    const dead = smtpTransport(`smtp://billing:hunter2@127.0.0.1:${await freePort()}`);
    while (await worker(dead).deliverNext());
    dead.close();
    const [failed] = await deliveries(`/v1/invoices/${id}`);
    assert.deepEqual(
      [failed.status, failed.attempts, failed.delivered_at, failed.failed_at],
      ['failed', 1, null, clock.now().toISOString()],
    );
    assert.match(failed.last_error, /ECONNREFUSED/);
    assert.doesNotMatch(JSON.stringify(failed), /hunter2/);
    assert.equal((await api('GET', `/v1/invoices/${id}`)).body.data.delivery_status, 'failed');
  });

  test('a re-send is a new delivery, newest first; the older one’s outcome does not overwrite the latest’s status', async () => {
    const quote = await created('/v1/quotes', { client_id: clientId, line_items: LINES });
    await api('POST', `/v1/quotes/${quote.id}/send`);
    clock.advance(1000);
    await api('POST', `/v1/quotes/${quote.id}/send`);
    const [latest, older] = await deliveries(`/v1/quotes/${quote.id}`);
    assert.ok(latest.queued_at > older.queued_at, 'newest first');
    // Deliver only the older message: the quote still reports its last send.
    await context.database.db
      .updateTable('outbox_messages')
      .set({ next_attempt_at: '2999-01-01T00:00:00.000Z' })
      .where('id', '=', latest.id)
      .execute();
    while (await worker().deliverNext());
    assert.deepEqual(
      (await deliveries(`/v1/quotes/${quote.id}`)).map((delivery: { status: string }) => delivery.status),
      ['queued', 'delivered'],
    );
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.delivery_status, 'queued');
    const events = (await api('GET', '/v1/events?type=delivery.succeeded')).body.data;
    assert.ok(
      events.some((event: { data: { object: { id: string } } }) => event.data.object.id === older.id),
      'delivery.succeeded for the older one',
    );
  });

  test('another account sees neither the deliveries nor the PDF', async () => {
    const id = await sentInvoice();
    const stranger = await context.account('Stranger');
    for (const path of [`/v1/invoices/${id}/deliveries`, `/v1/invoices/${id}/pdf`]) {
      const response = await context.request('GET', path, { key: stranger.key });
      assert.deepEqual([response.status, response.body.error.code], [404, 'NOT_FOUND']);
    }
  });
});

describe('the render time limit', () => {
  test('a PDF that takes longer than PDF_RENDER_TIMEOUT_MS is a 503 envelope', async () => {
    const limited = await createTestContext({ env: { PDF_RENDER_TIMEOUT_MS: '100' } });
    try {
      const { key: limitedKey } = await limited.account();
      const call = (method: string, url: string, body?: unknown) =>
        limited.request(method, url, { key: limitedKey, body });
      const client = (await call('POST', '/v1/clients', { name: 'Jane Doe', email: 'jane@example.com' })).body.data.id;
      const long = Array.from({ length: 200 }, (_, index) => ({
        description: `Line ${index + 1}: ${'Replaced the corroded supply pipe and tested for leaks. '.repeat(9).slice(0, 480)}`,
        quantity: 1,
        unit_amount: 100,
      }));
      const slow = (await call('POST', '/v1/invoices', { client_id: client, line_items: long })).body.data.id;
      const refused = await call('GET', `/v1/invoices/${slow}/pdf`);
      assert.deepEqual([refused.status, refused.body.error.code], [503, 'SERVICE_UNAVAILABLE']);
      assert.match(refused.body.error.message, /longer than 100 ms/);
      assert.equal(
        (await call('GET', `/v1/invoices/${slow}`)).status,
        200,
        'the API answers on: the render was in its own thread',
      );
    } finally {
      await limited.close();
    }
  });
});

describe('documents in the account’s locale and on its paper', () => {
  /** An invoice of `profile`'s own account, issued 2026-11-28, sent and delivered: its PDF, e-mail and hub page. */
  async function printed(profile: Record<string, unknown>) {
    const { key: own } = await context.account(String(profile.name));
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await context.request(method, url, { key: own, body });
      assert.ok(response.status < 300, response.text);
      return response;
    };
    await call('PUT', '/v1/account', profile);
    const client = (await call('POST', '/v1/clients', { name: 'Jane Doe', email: 'jane@example.com' })).body.data;
    const invoice = (
      await call('POST', '/v1/invoices', {
        client_id: client.id,
        issue_date: '2026-11-28',
        due_date: '2026-12-12',
        line_items: [{ description: 'Boiler service', quantity: 1, unit_amount: 123_456 }],
      })
    ).body.data;
    const sent = (await call('POST', `/v1/invoices/${invoice.id}/send`)).body.data;
    const worker = new OutboxWorker(context.database, smtpTransport(smtp.url), clock, WORKER, quiet, context.app.pdf);
    while (await worker.deliverNext());
    const mail = smtp.messages.find((message) => message.subject === `Invoice ${sent.number} from ${profile.name}`);
    assert.ok(mail, 'the e-mail was delivered');
    const pdf = (await call('GET', `/v1/invoices/${invoice.id}/pdf`)).raw;
    const hub = await context.request('GET', new URL(sent.hosted_url).pathname);
    assert.equal(hub.status, 200);
    return {
      pdf,
      attachment: mail.attachments[0]!.content,
      text: mail.text ?? '',
      html: String(mail.html),
      hub: hub.text,
    };
  }

  test('a US account’s invoice is on Letter (612 × 792 pt) with “November 28, 2026” and $1,234.56 on the PDF, the e-mail and the hub', async () => {
    const { pdf, attachment, text, html, hub } = await printed({
      name: 'Brooklyn Heating',
      email: 'office@brooklyn-heating.test',
      address: { line1: '1 Court Street', city: 'Brooklyn', region: 'NY', postal_code: '11201', country: 'US' },
      timezone: 'America/New_York',
    });
    for (const file of [pdf, attachment]) {
      assert.deepEqual(await pdfPageSizes(file), [{ width: 612, height: 792 }]);
      const content = await pdfText(file);
      assert.match(content, /Issue date\s+November 28, 2026/);
      assert.match(content, /Due date\s+December 12, 2026/);
      assert.match(content, /Total\s+\$1,234\.56/);
    }
    assert.ok(text.includes('Issue date: November 28, 2026'), text);
    assert.ok(text.includes('Due date: December 12, 2026'), text);
    assert.ok(text.includes('Total: $1,234.56'), text);
    assert.ok(html.includes('Issue date: November 28, 2026'), html);
    assert.match(hub, /<dt>Issue date<\/dt><dd>November 28, 2026<\/dd>/);
    assert.match(hub, /Due December 12, 2026/);
    assert.match(hub, /<dt>Total<\/dt><dd>\$1,234\.56<\/dd>/);
  });

  test('a German account’s invoice is on A4 (595.28 × 841.89 pt) with “28.11.2026” and 1.234,56 € on the PDF, the e-mail and the hub', async () => {
    const { pdf, attachment, text, html, hub } = await printed({
      name: 'Müller Sanitär',
      email: 'buero@mueller-sanitaer.test',
      address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      locale: 'de-DE',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
    });
    for (const file of [pdf, attachment]) {
      assert.deepEqual(await pdfPageSizes(file), [{ width: 595.28, height: 841.89 }]);
      const content = await pdfText(file);
      assert.match(content, /Issue date\s+28\.11\.2026/);
      assert.match(content, /Due date\s+12\.12\.2026/);
      assert.match(content, /Total\s+1\.234,56\s€/);
      assert.doesNotMatch(content, /2026-11-28|November/);
    }
    assert.ok(text.includes('Issue date: 28.11.2026'), text);
    assert.ok(text.includes('Due date: 12.12.2026'), text);
    assert.match(text, /Total: 1\.234,56\s€/);
    assert.ok(html.includes('Issue date: 28.11.2026'), html);
    assert.match(hub, /<dt>Issue date<\/dt><dd>28\.11\.2026<\/dd>/);
    assert.match(hub, /Due 12\.12\.2026/);
    assert.match(hub, /<dt>Total<\/dt><dd>1\.234,56\s€<\/dd>/);
  });

  test('a chosen paper size wins over the country: a German account on Letter', async () => {
    const { pdf } = await printed({ name: 'Letter GmbH', address: { country: 'DE' }, paper_size: 'letter' });
    assert.deepEqual(await pdfPageSizes(pdf), [{ width: 612, height: 792 }]);
  });
});

describe('the quote PDF dates and the logo decoded once', () => {
  const suite = clientSuite('Documents');
  const api = (method: string, url: string, body?: unknown, key = suite.key) =>
    suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

  /** The text of a PDF, as poppler's pdftotext reads it. */
  async function pdfText(url: string): Promise<string> {
    const response = await suite.context.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${suite.key}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/pdf');
    const file = `${suite.context.directory}/quote-${randomUUID()}.pdf`;
    fs.writeFileSync(file, response.rawPayload);
    const { execFileSync } = await import('node:child_process');
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  }

  test('a quote PDF shows its issue and expiry dates', async () => {
    const quote = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      valid_until: '2099-12-31',
      line_items: [{ description: 'Gutter cleaning', quantity: 1, unit_amount: 12_000 }],
    });
    assert.equal(quote.status, 201, quote.text);
    const sent = await api('POST', `/v1/quotes/${quote.body.data.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    // The account's zone is UTC and its locale en-US: dates print as "December 31, 2099".
    const longDate = (instant: string) =>
      new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(
        new Date(instant),
      );
    const text = await pdfText(`/v1/quotes/${quote.body.data.id}/pdf`);
    assert.match(text, new RegExp(`Issue date\\s+${longDate(sent.body.data.sent_at)}`));
    assert.match(text, /Valid until\s+December 31, 2099/);

    // A draft without an expiry: issued the day it was made, and says it does not expire.
    const draft = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Gutter cleaning', quantity: 1, unit_amount: 12_000 }],
    });
    const draftText = await pdfText(`/v1/quotes/${draft.body.data.id}/pdf`);
    assert.match(draftText, new RegExp(`Issue date\\s+${longDate(draft.body.data.created_at)}`));
    assert.match(draftText, /Valid until\s+no expiry date/);
  });

  /** The images of a PDF as poppler's pdfimages lists them: type, width, height (an smask is the logo's alpha). */
  async function pdfImages(pdf: Buffer): Promise<string[][]> {
    const file = `${suite.context.directory}/logo-${randomUUID()}.pdf`;
    fs.writeFileSync(file, pdf);
    const { execFileSync } = await import('node:child_process');
    const listing = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').slice(2);
    return listing.filter((line) => line.trim()).map((line) => line.trim().split(/\s+/).slice(2, 5));
  }

  test('the logo is decoded and scaled once per logo, not per render: two documents, one decode; a changed logo (by this process or another), one more', async () => {
    const { accountId, key } = await suite.context.account('Logo once');
    const call = (method: string, url: string, body?: unknown) =>
      suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });
    const client = await call('POST', '/v1/clients', { name: 'Logo client', email: 'logo@example.com' });
    const invoice = async (description: string) =>
      (
        await call('POST', '/v1/invoices', {
          client_id: client.body.data.id,
          line_items: [{ description, quantity: 1, unit_amount: 5_000 }],
        })
      ).body.data.id as string;
    const pdfOf = async (id: string) => {
      const response = await suite.context.app.inject({
        method: 'GET',
        url: `/v1/invoices/${id}/pdf`,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.rawPayload;
    };
    // 2,000 × 1,000 pixels with transparency (a soft edge): the kind of logo that made every render slow.
    const logo = (shade: number) =>
      rgbaPng(2000, 1000, (x, y) => [shade, 105, 218, x < 1000 ? 255 : Math.max(0, 255 - ((x + y) % 256))]);
    const pool = suite.context.app.pdf;
    const decodes = () => pool.logoDecodes - start;
    const start = pool.logoDecodes;

    const put = await call('PUT', '/v1/account/logo', { content_type: 'image/png', data: logo(9).toString('base64') });
    assert.equal(put.status, 200, put.text);
    assert.equal(decodes(), 1, 'the upload is checked by decoding it once');
    const rendersBefore = pool.renders;
    const first = await pdfOf(await invoice('Gutters'));
    const second = await pdfOf(await invoice('Windows'));
    assert.equal(pool.renders, rendersBefore + 2, 'two documents rendered');
    assert.equal(decodes(), 1, 'rendering two documents decoded no image');
    // Scaled to 3 pixels a point of the 160 × 60 point box (the height limits: 180 px), alpha as a soft mask.
    for (const pdf of [first, second])
      assert.deepEqual(await pdfImages(pdf), [
        ['image', '360', '180'],
        ['smask', '360', '180'],
      ]);

    // A new logo through the API: one decode (its check), and the next document uses it.
    await call('PUT', '/v1/account/logo', { content_type: 'image/png', data: logo(200).toString('base64') });
    assert.equal(decodes(), 2);
    const third = await pdfOf(await invoice('Roof'));
    assert.equal(decodes(), 2);
    assert.notDeepEqual(third, first);

    // Another process changed the logo (the stored row, as that process's upload leaves it): the next render
    // sees the stored hash change and decodes it once; the render after does not.
    const opaque = png(600, 300, () => [31, 35, 40]);
    await suite.context.database.db
      .updateTable('account_logos')
      .set({ data: opaque, sha256: createHash('sha256').update(opaque).digest('hex') })
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(await pdfImages(await pdfOf(await invoice('Fence'))), [['image', '360', '180']]);
    assert.equal(decodes(), 3);
    await pdfOf(await invoice('Deck'));
    assert.equal(decodes(), 3);

    // Without a logo, nothing is decoded and no image is drawn.
    await call('DELETE', '/v1/account/logo');
    assert.deepEqual(await pdfImages(await pdfOf(await invoice('Shed'))), []);
    assert.equal(decodes(), 3);
  });
});
