// The ledger and the client's balance (contract §22, §32): every entry type with its sign, a gapless sequence in
// commit order (20 concurrent payments), the running balance equal to the balance endpoint, applications of
// unapplied payment money (all or nothing), unapply, overpayment kept as credit, voids releasing applications,
// the scopes of every endpoint, and a broken rule answered 500 with nothing stored. Figures are the contract's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Ledger');

async function newClient(name: string): Promise<string> {
  const created = await suite.context.request('POST', '/v1/clients', {
    key: suite.key,
    body: { name, email: 'ledger@example.com' },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.data.id;
}

/** A sent invoice of `total` minor units (one line, no tax). */
async function sentInvoice(clientId: string, total: number, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await suite.context.request('POST', '/v1/invoices', {
    key: suite.key,
    body: { client_id: clientId, line_items: [{ description: 'Work', quantity: 1, unit_amount: total }], ...extra },
  });
  assert.equal(created.status, 201, created.text);
  const sent = await suite.context.request('PUT', `/v1/invoices/${created.body.data.id}`, {
    key: suite.key,
    body: { status: 'sent' },
  });
  assert.equal(sent.status, 200, sent.text);
  return created.body.data.id;
}

const pay = (body: Record<string, unknown>) =>
  suite.context.request('POST', '/v1/payments', { key: suite.key, body: { method: 'cash', ...body } });
const get = async (path: string) => {
  const response = await suite.context.request('GET', path, { key: suite.key });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
};

interface Entry {
  sequence: number;
  type: string;
  amount: number;
  applied_amount: number;
  balance_amount: number;
  invoice_id: string | null;
  payment_id: string | null;
  application_id: string | null;
}

/** Every entry of a client, in sequence order. */
async function entriesOf(clientId: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await suite.context.request(
      'GET',
      `/v1/ledger-entries?client_id=${clientId}&sort=sequence&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      { key: suite.key },
    );
    assert.equal(page.status, 200, page.text);
    entries.push(...page.body.data);
    cursor = page.body.meta.pagination.next_cursor ?? undefined;
  } while (cursor);
  return entries;
}

const moves = (entries: Entry[]) => entries.map((entry) => [entry.type, entry.amount, entry.applied_amount]);

/** The balance endpoint's figures in USD, and the ledger's last running balance beside them. */
async function balanceOf(clientId: string) {
  const balance = await get(`/v1/clients/${clientId}/balance`);
  const entries = await entriesOf(clientId);
  const usd = balance.balances.find((row: { currency: string }) => row.currency === 'USD');
  return { usd, last: entries.at(-1)?.balance_amount };
}

describe('entry types and signs (§22 "Types")', () => {
  test('issue +total; payment −amount and an application (amount 0, applied +); refund: unapplied then +amount; void −total', async () => {
    const clientId = await newClient('Signs');
    const invoiceId = await sentInvoice(clientId, 10_000);
    const payment = (await pay({ invoice_id: invoiceId, amount: 3_000 })).body.data;
    const refund = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, {
      key: suite.key,
      body: { amount: 1_000 },
    });
    assert.equal(refund.status, 200, refund.text);
    const voided = await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, {
      key: suite.key,
      body: { status: 'void' },
    });
    assert.equal(voided.status, 200, voided.text);
    const entries = await entriesOf(clientId);
    assert.deepEqual(moves(entries), [
      ['invoice_issued', 10_000, 0],
      ['payment_received', -3_000, 0],
      ['applied', 0, 3_000],
      ['unapplied', 0, -1_000],
      ['payment_refunded', 1_000, 0],
      ['invoice_voided', -10_000, 0],
      ['unapplied', 0, -2_000],
    ]);
    assert.deepEqual(
      entries.map((entry) => entry.balance_amount),
      [10_000, 7_000, 7_000, 7_000, 8_000, -2_000, -2_000],
    );
    // Consecutive sequences, and the void's release left the payment's 2,000 as the client's credit.
    for (let index = 1; index < entries.length; index += 1)
      assert.equal(entries[index]!.sequence, entries[index - 1]!.sequence + 1);
    const { usd, last } = await balanceOf(clientId);
    assert.deepEqual(usd, { currency: 'USD', receivable_amount: 0, credit_amount: 2_000, balance_amount: -2_000 });
    assert.equal(last, -2_000);
    const after = await get(`/v1/payments/${payment.id}`);
    assert.deepEqual([after.amount_applied, after.amount_unapplied, after.amount_refunded], [0, 2_000, 1_000]);
    // The release is the payment's unapply too (§22 "Events"): payment.unapplied, its money unapplied again.
    const events = await suite.context.request('GET', `/v1/events?type=payment.unapplied&limit=100`, {
      key: suite.key,
    });
    assert.equal(events.status, 200, events.text);
    const released = events.body.data.filter((event: any) => event.data.object.id === payment.id);
    assert.equal(released.length, 1);
    assert.equal(released[0].data.object.amount_unapplied, 2_000);
    assert.deepEqual(released[0].data.previous_attributes.amount_applied, 2_000);
    // §32: a void invoice keeps amount_paid as when voided; it owes nothing.
    const invoice = await get(`/v1/invoices/${invoiceId}`);
    assert.deepEqual(
      [invoice.status, invoice.amount_paid, invoice.amount_due, invoice.applications],
      ['void', 2_000, 0, []],
    );
    // An entry is answered alone too, with updated_at equal to created_at and the actor.
    const one = await get(`/v1/ledger-entries/${(entries[0] as unknown as { id: string }).id}`);
    assert.equal(one.object, 'ledger_entry');
    assert.equal(one.updated_at, one.created_at);
    assert.equal(one.actor.type, 'api_key');
    assert.equal(one.effective_date, invoice.issue_date);
  });

  test('an edit of a sent invoice is invoice_adjusted: ± the change of total, or 0 with a new due_date', async () => {
    const clientId = await newClient('Adjusted');
    const invoiceId = await sentInvoice(clientId, 5_000);
    const edited = await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, {
      key: suite.key,
      body: { line_items: [{ description: 'Work', quantity: 1, unit_amount: 4_200 }] },
    });
    assert.equal(edited.status, 200, edited.text);
    const due = await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, {
      key: suite.key,
      body: { due_date: '2099-01-31' },
    });
    assert.equal(due.status, 200, due.text);
    const entries = await entriesOf(clientId);
    assert.deepEqual(moves(entries), [
      ['invoice_issued', 5_000, 0],
      ['invoice_adjusted', -800, 0],
      ['invoice_adjusted', 0, 0],
    ]);
    assert.equal((entries[2] as unknown as { due_date: string }).due_date, '2099-01-31');
    assert.equal((await balanceOf(clientId)).last, 4_200);
  });

  test('a new issue_date or client of a sent invoice is a reversal under the old and a restatement under the new', async () => {
    const clientId = await newClient('Restated');
    const otherId = await newClient('Restated elsewhere');
    const invoiceId = await sentInvoice(clientId, 3_000, { issue_date: '2026-05-01' });
    const redated = await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, {
      key: suite.key,
      body: { issue_date: '2026-05-03' },
    });
    assert.equal(redated.status, 200, redated.text);
    const moved = await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, {
      key: suite.key,
      body: { client_id: otherId },
    });
    assert.equal(moved.status, 200, moved.text);
    const dated = (entries: Entry[]) =>
      entries.map((entry) => [
        entry.type,
        entry.amount,
        (entry as unknown as { effective_date: string }).effective_date,
      ]);
    assert.deepEqual(dated(await entriesOf(clientId)), [
      ['invoice_issued', 3_000, '2026-05-01'],
      ['invoice_adjusted', -3_000, '2026-05-01'],
      ['invoice_adjusted', 3_000, '2026-05-03'],
      ['invoice_adjusted', -3_000, '2026-05-03'],
    ]);
    assert.deepEqual(dated(await entriesOf(otherId)), [['invoice_adjusted', 3_000, '2026-05-03']]);
    assert.deepEqual(
      [
        (await balanceOf(clientId)).last,
        (await balanceOf(otherId)).last,
        (await balanceOf(otherId)).usd.balance_amount,
      ],
      [0, 3_000, 3_000],
    );
  });

  test('a draft posts nothing; a notes edit of a sent invoice posts nothing', async () => {
    const clientId = await newClient('Quiet');
    await suite.context.request('POST', '/v1/invoices', {
      key: suite.key,
      body: { client_id: clientId, line_items: [{ description: 'Work', quantity: 1, unit_amount: 100 }] },
    });
    assert.deepEqual(await entriesOf(clientId), []);
    const invoiceId = await sentInvoice(clientId, 100);
    await suite.context.request('PUT', `/v1/invoices/${invoiceId}`, { key: suite.key, body: { notes: 'Thanks' } });
    assert.deepEqual(moves(await entriesOf(clientId)), [['invoice_issued', 100, 0]]);
  });
});

describe('overpayment, apply and unapply (§22 "Apply", "Payments gain")', () => {
  test('overpayment "credit": the invoice takes its amount_due and is paid; the rest is the client’s credit', async () => {
    const clientId = await newClient('Overpaid');
    const first = await sentInvoice(clientId, 5_000);
    const refused = await pay({ invoice_id: first, amount: 7_000 });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.details[0].field, 'amount');
    const payment = await pay({ invoice_id: first, amount: 7_000, overpayment: 'credit' });
    assert.equal(payment.status, 201, payment.text);
    assert.deepEqual(
      [payment.body.data.overpayment, payment.body.data.amount_applied, payment.body.data.amount_unapplied],
      ['credit', 5_000, 2_000],
    );
    assert.equal((await get(`/v1/invoices/${first}`)).status, 'paid');
    assert.deepEqual((await balanceOf(clientId)).usd, {
      currency: 'USD',
      receivable_amount: 0,
      credit_amount: 2_000,
      balance_amount: -2_000,
    });
    const unapplied = await get(`/v1/payments?client_id=${clientId}&unapplied=true`);
    assert.deepEqual(
      unapplied.map((row: { id: string }) => row.id),
      [payment.body.data.id],
    );

    // The credit applied to two invoices at once; the second reaches 0 and is paid.
    const second = await sentInvoice(clientId, 3_000);
    const third = await sentInvoice(clientId, 500);
    const applied = await suite.context.request('POST', `/v1/payments/${payment.body.data.id}/apply`, {
      key: suite.key,
      body: {
        applications: [
          { invoice_id: second, amount: 1_500 },
          { invoice_id: third, amount: 500 },
        ],
      },
    });
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual([applied.body.data.amount_applied, applied.body.data.amount_unapplied], [7_000, 0]);
    const secondInvoice = await get(`/v1/invoices/${second}`);
    assert.deepEqual(
      [secondInvoice.status, secondInvoice.amount_paid, secondInvoice.amount_due],
      ['sent', 1_500, 1_500],
    );
    assert.deepEqual(
      secondInvoice.applications.map((row: { source: unknown; amount: number }) => [row.source, row.amount]),
      [[{ type: 'payment', id: payment.body.data.id }, 1_500]],
    );
    assert.equal((await get(`/v1/invoices/${third}`)).status, 'paid');
    let balance = await balanceOf(clientId);
    assert.deepEqual(balance.usd, {
      currency: 'USD',
      receivable_amount: 1_500,
      credit_amount: 0,
      balance_amount: 1_500,
    });
    assert.equal(balance.last, 1_500);

    // Unapply one: the paid invoice owes again and returns to sent; a second unapply of it is 409.
    const applicationId = (await get(`/v1/invoices/${third}`)).applications[0].id;
    const unapply = await suite.context.request('POST', `/v1/payments/${payment.body.data.id}/unapply`, {
      key: suite.key,
      body: { application_id: applicationId },
    });
    assert.equal(unapply.status, 200, unapply.text);
    assert.deepEqual([unapply.body.data.amount_applied, unapply.body.data.amount_unapplied], [6_500, 500]);
    const reopened = await get(`/v1/invoices/${third}`);
    assert.deepEqual([reopened.status, reopened.amount_due, reopened.applications], ['sent', 500, []]);
    const again = await suite.context.request('POST', `/v1/payments/${payment.body.data.id}/unapply`, {
      key: suite.key,
      body: { application_id: applicationId },
    });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'INVALID_STATE');
    balance = await balanceOf(clientId);
    assert.deepEqual(balance.usd, {
      currency: 'USD',
      receivable_amount: 2_000,
      credit_amount: 500,
      balance_amount: 1_500,
    });
    assert.equal(balance.last, 1_500);
    const types = moves(await entriesOf(clientId)).map(([type]) => type);
    assert.deepEqual(types, [
      'invoice_issued',
      'payment_received',
      'applied',
      'invoice_issued',
      'invoice_issued',
      'applied',
      'applied',
      'unapplied',
    ]);
  });

  test('apply is all or nothing, and each refusal names its field (§22, §32)', async () => {
    const clientId = await newClient('Refusals');
    const other = await newClient('Someone else');
    const own = await sentInvoice(clientId, 1_000);
    const payment = (await pay({ invoice_id: own, amount: 3_000, overpayment: 'credit' })).body.data;
    const target = await sentInvoice(clientId, 1_000);
    const foreign = await sentInvoice(other, 1_000);
    const draft = (
      await suite.context.request('POST', '/v1/invoices', {
        key: suite.key,
        body: { client_id: clientId, line_items: [{ description: 'Work', quantity: 1, unit_amount: 900 }] },
      })
    ).body.data.id;
    const euro = await sentInvoice(clientId, 1_000, { currency: 'EUR' });
    const apply = (body: Record<string, unknown>) =>
      suite.context.request('POST', `/v1/payments/${payment.id}/apply`, { key: suite.key, body });
    const refusal = async (body: Record<string, unknown>, status: number, field?: string) => {
      const response = await apply(body);
      assert.equal(response.status, status, response.text);
      if (field)
        assert.deepEqual(
          response.body.error.details.map((detail: { field: string }) => detail.field),
          [field],
        );
    };
    await refusal({ applications: [{ invoice_id: foreign, amount: 100 }] }, 422, 'applications[0].invoice_id');
    await refusal({ applications: [{ invoice_id: euro, amount: 100 }] }, 422, 'applications[0].invoice_id');
    await refusal(
      {
        applications: [
          { invoice_id: target, amount: 100 },
          { invoice_id: target, amount: 100 },
        ],
      },
      422,
      'applications[1].invoice_id',
    );
    // The state is checked before the amount (§32).
    await refusal({ applications: [{ invoice_id: draft, amount: 5_000 }] }, 409);
    await refusal({ applications: [{ invoice_id: target, amount: 1_001 }] }, 422, 'applications[0].amount');
    await refusal({ applications: [] }, 422, 'applications');
    await refusal({ applications: [{ invoice_id: target, amount: 100 }], applied_on: '2999-01-01' }, 422, 'applied_on');
    await refusal({ applications: [{ invoice_id: target, amount: 100 }], applied_on: '2000-01-01' }, 422, 'applied_on');
    // 2,000 unapplied: 1,000 fits, then nothing more; a failed request changed nothing.
    const second = await sentInvoice(clientId, 1_500);
    await refusal(
      {
        applications: [
          { invoice_id: target, amount: 1_000 },
          { invoice_id: second, amount: 1_500 },
        ],
      },
      422,
      'applications',
    );
    assert.equal((await get(`/v1/invoices/${target}`)).amount_due, 1_000);
    assert.equal((await get(`/v1/payments/${payment.id}`)).amount_unapplied, 2_000);
    const { usd, last } = await balanceOf(clientId);
    assert.equal(usd.balance_amount, last);
  });

  test('a refund takes unapplied money first, then applications, newest first', async () => {
    const clientId = await newClient('Refund order');
    const own = await sentInvoice(clientId, 1_000);
    const payment = (await pay({ invoice_id: own, amount: 2_500, overpayment: 'credit' })).body.data;
    const later = await sentInvoice(clientId, 1_000);
    await suite.context.request('POST', `/v1/payments/${payment.id}/apply`, {
      key: suite.key,
      body: { applications: [{ invoice_id: later, amount: 1_000 }] },
    });
    const refund = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, {
      key: suite.key,
      body: { amount: 1_200 },
    });
    assert.equal(refund.status, 200, refund.text);
    // 500 unapplied, then 700 of the newest application (the later invoice's).
    assert.deepEqual([refund.body.data.amount_applied, refund.body.data.amount_unapplied], [1_300, 0]);
    assert.deepEqual(
      [(await get(`/v1/invoices/${own}`)).amount_due, (await get(`/v1/invoices/${later}`)).amount_due],
      [0, 700],
    );
    assert.deepEqual(moves(await entriesOf(clientId)).slice(-2), [
      ['unapplied', 0, -700],
      ['payment_refunded', 1_200, 0],
    ]);
  });
});

describe('sequence in commit order (§22 "Ledger")', () => {
  test('20 concurrent 700-cent payments on a 10,000 invoice: 14 succeed, 28 new entries, consecutive', async () => {
    const clientId = await newClient('Concurrent');
    const invoiceId = await sentInvoice(clientId, 10_000);
    const before = await suite.context.request('GET', '/v1/ledger-entries?sort=-sequence&limit=1', { key: suite.key });
    const last = before.body.data[0].sequence as number;
    const responses = await Promise.all(Array.from({ length: 20 }, () => pay({ invoice_id: invoiceId, amount: 700 })));
    assert.equal(responses.filter((response) => response.status === 201).length, 14);
    assert.equal(responses.filter((response) => response.status === 422).length, 6);
    const feed = await suite.context.request(
      'GET',
      `/v1/ledger-entries?sort=sequence&after_sequence=${last}&limit=100`,
      {
        key: suite.key,
      },
    );
    const entries = feed.body.data as Entry[];
    assert.equal(entries.length, 28);
    assert.deepEqual(
      entries.map((entry) => entry.sequence),
      Array.from({ length: 28 }, (_, index) => last + 1 + index),
    );
    assert.deepEqual(
      entries.map((entry) => entry.type),
      Array.from({ length: 14 }, () => ['payment_received', 'applied']).flat(),
    );
    const { usd, last: running } = await balanceOf(clientId);
    assert.deepEqual(usd, { currency: 'USD', receivable_amount: 200, credit_amount: 0, balance_amount: 200 });
    assert.equal(running, 200);
  });
});

describe('the rules are asserted in the writing transaction (§22 "Rules")', () => {
  test('a breach is a 500 and nothing is stored', async () => {
    const clientId = await newClient('Breach');
    const invoiceId = await sentInvoice(clientId, 4_000);
    // Tamper with the invoice behind the API's back: its entries no longer sum to its total.
    await suite.context.database.db
      .updateTable('invoices')
      .set({ total_amount: 5_000, subtotal_amount: 5_000 })
      .where('id', '=', invoiceId)
      .execute();
    const response = await pay({ invoice_id: invoiceId, amount: 1_000 });
    assert.equal(response.status, 500, response.text);
    assert.equal(response.body.error.code, 'INTERNAL_ERROR');
    const payments = await get(`/v1/payments?invoice_id=${invoiceId}`);
    assert.deepEqual(payments, []);
    assert.deepEqual(moves(await entriesOf(clientId)), [['invoice_issued', 4_000, 0]]);
  });
});

describe('filters, lookups and scopes', () => {
  test('filters by type, invoice, payment and effective dates; unknown ids are 404', async () => {
    const clientId = await newClient('Filters');
    const invoiceId = await sentInvoice(clientId, 2_000, { issue_date: '2026-03-01' });
    const payment = (await pay({ invoice_id: invoiceId, amount: 500 })).body.data;
    const byType = await get(`/v1/ledger-entries?client_id=${clientId}&type=invoice_issued`);
    assert.deepEqual(
      byType.map((entry: Entry) => [entry.type, entry.amount]),
      [['invoice_issued', 2_000]],
    );
    assert.equal(byType[0].effective_date, '2026-03-01');
    const byPayment = await get(`/v1/ledger-entries?payment_id=${payment.id}&sort=sequence`);
    assert.deepEqual(
      byPayment.map((entry: Entry) => entry.type),
      ['payment_received', 'applied'],
    );
    const byInvoice = await get(`/v1/ledger-entries?invoice_id=${invoiceId}&sort=sequence`);
    assert.equal(byInvoice.length, 3);
    const march = await get(
      `/v1/ledger-entries?client_id=${clientId}&effective_from=2026-03-01&effective_to=2026-03-01`,
    );
    assert.deepEqual(
      march.map((entry: Entry) => entry.type),
      ['invoice_issued'],
    );
    for (const path of [
      '/v1/ledger-entries/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      '/v1/ledger-entries/not-a-uuid',
      '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01/balance',
    ]) {
      const response = await suite.context.request('GET', path, { key: suite.key });
      assert.equal(response.status, 404, path);
    }
    const bad = await suite.context.request('GET', '/v1/ledger-entries?type=invoice_paid', { key: suite.key });
    assert.equal(bad.status, 422);
  });

  test('every endpoint’s scope, literally: reports:read reads the ledger; payments:write applies', async () => {
    const { key: reader } = await suite.context.key(suite.accountId, ['reports:read']);
    const { key: invoicesOnly } = await suite.context.key(suite.accountId, [
      'invoices:read',
      'invoices:write',
      'payments:read',
      'clients:read',
    ]);
    const { key: payer } = await suite.context.key(suite.accountId, ['payments:write']);
    const clientId = await newClient('Scopes');
    const invoiceId = await sentInvoice(clientId, 1_000);
    const payment = (await pay({ invoice_id: invoiceId, amount: 1_000 })).body.data;
    const table: [string, string, string, unknown, number, number][] = [
      // method, path, scope named in the 403, body, status with the scope, status without
      ['GET', '/v1/ledger-entries', 'reports:read', undefined, 200, 403],
      ['GET', `/v1/clients/${clientId}/balance`, 'reports:read', undefined, 200, 403],
    ];
    for (const [method, path, scope, body, allowed, refused] of table) {
      const yes = await suite.context.request(method, path, { key: reader, body });
      assert.equal(yes.status, allowed, `${path} with ${scope}`);
      const no = await suite.context.request(method, path, { key: invoicesOnly, body });
      assert.equal(no.status, refused, `${path} without ${scope}`);
      assert.match(String(no.headers['www-authenticate']), new RegExp(`scope="${scope}"`));
    }
    const entryId = (await get(`/v1/ledger-entries?client_id=${clientId}`))[0].id;
    assert.equal((await suite.context.request('GET', `/v1/ledger-entries/${entryId}`, { key: reader })).status, 200);
    assert.equal(
      (await suite.context.request('GET', `/v1/ledger-entries/${entryId}`, { key: invoicesOnly })).status,
      403,
    );
    for (const action of ['apply', 'unapply']) {
      const refused = await suite.context.request('POST', `/v1/payments/${payment.id}/${action}`, {
        key: reader,
        body:
          action === 'apply' ? { applications: [{ invoice_id: invoiceId, amount: 1 }] } : { application_id: entryId },
      });
      assert.equal(refused.status, 403, action);
      assert.match(String(refused.headers['www-authenticate']), /scope="payments:write"/);
    }
    const allowed = await suite.context.request('POST', `/v1/payments/${payment.id}/unapply`, {
      key: payer,
      body: { application_id: (await get(`/v1/invoices/${invoiceId}`)).applications[0].id },
    });
    assert.equal(allowed.status, 200, allowed.text);
  });
});
