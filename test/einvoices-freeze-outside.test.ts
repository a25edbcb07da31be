// Freezing outside the writer (contract §31 "Frozen when sent"; docs/decisions.md "E-invoices: freezing outside
// the writer"): a send's e-invoice files are built and validated in the pool outside its transaction, so another
// account's write completes while the send is still validating; an edit of the invoice during the build makes the
// send build again from the edited invoice (its files always those of the invoice as sent); after two builds
// outdated so, the third is built inside the send's transaction, as every send once was, so the send goes through.
// A recurring invoice's auto-send (the worker) freezes the same way.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { RecurringInvoiceWorker } from '../src/workers/recurring-invoice-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let otherKey: string;
let buyerId: string;
let vat19: string;

const request = (method: string, url: string, body?: unknown, as = key) =>
  context.request(method, url, { key: as, ...(body === undefined ? {} : { body }) });
async function ok(method: string, url: string, body?: unknown, status = method === 'POST' ? 201 : 200) {
  const response = await request(method, url, body);
  assert.equal(response.status, status, `${method} ${url}: ${response.text}`);
  return response.body.data;
}
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const SELLER = {
  name: 'Müller Haustechnik',
  legal_name: 'Müller Haustechnik GmbH',
  email: 'buero@mueller-haustechnik.example',
  currency: 'EUR',
  address: { line1: 'Lindenstraße 5', city: 'Berlin', postal_code: '10969', country: 'DE' },
  vat_id: 'DE123456789',
  payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
  einvoicing_enabled: true,
};

/** `count` lines of 10.00 at 19 %, the first at `first` minor units. */
const lines = (count: number, first = 1000) =>
  Array.from({ length: count }, (_, index) => ({
    description: `Part ${index + 1}`,
    quantity: 1,
    unit_amount: index === 0 ? first : 1000,
    tax_rate_ids: [vat19],
  }));

const draftOf = (count: number) =>
  ok('POST', '/v1/invoices', { client_id: buyerId, rounding: 'per_document', line_items: lines(count) });

/**
 * Watches the pool's e-invoice validations (the pool itself writes and validates the files): `before(call)` runs
 * as the call-th begins, before the validation does. Not a stand-in for the database or the pool.
 */
function watchValidations(before: (call: number, syntax: string) => Promise<void> = async () => {}) {
  const pool = context.app.pdf;
  const original = pool.writeEinvoice;
  let calls = 0;
  pool.writeEinvoice = async (model, syntax, accountId) => {
    calls += 1;
    await before(calls, syntax);
    return original.call(pool, model, syntax, accountId);
  };
  return {
    calls: () => calls,
    restore: () => {
      pool.writeEinvoice = original;
    },
  };
}

/** The sent invoice's frozen files: each download's SHA-256 the one stated, the UBL's totals the invoice's. */
async function assertFilesMatch(sent: Record<string, any>, payable: string): Promise<void> {
  for (const format of ['ubl', 'cii', 'facturx'] as const) {
    const response = await request('GET', `/v1/invoices/${sent.id}/einvoice?format=${format}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(sha256(response.raw), sent.einvoice.sha256[format], format);
  }
  const ubl = (await request('GET', `/v1/invoices/${sent.id}/einvoice?format=ubl`)).raw.toString('utf8');
  assert.match(ubl, new RegExp(`<cbc:ID>${sent.number}</cbc:ID>`));
  assert.match(ubl, new RegExp(`<cbc:TaxInclusiveAmount currencyID="EUR">${payable.replace('.', '\\.')}</cbc:`));
  assert.match(ubl, new RegExp(`<cbc:PayableAmount currencyID="EUR">${payable.replace('.', '\\.')}</cbc:`));
}

before(async () => {
  // The builds run in the pool on a busy test machine: give them time.
  context = await createTestContext({
    clock: new TestClock(),
    env: { PDF_RENDER_TIMEOUT_MS: '120000', BMS_TEST_CLOCK: 'true' },
  });
  const quiet = { info() {}, warn() {}, error() {} };
  const worker = new RecurringInvoiceWorker(context.database, context.app.clock, context.app.links, quiet);
  context.app.workerPasses.set('recurring_invoices', () => worker.runPass());
  const clock = await context.request('PUT', '/test/clock', { body: { now: '2027-03-01T07:00:00.000Z' } });
  assert.equal(clock.status, 200, clock.text);
  ({ key } = await context.account('Freezing seller'));
  ({ key: otherKey } = await context.account('Another account'));
  await ok('PUT', '/v1/account', SELLER);
  buyerId = (
    await ok('POST', '/v1/clients', {
      name: 'Jan Jansen',
      email: 'jan@example.com',
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015 CJ', country: 'NL' },
      vat_id: 'NL123456789B01',
    })
  ).id;
  vat19 = (await ok('POST', '/v1/tax-rates', { name: 'MwSt 19 %', percentage: 19, tax_category: 'S' })).id;
});
after(async () => {
  await context.close();
});

describe('a send validates its e-invoice outside the writer', () => {
  test("another account's POST /v1/clients completes while a 200-line invoice's send is validating", async () => {
    const draft = await draftOf(200);
    let validating!: () => void;
    const started = new Promise<void>((resolve) => {
      validating = resolve;
    });
    const watch = watchValidations(async () => validating());
    try {
      let sendDone = false;
      const send = request('POST', `/v1/invoices/${draft.id}/send`, {}).then((response) => {
        sendDone = true;
        return response;
      });
      await started;
      const created = await request('POST', '/v1/clients', { name: 'Written meanwhile' }, otherKey);
      assert.equal(created.status, 201, created.text);
      assert.equal(sendDone, false, 'the other account waited for the send');
      const sent = await send;
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.data.status, 'sent');
      // 200 × 10.00 = 2,000.00 net, 380.00 VAT at 19 %: 2,380.00.
      assert.equal(sent.body.data.total_amount, 238_000);
      await assertFilesMatch(sent.body.data, '2380.00');
    } finally {
      watch.restore();
    }
  });

  test('an edit during the build: the send builds again and sends the edited invoice, its files the edited ones', async () => {
    const draft = await draftOf(3);
    const watch = watchValidations(async (call) => {
      if (call !== 1) return;
      // The first line 10.00 → 11.00 while the first build validates: the draft is not locked.
      const edited = await request('PUT', `/v1/invoices/${draft.id}`, { line_items: lines(3, 1100) });
      assert.equal(edited.status, 200, edited.text);
    });
    try {
      const sent = await ok('POST', `/v1/invoices/${draft.id}/send`, {}, 200);
      // 11.00 + 2 × 10.00 = 31.00 net, 5.89 VAT at 19 %: 36.89.
      assert.equal(sent.subtotal_amount, 3100);
      assert.equal(sent.tax_amount, 589);
      assert.equal(sent.total_amount, 3689);
      // Two builds, the UBL and the CII validated in each.
      assert.equal(watch.calls(), 4);
      await assertFilesMatch(sent, '36.89');
      const read = await ok('GET', `/v1/invoices/${draft.id}`);
      assert.deepEqual(read.einvoice.sha256, sent.einvoice.sha256);
    } finally {
      watch.restore();
    }
  });

  test('an invoice edited during two builds: the third is built in the send’s transaction, and an edit then waits and is refused', async () => {
    const draft = await draftOf(2);
    let edits = 0;
    let late: Promise<{ status: number; body: any; text: string }> | undefined;
    const watch = watchValidations(async (_call, syntax) => {
      if (syntax !== 'ubl') return;
      if (edits === 2) {
        // The third build holds the invoice: this edit waits for the send, then finds the invoice frozen.
        late ??= request('PUT', `/v1/invoices/${draft.id}`, { line_items: lines(2, 1500) });
        return;
      }
      edits += 1;
      const edited = await request('PUT', `/v1/invoices/${draft.id}`, { line_items: lines(2, 1000 + edits) });
      assert.equal(edited.status, 200, edited.text);
    });
    let sent: Record<string, any>;
    try {
      sent = await ok('POST', `/v1/invoices/${draft.id}/send`, {}, 200);
      // Three builds, the UBL and the CII validated in each.
      assert.equal(watch.calls(), 6);
    } finally {
      watch.restore();
    }
    assert.equal(edits, 2);
    // 10.02 + 10.00 = 20.02 net, 3.80 VAT at 19 % (380.38 rounded): 23.82.
    assert.equal(sent.subtotal_amount, 2002);
    assert.equal(sent.total_amount, 2382);
    await assertFilesMatch(sent, '23.82');
    assert.ok(late, 'an edit was tried during the third build');
    const refused = await late;
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'INVALID_STATE');
    const read = await ok('GET', `/v1/invoices/${draft.id}`);
    assert.equal(read.total_amount, 2382);
    assert.deepEqual(read.einvoice.sha256, sent.einvoice.sha256);
  });

  test('PUT {status: "sent"} freezes the same way: the files of the invoice as sent', async () => {
    const draft = await draftOf(2);
    const watch = watchValidations();
    try {
      const sent = await ok('PUT', `/v1/invoices/${draft.id}`, { status: 'sent' });
      assert.equal(watch.calls(), 2);
      // 20.00 + 3.80 VAT = 23.80.
      assert.equal(sent.total_amount, 2380);
      await assertFilesMatch(sent, '23.80');
    } finally {
      watch.restore();
    }
  });
});

describe('a recurring invoice’s auto-send (the worker) freezes outside the writer too', () => {
  test('another account writes while the made invoice validates; the invoice is sent with its files', async () => {
    const template = await ok('POST', '/v1/recurring-invoices', {
      client_id: buyerId,
      invoice: { rounding: 'per_document', line_items: lines(2) },
      recurrence: { frequency: 'monthly', start_date: '2027-03-01' },
      auto_send: true,
    });
    let written = 0;
    const watch = watchValidations(async (call) => {
      if (call !== 1) return;
      // Awaited inside the build: were the build inside the worker's transaction, this write would wait for it.
      const created = await request('POST', '/v1/clients', { name: 'Written by the worker’s side' }, otherKey);
      assert.equal(created.status, 201, created.text);
      written += 1;
    });
    try {
      await context.request('PUT', '/test/clock', { body: { now: '2027-03-01T09:30:00.000Z' } });
      const run = await context.request('POST', '/test/workers/run', { body: { worker: 'recurring_invoices' } });
      assert.equal(run.status, 200, run.text);
      assert.equal(run.body.data.processed, 1);
    } finally {
      watch.restore();
    }
    assert.equal(written, 1);
    assert.equal(watch.calls(), 2);
    const made = await ok('GET', `/v1/invoices?recurring_invoice_id=${template.id}`);
    assert.equal(made.length, 1);
    assert.equal(made[0].status, 'sent');
    // 20.00 + 3.80 VAT = 23.80.
    assert.equal(made[0].total_amount, 2380);
    await assertFilesMatch(made[0], '23.80');
  });
});
