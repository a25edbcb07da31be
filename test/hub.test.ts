// Contract section 12 without a browser: hosted_url and its token rules, rotation, the page's security
// headers, the answer forms' CSRF check, validation, expiry, per-IP rate limits, an approval made once
// under simultaneous clicks, events with data.source "hub", and tokens kept out of the logs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { smtpTransport } from '../src/mail/transports.js';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';
import { logoPng } from './helpers/images.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';
import { clientSuite } from './helpers/state-table.js';

const PUBLIC_BASE_URL = 'https://billing.cooper-plumbing.test';
const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
const LINES = [
  { description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 10 },
  { description: 'Faucet <script>alert(1)</script>', quantity: 1, unit_amount: 8999 },
];
/** The contract's headers on every hub answer, stated here rather than read from src: the CSP by directive. */
const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
];
const directives = (header: unknown): string[] =>
  String(header)
    .split(';')
    .map((directive) => directive.trim())
    .filter(Boolean);

let context: TestContext;
let key: string;
let clientId: string;
let smtp: TestSmtpServer;
/** Each test answers from its own address, so the per-IP limit is only met where a test means to. */
let addressCounter = 0;
const nextAddress = () => `10.0.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

async function api(method: string, url: string, body?: unknown, apiKey = key): Promise<ApiResponse> {
  return context.request(method, url, { key: apiKey, body });
}

async function sentQuote(fields: Record<string, unknown> = {}): Promise<{ id: string; url: string; path: string }> {
  const quote = (await api('POST', '/v1/quotes', { client_id: clientId, line_items: LINES, ...fields })).body.data;
  const sent = await api('POST', `/v1/quotes/${quote.id}/send`);
  assert.equal(sent.status, 200, sent.text);
  const url: string = sent.body.data.hosted_url;
  return { id: quote.id, url, path: new URL(url).pathname };
}

/** A visitor: one address, with the cookie jar a browser would keep for /hub. */
function visitor(remoteAddress = nextAddress()) {
  let cookie: string | undefined;
  return {
    remoteAddress,
    async get(path: string, headers: Record<string, string> = {}) {
      const response = await context.request('GET', path, {
        remoteAddress,
        headers: { ...(cookie ? { cookie } : {}), ...headers },
      });
      const set = response.headers['set-cookie'];
      if (typeof set === 'string') cookie = set.split(';')[0];
      return response;
    },
    async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
      return context.request('POST', path, {
        remoteAddress,
        rawBody: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
      });
    },
    get cookie() {
      return cookie;
    },
  };
}

/** The CSRF value the page's forms carry. */
function csrfOf(page: ApiResponse): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page.text);
  assert.ok(match, 'the page has an answer form with a CSRF field');
  return match[1]!;
}

/** What the page's answer forms carry: the CSRF value and the version of the quote shown (issue 34.10). */
function formOf(page: ApiResponse): { csrf: string; version: string } {
  const version = /name="version" value="([^"]+)"/.exec(page.text);
  assert.ok(version, 'the page names the version it shows');
  return { csrf: csrfOf(page), version: version[1]! };
}

async function eventsOf(type: string, quoteId: string) {
  return (await api('GET', `/v1/events?type=${type}&resource_id=${quoteId}`)).body.data as Array<{
    data: { object: any; source?: string };
  }>;
}

before(async () => {
  context = await createTestContext({ clock, env: { PUBLIC_BASE_URL } });
  ({ key } = await context.account('Cooper Plumbing'));
  await api('PUT', '/v1/account', {
    payment_instructions: 'Bank transfer to IBAN DE89 3704 0044 0532 0130 00.',
    phone: '+1 555 0100',
  });
  clientId = (await api('POST', '/v1/clients', { name: 'Jane Doe', email: 'jane@example.com' })).body.data.id;
  smtp = await startSmtpServer();
});
after(async () => {
  await smtp.close();
  await context.close();
});

describe('hosted_url', () => {
  test('null in draft; on send PUBLIC_BASE_URL/hub/<256-bit token>, the same on GET, in the list, and on a re-send', async () => {
    const draft = (await api('POST', '/v1/quotes', { client_id: clientId, line_items: LINES })).body.data;
    assert.equal(draft.hosted_url, null);
    const sent = (await api('POST', `/v1/quotes/${draft.id}/send`)).body.data;
    assert.match(sent.hosted_url, /^https:\/\/billing\.cooper-plumbing\.test\/hub\/[A-Za-z0-9_-]{43}$/);
    assert.equal((await api('GET', `/v1/quotes/${draft.id}`)).body.data.hosted_url, sent.hosted_url);
    assert.equal(
      (await api('GET', `/v1/quotes?limit=100`)).body.data.find((quote: { id: string }) => quote.id === draft.id)
        .hosted_url,
      sent.hosted_url,
    );
    assert.equal(
      (await api('POST', `/v1/quotes/${draft.id}/send`)).body.data.hosted_url,
      sent.hosted_url,
      'a re-send keeps the link the first e-mail carried',
    );
    const other = await sentQuote();
    assert.notEqual(other.url, sent.hosted_url);
  });

  test('an invoice marked sent with PUT gets one too; back to draft a quote shows none and its page is gone', async () => {
    const invoice = (await api('POST', '/v1/invoices', { client_id: clientId, line_items: LINES })).body.data;
    const marked = (await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' })).body.data;
    assert.match(marked.hosted_url, /^https:\/\/billing\.cooper-plumbing\.test\/hub\/[A-Za-z0-9_-]{43}$/);
    const quote = await sentQuote();
    assert.equal((await visitor().get(quote.path)).status, 200);
    assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { status: 'draft' })).body.data.hosted_url, null);
    assert.equal((await visitor().get(quote.path)).status, 404);
  });

  test('the e-mail carries the link, in its text and its HTML', async () => {
    const quote = await sentQuote();
    const worker = new OutboxWorker(
      context.database,
      smtpTransport(smtp.url),
      clock,
      { pollMs: 10, leaseMs: 60_000, retryBaseMs: 1, maxAttempts: 1, fromAddress: 'billing@cooper.test', jitter: 0 },
      { info() {}, warn() {}, error() {} },
      context.app.pdf,
    );
    while (await worker.deliverNext());
    const mail = smtp.messages.at(-1)!;
    assert.ok(mail.text?.includes(`approve or decline it there:\n${quote.url}`), mail.text);
    assert.ok(String(mail.html).includes(`href="${quote.url}"`));
  });
});

describe('rotation and revocation', () => {
  test('rotate answers the quote with a new link; the old one is a 404 at once; the change is a quote.updated event', async () => {
    const quote = await sentQuote();
    const rotated = await api('POST', `/v1/quotes/${quote.id}/hosted-link/rotate`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.data.hosted_url, quote.url);
    assert.equal((await visitor().get(quote.path)).status, 404);
    assert.equal((await visitor().get(new URL(rotated.body.data.hosted_url).pathname)).status, 200);
    const [event] = await eventsOf('quote.updated', quote.id);
    assert.equal(event?.data.object.hosted_url, rotated.body.data.hosted_url);
  });

  test('rotate needs the write scope, a sent document, and answers 404 for another account', async () => {
    const quote = await sentQuote();
    const { key: readOnly } = await context.key((await api('GET', '/v1/account')).body.data.id, [
      'quotes:read',
      'invoices:read',
    ]);
    assert.equal((await api('POST', `/v1/quotes/${quote.id}/hosted-link/rotate`, undefined, readOnly)).status, 403);
    const draft = (await api('POST', '/v1/invoices', { client_id: clientId, line_items: LINES })).body.data;
    const refused = await api('POST', `/v1/invoices/${draft.id}/hosted-link/rotate`);
    assert.deepEqual([refused.status, refused.body.error.code], [409, 'INVALID_STATE']);
    const { key: stranger } = await context.account('Someone Else');
    assert.equal((await api('POST', `/v1/quotes/${quote.id}/hosted-link/rotate`, undefined, stranger)).status, 404);
    const invoiceRotated = await api(
      'POST',
      `/v1/invoices/${(await api('PUT', `/v1/invoices/${draft.id}`, { status: 'sent' })).body.data.id}/hosted-link/rotate`,
    );
    assert.equal(invoiceRotated.status, 200, invoiceRotated.text);
  });

  test('unknown, malformed, rotated, deleted and voided links are the same plain 404 page', async () => {
    const deleted = await sentQuote();
    assert.equal((await api('DELETE', `/v1/quotes/${deleted.id}`)).status, 200);
    const invoice = (await api('POST', '/v1/invoices', { client_id: clientId, line_items: LINES })).body.data;
    const sent = (await api('POST', `/v1/invoices/${invoice.id}/send`)).body.data;
    const voided = await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'void' });
    assert.equal(voided.body.data.hosted_url, null);
    const pages = [];
    for (const path of [
      '/hub/' + 'A'.repeat(43),
      '/hub/short',
      deleted.path,
      new URL(sent.hosted_url).pathname,
      '/hub/x/y/z',
    ]) {
      const response = await visitor().get(path);
      assert.equal(response.status, 404, path);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.deepEqual(directives(response.headers['content-security-policy']), CSP);
      pages.push(response.text);
    }
    assert.equal(new Set(pages).size, 1, 'one page for every reason');
    assert.match(pages[0]!, /Page not found/);
  });
});

describe('the page', () => {
  test('shows the business, the document, its lines escaped, totals and the PDF link, with the contract headers', async () => {
    const quote = await sentQuote({ title: 'Kitchen faucet', notes: 'Parts included.' });
    const response = await visitor().get(quote.path);
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.deepEqual(directives(response.headers['content-security-policy']), CSP);
    assert.equal(response.headers['x-robots-tag'], 'noindex, nofollow');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    const page = response.text;
    for (const text of [
      'Cooper Plumbing',
      'Kitchen faucet',
      'Labour',
      'Parts included.',
      '$221.99',
      'Awaiting your answer',
      'Approve quote',
      'Decline quote',
    ])
      assert.ok(page.includes(text), text);
    assert.ok(page.includes('Faucet &#60;script&#62;alert(1)&#60;/script&#62;'));
    assert.ok(!page.includes('<script>'), 'no script, and nothing from another origin');
    assert.doesNotMatch(page, /(src|href)="(https?:)?\/\//);
    const pdf = await visitor().get(`${quote.path}/pdf`);
    assert.deepEqual([pdf.status, pdf.headers['content-type']], [200, 'application/pdf']);
    assert.ok(pdf.raw.equals((await api('GET', `/v1/quotes/${quote.id}/pdf`)).raw), 'the same PDF as the API gives');
    const css = await visitor().get('/hub/static/hub.css');
    assert.deepEqual([css.status, css.headers['content-type']], [200, 'text/css; charset=utf-8']);
  });

  test('the logo, when the business has one, is served from the page’s own origin', async () => {
    assert.equal(
      (await api('PUT', '/v1/account/logo', { content_type: 'image/png', data: logoPng().toString('base64') })).status,
      200,
    );
    const quote = await sentQuote();
    const page = await visitor().get(quote.path);
    assert.ok(page.text.includes(`<img src="${quote.path}/logo" alt="Cooper Plumbing">`));
    const logo = await visitor().get(`${quote.path}/logo`);
    assert.deepEqual([logo.status, logo.headers['content-type']], [200, 'image/png']);
    assert.ok(logo.raw.equals(logoPng()));
    await api('DELETE', '/v1/account/logo');
  });

  test('an invoice shows the amount due and how to pay, and no answer form; paid, it says so', async () => {
    const invoice = (await api('POST', '/v1/invoices', { client_id: clientId, line_items: LINES })).body.data;
    const sent = (await api('POST', `/v1/invoices/${invoice.id}/send`)).body.data;
    await api('POST', '/v1/payments', { invoice_id: invoice.id, amount: 10_000, method: 'cash' });
    const path = new URL(sent.hosted_url).pathname;
    const page = (await visitor().get(path)).text;
    for (const text of ['Amount due', '$121.99', 'How to pay', 'IBAN DE89', 'Amount paid', '$100.00'])
      assert.ok(page.includes(text), text);
    assert.ok(!page.includes('<form'));
    await api('POST', '/v1/payments', { invoice_id: invoice.id, amount: 12_199, method: 'cash' });
    const paid = (await visitor().get(path)).text;
    assert.ok(paid.includes('>Paid<'));
    assert.ok(!paid.includes('How to pay'));
  });
});

describe('answering a quote', () => {
  test('approve: the typed name is stored as approved_by; one quote.approved event with data.source "hub"; the page confirms', async () => {
    const quote = await sentQuote();
    const client = visitor();
    const page = await client.get(quote.path);
    const [pair, ...attributes] = String(page.headers['set-cookie']).split('; ');
    assert.match(pair!, /^bms_hub_csrf=[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(attributes.sort(), ['HttpOnly', 'Path=/hub', 'SameSite=Strict', 'Secure']);
    const answered = await client.post(
      `${quote.path}/approve`,
      { ...formOf(page), name: '  Jane   Doe ' },
      { origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' },
    );
    assert.equal(answered.status, 303, answered.text);
    assert.equal(answered.headers.location, quote.path);
    const stored = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.deepEqual(
      [stored.status, stored.approved_by, stored.approved_at],
      ['approved', 'Jane Doe', clock.now().toISOString()],
    );
    const events = await eventsOf('quote.approved', quote.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data.source, 'hub');
    assert.equal(events[0]!.data.object.approved_by, 'Jane Doe');
    const after = (await client.get(quote.path)).text;
    assert.ok(after.includes('Thank you: the quote is approved'));
    assert.ok(after.includes('by Jane Doe'));
    assert.ok(!after.includes('<form'), 'no form once answered');
  });

  test('the day of an answer is printed in the account’s time zone and locale', async () => {
    // 10:00 UTC on 21 November is already 22 November at UTC+14.
    const profile = await api('PUT', '/v1/account', { timezone: 'Pacific/Kiritimati', locale: 'de-DE' });
    assert.equal(profile.status, 200, profile.text);
    try {
      const quote = await sentQuote();
      const client = visitor();
      const page = await client.get(quote.path);
      const answered = await client.post(
        `${quote.path}/approve`,
        { ...formOf(page), name: 'Jane Doe' },
        { origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' },
      );
      assert.equal(answered.status, 303, answered.text);
      const after = (await client.get(quote.path)).text;
      assert.ok(after.includes('Approved by Jane Doe on 22.11.2026.'), after.slice(0, 3000));
    } finally {
      await api('PUT', '/v1/account', { timezone: 'UTC', locale: 'en-US' });
    }
  });

  test('decline with a reason: declined, decline_reason stored, quote.declined with data.source "hub"', async () => {
    const quote = await sentQuote();
    const client = visitor();
    const page = await client.get(quote.path);
    const answered = await client.post(`${quote.path}/decline`, {
      ...formOf(page),
      reason: 'Too expensive for us.',
    });
    assert.equal(answered.status, 303, answered.text);
    const stored = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.deepEqual(
      [stored.status, stored.decline_reason, stored.approved_by],
      ['declined', 'Too expensive for us.', null],
    );
    const [event] = await eventsOf('quote.declined', quote.id);
    assert.equal(event?.data.source, 'hub');
    assert.ok((await client.get(quote.path)).text.includes('You declined this quote'));
  });

  test('an approval through the API has no source and no approved_by', async () => {
    const quote = await sentQuote();
    const approved = (await api('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' })).body.data;
    assert.equal(approved.approved_by, null);
    const [event] = await eventsOf('quote.approved', quote.id);
    assert.equal(event?.data.source, undefined);
  });

  test('CSRF: no cookie, a cookie that does not match, another site’s Origin or Sec-Fetch-Site: 403 and nothing changes', async () => {
    const quote = await sentQuote();
    const client = visitor();
    const { csrf, version } = formOf(await client.get(quote.path));
    const stranger = visitor();
    const attempts: Array<[string, ApiResponse]> = [
      ['no cookie', await stranger.post(`${quote.path}/approve`, { csrf, version, name: 'Mallory' })],
      ['no field', await client.post(`${quote.path}/approve`, { name: 'Mallory' })],
      ['another value', await client.post(`${quote.path}/approve`, { csrf: 'B'.repeat(43), name: 'Mallory' })],
      [
        'cross-site origin',
        await client.post(
          `${quote.path}/approve`,
          { csrf, version, name: 'Mallory' },
          { origin: 'https://evil.example' },
        ),
      ],
      [
        'cross-site fetch',
        await client.post(`${quote.path}/decline`, { csrf, version }, { 'sec-fetch-site': 'cross-site' }),
      ],
    ];
    for (const [name, response] of attempts) {
      assert.equal(response.status, 403, name);
      assert.match(response.text, /This form has expired/, name);
    }
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');
    assert.deepEqual(
      await eventsOf('quote.*', quote.id).then((events) => events.map((event) => (event as { type?: string }).type)),
      ['quote.sent', 'quote.created'],
    );
  });

  test('a missing name, one over 200 characters, or a NUL is refused on the page (422); the quote stays sent', async () => {
    const quote = await sentQuote();
    const client = visitor();
    const { csrf, version } = formOf(await client.get(quote.path));
    for (const name of ['', '   ', 'x'.repeat(201), 'Jane\u0000Doe']) {
      const response = await client.post(`${quote.path}/approve`, { csrf, version, name });
      assert.equal(response.status, 422, JSON.stringify(name));
      assert.match(response.text, /Your answer was not sent/);
      assert.match(response.text, /aria-invalid="true"/);
    }
    const long = await client.post(`${quote.path}/decline`, { csrf, version, reason: 'r'.repeat(2001) });
    assert.equal(long.status, 422);
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');
  });

  test('after valid_until the page says the quote expired and an approval is refused (409); declining still works', async () => {
    const quote = await sentQuote({ valid_until: '2026-11-20' });
    const client = visitor();
    const page = await client.get(quote.path);
    assert.ok(page.text.includes('Expired'));
    assert.ok(!page.text.includes('Approve quote'));
    const refused = await client.post(`${quote.path}/approve`, { ...formOf(page), name: 'Jane Doe' });
    assert.equal(refused.status, 409);
    assert.match(refused.text, /This quote has expired/);
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');
    assert.equal((await client.post(`${quote.path}/decline`, formOf(page))).status, 303);
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'declined');
  });

  test('twenty simultaneous approvals: approved once, by one name, with one event; the others see it answered', async () => {
    const quote = await sentQuote();
    const client = visitor();
    const { csrf, version } = formOf(await client.get(quote.path));
    const names = Array.from({ length: 20 }, (_, index) => `Clicker ${index}`);
    const responses = await Promise.all(
      names.map((name) => client.post(`${quote.path}/approve`, { csrf, version, name })),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 303).length, 1, statuses.join(','));
    assert.ok(
      statuses.every((status) => status === 303 || status === 409),
      statuses.join(','),
    );
    const stored = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.equal(stored.status, 'approved');
    assert.ok(names.includes(stored.approved_by));
    assert.equal((await eventsOf('quote.approved', quote.id)).length, 1);
  });
});

describe('a public page', () => {
  test('per IP: 60 requests at once, then 429 with Retry-After as a page; another address is served', async () => {
    const client = visitor();
    const statuses: number[] = [];
    for (let index = 0; index < 61; index++) statuses.push((await client.get('/hub/static/hub.css')).status);
    assert.deepEqual([statuses.slice(0, 60).every((status) => status === 200), statuses[60]], [true, 429]);
    const limited = await client.get('/hub/' + 'A'.repeat(43));
    assert.equal(limited.status, 429);
    assert.match(limited.text, /Too many requests/);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await visitor().get('/hub/static/hub.css')).status, 200);
  });

  test('no hub token reaches the log; the hub is not in the OpenAPI document', async () => {
    const quote = await sentQuote();
    await visitor().get(quote.path);
    const token = quote.path.slice('/hub/'.length);
    assert.ok(context.logs.some((line) => line.includes('"url":"/hub/[redacted]"')));
    assert.ok(!context.logs.some((line) => line.includes(token)), 'the token is not logged');
    const openapi = (await context.request('GET', '/v1/openapi.json')).body;
    assert.ok(!Object.keys(openapi.paths).some((path) => path.startsWith('/hub')));
    assert.ok(openapi.paths['/v1/quotes/{id}/hosted-link/rotate'].post);
  });
});

describe('a hub under a path, answers bound to the version shown, links bound to their recipient', () => {
  const suite = clientSuite('Hub');
  const api = (method: string, url: string, body?: unknown, key = suite.key) =>
    suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

  /** RFC 6265 §5.1.4: whether a browser sends a cookie of path `cookiePath` with a request for `requestPath`. */
  function pathMatches(cookiePath: string, requestPath: string): boolean {
    if (requestPath === cookiePath) return true;
    if (!requestPath.startsWith(cookiePath)) return false;
    return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
  }

  test('with PUBLIC_BASE_URL under a path (https://example.com/bms), the CSRF cookie is scoped to /bms/hub and approving works', async () => {
    const hub = await createTestContext({ env: { PUBLIC_BASE_URL: 'https://example.com/bms' } });
    try {
      const { key } = await hub.account();
      const client = await hub.request('POST', '/v1/clients', { key, body: { name: 'Path', email: 'p@example.com' } });
      const quote = await hub.request('POST', '/v1/quotes', {
        key,
        body: { client_id: client.body.data.id, line_items: [{ description: 'Work', quantity: 1, unit_amount: 500 }] },
      });
      const sent = await hub.request('POST', `/v1/quotes/${quote.body.data.id}/send`, { key });
      assert.equal(sent.status, 200, sent.text);
      const browserPath = new URL(sent.body.data.hosted_url).pathname;
      assert.match(browserPath, /^\/bms\/hub\/[A-Za-z0-9_-]{43}$/);
      // The proxy strips /bms: the server sees /hub/<token>; the browser sees /bms/hub/<token>.
      const serverPath = browserPath.slice('/bms'.length);
      const page = await hub.request('GET', serverPath);
      assert.equal(page.status, 200, page.text);
      const setCookie = String(page.headers['set-cookie']);
      const cookiePath = /; Path=([^;]+)/.exec(setCookie)?.[1] ?? '/';
      assert.equal(cookiePath, '/bms/hub');
      const approvePath = `${browserPath}/approve`;
      assert.match(page.text, new RegExp(`action="${approvePath}"`), 'the form posts to the browser path');
      // The browser sends the cookie with the approve only when its path matches.
      const cookie = pathMatches(cookiePath, approvePath) ? setCookie.split(';')[0]! : undefined;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
      const version = /name="version" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
      const answered = await hub.request('POST', `${serverPath}/approve`, {
        rawBody: new URLSearchParams({ csrf, version, name: 'Jane Doe' }).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
          ...(cookie ? { cookie } : {}),
        },
      });
      assert.equal(answered.status, 303, answered.text);
      assert.equal(answered.headers.location, browserPath);
      const stored = await hub.request('GET', `/v1/quotes/${quote.body.data.id}`, { key });
      assert.equal(stored.body.data.status, 'approved');
    } finally {
      await hub.close();
    }
  });

  /** The hub page of a hosted URL, with what its forms carry and the cookie the browser would send back. */
  async function openPage(hostedUrl: string) {
    const path = new URL(hostedUrl).pathname;
    const page = await suite.context.request('GET', path);
    assert.equal(page.status, 200, page.text);
    return {
      path,
      page,
      csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '',
      version: /name="version" value="([^"]+)"/.exec(page.text)?.[1] ?? '',
      cookie: String(page.headers['set-cookie']).split(';')[0]!,
    };
  }
  const post = (opened: { path: string; cookie: string }, action: string, form: Record<string, string>) =>
    suite.context.request('POST', `${opened.path}/${action}`, {
      rawBody: new URLSearchParams(form).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        cookie: opened.cookie,
      },
    });

  async function sentQuote(unitAmount: number) {
    const quote = await api('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Roof repair', quantity: 1, unit_amount: unitAmount }],
    });
    assert.equal(quote.status, 201, quote.text);
    const sent = await api('POST', `/v1/quotes/${quote.body.data.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    return sent.body.data as { id: string; hosted_url: string };
  }

  test('approving or declining another version of a quote than the page showed is 409 and shows the new page', async () => {
    const quote = await sentQuote(50_000);
    const opened = await openPage(quote.hosted_url);
    assert.match(opened.version, /^[A-Za-z0-9_-]{22}$/, 'the page carries the version it shows');
    assert.match(opened.page.text, /\$500\.00/);

    // The business raises the total after the page was loaded.
    const raised = await api('PUT', `/v1/quotes/${quote.id}`, {
      line_items: [{ description: 'Roof repair', quantity: 1, unit_amount: 90_000 }],
    });
    assert.equal(raised.status, 200, raised.text);
    for (const action of ['approve', 'decline']) {
      const stale = await post(opened, action, { csrf: opened.csrf, version: opened.version, name: 'Jane Doe' });
      assert.equal(stale.status, 409, `${action}: ${stale.text}`);
      assert.match(stale.text, /This quote has changed/);
      assert.match(stale.text, /\$900\.00/, 'the new page shows the new total');
      const newVersion = /name="version" value="([^"]+)"/.exec(stale.text)?.[1];
      assert.ok(newVersion && newVersion !== opened.version, 'the new page carries the new version');
    }
    // No version at all (a page from before versions, or a forged form) is not the version shown either.
    assert.equal((await post(opened, 'approve', { csrf: opened.csrf, name: 'Jane Doe' })).status, 409);
    assert.equal((await api('GET', `/v1/quotes/${quote.id}`)).body.data.status, 'sent');

    // A change the client does not see (metadata) is the same version; the answer to the shown one is taken.
    assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { metadata: { crm: '7' } })).status, 200);
    const current = await openPage(quote.hosted_url);
    assert.equal((await api('PUT', `/v1/quotes/${quote.id}`, { metadata: { crm: '8' } })).status, 200);
    const approved = await post(current, 'approve', { csrf: current.csrf, version: current.version, name: 'Jane Doe' });
    assert.equal(approved.status, 303, approved.text);
    const stored = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.deepEqual([stored.status, stored.total_amount], ['approved', 90_000]);
  });

  const hubStatus = async (hostedUrl: string) =>
    (await suite.context.request('GET', new URL(hostedUrl).pathname)).status;
  const newClient = async (name: string, email: string) =>
    (await api('POST', '/v1/clients', { name, email })).body.data.id as string;

  test('a change of client or recipient ends the old hub link', async () => {
    const alice = await newClient('Alice', 'alice@example.com');
    const bob = await newClient('Bob', 'bob@example.com');
    const created = await api('POST', '/v1/quotes', {
      client_id: alice,
      line_items: [{ description: 'Fence', quantity: 1, unit_amount: 10_000 }],
    });
    const id = created.body.data.id;
    const toAlice = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.equal(await hubStatus(toAlice), 200);
    // A re-send to the same client and address keeps the link, as the e-mail that carried it.
    assert.equal((await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url, toAlice);

    // The issue's case: back to draft, another client, sent again: Alice's link no longer opens it.
    assert.equal((await api('PUT', `/v1/quotes/${id}`, { status: 'draft' })).status, 200);
    assert.equal((await api('PUT', `/v1/quotes/${id}`, { client_id: bob })).status, 200);
    const toBob = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.notEqual(toBob, toAlice);
    assert.equal(await hubStatus(toAlice), 404);
    assert.equal(await hubStatus(toBob), 200);

    // A sent quote moved to another client: the link ends at the change, not at the next send.
    const moved = await api('PUT', `/v1/quotes/${id}`, { client_id: alice });
    assert.equal(moved.status, 200, moved.text);
    assert.notEqual(moved.body.data.hosted_url, toBob);
    assert.equal(await hubStatus(toBob), 404);
    const again = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.equal(again, moved.body.data.hosted_url, 'the new link is the one sent');

    // The same client at another address (the recipient changed): the next send makes a new link.
    assert.equal((await api('PUT', `/v1/clients/${alice}`, { email: 'alice@new.example.com' })).status, 200);
    const toNewAddress = (await api('POST', `/v1/quotes/${id}/send`)).body.data.hosted_url;
    assert.notEqual(toNewAddress, again);
    assert.equal(await hubStatus(again), 404);
    assert.equal(await hubStatus(toNewAddress), 200);

    // Invoices alike.
    const invoice = await api('POST', '/v1/invoices', {
      client_id: bob,
      line_items: [{ description: 'Fence', quantity: 1, unit_amount: 10_000 }],
    });
    const invoiceLink = (await api('POST', `/v1/invoices/${invoice.body.data.id}/send`)).body.data.hosted_url;
    const movedInvoice = await api('PUT', `/v1/invoices/${invoice.body.data.id}`, { client_id: alice });
    assert.equal(movedInvoice.status, 200, movedInvoice.text);
    assert.equal(await hubStatus(invoiceLink), 404);
    assert.equal(await hubStatus(movedInvoice.body.data.hosted_url), 200);
  });
});
