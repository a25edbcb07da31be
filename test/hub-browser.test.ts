// The client hub in a real browser (Debian's Chromium driven by playwright-core): the client opens the
// link from the e-mail the test SMTP server received, approves or declines with JavaScript off, sees the
// confirmation, and the API shows the answer; a rotated link is the 404 page. Screenshots at 360 and
// 1,280 pixels wide are written to test-output/hub/ (docs/ keeps one of each).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { smtpTransport } from '../src/mail/transports.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { logoPng } from './helpers/images.js';
import { freePort, ROOT } from './helpers/processes.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = path.join(ROOT, 'test-output', 'hub');
const installed = fs.existsSync(CHROMIUM);
// CI installs Chromium (.ci/run): there, a missing browser is a failure, not a skip.
if (!installed && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let key: string;
let clientId: string;
let smtp: TestSmtpServer;
let browser: Browser;

async function api(method: string, url: string, body?: unknown) {
  return context.request(method, url, { key, body });
}

/** Sends a quote and returns the hub link as the client received it: read from the delivered e-mail. */
async function quoteLinkFromEmail(fields: Record<string, unknown> = {}): Promise<{ id: string; link: string }> {
  const quote = (await api('POST', '/v1/quotes', { client_id: clientId, ...fields })).body.data;
  assert.equal(
    (await api('POST', `/v1/quotes/${quote.id}/send`, { message: 'Here is the quote we discussed on Tuesday.' }))
      .status,
    200,
  );
  const worker = new OutboxWorker(
    context.database,
    smtpTransport(smtp.url),
    context.clock,
    {
      pollMs: 10,
      leaseMs: 60_000,
      retryBaseMs: 1,
      maxAttempts: 1,
      fromAddress: 'office@cooper-plumbing.test',
      jitter: 0,
    },
    quiet,
    context.app.pdf,
  );
  while (await worker.deliverNext());
  const mail = smtp.messages.at(-1)!;
  const link = /https?:\/\/\S+\/hub\/[A-Za-z0-9_-]{43}/.exec(mail.text ?? '')?.[0];
  assert.ok(link, `a hub link in the e-mail:\n${mail.text}`);
  return { id: quote.id, link };
}

/** A page with JavaScript off: the hub must work without it. Console errors (a CSP violation, say) are collected. */
async function openPage(width: number): Promise<{ page: Page; errors: string[] }> {
  const browserContext = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 900 } });
  const page = await browserContext.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

describe('the client hub in Chromium', {
  skip: installed ? false : `${CHROMIUM} is not installed (apt-get install chromium)`,
}, () => {
  before(async () => {
    const port = await freePort();
    context = await createTestContext({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    await context.app.listen({ port, host: '127.0.0.1' });
    ({ key } = await context.account('Cooper Plumbing'));
    await api('PUT', '/v1/account', {
      legal_name: 'Cooper Plumbing LLC',
      email: 'office@cooper-plumbing.test',
      phone: '+1 555 0100',
      address: { line1: '1 Main Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
      quote_footer: 'Quotes are valid for 30 days. Cooper Plumbing LLC, licensed in Illinois.',
    });
    await api('PUT', '/v1/account/logo', { content_type: 'image/png', data: logoPng().toString('base64') });
    clientId = (
      await api('POST', '/v1/clients', {
        name: 'Jane Doe',
        email: 'jane@example.com',
        company_name: 'Doe Bakery',
        address: { line1: '12 Elm Street', city: 'Springfield', region: 'IL', postal_code: '62704', country: 'US' },
      })
    ).body.data.id;
    smtp = await startSmtpServer();
    fs.mkdirSync(OUTPUT, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await smtp?.close();
    await context?.close();
  });

  const LINES = [
    {
      description: 'Labour: replace kitchen faucet and shut-off valves',
      quantity: 2.5,
      unit_amount: 8500,
      tax_rate: 8.875,
    },
    { description: 'Kitchen faucet, brushed nickel', quantity: 1, unit_amount: 18999, tax_rate: 8.875 },
    { description: 'Disposal of old fittings', quantity: 1, unit_amount: 2500 },
  ];

  test('approve from the e-mail’s link at 360 px: confirmation on the page, approved with the typed name in the API', async () => {
    const { id, link } = await quoteLinkFromEmail({
      title: 'Kitchen faucet replacement',
      line_items: LINES,
      valid_until: '2099-12-31',
      notes: 'Work can start the week after approval.',
    });
    const { page, errors } = await openPage(360);
    const response = await page.goto(link);
    assert.equal(response?.status(), 200);
    assert.equal(
      await page.title(),
      `Quote ${(await api('GET', `/v1/quotes/${id}`)).body.data.number} from Cooper Plumbing`,
    );
    // The stylesheet loaded under the page's CSP, and nothing is wider than the phone.
    assert.equal(
      await page.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor),
      'rgb(243, 244, 246)',
    );
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 360'), 'no horizontal scrolling at 360 px');
    assert.ok(
      await page
        .locator('img[alt="Cooper Plumbing"]')
        .evaluate((image) => (image as HTMLImageElement).naturalWidth > 0),
      'the logo loads',
    );
    await page.screenshot({ path: path.join(OUTPUT, 'quote-360.png'), fullPage: true });

    // Keyboard order: skip link, PDF, name, approve, reason, decline.
    const order: string[] = [];
    for (let index = 0; index < 6; index++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate('document.activeElement.id || document.activeElement.textContent.trim()'));
    }
    assert.deepEqual(order, ['Skip to the quote', 'Download PDF', 'name', 'Approve quote', 'reason', 'Decline quote']);

    await page.getByLabel('Your full name').fill('Jane Doe');
    await page.getByRole('button', { name: 'Approve quote' }).click();
    await page.getByText('Thank you: the quote is approved').waitFor();
    assert.equal(page.url(), link);
    await page.screenshot({ path: path.join(OUTPUT, 'approved-360.png'), fullPage: true });
    const quote = (await api('GET', `/v1/quotes/${id}`)).body.data;
    assert.deepEqual([quote.status, quote.approved_by], ['approved', 'Jane Doe']);
    assert.deepEqual(errors, []);
  });

  test('decline with a reason at 1,280 px', async () => {
    // Contract section 16: the property is the service address; its access notes are never shown.
    const property = (
      await api('POST', '/v1/properties', {
        client_id: clientId,
        name: 'Bakery kitchen',
        address: { line1: '88 Market Square', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
        access_notes: 'Back door code 7781',
      })
    ).body.data;
    const { id, link } = await quoteLinkFromEmail({
      title: 'Bathroom re-pipe',
      line_items: LINES,
      property_id: property.id,
    });
    const { page, errors } = await openPage(1280);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Service address' }).waitFor();
    assert.ok((await page.locator('body').innerText()).includes('88 Market Square'));
    assert.ok(!(await page.content()).includes('7781'), 'the access notes are never on the page');
    await page.screenshot({ path: path.join(OUTPUT, 'quote-1280.png'), fullPage: true });
    await page.getByLabel('Reason for declining (optional)').fill('We found a cheaper offer.');
    await page.getByRole('button', { name: 'Decline quote' }).click();
    await page.getByText('You declined this quote').waitFor();
    const quote = (await api('GET', `/v1/quotes/${id}`)).body.data;
    assert.deepEqual([quote.status, quote.decline_reason], ['declined', 'We found a cheaper offer.']);
    assert.deepEqual(errors, []);
  });

  test('the PDF link opens the quote’s PDF', async () => {
    const { link } = await quoteLinkFromEmail({ line_items: LINES });
    const { page } = await openPage(1280);
    await page.goto(link);
    const href = await page.getByRole('link', { name: 'Download PDF' }).getAttribute('href');
    const pdf = await page.request.get(new URL(href!, link).toString());
    assert.deepEqual([pdf.status(), pdf.headers()['content-type']], [200, 'application/pdf']);
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
  });

  test('a rotated link is the plain 404 page', async () => {
    const { id, link } = await quoteLinkFromEmail({ line_items: LINES });
    assert.equal((await api('POST', `/v1/quotes/${id}/hosted-link/rotate`)).status, 200);
    const { page } = await openPage(360);
    const response = await page.goto(link);
    assert.equal(response?.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'Page not found');
  });
});
