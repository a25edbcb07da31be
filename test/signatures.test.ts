// Contract section 30, signatures of hub approval: an approval on the hub records who signed, when and from where,
// bound to the SHA-256 of the quote's signed content (its RFC 8785 canonical JSON of the twelve fields §32
// names), answered by …/signatures and …/document as the exact bytes hashed; a form whose hash differs from the
// quote's gets the 409 page and signs nothing; approved → draft invalidates the signature ("revised"), and a
// converted quote cannot go back (409); the approved quote's PDF prints the signer, the time and 16 hex digits.
// A drawn signature (the account's quote_signature: drawn) is checked, stored and drawn on the PDF (below).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';
import { jpegFixture, png, rgbaPng } from './helpers/images.js';
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

// Drawn signatures (contract §30, §32): with the account's `quote_signature: drawn` the approve form carries the
// page's pad as a PNG data URL in `signature_image`: a PNG (by its bytes) of at most 256 KB and 2,000 × 1,000
// pixels, not blank, stored as the quote's attachment of kind signature with the approval; each refusal a 422
// naming the field, with nothing stored.

/** A drawing as a canvas makes it: 8-bit RGBA, transparent, with a dark stroke across. */
function drawingPng(width = 600, height = 200): Buffer {
  return rgbaPng(width, height, (x, y) =>
    Math.abs(y - (height / 2 + Math.round((height / 4) * Math.sin(x / 40)))) < 3 ? [31, 41, 55, 255] : [0, 0, 0, 0],
  );
}

/** Pixels no compressor shrinks (a fixed sequence): a PNG larger than 256 KB within 2,000 × 1,000. */
function noisePng(width: number, height: number): Buffer {
  let seed = 2463534242;
  const next = () => {
    // xorshift32
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  return png(width, height, () => [next() & 255, next() & 255, next() & 255]);
}

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

test('quote_signature is typed unless set to drawn; another value is 422 on the field', async () => {
  const { key: own } = await context.account('Signature Settings Ltd');
  const account = await context.request('GET', '/v1/account', { key: own });
  assert.equal(account.body.data.quote_signature, 'typed');
  const drawn = await context.request('PUT', '/v1/account', { key: own, body: { quote_signature: 'drawn' } });
  assert.equal(drawn.status, 200, drawn.text);
  assert.equal(drawn.body.data.quote_signature, 'drawn');
  const refused = await context.request('PUT', '/v1/account', { key: own, body: { quote_signature: 'scribbled' } });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
  assert.equal(refused.body.error.details[0].field, 'quote_signature');
});

test('a drawn signature is checked, stored as the quote’s signature attachment and drawn on its PDF', async () => {
  await api('PUT', '/v1/account', { quote_signature: 'drawn' });
  try {
    const quote = await sentQuote('Chimney');
    const client = visitor();
    const page = await client.get(quote.path);
    // The pad's page: one script, by the nonce its policy names, and no handler attribute.
    const policy = String(page.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
    assert.ok(nonce, policy);
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
    const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
    assert.deepEqual(scripts, [` nonce="${nonce}"`]);
    assert.doesNotMatch(page.text, /\son[a-z]+\s*=/i, 'no inline event handler');
    assert.match(page.text, /<canvas id="signature-canvas" width="600" height="200"/);
    assert.match(page.text, /<noscript>/);
    const form = formOf(page);

    const refusals: Array<[string, string | undefined, RegExp]> = [
      ['nothing drawn (no JavaScript)', undefined, /Draw your signature in the box to approve/],
      ['a JPEG', dataUrl('image/png', jpegFixture()), /must be a PNG image; this is image\/jpeg/],
      [
        'an HTML file',
        dataUrl('image/png', Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>')),
        /must be a PNG image; this is an HTML page/,
      ],
      [
        'a blank PNG',
        dataUrl(
          'image/png',
          png(600, 200, () => [255, 255, 255]),
        ),
        /The signature is blank/,
      ],
      [
        'a transparent PNG',
        dataUrl(
          'image/png',
          rgbaPng(600, 200, () => [0, 0, 0, 0]),
        ),
        /The signature is blank/,
      ],
      [
        'a 3000 × 100 PNG',
        dataUrl('image/png', drawingPng(3000, 100)),
        /is 3,000 × 100 pixels; it must be at most 2,000 × 1,000/,
      ],
      ['a PNG over 256 KB', dataUrl('image/png', noisePng(400, 300)), /at most 262,144/],
      ['not a data URL', 'https://example.com/signature.png', /as a data URL/],
    ];
    assert.ok(noisePng(400, 300).length > 262_144, 'the large PNG is over 256 KB');
    for (const [what, image, message] of refusals) {
      const refused = await client.post(`${quote.path}/approve`, {
        ...form,
        name: 'Jane Doe',
        ...(image === undefined ? {} : { signature_image: image }),
      });
      assert.equal(refused.status, 422, `${what}: ${refused.status}`);
      assert.match(refused.text, /data-field="signature_image"/, what);
      assert.match(refused.text, message, what);
      assert.match(refused.text, /value="Jane Doe"/, `${what}: the name typed is kept`);
    }
    const untouched = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.equal(untouched.status, 'sent');
    assert.equal(untouched.signature, null);
    assert.deepEqual((await api('GET', `/v1/attachments?parent_type=quote&parent_id=${quote.id}`)).body.data, []);
    assert.equal((await api('GET', '/v1/account')).body.data.attachment_storage.used_bytes, 0, 'nothing stored');

    const drawing = drawingPng();
    const approved = await client.post(`${quote.path}/approve`, {
      ...form,
      name: 'Jane Doe',
      signature_image: dataUrl('image/png', drawing),
    });
    assert.equal(approved.status, 303, approved.text);
    const signed = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
    assert.equal(signed.status, 'approved');
    assert.equal(signed.signature.signer_name, 'Jane Doe');
    assert.equal(signed.signature.document_sha256, sha256(canonical(signedContentOf(signed))));
    assert.equal(signed.signature.document_sha256, form.document_sha256);
    const imageId = signed.signature.image_attachment_id;
    assert.ok(imageId, 'the signature names its image');
    const attachment = (await api('GET', `/v1/attachments/${imageId}`)).body.data;
    assert.equal(attachment.kind, 'signature');
    assert.equal(attachment.parent_type, 'quote');
    assert.equal(attachment.parent_id, quote.id);
    assert.equal(attachment.content_type, 'image/png');
    assert.equal(attachment.visible_on_hub, false);
    assert.equal(attachment.size_bytes, drawing.length);
    assert.equal(attachment.sha256, sha256(drawing));
    const content = await api('GET', `/v1/attachments/${imageId}/content`);
    assert.ok(content.raw.equals(drawing), 'the bytes drawn are the bytes stored');
    const created = (await api('GET', `/v1/events?type=attachment.created&resource_id=${imageId}`)).body.data;
    assert.equal(created.length, 1);
    assert.equal(created[0].data.object.kind, 'signature');
    // It stays with the quote: never deleted alone.
    const removed = await api('DELETE', `/v1/attachments/${imageId}`);
    assert.equal(removed.status, 409);
    assert.equal(removed.body.error.code, 'INVALID_STATE');

    // The PDF draws the image (an image XObject with its soft mask) beside the typed text.
    const pdf = await api('GET', `/v1/quotes/${quote.id}/pdf`);
    assert.equal(pdf.status, 200);
    assert.match(pdf.raw.toString('latin1'), /\/Subtype \/Image/);
    assert.match(pdf.raw.toString('latin1'), /\/SMask/);
    assert.match(await pdfText(pdf.raw), new RegExp(signed.signature.document_sha256.slice(0, 16)));

    // approved → draft invalidates it as a typed one; the image stays, the PDF no longer draws it.
    const revised = await api('PUT', `/v1/quotes/${quote.id}`, { status: 'draft' });
    assert.equal(revised.status, 200, revised.text);
    assert.equal(revised.body.data.signature.invalidated_reason, 'revised');
    assert.equal(revised.body.data.signature.image_attachment_id, imageId);
    const draftPdf = await api('GET', `/v1/quotes/${quote.id}/pdf`);
    assert.doesNotMatch(draftPdf.raw.toString('latin1'), /\/Subtype \/Image/);
    assert.equal((await api('GET', `/v1/attachments/${imageId}`)).status, 200);
  } finally {
    await api('PUT', '/v1/account', { quote_signature: 'typed' });
  }
});

test('a typed account’s page runs no script and ignores a signature_image', async () => {
  const quote = await sentQuote('Porch');
  const client = visitor();
  const page = await client.get(quote.path);
  assert.doesNotMatch(String(page.headers['content-security-policy']), /script-src/);
  assert.doesNotMatch(page.text, /<script|<canvas/);
  const answer = await client.post(`${quote.path}/approve`, {
    ...formOf(page),
    name: 'Jane Doe',
    signature_image: dataUrl('image/png', drawingPng()),
  });
  assert.equal(answer.status, 303, answer.text);
  const approved = (await api('GET', `/v1/quotes/${quote.id}`)).body.data;
  assert.equal(approved.signature.image_attachment_id, null);
  assert.deepEqual((await api('GET', `/v1/attachments?parent_type=quote&parent_id=${quote.id}`)).body.data, []);
});
