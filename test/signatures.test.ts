// Contract section 30, signatures of hub approval: an approval on the hub records who signed, when and from where,
// bound to the SHA-256 of the quote's signed content (its RFC 8785 canonical JSON of the twelve fields §32
// names), answered by …/signatures and …/document as the exact bytes hashed; a form whose hash differs from the
// quote's gets the 409 page and signs nothing; approved → draft invalidates the signature ("revised"), and a
// converted quote cannot go back (409); the approved quote's PDF prints the signer, the time and 16 hex digits.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';
import { pdfText } from './helpers/smtp.js';

let context: TestContext;
let key: string;
let clientId: string;
const LINES = [{ description: 'Gutter cleaning', quantity: 2, unit_amount: 6000, tax_rate: 10 }];

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** The test's own RFC 8785 writer for the values an API answer holds (strings, integers, null, arrays, objects). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonical((value as Record<string, unknown>)[name])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The twelve fields of a quote's signed content (contract §32), from its API answer. */
function signedContentOf(quote: Record<string, unknown>) {
  const fields = [
    'number',
    'client_id',
    'property_id',
    'title',
    'currency',
    'line_items',
    'subtotal_amount',
    'discount_amount',
    'tax_amount',
    'total_amount',
    'notes',
    'valid_until',
  ];
  return Object.fromEntries(fields.map((field) => [field, quote[field]]));
}

function visitor() {
  let cookie: string | undefined;
  return {
    async get(path: string) {
      const response = await context.request('GET', path, { headers: cookie ? { cookie } : {} });
      const set = response.headers['set-cookie'];
      if (typeof set === 'string') cookie = set.split(';')[0];
      return response;
    },
    post(path: string, form: Record<string, string>) {
      return context.request('POST', path, {
        rawBody: new URLSearchParams(form).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'Mozilla/5.0 (signature test)',
          ...(cookie ? { cookie } : {}),
        },
      });
    },
  };
}

function formOf(page: ApiResponse) {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1] ?? '';
  return { csrf: field('csrf'), version: field('version'), document_sha256: field('document_sha256') };
}

async function api(method: string, url: string, body?: unknown) {
  return context.request(method, url, { key, body });
}

async function sentQuote(title: string) {
  const quote = await api('POST', '/v1/quotes', {
    client_id: clientId,
    title,
    line_items: LINES,
    notes: 'Ladder needed',
  });
  assert.equal(quote.status, 201, quote.text);
  const sent = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status: 'sent' });
  assert.equal(sent.status, 200, sent.text);
  return { id: quote.body.data.id as string, path: new URL(sent.body.data.hosted_url).pathname };
}

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account('Cooper Plumbing'));
  clientId = (await api('POST', '/v1/clients', { name: 'Jane Doe', email: 'jane@example.com' })).body.data.id;
});
after(() => context.close());

test('an approval signs the canonical JSON the page showed; the document answers those bytes', async () => {
  const quote = await sentQuote('Gutters');
  const before = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  const expected = canonical(signedContentOf(before));
  assert.deepEqual(Object.keys(JSON.parse(expected)), [
    'client_id',
    'currency',
    'discount_amount',
    'line_items',
    'notes',
    'number',
    'property_id',
    'subtotal_amount',
    'tax_amount',
    'title',
    'total_amount',
    'valid_until',
  ]);
  const client = visitor();
  const page = await client.get(quote.path);
  const form = formOf(page);
  assert.equal(form.document_sha256, sha256(expected), 'the form carries the hash of the signed content');
  assert.match(page.text, new RegExp(sha256(expected).slice(0, 16)), 'the page shows it');
  const answer = await client.post(`${quote.path}/approve`, { ...form, name: 'Jane Doe' });
  assert.equal(answer.status, 303, answer.text);

  const approved = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  assert.equal(approved.status, 'approved');
  assert.equal(approved.signature.object, 'signature');
  assert.equal(approved.signature.signer_name, 'Jane Doe');
  assert.equal(approved.signature.document_sha256, sha256(expected));
  assert.equal(approved.signature.user_agent, 'Mozilla/5.0 (signature test)');
  assert.equal(approved.signature.ip_address, '127.0.0.1');
  assert.equal(approved.signature.invalidated_at, null);
  assert.equal(approved.signature.image_attachment_id, null);
  assert.equal(approved.signature.signed_at, approved.approved_at);

  const events = (await api('GET', `/v1/events?type=quote.approved&resource_id=${quote.id}`)).body.data;
  assert.equal(events[0].data.object.signature.id, approved.signature.id, 'quote.approved carries the signature');

  const listed = await api('GET', `/v1/quotes/${quote.id}/signatures`);
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.data, [approved.signature]);
  const document = await api('GET', `/v1/quotes/${quote.id}/signatures/${approved.signature.id}/document`);
  assert.equal(document.status, 200);
  assert.equal(document.raw.toString('utf8'), expected, 'the exact bytes hashed');
  assert.equal(sha256(document.raw), approved.signature.document_sha256);

  // The approved quote's PDF prints who signed, when, and 16 hex digits of the hash.
  const pdf = await api('GET', `/v1/quotes/${quote.id}/pdf`);
  const text = await pdfText(pdf.raw);
  assert.match(text, /Jane Doe/);
  assert.match(text, new RegExp(sha256(expected).slice(0, 16)));
  assert.match(text, new RegExp(approved.approved_at.slice(0, 10)));
});

test('a form whose hash differs from the quote’s gets the 409 page and signs nothing', async () => {
  const quote = await sentQuote('Roof');
  const client = visitor();
  const form = formOf(await client.get(quote.path));
  const tampered = await client.post(`${quote.path}/approve`, {
    ...form,
    document_sha256: '0'.repeat(64),
    name: 'Jane Doe',
  });
  assert.equal(tampered.status, 409);
  assert.match(tampered.text, /This quote has changed/);
  // Changed after the page was opened: the hash (and version) it showed are stale.
  await api('PUT', `/v1/quotes/${quote.id}`, { notes: 'Two ladders needed' });
  const stale = await client.post(`${quote.path}/approve`, { ...form, name: 'Jane Doe' });
  assert.equal(stale.status, 409);
  assert.match(stale.text, /This quote has changed/);
  const after = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  assert.equal(after.status, 'sent');
  assert.equal(after.signature, null);
  assert.deepEqual((await api('GET', `/v1/quotes/${quote.id}/signatures`)).body.data, []);
});

test('approved → draft invalidates the signature ("revised"); signed again it binds the new content', async () => {
  const quote = await sentQuote('Fence');
  const client = visitor();
  await client.post(`${quote.path}/approve`, { ...formOf(await client.get(quote.path)), name: 'Jane Doe' });
  const revised = await api('PUT', `/v1/quotes/${quote.id}`, { status: 'draft' });
  assert.equal(revised.status, 200, revised.text);
  assert.equal(revised.body.data.status, 'draft');
  assert.equal(revised.body.data.approved_at, null);
  assert.equal(revised.body.data.approved_by, null);
  assert.equal(revised.body.data.signature.invalidated_reason, 'revised');
  assert.ok(revised.body.data.signature.invalidated_at);
  const updated = (await api('GET', `/v1/events?type=quote.updated&resource_id=${quote.id}`)).body.data;
  assert.equal(updated[0].data.previous_attributes.status, 'approved');

  await api('PUT', `/v1/quotes/${quote.id}`, { notes: 'Cedar, not pine', status: 'sent' });
  const again = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  const page = await client.get(quote.path);
  const form = formOf(page);
  assert.equal(form.document_sha256, sha256(canonical(signedContentOf(again))));
  assert.equal((await client.post(`${quote.path}/approve`, { ...form, name: 'Jane Doe' })).status, 303);
  const signatures = (await api('GET', `/v1/quotes/${quote.id}/signatures`)).body.data;
  assert.equal(signatures.length, 2);
  assert.equal(signatures[0].invalidated_reason, 'revised');
  assert.equal(signatures[1].invalidated_at, null);
  assert.equal(signatures[1].document_sha256, form.document_sha256);
  assert.notEqual(signatures[0].document_sha256, signatures[1].document_sha256);

  // Once converted, the quote cannot go back to draft.
  const job = await api('POST', '/v1/jobs', { quote_id: quote.id });
  assert.equal(job.status, 201, job.text);
  const refused = await api('PUT', `/v1/quotes/${quote.id}`, { status: 'draft' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'INVALID_STATE');
});
