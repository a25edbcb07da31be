// A quote's hub page with its files in a real browser (Debian's Chromium driven by playwright-core): the photos
// marked visible_on_hub show as images under the page's CSP, the PDF is a link, a file not marked visible and a
// client's file are absent, and nothing is wider than a phone. Screenshots at 360 and 1,280 pixels wide are
// written to test-output/attachments/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { CHROMIUM, chromiumInstalled as installed, launchChromium, listeningContext } from './helpers/browser.js';
import type { TestContext } from './helpers/context.js';
import { png } from './helpers/images.js';
import { ROOT } from './helpers/processes.js';
import { multipart } from './helpers/uploads.js';

const OUTPUT = path.join(ROOT, 'test-output', 'attachments');
if (!installed && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);

let context: TestContext;
let browser: Browser;

before(async () => {
  if (!installed) return;
  context = await listeningContext();
  fs.mkdirSync(OUTPUT, { recursive: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await context?.close();
});

test('the hub page shows the visible photos inline, links the PDF and leaves out the rest', {
  skip: installed ? false : `${CHROMIUM} is not installed`,
}, async () => {
  const { key } = await context.account('Cooper Roofing');
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const client = await api('POST', '/v1/clients', { name: 'Jane Doe' });
  const quote = await api('POST', '/v1/quotes', {
    client_id: client.body.data.id,
    title: 'Roof repair',
    line_items: [{ description: 'Replace 12 shingles', quantity: 1, unit_amount: 64000 }],
  });
  const sent = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status: 'sent' });
  const upload = async (
    parentType: string,
    parentId: string,
    filename: string,
    visible: boolean,
    data: Buffer,
    type: string,
    caption: string,
  ) => {
    const { body, contentType } = multipart(
      { parent_type: parentType, parent_id: parentId, visible_on_hub: String(visible), caption },
      { filename, contentType: type, data },
    );
    const response = await context.request('POST', '/v1/attachments', {
      key,
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  const stripes = png(320, 240, (x, y) => (Math.floor(y / 30) % 2 === 0 ? [180, 60, 40] : [120, 120, 120]));
  const sky = png(320, 240, (x, y) => [40 + Math.floor(y / 2), 120, 200 + Math.floor(x / 8)]);
  await upload('quote', quote.body.data.id, 'roof-before.png', true, stripes, 'image/png', 'The damaged shingles');
  await upload('quote', quote.body.data.id, 'roof-view.png', true, sky, 'image/png', 'View from the garden');
  await upload(
    'quote',
    quote.body.data.id,
    'permit.pdf',
    true,
    Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
    'application/pdf',
    'Building permit',
  );
  await upload(
    'quote',
    quote.body.data.id,
    'crew-notes.txt',
    false,
    Buffer.from('crew only'),
    'text/plain',
    'Internal',
  );
  await upload(
    'client',
    client.body.data.id,
    'client-id.png',
    true,
    png(4, 4, () => [0, 0, 0]),
    'image/png',
    'Client file',
  );

  for (const width of [360, 1280]) {
    const page = await browser.newPage({ viewport: { width, height: 800 }, javaScriptEnabled: false });
    const response = await page.goto(sent.body.data.hosted_url);
    assert.equal(response?.status(), 200);
    const images = page.locator('.files img');
    assert.equal(await images.count(), 2);
    for (let index = 0; index < 2; index++)
      assert.ok(
        await images.nth(index).evaluate((image) => (image as HTMLImageElement).naturalWidth > 0),
        'each photo loads under the page’s CSP',
      );
    const text = await page.locator('#files-heading').locator('..').innerText();
    assert.match(text, /permit\.pdf/);
    assert.match(text, /The damaged shingles/);
    assert.doesNotMatch(text, /crew-notes|Client file/);
    if (width === 360) assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 360'));
    await page.screenshot({ path: path.join(OUTPUT, `quote-files-${width}.png`), fullPage: true });
    await page.close();
  }
});
