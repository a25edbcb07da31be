// Credit notes (contract §22, §32): the status table written out here, lines or an amount (1,000 against lines of
// gross 11,000 and 5,000 gives 688 and 312), the cap, issuing with its number and the application of
// min(total, amount_due), void releasing applications, apply / unapply / refund, the ledger's entries, and the
// scope of every endpoint. Figures are the contract's, stated literally.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pdfText } from './helpers/smtp.js';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Credit notes');

const request = (method: string, path: string, body?: unknown, key = suite.key) =>
  suite.context.request(method, path, { key, ...(body === undefined ? {} : { body }) });
async function ok(method: string, path: string, body?: unknown, status = 200) {
  const response = await request(method, path, body);
  assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
  return response.body.data;
}

async function newClient(name: string): Promise<string> {
  return (await ok('POST', '/v1/clients', { name, email: 'credit@example.com' }, 201)).id;
}

/** A sent invoice with the given lines. */
async function sentInvoice(
  clientId: string,
  lines: unknown[],
): Promise<{ id: string; total_amount: number; number: string }> {
  const created = await ok('POST', '/v1/invoices', { client_id: clientId, line_items: lines }, 201);
  return ok('PUT', `/v1/invoices/${created.id}`, { status: 'sent' });
}

let gst: string;
/** Lines of gross 11,000 (10,000 + 10% tax) and 5,000 (tax-free): the contract's worked example. */
const workedLines = () => [
  { description: 'Tiling', quantity: 1, unit_amount: 10_000, tax_rate_ids: [gst] },
  { description: 'Grout', quantity: 1, unit_amount: 5_000, tax_rate_ids: [] },
];

async function entriesOf(query: string) {
  return (await ok('GET', `/v1/ledger-entries?${query}&sort=sequence&limit=100`)).map(
    (entry: { type: string; amount: number; applied_amount: number }) => [
      entry.type,
      entry.amount,
      entry.applied_amount,
    ],
  );
}

describe('lines or an amount (§22)', () => {
  test('1,000 against lines of gross 11,000 and 5,000 is 688 and 312, tax included, total exactly 1,000', async () => {
    gst = (await ok('POST', '/v1/tax-rates', { name: 'GST', percentage: 10 }, 201)).id;
    const clientId = await newClient('Worked example');
    const invoice = await sentInvoice(clientId, workedLines());
    assert.equal(invoice.total_amount, 16_000);
    const note = await ok(
      'POST',
      '/v1/credit-notes',
      { invoice_id: invoice.id, amount: 1_000, reason: 'Chipped' },
      201,
    );
    assert.deepEqual(
      note.line_items.map(
        (line: { description: string; quantity: number; unit_amount: number; tax_rate_ids: string[] }) => [
          line.description,
          line.quantity,
          line.unit_amount,
          line.tax_rate_ids,
        ],
      ),
      [
        ['Tiling', 1, 688, [gst]],
        ['Grout', 1, 312, []],
      ],
    );
    assert.deepEqual(
      [
        note.prices_include_tax,
        note.total_amount,
        note.client_id,
        note.currency,
        note.status,
        note.number,
        note.amount,
      ],
      [true, 1_000, clientId, 'USD', 'draft', null, 1_000],
    );
    // 688 tax-included at 10%: net 625, tax 63 (§19.4).
    assert.deepEqual([note.subtotal_amount, note.tax_amount], [937, 63]);
    assert.equal(note.subtotal_amount + note.tax_amount, note.total_amount);
  });

  test('without an invoice: one line, the reason (else "Credit"), with tax_rate_ids', async () => {
    const clientId = await newClient('No invoice');
    const plain = await ok(
      'POST',
      '/v1/credit-notes',
      { client_id: clientId, amount: 2_200, tax_rate_ids: [gst] },
      201,
    );
    assert.deepEqual(
      plain.line_items.map((line: { description: string; unit_amount: number }) => [
        line.description,
        line.unit_amount,
      ]),
      [['Credit', 2_200]],
    );
    assert.deepEqual([plain.total_amount, plain.tax_amount, plain.invoice_id], [2_200, 200, null]);
    const reasoned = await ok(
      'POST',
      '/v1/credit-notes',
      { client_id: clientId, amount: 500, reason: 'Goodwill' },
      201,
    );
    assert.equal(reasoned.line_items[0].description, 'Goodwill');
    const lines = await ok(
      'POST',
      '/v1/credit-notes',
      { client_id: clientId, line_items: [{ description: 'Returned part', quantity: 2, unit_amount: 1_250 }] },
      201,
    );
    assert.deepEqual([lines.total_amount, lines.amount], [2_500, null]);
  });

  test('exactly one of lines and amount; tax_rate_ids only for an amount without an invoice; client required', async () => {
    const clientId = await newClient('Forms');
    const invoice = await sentInvoice(clientId, workedLines());
    for (const [body, field] of [
      [{ client_id: clientId }, 'amount'],
      [
        { client_id: clientId, amount: 100, line_items: [{ description: 'x', quantity: 1, unit_amount: 100 }] },
        'amount',
      ],
      [{ invoice_id: invoice.id, amount: 100, tax_rate_ids: [gst] }, 'tax_rate_ids'],
      [{ amount: 100 }, 'client_id'],
    ] as const) {
      const response = await request('POST', '/v1/credit-notes', body);
      assert.equal(response.status, 422, response.text);
      assert.ok(
        response.body.error.details.some((detail: { field: string }) => detail.field === field),
        `${JSON.stringify(body)}: ${response.text}`,
      );
    }
  });

  test('the invoice must be sent or paid (§32); a draft or void one is 409', async () => {
    const clientId = await newClient('Invoice states');
    const draft = await ok('POST', '/v1/invoices', { client_id: clientId, line_items: workedLines() }, 201);
    const refusedDraft = await request('POST', '/v1/credit-notes', { invoice_id: draft.id, amount: 100 });
    assert.equal(refusedDraft.status, 409, refusedDraft.text);
    const voided = await sentInvoice(clientId, workedLines());
    await ok('PUT', `/v1/invoices/${voided.id}`, { status: 'void' });
    assert.equal((await request('POST', '/v1/credit-notes', { invoice_id: voided.id, amount: 100 })).status, 409);
    const paid = await sentInvoice(clientId, workedLines());
    await ok('PUT', `/v1/invoices/${paid.id}`, { status: 'paid' });
    await ok('POST', '/v1/credit-notes', { invoice_id: paid.id, amount: 100 }, 201);
  });
});

describe('the cap (§22)', () => {
  test("an invoice's credit notes that are not void total at most its total: 422 at create, update and issue", async () => {
    const clientId = await newClient('Cap');
    const invoice = await sentInvoice(clientId, workedLines());
    const full = await ok('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 16_000 }, 201);
    const over = await request('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1 });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.error.details[0].field, 'amount');
    const small = await ok('PUT', `/v1/credit-notes/${full.id}`, { amount: 15_000 });
    assert.equal(small.total_amount, 15_000);
    const second = await ok('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1_000 }, 201);
    const tooBig = await request('PUT', `/v1/credit-notes/${second.id}`, { amount: 1_001 });
    assert.equal(tooBig.status, 422, tooBig.text);
    // A void note no longer counts.
    await ok('PUT', `/v1/credit-notes/${full.id}`, { status: 'issued' });
    await ok('PUT', `/v1/credit-notes/${full.id}`, { status: 'void' });
    await ok('PUT', `/v1/credit-notes/${second.id}`, { amount: 16_000 });
  });
});

describe('statuses (§22): draft → issued → void', () => {
  // Contract §22, literally: the moves PUT may make, where fields change, where delete is allowed.
  const TRANSITIONS: Record<string, string[]> = { draft: ['issued'], issued: ['void'], void: [] };

  async function noteIn(status: string): Promise<string> {
    const clientId = await newClient(`Status ${status}`);
    const note = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 700 }, 201);
    if (status !== 'draft') await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    if (status === 'void') await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'void' });
    return note.id;
  }

  for (const [from, allowed] of Object.entries(TRANSITIONS))
    for (const to of Object.keys(TRANSITIONS)) {
      const permitted = from === to || allowed.includes(to);
      test(`${from} -> ${to}: ${permitted ? 'allowed' : '409 INVALID_STATE'}`, async () => {
        const id = await noteIn(from);
        const response = await request('PUT', `/v1/credit-notes/${id}`, { status: to });
        assert.equal(response.status, permitted ? 200 : 409, response.text);
        if (!permitted) assert.equal(response.body.error.code, 'INVALID_STATE');
      });
    }

  test('fields change in draft only; an issued note takes metadata; delete is draft only', async () => {
    for (const [status, reasonEdit, metadataEdit, deletable] of [
      ['draft', 200, 200, 200],
      ['issued', 409, 200, 409],
      ['void', 409, 409, 409],
    ] as const) {
      const id = await noteIn(status);
      assert.equal((await request('PUT', `/v1/credit-notes/${id}`, { reason: 'Edited' })).status, reasonEdit, status);
      assert.equal(
        (await request('PUT', `/v1/credit-notes/${id}`, { metadata: { ref: 'A1' } })).status,
        metadataEdit,
        status,
      );
      assert.equal((await request('DELETE', `/v1/credit-notes/${id}`)).status, deletable, status);
    }
  });

  test('issuing numbers it CN-… from its own sequence, dates it, and posts credit_note_issued (−total)', async () => {
    const clientId = await newClient('Numbering');
    const note = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 900 }, 201);
    const issued = await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.match(issued.number, /^CN-\d{6}$/);
    assert.ok(issued.issue_date && issued.issued_at);
    assert.deepEqual([issued.amount_applied, issued.amount_remaining], [0, 900]);
    assert.deepEqual(await entriesOf(`credit_note_id=${note.id}`), [['credit_note_issued', -900, 0]]);
    const balance = await ok('GET', `/v1/clients/${clientId}/balance`);
    assert.deepEqual(balance.balances, [
      { currency: 'USD', receivable_amount: 0, credit_amount: 900, balance_amount: -900 },
    ]);
    const next = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 100 }, 201);
    const nextIssued = await ok('PUT', `/v1/credit-notes/${next.id}`, { status: 'issued' });
    assert.equal(Number(nextIssued.number.slice(3)), Number(issued.number.slice(3)) + 1);
  });
});

describe('money of an issued note (§22 "Apply", "Refund")', () => {
  test('issue applies min(total, amount_due) to a sent invoice; void releases it and the invoice owes again', async () => {
    const clientId = await newClient('Auto-apply');
    const invoice = await sentInvoice(clientId, workedLines());
    await ok('POST', '/v1/payments', { invoice_id: invoice.id, amount: 15_500, method: 'cash' }, 201);
    const note = await ok('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1_000 }, 201);
    const issued = await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.deepEqual([issued.amount_applied, issued.amount_remaining], [500, 500]);
    let current = await ok('GET', `/v1/invoices/${invoice.id}`);
    assert.deepEqual(
      [current.status, current.amount_paid, current.amount_credited, current.amount_due],
      ['paid', 15_500, 500, 0],
    );
    assert.deepEqual(
      current.applications.map((row: { source: { type: string }; amount: number }) => [row.source.type, row.amount]),
      [
        ['payment', 15_500],
        ['credit_note', 500],
      ],
    );
    const voided = await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'void' });
    assert.deepEqual([voided.status, voided.amount_applied, voided.amount_remaining], ['void', 0, 0]);
    current = await ok('GET', `/v1/invoices/${invoice.id}`);
    assert.deepEqual([current.status, current.amount_credited, current.amount_due], ['sent', 0, 500]);
    assert.deepEqual(await entriesOf(`credit_note_id=${note.id}`), [
      ['credit_note_issued', -1_000, 0],
      ['applied', 0, 500],
      ['unapplied', 0, -500],
      ['credit_note_voided', 1_000, 0],
    ]);
    const balance = await ok('GET', `/v1/clients/${clientId}/balance`);
    assert.deepEqual(balance.balances, [
      { currency: 'USD', receivable_amount: 500, credit_amount: 0, balance_amount: 500 },
    ]);
  });

  test("an invoice's void releases the note's application: credit_note.unapplied, and the note's credit remains", async () => {
    const clientId = await newClient('Void releases');
    const invoice = await sentInvoice(clientId, workedLines());
    const note = await ok('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1_000 }, 201);
    const issued = await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.deepEqual([issued.amount_applied, issued.amount_remaining], [1_000, 0]);
    await ok('PUT', `/v1/invoices/${invoice.id}`, { status: 'void' });
    const after = await ok('GET', `/v1/credit-notes/${note.id}`);
    assert.deepEqual([after.status, after.amount_applied, after.amount_remaining], ['issued', 0, 1_000]);
    const events = (await ok('GET', `/v1/events?type=credit_note.unapplied&resource_id=${note.id}`)) as Array<{
      data: { object: { amount_remaining: number }; previous_attributes: { amount_remaining: number } };
    }>;
    assert.equal(events.length, 1);
    assert.deepEqual(
      [events[0]!.data.object.amount_remaining, events[0]!.data.previous_attributes.amount_remaining],
      [1_000, 0],
    );
    const balance = await ok('GET', `/v1/clients/${clientId}/balance`);
    assert.deepEqual(balance.balances, [
      { currency: 'USD', receivable_amount: 0, credit_amount: 1_000, balance_amount: -1_000 },
    ]);
  });

  test('apply_on_issue false keeps the credit; apply, unapply (409 the second time), refund, and void after a refund is 409', async () => {
    const clientId = await newClient('Manual');
    const invoice = await sentInvoice(clientId, workedLines());
    const note = await ok(
      'POST',
      '/v1/credit-notes',
      { invoice_id: invoice.id, amount: 3_000, apply_on_issue: false },
      201,
    );
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    assert.equal((await ok('GET', `/v1/invoices/${invoice.id}`)).amount_due, 16_000);
    const applied = await ok('POST', `/v1/credit-notes/${note.id}/apply`, {
      applications: [{ invoice_id: invoice.id, amount: 2_000 }],
    });
    assert.deepEqual([applied.amount_applied, applied.amount_remaining], [2_000, 1_000]);
    const tooMuch = await request('POST', `/v1/credit-notes/${note.id}/apply`, {
      applications: [{ invoice_id: invoice.id, amount: 1_001 }],
    });
    assert.equal(tooMuch.status, 422, tooMuch.text);
    assert.equal(tooMuch.body.error.details[0].field, 'applications');
    const unapplied = await ok('POST', `/v1/credit-notes/${note.id}/unapply`, {
      application_id: applied.applications[0].id,
    });
    assert.deepEqual([unapplied.amount_applied, unapplied.amount_remaining], [0, 3_000]);
    const again = await request('POST', `/v1/credit-notes/${note.id}/unapply`, {
      application_id: applied.applications[0].id,
    });
    assert.equal(again.status, 409, again.text);
    const over = await request('POST', `/v1/credit-notes/${note.id}/refund`, { amount: 3_001, method: 'check' });
    assert.equal(over.status, 422, over.text);
    const refunded = await ok('POST', `/v1/credit-notes/${note.id}/refund`, {
      amount: 1_200,
      method: 'check',
      reference: 'CHK-1',
    });
    assert.deepEqual([refunded.amount_refunded, refunded.amount_remaining, refunded.refunds_count], [1_200, 1_800, 1]);
    const voided = await request('PUT', `/v1/credit-notes/${note.id}`, { status: 'void' });
    assert.equal(voided.status, 409, voided.text);
    const rest = await ok('POST', `/v1/credit-notes/${note.id}/refund`, { method: 'cash' });
    assert.deepEqual([rest.amount_remaining, rest.status], [0, 'issued']);
    assert.deepEqual((await entriesOf(`credit_note_id=${note.id}`)).slice(-2), [
      ['credit_note_refunded', 1_200, 0],
      ['credit_note_refunded', 1_800, 0],
    ]);
    const balance = await ok('GET', `/v1/clients/${clientId}/balance`);
    assert.deepEqual(balance.balances, [
      { currency: 'USD', receivable_amount: 16_000, credit_amount: 0, balance_amount: 16_000 },
    ]);
  });

  test('10 concurrent applications of 300 from a note of 1,000: exactly 3 succeed, the rest 422', async () => {
    const clientId = await newClient('Concurrent credit');
    const invoice = await sentInvoice(clientId, [{ description: 'Work', quantity: 1, unit_amount: 10_000 }]);
    const note = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 1_000 }, 201);
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        request('POST', `/v1/credit-notes/${note.id}/apply`, {
          applications: [{ invoice_id: invoice.id, amount: 300 }],
        }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 200, 422, 422, 422, 422, 422, 422, 422]);
    const current = await ok('GET', `/v1/credit-notes/${note.id}`);
    assert.deepEqual([current.amount_applied, current.amount_remaining], [900, 100]);
    assert.equal((await ok('GET', `/v1/invoices/${invoice.id}`)).amount_due, 9_100);
  });

  test('a draft note is neither applied nor refunded (409); preview stores nothing', async () => {
    const clientId = await newClient('Draft money');
    const invoice = await sentInvoice(clientId, workedLines());
    const note = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 100 }, 201);
    const apply = await request('POST', `/v1/credit-notes/${note.id}/apply`, {
      applications: [{ invoice_id: invoice.id, amount: 50 }],
    });
    assert.equal(apply.status, 409, apply.text);
    assert.equal((await request('POST', `/v1/credit-notes/${note.id}/refund`, { method: 'cash' })).status, 409);
    const preview = await ok('POST', '/v1/credit-notes/preview', { invoice_id: invoice.id, amount: 1_000 });
    assert.deepEqual(
      preview.line_items.map((line: { unit_amount: number }) => line.unit_amount),
      [688, 312],
    );
    const listed = await ok('GET', `/v1/credit-notes?invoice_id=${invoice.id}`);
    assert.deepEqual(listed, []);
  });
});

describe('references (§32)', () => {
  test('a client or property a credit note names cannot be deleted: 409 saying what refers to it', async () => {
    const clientId = await newClient('Referred');
    const property = await ok(
      'POST',
      '/v1/properties',
      { client_id: clientId, address: { line1: '1 Elm Street', country: 'US' } },
      201,
    );
    await ok('POST', '/v1/credit-notes', { client_id: clientId, property_id: property.id, amount: 100 }, 201);
    for (const path of [`/v1/properties/${property.id}`, `/v1/clients/${clientId}`]) {
      const refused = await request('DELETE', path);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.error.code, 'CONFLICT');
      assert.match(refused.body.error.message, /credit note/);
    }
  });
});

describe('documents (§22): an invoice lists the credits applied', () => {
  test('its PDF and hub page print "Credits applied" beside the amount paid and the amount due', async () => {
    const clientId = await newClient('Printed');
    const invoice = await sentInvoice(clientId, workedLines());
    await ok('POST', '/v1/payments', { invoice_id: invoice.id, amount: 5_000, method: 'cash' }, 201);
    const note = await ok('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1_000 }, 201);
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const file = await request('GET', `/v1/invoices/${invoice.id}/pdf`);
    assert.equal(file.status, 200, file.text);
    const text = await pdfText(file.raw);
    assert.match(text, /Amount paid\s*\$50\.00/);
    assert.match(text, /Credits applied\s*\$10\.00/);
    assert.match(text, /Amount due\s*\$100\.00/);
    const hosted = (await ok('GET', `/v1/invoices/${invoice.id}`)).hosted_url as string;
    const page = await suite.context.request('GET', new URL(hosted).pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /Credits applied/);
  });
});

describe('documents (§22): send, PDF, deliveries and hub page', () => {
  test('send from draft issues (credit_note.issued), a re-send is credit_note.sent; PDF, deliveries and hub follow it to void', async () => {
    const clientId = await newClient('Sent credit');
    const invoice = await sentInvoice(clientId, workedLines());
    const note = await ok(
      'POST',
      '/v1/credit-notes',
      { invoice_id: invoice.id, amount: 1_000, reason: 'Chipped' },
      201,
    );
    const sent = await ok('POST', `/v1/credit-notes/${note.id}/send`, { message: 'Sorry about the tiles.' });
    assert.equal(sent.status, 'issued');
    assert.match(sent.number, /^CN-\d{6}$/);
    assert.deepEqual([sent.delivery_status, sent.amount_applied], ['queued', 1_000]);
    assert.ok(sent.hosted_url);
    const events = async (type: string) =>
      (await ok('GET', `/v1/events?type=${type}&resource_id=${note.id}`)).map((event: { type: string }) => event.type);
    assert.deepEqual(await events('credit_note.issued'), ['credit_note.issued']);
    assert.deepEqual(await events('credit_note.sent'), []);
    await ok('POST', `/v1/credit-notes/${note.id}/send`, {});
    assert.deepEqual(await events('credit_note.sent'), ['credit_note.sent']);
    const deliveries = await ok('GET', `/v1/credit-notes/${note.id}/deliveries`);
    assert.equal(deliveries.length, 2);
    assert.deepEqual(
      [deliveries[0].document_type, deliveries[0].to, deliveries[0].status],
      ['credit_note', 'credit@example.com', 'queued'],
    );
    const message = await suite.context.database.db
      .selectFrom('outbox_messages')
      .select('snapshot')
      .where('id', '=', deliveries[1].id)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(message.snapshot).kind, 'credit_note');

    const file = await request('GET', `/v1/credit-notes/${note.id}/pdf`);
    assert.equal(file.status, 200, file.text);
    assert.equal(file.headers['content-disposition'], `inline; filename="${sent.number}.pdf"`);
    const text = await pdfText(file.raw);
    assert.match(text, /CREDIT NOTE/);
    assert.match(text, new RegExp(`Credits invoice ${invoice.number}: Chipped`));
    assert.match(text, /Applied to invoices\s*\$10\.00/);
    assert.match(text, /Amount remaining\s*\$0\.00/);

    const page = await suite.context.request('GET', new URL(sent.hosted_url).pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /Credit note/);
    assert.match(page.text, new RegExp(`Credits invoice ${invoice.number}`));
    assert.match(page.text, /Amount remaining/);

    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'void' });
    const gone = await suite.context.request('GET', new URL(sent.hosted_url).pathname);
    assert.equal(gone.status, 404);
    const voidSend = await request('POST', `/v1/credit-notes/${note.id}/send`, {});
    assert.equal(voidSend.status, 409, voidSend.text);
  });
});

describe('scopes (§22): credit_notes:* mirror invoices:*', () => {
  test('every endpoint’s scope, and the second scopes: invoices:read for invoice_id, payments:write for a refund', async () => {
    const clientId = await newClient('Scopes');
    const invoice = await sentInvoice(clientId, workedLines());
    const note = await ok('POST', '/v1/credit-notes', { client_id: clientId, amount: 400 }, 201);
    await ok('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const invoicesKey = (
      await suite.context.key(suite.accountId, ['invoices:read', 'invoices:write', 'invoices:delete', 'invoices:send'])
    ).key;
    const table: [string, string, string, unknown][] = [
      ['GET', '/v1/credit-notes', 'credit_notes:read', undefined],
      ['GET', `/v1/credit-notes/${note.id}`, 'credit_notes:read', undefined],
      ['POST', '/v1/credit-notes/preview', 'credit_notes:read', { client_id: clientId, amount: 1 }],
      ['POST', '/v1/credit-notes', 'credit_notes:write', { client_id: clientId, amount: 1 }],
      ['PUT', `/v1/credit-notes/${note.id}`, 'credit_notes:write', { metadata: {} }],
      ['DELETE', `/v1/credit-notes/${note.id}`, 'credit_notes:delete', undefined],
      ['POST', `/v1/credit-notes/${note.id}/apply`, 'credit_notes:write', { applications: [] }],
      ['POST', `/v1/credit-notes/${note.id}/unapply`, 'credit_notes:write', { application_id: note.id }],
      ['POST', `/v1/credit-notes/${note.id}/refund`, 'credit_notes:write', { method: 'cash' }],
      ['POST', `/v1/credit-notes/${note.id}/send`, 'credit_notes:send', {}],
      ['POST', `/v1/credit-notes/${note.id}/hosted-link/rotate`, 'credit_notes:write', undefined],
      ['GET', `/v1/credit-notes/${note.id}/pdf`, 'credit_notes:read', undefined],
      ['GET', `/v1/credit-notes/${note.id}/deliveries`, 'credit_notes:read', undefined],
    ];
    for (const [method, path, scope, body] of table) {
      const refused = await request(method, path, body, invoicesKey);
      assert.equal(refused.status, 403, `${method} ${path}`);
      assert.match(String(refused.headers['www-authenticate']), new RegExp(`scope="${scope}"`));
    }
    const writer = (await suite.context.key(suite.accountId, ['credit_notes:write', 'credit_notes:read'])).key;
    const withInvoice = await request('POST', '/v1/credit-notes', { invoice_id: invoice.id, amount: 1 }, writer);
    assert.equal(withInvoice.status, 403, withInvoice.text);
    assert.match(String(withInvoice.headers['www-authenticate']), /scope="invoices:read"/);
    const refund = await request('POST', `/v1/credit-notes/${note.id}/refund`, { method: 'cash' }, writer);
    assert.equal(refund.status, 403, refund.text);
    assert.match(String(refund.headers['www-authenticate']), /scope="payments:write"/);
    const payer = (await suite.context.key(suite.accountId, ['credit_notes:write', 'payments:write'])).key;
    assert.equal((await request('POST', `/v1/credit-notes/${note.id}/refund`, { method: 'cash' }, payer)).status, 200);
  });
});
