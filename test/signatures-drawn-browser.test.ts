// A drawn signature through the real hub page in a browser (Debian's Chromium driven by playwright-core; contract
// §30): with the account's `quote_signature: drawn` the page shows a pad whose one script runs under the page's
// CSP by its nonce (no violation reported), strokes drawn with the pointer are posted as a PNG with the approval,
// and the quote then has its signature attachment, bound to the hash the page showed, drawn on its PDF (rendered
// with poppler: dark pixels in the box under the signature's text). Without JavaScript the pad stays hidden and
// the page says why. A screenshot of the pad and the PDF's first page are written to test-output/signatures/.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { CHROMIUM, chromiumInstalled, launchChromium, listeningContext } from './helpers/browser.js';
import type { TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';

const OUTPUT = path.join(ROOT, 'test-output', 'signatures');
const installed = chromiumInstalled && fs.existsSync('/usr/bin/pdftoppm') && fs.existsSync('/usr/bin/pdftotext');
if (!installed && process.env.CI)
  throw new Error(`${CHROMIUM} or poppler is missing: .ci/run installs Debian's chromium and poppler-utils packages`);

let context: TestContext;
let browser: Browser;
let key: string;

const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

before(async () => {
  if (!installed) return;
  context = await listeningContext();
  ({ key } = await context.account('Cooper Roofing'));
  await api('PUT', '/v1/account', { quote_signature: 'drawn' });
  fs.mkdirSync(OUTPUT, { recursive: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await context?.close();
});

async function sentQuote(title: string): Promise<{ id: string; url: string }> {
  const client = await api('POST', '/v1/clients', { name: 'Jane Doe' });
  const quote = await api('POST', '/v1/quotes', {
    client_id: client.body.data.id,
    title,
    line_items: [{ description: 'Replace 12 shingles', quantity: 1, unit_amount: 64000 }],
  });
  const sent = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status: 'sent' });
  assert.equal(sent.status, 200, sent.text);
  return { id: quote.body.data.id, url: sent.body.data.hosted_url };
}

/** A page at 8-bit grey, one pixel a point (72 dpi), from `pdftoppm -gray`: width, height and the samples. */
function pgm(file: string): { width: number; height: number; samples: Buffer } {
  const bytes = fs.readFileSync(file);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
  assert.ok(header, 'a binary PGM');
  return { width: Number(header[1]), height: Number(header[2]), samples: bytes.subarray(header[0].length) };
}

test('strokes drawn on the pad approve the quote, are stored as its signature and drawn on its PDF', {
  skip: installed ? false : `${CHROMIUM} or poppler is not installed`,
}, async () => {
  const quote = await sentQuote('Roof repair');
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const response = await page.goto(quote.url);
  assert.equal(response?.status(), 200);
  const policy = (await response!.allHeaders())['content-security-policy'] ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
  assert.ok(nonce, policy);
  assert.equal(await page.locator('script').count(), 1);
  // A nonce is hidden from the DOM's attribute once applied; the element's own property still holds it.
  assert.equal(await page.locator('script').evaluate((script) => (script as HTMLScriptElement).nonce), nonce);
  const canvas = page.locator('#signature-canvas');
  assert.ok(await canvas.isVisible(), 'the script ran and showed the pad');
  const shown = await page.locator('input[name="document_sha256"]').inputValue();

  // Sent with nothing drawn, the form stays on the page and asks for a drawing.
  await page.fill('#name', 'Jane Doe');
  await page.click('button:has-text("Approve quote")');
  assert.ok(await page.locator('#signature-message').isVisible());

  const box = (await canvas.boundingBox())!;
  const stroke = async (points: Array<[number, number]>) => {
    await page.mouse.move(box.x + points[0]![0] * box.width, box.y + points[0]![1] * box.height);
    await page.mouse.down();
    for (const [x, y] of points.slice(1))
      await page.mouse.move(box.x + x * box.width, box.y + y * box.height, { steps: 8 });
    await page.mouse.up();
  };
  await stroke([
    [0.08, 0.7],
    [0.18, 0.25],
    [0.26, 0.75],
    [0.36, 0.3],
    [0.46, 0.7],
    [0.6, 0.35],
    [0.72, 0.65],
    [0.9, 0.4],
  ]);
  await stroke([
    [0.2, 0.85],
    [0.8, 0.82],
  ]);
  await page.screenshot({ path: path.join(OUTPUT, 'pad.png'), fullPage: true });
  await page.click('button:has-text("Approve quote")');
  await page.locator('.notice-good').waitFor();
  assert.match(await page.locator('.notice-good').innerText(), /the quote is approved/);
  assert.deepEqual(problems, [], 'no CSP violation or script error');
  await page.close();

  const approved = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  assert.equal(approved.status, 'approved');
  assert.equal(approved.signature.document_sha256, shown, 'bound to the hash the page showed');
  const document = await api('GET', `/v1/quotes/${quote.id}/signatures/${approved.signature.id}/document`);
  assert.equal(sha256(document.raw), shown);
  const attachment = (await api('GET', `/v1/attachments/${approved.signature.image_attachment_id}`)).body.data;
  assert.equal(attachment.kind, 'signature');
  assert.equal(attachment.parent_id, quote.id);
  assert.equal(attachment.content_type, 'image/png');
  const image = (await api('GET', `/v1/attachments/${attachment.id}/content`)).raw;
  assert.equal(image.readUInt32BE(16), 600, 'the pad’s width');
  assert.equal(image.readUInt32BE(20), 200, 'the pad’s height');

  // The PDF's first page at 72 dpi: the box under the signature's text (180 × 60 points from the left margin)
  // holds the strokes.
  const pdf = await api('GET', `/v1/quotes/${quote.id}/pdf`);
  const pdfFile = path.join(OUTPUT, 'quote.pdf');
  fs.writeFileSync(pdfFile, pdf.raw);
  // A PNG at 96 dpi to look at, and grey levels at 72 dpi (a pixel a point) to count.
  for (const [format, dpi] of [
    ['-png', '96'],
    ['-gray', '72'],
  ])
    execFileSync('pdftoppm', [
      format!,
      '-r',
      dpi!,
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      pdfFile,
      path.join(OUTPUT, 'quote'),
    ]);
  const words = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', pdfFile, '-'], { encoding: 'utf8' });
  const hashWord = [
    ...words.matchAll(/<word xMin="[\d.]+" yMin="[\d.]+" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g),
  ].find((match) => match[2]!.startsWith(shown.slice(0, 16)));
  assert.ok(hashWord, 'the hash is printed on the first page');
  const { width, samples } = pgm(path.join(OUTPUT, 'quote.pgm'));
  const top = Math.ceil(Number(hashWord[1]));
  let dark = 0;
  for (let y = top + 4; y < top + 70; y += 1)
    for (let x = 50; x < 230; x += 1) if (samples[y * width + x]! < 128) dark += 1;
  assert.ok(dark > 100, `the signature's strokes are drawn in its box (${dark} dark pixels)`);
});

test('without JavaScript the pad stays hidden and the page says drawing needs it', {
  skip: installed ? false : `${CHROMIUM} or poppler is not installed`,
}, async () => {
  const quote = await sentQuote('Gutter guards');
  const browserContext = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 800 } });
  const page = await browserContext.newPage();
  await page.goto(quote.url);
  assert.equal(await page.locator('#signature-canvas').isVisible(), false);
  assert.ok(await page.getByText(/which needs JavaScript/).isVisible());
  await page.fill('#name', 'Jane Doe');
  await page.click('button:has-text("Approve quote")');
  const error = page.locator('[data-field="signature_image"]');
  await error.waitFor();
  assert.match(await error.innerText(), /Draw your signature/);
  assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');
  await browserContext.close();
});
