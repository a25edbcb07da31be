// Payments (contract section 11): recorded against a sent invoice, never more than is due, a reference
// unique per account, refunds that reopen a paid invoice, the invoice's balance derived from its payments
// in the same transaction (20 concurrent payments: exactly those that fit), and the money exact throughout.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderText, type MailSnapshot } from '../src/mail/document-mail.js';
import { clientSuite } from './helpers/state-table.js';
import { pdfText } from './helpers/smtp.js';

const suite = clientSuite('Payments');

/** A sent invoice of `total` minor units (one line, no tax). */
async function sentInvoice(total: number, key = suite.key, clientId = suite.clientId): Promise<string> {
  const created = await suite.context.request('POST', '/v1/invoices', {
    key,
    body: { client_id: clientId, line_items: [{ description: 'Work', quantity: 1, unit_amount: total }] },
  });
  assert.equal(created.status, 201, created.text);
  const sent = await suite.context.request('PUT', `/v1/invoices/${created.body.data.id}`, {
    key,
    body: { status: 'sent' },
  });
  assert.equal(sent.status, 200, sent.text);
  return created.body.data.id;
}

const pay = (body: Record<string, unknown>, key = suite.key) =>
  suite.context.request('POST', '/v1/payments', { key, body: { method: 'cash', ...body } });
const invoice = async (id: string) =>
  (await suite.context.request('GET', `/v1/invoices/${id}`, { key: suite.key })).body.data;

describe('recording payments', () => {
  test('a deposit then the balance: amount_paid and amount_due follow, and the invoice becomes paid at 0 due', async () => {
    const id = await sentInvoice(10_000);
    const deposit = await pay({
      invoice_id: id,
      amount: 3_000,
      method: 'bank_transfer',
      reference: 'DEP-1',
      notes: 'Deposit',
      metadata: { ledger: 'L1' },
    });
    assert.equal(deposit.status, 201, deposit.text);
    assert.equal(deposit.headers.location, `/v1/payments/${deposit.body.data.id}`);
    assert.deepEqual(
      {
        ...deposit.body.data,
        id: undefined,
        paid_at: undefined,
        applications: undefined,
        created_at: undefined,
        updated_at: undefined,
      },
      {
        id: undefined,
        object: 'payment',
        invoice_id: id,
        quote_id: null,
        client_id: suite.clientId,
        amount: 3_000,
        amount_refunded: 0,
        amount_applied: 3_000,
        amount_unapplied: 0,
        overpayment: 'reject',
        applications: undefined,
        applications_count: 1,
        currency: 'USD',
        method: 'bank_transfer',
        reference: 'DEP-1',
        paid_at: undefined,
        notes: 'Deposit',
        refunds: [],
        refunds_count: 0,
        metadata: { ledger: 'L1' },
        created_at: undefined,
        updated_at: undefined,
      },
    );
    let current = await invoice(id);
    assert.deepEqual(
      [current.status, current.amount_paid, current.amount_due, current.paid_at],
      ['sent', 3_000, 7_000, null],
    );
    assert.deepEqual(current.payments, [
      {
        id: deposit.body.data.id,
        amount: 3_000,
        amount_refunded: 0,
        method: 'bank_transfer',
        paid_at: deposit.body.data.paid_at,
      },
    ]);

    const balance = await pay({ invoice_id: id, amount: 7_000, method: 'card' });
    assert.equal(balance.status, 201, balance.text);
    current = await invoice(id);
    assert.deepEqual(
      [current.status, current.amount_paid, current.amount_due, current.payments.length],
      ['paid', 10_000, 0, 2],
    );
    assert.ok(current.paid_at);

    const more = await pay({ invoice_id: id, amount: 1 });
    assert.equal(more.status, 409);
    assert.equal(more.body.error.code, 'INVALID_STATE');
  });

  test('only a sent invoice takes payments: draft and void are 409, and nothing is stored', async () => {
    const draft = (
      await suite.context.request('POST', '/v1/invoices', {
        key: suite.key,
        body: { client_id: suite.clientId, line_items: [{ description: 'Work', quantity: 1, unit_amount: 500 }] },
      })
    ).body.data.id;
    const voided = await sentInvoice(500);
    await suite.context.request('PUT', `/v1/invoices/${voided}`, { key: suite.key, body: { status: 'void' } });
    for (const id of [draft, voided]) {
      const response = await pay({ invoice_id: id, amount: 100 });
      assert.equal(response.status, 409, response.text);
      assert.equal(response.body.error.code, 'INVALID_STATE');
      assert.deepEqual((await invoice(id)).payments, []);
    }
  });

  test('amount: a positive integer, at most amount_due (422 otherwise)', async () => {
    const id = await sentInvoice(1_000);
    for (const amount of [0, -5, 1.5, '100', 1_001]) {
      const response = await pay({ invoice_id: id, amount });
      assert.equal(response.status, 422, `${amount}: ${response.text}`);
      assert.equal(response.body.error.details[0].field, 'amount');
    }
    assert.equal((await invoice(id)).amount_paid, 0);
  });

  test('invoice_id must name an invoice of this account (422 on invoice_id), method one of the five', async () => {
    const other = await suite.context.account('Other business');
    const foreign = await sentInvoice(
      1_000,
      other.key,
      (await suite.context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Theirs' } })).body.data.id,
    );
    for (const invoiceId of [foreign, '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01']) {
      const response = await pay({ invoice_id: invoiceId, amount: 100 });
      assert.equal(response.status, 422);
      assert.equal(response.body.error.details[0].field, 'invoice_id');
    }
    const id = await sentInvoice(1_000);
    for (const method of ['cash', 'check', 'card', 'bank_transfer', 'other'])
      assert.equal((await pay({ invoice_id: id, amount: 1, method })).status, 201, method);
    const wrong = await pay({ invoice_id: id, amount: 1, method: 'crypto' });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.body.error.details[0].field, 'method');
  });

  test('a reference is unique per account: a repeat is 409 CONFLICT, on any invoice; other accounts may use it', async () => {
    const first = await sentInvoice(1_000);
    const second = await sentInvoice(1_000);
    assert.equal((await pay({ invoice_id: first, amount: 100, reference: 'CHK-1001' })).status, 201);
    for (const invoiceId of [first, second]) {
      const repeat = await pay({ invoice_id: invoiceId, amount: 100, reference: 'CHK-1001' });
      assert.equal(repeat.status, 409, repeat.text);
      assert.equal(repeat.body.error.code, 'CONFLICT');
      assert.match(repeat.body.error.message, /CHK-1001/);
    }
    assert.equal((await invoice(second)).amount_paid, 0, 'the repeat stored nothing');
    assert.equal(
      (await pay({ invoice_id: second, amount: 100 })).status,
      201,
      'payments without a reference never clash',
    );
    assert.equal((await pay({ invoice_id: second, amount: 100 })).status, 201);
    const other = await suite.context.account('Reference elsewhere');
    const theirClient = (
      await suite.context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Theirs' } })
    ).body.data.id;
    assert.equal(
      (
        await pay(
          { invoice_id: await sentInvoice(1_000, other.key, theirClient), amount: 100, reference: 'CHK-1001' },
          other.key,
        )
      ).status,
      201,
    );
  });

  test('paid_at defaults to now, is stored in UTC, and may not be in the future', async () => {
    const id = await sentInvoice(1_000);
    const dated = await pay({ invoice_id: id, amount: 100, paid_at: '2026-01-15T09:30:00+02:00' });
    assert.equal(dated.body.data.paid_at, '2026-01-15T07:30:00.000Z');
    const future = await pay({ invoice_id: id, amount: 100, paid_at: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal(future.status, 422);
    assert.equal(future.body.error.details[0].field, 'paid_at');
  });
});

describe('payments are not edited or deleted, only refunded', () => {
  test('PUT changes notes and metadata only; amounts, method and links are refused; DELETE is 405', async () => {
    const id = await sentInvoice(1_000);
    const payment = (await pay({ invoice_id: id, amount: 400 })).body.data;
    const updated = await suite.context.request('PUT', `/v1/payments/${payment.id}`, {
      key: suite.key,
      body: { notes: 'Counted twice', metadata: { batch: '7' } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(
      [updated.body.data.notes, updated.body.data.metadata, updated.body.data.amount],
      ['Counted twice', { batch: '7' }, 400],
    );
    for (const body of [
      { amount: 300 },
      { method: 'card' },
      { invoice_id: id },
      { paid_at: '2026-01-01T00:00:00.000Z' },
      { reference: 'X' },
    ]) {
      const response = await suite.context.request('PUT', `/v1/payments/${payment.id}`, { key: suite.key, body });
      assert.equal(response.status, 422, JSON.stringify(body));
    }
    const removal = await suite.context.request('DELETE', `/v1/payments/${payment.id}`, { key: suite.key });
    assert.equal(removal.status, 405);
    assert.equal(removal.headers.allow, 'GET, HEAD, PUT');
    assert.equal((await invoice(id)).amount_paid, 400);
  });

  test('a partial refund lowers amount_paid and reopens a paid invoice; the rest by default; never more than is left', async () => {
    const id = await sentInvoice(5_000);
    const payment = (await pay({ invoice_id: id, amount: 5_000, method: 'card' })).body.data;
    assert.equal((await invoice(id)).status, 'paid');

    const partial = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, {
      key: suite.key,
      body: { amount: 1_200, reason: 'Overcharged for parts' },
    });
    assert.equal(partial.status, 200, partial.text);
    assert.equal(partial.body.data.amount, 5_000, 'the payment itself never changes');
    assert.equal(partial.body.data.amount_refunded, 1_200);
    assert.deepEqual(
      partial.body.data.refunds.map((refund: { amount: number; reason: string }) => [refund.amount, refund.reason]),
      [[1_200, 'Overcharged for parts']],
    );
    let current = await invoice(id);
    assert.deepEqual(
      [current.status, current.amount_paid, current.amount_due, current.paid_at],
      ['sent', 3_800, 1_200, null],
    );
    assert.deepEqual(current.payments[0], {
      id: payment.id,
      amount: 5_000,
      amount_refunded: 1_200,
      method: 'card',
      paid_at: payment.paid_at,
    });

    const tooMuch = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, {
      key: suite.key,
      body: { amount: 3_801 },
    });
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.body.error.details[0].field, 'amount');

    const rest = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, { key: suite.key });
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.data.amount_refunded, 5_000);
    assert.equal(rest.body.data.refunds.length, 2);
    current = await invoice(id);
    assert.deepEqual([current.status, current.amount_paid, current.amount_due], ['sent', 0, 5_000]);
    assert.equal(
      (await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, { key: suite.key, body: {} })).status,
      422,
      'nothing left to refund',
    );

    const again = await pay({ invoice_id: id, amount: 5_000 });
    assert.equal(again.status, 201, 'the reopened invoice takes payments again');
    assert.equal((await invoice(id)).status, 'paid');
  });

  test('money received against an invoice later voided can still be refunded; the invoice stays void', async () => {
    const id = await sentInvoice(2_000);
    const payment = (await pay({ invoice_id: id, amount: 500 })).body.data;
    await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'void' } });
    const refund = await suite.context.request('POST', `/v1/payments/${payment.id}/refund`, { key: suite.key });
    assert.equal(refund.status, 200, refund.text);
    const current = await invoice(id);
    // The one documented change of version 4 (§22, §32): a void invoice keeps amount_paid as when voided; the
    // void released the payment's application, so the refund took unapplied money.
    assert.deepEqual([current.status, current.amount_paid, current.amount_due], ['void', 500, 0]);
    assert.deepEqual([refund.body.data.amount_applied, refund.body.data.amount_unapplied], [0, 0]);
  });
});

describe('the invoice side', () => {
  test('PUT {status: "paid"} records what is due as a payment with method other', async () => {
    const id = await sentInvoice(9_999);
    await pay({ invoice_id: id, amount: 1_234 });
    const marked = await suite.context.request('PUT', `/v1/invoices/${id}`, {
      key: suite.key,
      body: { status: 'paid' },
    });
    assert.equal(marked.status, 200, marked.text);
    assert.deepEqual(
      [marked.body.data.status, marked.body.data.amount_paid, marked.body.data.amount_due],
      ['paid', 9_999, 0],
    );
    assert.deepEqual(
      marked.body.data.payments.map((payment: { amount: number; method: string }) => [payment.amount, payment.method]),
      [
        [1_234, 'cash'],
        [8_765, 'other'],
      ],
    );
    const listed = await suite.context.request('GET', `/v1/payments?invoice_id=${id}&method=other`, { key: suite.key });
    assert.deepEqual(
      listed.body.data.map((payment: { amount: number }) => payment.amount),
      [8_765],
    );
  });

  test('a partly paid invoice keeps its client and cannot be edited below what was paid', async () => {
    const id = await sentInvoice(3_000);
    await pay({ invoice_id: id, amount: 2_000 });
    const otherClient = (
      await suite.context.request('POST', '/v1/clients', { key: suite.key, body: { name: 'Someone else' } })
    ).body.data.id;
    const move = await suite.context.request('PUT', `/v1/invoices/${id}`, {
      key: suite.key,
      body: { client_id: otherClient },
    });
    assert.equal(move.status, 422);
    assert.equal(move.body.error.details[0].field, 'client_id');
    const shrink = await suite.context.request('PUT', `/v1/invoices/${id}`, {
      key: suite.key,
      body: { line_items: [{ description: 'Less work', quantity: 1, unit_amount: 1_999 }] },
    });
    assert.equal(shrink.status, 422);
    assert.equal(shrink.body.error.details[0].field, 'line_items');
    const exact = await suite.context.request('PUT', `/v1/invoices/${id}`, {
      key: suite.key,
      body: { line_items: [{ description: 'Exactly paid', quantity: 1, unit_amount: 2_000 }] },
    });
    assert.equal(exact.status, 200, exact.text);
    assert.deepEqual([exact.body.data.status, exact.body.data.amount_due], ['paid', 0], 'nothing left due: paid');
  });

  test('the e-mail and the PDF of a partly paid invoice show the amount paid and the amount due', async () => {
    const id = await sentInvoice(10_000);
    await pay({ invoice_id: id, amount: 2_500 });
    const sent = await suite.context.request('POST', `/v1/invoices/${id}/send`, { key: suite.key });
    assert.equal(sent.status, 200, sent.text);
    const row = await suite.context.database.db
      .selectFrom('outbox_messages')
      .select('snapshot')
      .where('document_id', '=', id)
      .executeTakeFirstOrThrow();
    const snapshot = JSON.parse(row.snapshot) as MailSnapshot;
    const text = renderText(snapshot);
    assert.match(text, /Amount paid: \$25\.00/);
    assert.match(text, /Amount due: \$75\.00/);
    const file = await suite.context.request('GET', `/v1/invoices/${id}/pdf`, { key: suite.key });
    assert.equal(file.status, 200, file.text);
    const pdf = await pdfText(file.raw);
    assert.match(pdf, /Amount paid\s*\$25\.00/);
    assert.match(pdf, /Amount due\s*\$75\.00/);
  });
});

describe('concurrency and exactness', () => {
  test('20 concurrent payments whose sum exceeds the total: exactly the ones that fit succeed', async () => {
    const id = await sentInvoice(10_000);
    const responses = await Promise.all(Array.from({ length: 20 }, () => pay({ invoice_id: id, amount: 700 })));
    const statuses = responses.map((response) => response.status);
    assert.equal(
      statuses.filter((status) => status === 201).length,
      14,
      `14 × 700 fit in 10,000: ${statuses.join(',')}`,
    );
    assert.ok(
      responses
        .filter((response) => response.status !== 201)
        .every((response) => response.status === 422 && response.body.error.details[0].field === 'amount'),
    );
    const current = await invoice(id);
    assert.deepEqual([current.amount_paid, current.amount_due, current.payments.length], [9_800, 200, 14]);
  });

  test('money is exact in every sum: many odd payments and refunds', async () => {
    const total = 1_000_003;
    const id = await sentInvoice(total);
    let expected = 0;
    const paymentIds: string[] = [];
    for (const amount of [1, 99_999, 123_457, 333_333, 7]) {
      const response = await pay({ invoice_id: id, amount });
      assert.equal(response.status, 201);
      paymentIds.push(response.body.data.id);
      expected += amount;
    }
    for (const [index, amount] of [
      [1, 3],
      [2, 123_457],
      [3, 1],
    ] as const) {
      assert.equal(
        (
          await suite.context.request('POST', `/v1/payments/${paymentIds[index]}/refund`, {
            key: suite.key,
            body: { amount },
          })
        ).status,
        200,
      );
      expected -= amount;
    }
    const current = await invoice(id);
    assert.deepEqual([current.amount_paid, current.amount_due], [expected, total - expected]);
    const listed = (await suite.context.request('GET', `/v1/payments?invoice_id=${id}&limit=100`, { key: suite.key }))
      .body.data as Array<{ amount: number; amount_refunded: number }>;
    assert.equal(
      listed.reduce((sum, payment) => sum + payment.amount - payment.amount_refunded, 0),
      expected,
    );
  });
});

describe('listing and scopes', () => {
  test('filters: invoice_id, client_id, method, paid_after, paid_before; bad values are 422', async () => {
    const client = (await suite.context.request('POST', '/v1/clients', { key: suite.key, body: { name: 'Lister' } }))
      .body.data.id;
    const id = await sentInvoice(10_000, suite.key, client);
    await pay({ invoice_id: id, amount: 100, method: 'check', paid_at: '2026-03-01T00:00:00.000Z' });
    await pay({ invoice_id: id, amount: 200, method: 'card', paid_at: '2026-04-01T00:00:00.000Z' });
    const amounts = async (query: string) =>
      (
        (await suite.context.request('GET', `/v1/payments?${query}`, { key: suite.key })).body.data as Array<{
          amount: number;
        }>
      ).map((payment) => payment.amount);
    assert.deepEqual(await amounts(`client_id=${client}&sort=paid_at`), [100, 200]);
    assert.deepEqual(await amounts(`invoice_id=${id}&method=card`), [200]);
    assert.deepEqual(await amounts(`client_id=${client}&paid_after=2026-03-15T00:00:00Z`), [200]);
    assert.deepEqual(await amounts(`client_id=${client}&paid_before=2026-03-15T00:00:00Z`), [100]);
    for (const query of ['method=crypto', 'paid_after=yesterday', 'invoice_id=nope', 'sort=amount']) {
      assert.equal(
        (await suite.context.request('GET', `/v1/payments?${query}`, { key: suite.key })).status,
        422,
        query,
      );
    }
  });

  test('payments need only the payments scopes; invoice scopes do not grant them', async () => {
    const id = await sentInvoice(1_000);
    const paymentsOnly = (await suite.context.key(suite.accountId, ['payments:write', 'payments:read'])).key;
    const created = await pay({ invoice_id: id, amount: 100 }, paymentsOnly);
    assert.equal(created.status, 201, created.text);
    assert.equal(
      (await suite.context.request('GET', `/v1/payments/${created.body.data.id}`, { key: paymentsOnly })).status,
      200,
    );
    const invoicesOnly = (await suite.context.key(suite.accountId, ['invoices:read', 'invoices:write'])).key;
    const refused = await pay({ invoice_id: id, amount: 100 }, invoicesOnly);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'INSUFFICIENT_SCOPE');
  });
});

test('the worked example of docs/resources.md, step by step', async () => {
  const id = await sentInvoice(120_000);
  const balance = async () => {
    const current = await invoice(id);
    return [current.amount_paid, current.amount_due, current.status];
  };
  const deposit = { invoice_id: id, amount: 40_000, method: 'card', reference: `CARD-7731-${id}` };
  assert.equal((await pay(deposit)).status, 201);
  assert.deepEqual(await balance(), [40_000, 80_000, 'sent']);
  assert.equal((await pay(deposit)).status, 409, 'a retried sync');
  const p2 = (await pay({ invoice_id: id, amount: 80_000, method: 'bank_transfer' })).body.data.id;
  assert.deepEqual(await balance(), [120_000, 0, 'paid']);
  assert.equal((await pay({ invoice_id: id, amount: 1, method: 'cash' })).body.error.code, 'INVALID_STATE');
  assert.equal(
    (
      await suite.context.request('POST', `/v1/payments/${p2}/refund`, {
        key: suite.key,
        body: { amount: 15_000, reason: 'Overcharged for parts' },
      })
    ).status,
    200,
  );
  assert.deepEqual(await balance(), [105_000, 15_000, 'sent']);
  const tooMuch = await suite.context.request('POST', `/v1/payments/${p2}/refund`, {
    key: suite.key,
    body: { amount: 70_000 },
  });
  assert.deepEqual(
    [tooMuch.status, tooMuch.body.error.details[0].message],
    [422, 'amount must not exceed what is left to refund (65000)'],
  );
  assert.equal(
    (await suite.context.request('PUT', `/v1/invoices/${id}`, { key: suite.key, body: { status: 'paid' } })).status,
    200,
  );
  assert.deepEqual(await balance(), [120_000, 0, 'paid']);
  assert.deepEqual(
    (await invoice(id)).payments.map((payment: { amount: number; method: string }) => [payment.amount, payment.method]),
    [
      [40_000, 'card'],
      [80_000, 'bank_transfer'],
      [15_000, 'other'],
    ],
  );
});

describe('refunds and the payments an invoice carries', () => {
  const api = (method: string, url: string, body?: unknown, key = suite.key) =>
    suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

  /** The events about `resourceId`, newest first. */
  const eventsOf = async (resourceId: string): Promise<{ id: string; type: string; data: any }[]> =>
    (await api('GET', `/v1/events?resource_id=${resourceId}&limit=100`)).body.data;

  /** The types of the events about `resourceId` that are not among `known`. */
  const newEventTypes = async (resourceId: string, known: Set<string>): Promise<string[]> =>
    (await eventsOf(resourceId)).filter((event) => !known.has(event.id)).map((event) => event.type);

  const eventIds = async (...resourceIds: string[]): Promise<Set<string>> =>
    new Set((await Promise.all(resourceIds.map(eventsOf))).flat().map((event) => event.id));

  test('a refund on a paid invoice records payment.refunded and invoice.updated, never invoice.sent', async () => {
    const invoiceId = await sentInvoice(5_000);
    const payment = (await api('POST', '/v1/payments', { invoice_id: invoiceId, amount: 5_000, method: 'card' })).body
      .data;
    assert.equal((await api('GET', `/v1/invoices/${invoiceId}`)).body.data.status, 'paid');
    const known = await eventIds(invoiceId, payment.id);

    const refund = await api('POST', `/v1/payments/${payment.id}/refund`, { amount: 1_000 });
    assert.equal(refund.status, 200, refund.text);
    assert.equal((await api('GET', `/v1/invoices/${invoiceId}`)).body.data.status, 'sent');
    assert.deepEqual(await newEventTypes(invoiceId, known), ['invoice.updated']);
    assert.deepEqual(await newEventTypes(payment.id, known), ['payment.refunded']);
    const [updated] = (await eventsOf(invoiceId)).filter((event) => !known.has(event.id));
    assert.deepEqual(
      { status: updated?.data.previous_attributes.status, amount_paid: updated?.data.previous_attributes.amount_paid },
      { status: 'paid', amount_paid: 5_000 },
    );
  });

  test('an invoice holds its 20 most recent payments with payments_count, a payment its 20 most recent refunds with refunds_count', async () => {
    const invoiceId = await sentInvoice(100_000);
    const paymentIds: string[] = [];
    for (let n = 0; n < 25; n += 1) {
      const paidAt = new Date(Date.UTC(2026, 0, 1 + n)).toISOString();
      const paid = await api('POST', '/v1/payments', {
        invoice_id: invoiceId,
        amount: 100,
        method: 'cash',
        paid_at: paidAt,
      });
      assert.equal(paid.status, 201, paid.text);
      paymentIds.push(paid.body.data.id);
    }
    const invoice = (await api('GET', `/v1/invoices/${invoiceId}`)).body.data;
    assert.equal(invoice.payments_count, 25);
    assert.deepEqual(
      invoice.payments.map((payment: { id: string }) => payment.id),
      paymentIds.slice(5),
      'the 20 most recent, oldest first among them',
    );
    assert.equal(invoice.amount_paid, 2_500, 'the balance counts every payment, listed or not');
    const listed = await api('GET', `/v1/payments?invoice_id=${invoiceId}&limit=100`);
    assert.equal(listed.body.data.length, 25, 'the rest are listed by GET /v1/payments?invoice_id=');
    // The invoice's event carries the same bounded list.
    const [event] = await eventsOf(invoiceId);
    assert.equal(event?.data.object.payments.length, 20);
    assert.equal(event?.data.object.payments_count, 25);
    // payments_count is read-only.
    const written = await api('PUT', `/v1/invoices/${invoiceId}`, { payments_count: 1 });
    assert.equal(written.status, 422, written.text);

    const big = await api('POST', '/v1/payments', { invoice_id: invoiceId, amount: 5_000, method: 'card' });
    const refundIds: string[] = [];
    for (let n = 0; n < 22; n += 1) {
      const refunded = await api('POST', `/v1/payments/${big.body.data.id}/refund`, { amount: 10 });
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.body.data.refunds_count, n + 1);
      assert.equal(refunded.body.data.refunds.length, Math.min(n + 1, 20));
      refundIds.push(refunded.body.data.refunds.at(-1).id);
    }
    const payment = (await api('GET', `/v1/payments/${big.body.data.id}`)).body.data;
    assert.equal(payment.refunds_count, 22);
    assert.equal(payment.amount_refunded, 220);
    assert.deepEqual(
      payment.refunds.map((refund: { id: string }) => refund.id),
      refundIds.slice(2),
    );
    const afterRefunds = (await api('GET', `/v1/invoices/${invoiceId}`)).body.data;
    assert.equal(afterRefunds.payments_count, 26);
    assert.equal(afterRefunds.payments.at(-1).id, big.body.data.id);
  });
});
