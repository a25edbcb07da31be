// Deposits on quotes (contract §23, with §22's payments): a deposit asked as an amount or a percent of the total
// (a percent rounds halves away from zero), paid by a payment naming the quote, deducted from the first invoice
// sent from the quote (or its job) through an application so that its amount_due falls by exactly the deposit,
// a second invoice not deducted, a refund lowering what the deposit holds, and every bad input a 422 or 409.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fs from 'node:fs';
import { clientSuite } from './helpers/state-table.js';
import { pdfText } from './helpers/smtp.js';

const suite = clientSuite('Deposits');

const request = (method: string, path: string, body?: unknown) =>
  suite.context.request(method, path, { key: suite.key, ...(body === undefined ? {} : { body }) });

async function ok(method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) {
  const response = await request(method, path, body);
  assert.equal(response.status, status, response.text);
  return response.body.data;
}

/** A quote of one untaxed line of `total` minor units with `deposit`, sent and approved. */
async function approvedQuote(total: number, deposit: unknown) {
  const quote = await ok('POST', '/v1/quotes', {
    client_id: suite.clientId,
    line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: total }],
    deposit,
  });
  await ok('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
  return ok('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' });
}

const deposit = (quoteId: string, amount: number, extra: Record<string, unknown> = {}) =>
  request('POST', '/v1/payments', { quote_id: quoteId, amount, method: 'bank_transfer', ...extra });

const figures = (quote: Record<string, unknown>) => ({
  deposit: quote.deposit,
  deposit_amount: quote.deposit_amount,
  deposit_paid_amount: quote.deposit_paid_amount,
  deposit_due_amount: quote.deposit_due_amount,
});

describe('a quote’s deposit', () => {
  test('a percent deposit rounds halves away from zero: 30 % of 12,345 is 3,703.5, so 3,704', async () => {
    const quote = await ok('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: 12_345 }],
      deposit: { type: 'percent', value: 30 },
    });
    assert.deepEqual(figures(quote), {
      deposit: { type: 'percent', value: 30 },
      deposit_amount: 3_704,
      deposit_paid_amount: 0,
      deposit_due_amount: 3_704,
    });
    // 33.3333 % of 10,000 is 3,333.33: 3,333; the deposit follows the total when the lines change.
    const changed = await ok('PUT', `/v1/quotes/${quote.id}`, {
      line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: 10_000 }],
      deposit: { type: 'percent', value: 33.3333 },
    });
    assert.deepEqual(figures(changed), {
      deposit: { type: 'percent', value: 33.3333 },
      deposit_amount: 3_333,
      deposit_paid_amount: 0,
      deposit_due_amount: 3_333,
    });
    const none = await ok('PUT', `/v1/quotes/${quote.id}`, { deposit: null });
    assert.deepEqual(figures(none), {
      deposit: null,
      deposit_amount: 0,
      deposit_paid_amount: 0,
      deposit_due_amount: 0,
    });
    const amount = await ok('PUT', `/v1/quotes/${quote.id}`, { deposit: { type: 'amount', value: 2_500 } });
    assert.deepEqual(figures(amount), {
      deposit: { type: 'amount', value: 2_500 },
      deposit_amount: 2_500,
      deposit_paid_amount: 0,
      deposit_due_amount: 2_500,
    });
  });

  test('a deposit that is not an amount 1 … total or a percent 0 < p ≤ 100 with 4 decimals is 422', async () => {
    const lines = [{ description: 'Kitchen', quantity: 1, unit_amount: 12_345 }];
    for (const bad of [
      { type: 'amount', value: 12_346 },
      { type: 'amount', value: 0 },
      { type: 'amount', value: 10.5 },
      { type: 'percent', value: 0 },
      { type: 'percent', value: 100.5 },
      { type: 'percent', value: 12.34567 },
      { type: 'percent', value: -5 },
    ]) {
      const response = await request('POST', '/v1/quotes', {
        client_id: suite.clientId,
        line_items: lines,
        deposit: bad,
      });
      assert.equal(response.status, 422, `${JSON.stringify(bad)}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    }
    // Lowering the total below an amount deposit is refused too, and nothing is stored.
    const quote = await ok('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: lines,
      deposit: { type: 'amount', value: 5_000 },
    });
    const lowered = await request('PUT', `/v1/quotes/${quote.id}`, {
      line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: 4_999 }],
    });
    assert.equal(lowered.status, 422, lowered.text);
    assert.equal((await ok('GET', `/v1/quotes/${quote.id}`)).total_amount, 12_345);
  });
});

describe('deposit payments', () => {
  test('paid on the approved quote, converted to a job and invoiced: the first invoice’s amount_due falls by exactly the deposit, the second’s not', async () => {
    const quote = await approvedQuote(12_345, { type: 'percent', value: 30 });
    const paid = await deposit(quote.id, 3_704, { reference: 'DEP-3704' });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.data.quote_id, quote.id);
    assert.equal(paid.body.data.invoice_id, null);
    assert.equal(paid.body.data.client_id, suite.clientId);
    assert.equal(paid.body.data.amount_applied, 0);
    assert.equal(paid.body.data.amount_unapplied, 3_704);
    assert.deepEqual(figures(await ok('GET', `/v1/quotes/${quote.id}`)), {
      deposit: { type: 'percent', value: 30 },
      deposit_amount: 3_704,
      deposit_paid_amount: 3_704,
      deposit_due_amount: 0,
    });
    const events = await ok('GET', '/v1/events?type=quote.deposit_paid');
    assert.ok(events.some((event: { data: { object: { id: string } } }) => event.data.object.id === quote.id));
    // Credit until deducted: the client's balance counts it.
    const job = await ok('POST', '/v1/jobs', { quote_id: quote.id });
    const invoice = await ok('POST', '/v1/invoices', { job_id: job.id });
    assert.equal(invoice.quote_id, quote.id);
    assert.equal(invoice.amount_due, 12_345);
    const sent = await ok('POST', `/v1/invoices/${invoice.id}/send`, {}, 200);
    assert.equal(sent.amount_paid, 3_704);
    assert.equal(sent.amount_due, 12_345 - 3_704);
    assert.equal(sent.amount_due, 8_641);
    assert.deepEqual(
      sent.applications.map((application: { source: unknown; amount: number }) => [
        application.source,
        application.amount,
      ]),
      [[{ type: 'payment', id: paid.body.data.id }, 3_704]],
    );
    const payment = await ok('GET', `/v1/payments/${paid.body.data.id}`);
    assert.equal(payment.amount_applied, 3_704);
    assert.equal(payment.amount_unapplied, 0);
    // A second invoice from the same job is not deducted.
    const second = await ok('POST', '/v1/invoices', {
      job_id: job.id,
      line_items: [{ description: 'Extra', quantity: 1, unit_amount: 1_000 }],
    });
    const secondSent = await ok('PUT', `/v1/invoices/${second.id}`, { status: 'sent' });
    assert.equal(secondSent.amount_due, 1_000);
    assert.equal(secondSent.amount_paid, 0);
    // The ledger adds up: the client owes 8,641 + 1,000 and holds no credit.
    const balance = await ok('GET', `/v1/clients/${suite.clientId}/balance`);
    const usd = balance.balances.find((row: { currency: string }) => row.currency === 'USD');
    assert.ok(usd.receivable_amount >= 9_641);
    const entries = await ok('GET', `/v1/ledger-entries?payment_id=${paid.body.data.id}&sort=sequence`);
    assert.deepEqual(
      entries.map((entry: { type: string; amount: number; applied_amount: number; invoice_id: string | null }) => [
        entry.type,
        entry.amount,
        entry.applied_amount,
        entry.invoice_id,
      ]),
      [
        ['payment_received', -3_704, 0, null],
        ['applied', 0, 3_704, invoice.id],
      ],
    );
  });

  test('a deposit paid while an invoice of the quote is sent and unpaid goes to it at once', async () => {
    const quote = await approvedQuote(12_345, { type: 'amount', value: 2_000 });
    const invoice = await ok('POST', '/v1/invoices', { quote_id: quote.id });
    await ok('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
    const paid = await deposit(quote.id, 2_000);
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.data.amount_applied, 2_000);
    const after = await ok('GET', `/v1/invoices/${invoice.id}`);
    assert.equal(after.amount_due, 10_345);
    assert.equal((await ok('GET', `/v1/quotes/${quote.id}`)).deposit_due_amount, 0);
  });

  test('a refund of a deposit lowers deposit_paid_amount and what is deducted', async () => {
    const quote = await approvedQuote(12_345, { type: 'amount', value: 5_000 });
    const paid = await deposit(quote.id, 5_000);
    assert.equal(paid.status, 201, paid.text);
    const refunded = await ok('POST', `/v1/payments/${paid.body.data.id}/refund`, { amount: 2_000 }, 200);
    assert.equal(refunded.amount_refunded, 2_000);
    assert.equal(refunded.amount_unapplied, 3_000);
    assert.deepEqual(figures(await ok('GET', `/v1/quotes/${quote.id}`)), {
      deposit: { type: 'amount', value: 5_000 },
      deposit_amount: 5_000,
      deposit_paid_amount: 3_000,
      deposit_due_amount: 2_000,
    });
    const invoice = await ok('POST', '/v1/invoices', { quote_id: quote.id });
    const sent = await ok('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
    assert.equal(sent.amount_due, 9_345);
    // A refund after the deduction takes the money back from the invoice, which owes it again.
    await ok('POST', `/v1/payments/${paid.body.data.id}/refund`, { amount: 1_000 }, 200);
    assert.equal((await ok('GET', `/v1/invoices/${invoice.id}`)).amount_due, 10_345);
    assert.equal((await ok('GET', `/v1/quotes/${quote.id}`)).deposit_paid_amount, 2_000);
  });

  test('bad deposit payments: a quote not approved is 409; both or neither document, too much or an unknown quote is 422', async () => {
    const draft = await ok('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: 12_345 }],
    });
    const notApproved = await deposit(draft.id, 100);
    assert.equal(notApproved.status, 409, notApproved.text);
    assert.equal(notApproved.body.error.code, 'INVALID_STATE');
    const quote = await approvedQuote(12_345, { type: 'percent', value: 50 });
    await ok('POST', '/v1/payments', { quote_id: quote.id, amount: 12_000, method: 'cash' });
    const tooMuch = await deposit(quote.id, 346);
    assert.equal(tooMuch.status, 422, tooMuch.text);
    assert.ok(tooMuch.text.includes('345'));
    const invoice = await ok('POST', '/v1/invoices', {
      client_id: suite.clientId,
      line_items: [{ description: 'Other', quantity: 1, unit_amount: 100 }],
    });
    for (const body of [
      { invoice_id: invoice.id, quote_id: quote.id, amount: 1, method: 'cash' },
      { amount: 1, method: 'cash' },
      { quote_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02', amount: 1, method: 'cash' },
      { quote_id: quote.id, amount: 1, method: 'cash', overpayment: 'credit' },
      { quote_id: quote.id, amount: 0, method: 'cash' },
    ]) {
      const response = await request('POST', '/v1/payments', body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await ok('GET', `/v1/quotes/${quote.id}`)).deposit_paid_amount, 12_000);
    // A quote a deposit names is never deleted (§32): 409, and it stays.
    const deleted = await request('DELETE', `/v1/quotes/${quote.id}`);
    assert.equal(deleted.status, 409, deleted.text);
    assert.equal(deleted.body.error.code, 'CONFLICT');
    assert.equal((await ok('GET', `/v1/quotes/${quote.id}`)).deposit_paid_amount, 12_000);
  });
});

describe('printed deposits', () => {
  test('the quote’s PDF prints the deposit due on approval, then received and due; the invoice’s PDF and hub page print "Deposit received"', async () => {
    const quote = await ok('POST', '/v1/quotes', {
      client_id: suite.clientId,
      line_items: [{ description: 'Kitchen', quantity: 1, unit_amount: 12_345 }],
      deposit: { type: 'percent', value: 30 },
    });
    await ok('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
    const sentPdf = await request('GET', `/v1/quotes/${quote.id}/pdf`);
    assert.equal(sentPdf.status, 200, sentPdf.text);
    assert.match(await pdfText(sentPdf.raw), /Deposit, due on approval\s*\$37\.04/);
    // The hub shows it with the payment instructions (no card processing).
    await ok('PUT', '/v1/account', { payment_instructions: 'Bank transfer to IBAN DE89 3704 0044 0532 0130 00' });
    const quoteHub = await suite.context.request(
      'GET',
      new URL((await ok('GET', `/v1/quotes/${quote.id}`)).hosted_url).pathname,
    );
    assert.equal(quoteHub.status, 200, quoteHub.text);
    assert.match(quoteHub.text, /Deposit, due on approval<\/dt><dd>\$37\.04/);
    assert.match(quoteHub.text, /How to pay/);
    await ok('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' });
    await ok('POST', '/v1/payments', { quote_id: quote.id, amount: 2_000, method: 'bank_transfer' });
    const approvedPdf = await request('GET', `/v1/quotes/${quote.id}/pdf`);
    const approvedText = await pdfText(approvedPdf.raw);
    assert.match(approvedText, /Deposit received\s*\$20\.00/);
    assert.match(approvedText, /Deposit due\s*\$17\.04/);
    const invoice = await ok('POST', '/v1/invoices', { quote_id: quote.id });
    const sent = await ok('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
    assert.equal(sent.amount_due, 10_345);
    await ok('POST', '/v1/payments', { invoice_id: invoice.id, amount: 345, method: 'cash' });
    const invoicePdf = await request('GET', `/v1/invoices/${invoice.id}/pdf`);
    const invoiceText = await pdfText(invoicePdf.raw);
    assert.match(invoiceText, /Deposit received\s*\$20\.00/);
    assert.match(invoiceText, /Amount paid\s*\$3\.45/);
    assert.match(invoiceText, /Amount due\s*\$100\.00/);
    const hosted = new URL((await ok('GET', `/v1/invoices/${invoice.id}`)).hosted_url);
    const hub = await suite.context.request('GET', hosted.pathname);
    assert.equal(hub.status, 200, hub.text);
    assert.match(hub.text, /Deposit received<\/dt><dd>\$20\.00/);
    if (process.env.BMS_DEPOSIT_PDF_DIR) {
      fs.writeFileSync(`${process.env.BMS_DEPOSIT_PDF_DIR}/quote.pdf`, approvedPdf.raw);
      fs.writeFileSync(`${process.env.BMS_DEPOSIT_PDF_DIR}/invoice.pdf`, invoicePdf.raw);
    }
  });
});
