// An invoice's currency, once its client has seen it (sent) or money was paid in it, does not change; a quote
// once sent keeps its currency too (docs/api-contract.md §21).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Currency');

const api = (method: string, url: string, body?: unknown, key = suite.key) =>
  suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

/** A sent invoice of `total` minor units in `currency` (one line, no tax). */
async function sentInvoice(total: number, currency = 'USD'): Promise<string> {
  const created = await api('POST', '/v1/invoices', {
    client_id: suite.clientId,
    currency,
    line_items: [{ description: 'Work', quantity: 1, unit_amount: total }],
  });
  assert.equal(created.status, 201, created.text);
  const sent = await api('PUT', `/v1/invoices/${created.body.data.id}`, { status: 'sent' });
  assert.equal(sent.status, 200, sent.text);
  return created.body.data.id;
}

test("an invoice's currency is frozen once it was sent or paid (409 INVALID_STATE), a draft's changes freely, a sent quote keeps its own", async () => {
  // Sent, no payment yet: the client was shown this currency.
  const sent = await sentInvoice(10_000, 'USD');
  const onSent = await api('PUT', `/v1/invoices/${sent}`, { currency: 'JPY' });
  assert.equal(onSent.status, 409, onSent.text);
  assert.equal(onSent.body.error.code, 'INVALID_STATE');
  assert.match(onSent.body.error.message, /currency/);

  // With a payment in USD: never becomes a JPY invoice.
  await api('POST', '/v1/payments', { invoice_id: sent, amount: 2_500, method: 'cash' });
  const onPaid = await api('PUT', `/v1/invoices/${sent}`, { currency: 'JPY', notes: 'Yen please' });
  assert.equal(onPaid.status, 409, onPaid.text);
  assert.equal(onPaid.body.error.code, 'INVALID_STATE');
  const after = (await api('GET', `/v1/invoices/${sent}`)).body.data;
  assert.deepEqual([after.currency, after.notes], ['USD', null], 'nothing of the refused PUT was applied');

  // The same currency again is no change and is accepted; a draft's currency still changes freely.
  assert.equal((await api('PUT', `/v1/invoices/${sent}`, { currency: 'USD' })).status, 200);
  const draft = await api('POST', '/v1/invoices', { client_id: suite.clientId, currency: 'USD' });
  const changed = await api('PUT', `/v1/invoices/${draft.body.data.id}`, { currency: 'EUR' });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.data.currency, 'EUR');

  // A quote once sent keeps its currency too, even back in draft.
  const quote = await api('POST', '/v1/quotes', {
    client_id: suite.clientId,
    currency: 'USD',
    line_items: [{ description: 'Work', quantity: 1, unit_amount: 1_000 }],
  });
  assert.equal((await api('PUT', `/v1/quotes/${quote.body.data.id}`, { status: 'sent' })).status, 200);
  const onQuote = await api('PUT', `/v1/quotes/${quote.body.data.id}`, { currency: 'JPY' });
  assert.equal(onQuote.status, 409, onQuote.text);
  assert.equal(onQuote.body.error.code, 'INVALID_STATE');
});
