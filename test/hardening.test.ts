// Hardening, third round (issue 34; docs/api-contract.md §21): each numbered item of the issue is a test named
// after it, written to fail on the code before its fix. The fairness items (1–3) have their own file.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { clientSuite } from './helpers/state-table.js';
import { runBms } from './helpers/processes.js';

const suite = clientSuite('Hardening');

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

/** The events about `resourceId`, newest first. */
const eventsOf = async (resourceId: string): Promise<{ id: string; type: string; data: any }[]> =>
  (await api('GET', `/v1/events?resource_id=${resourceId}&limit=100`)).body.data;

/** The types of the events about `resourceId` that are not among `known`. */
const newEventTypes = async (resourceId: string, known: Set<string>): Promise<string[]> =>
  (await eventsOf(resourceId)).filter((event) => !known.has(event.id)).map((event) => event.type);

const eventIds = async (...resourceIds: string[]): Promise<Set<string>> =>
  new Set((await Promise.all(resourceIds.map(eventsOf))).flat().map((event) => event.id));

describe('delivery and data integrity', () => {
  test('34.9 a refund on a paid invoice records payment.refunded and invoice.updated, never invoice.sent', async () => {
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

  test('34.8 an invoice currency is frozen once a payment or a sent version exists: 409 INVALID_STATE', async () => {
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
});

describe('one tenant must not hurt another', () => {
  const endpoint = (key: string, n: number) =>
    suite.context.request('POST', '/v1/webhook-endpoints', {
      key,
      body: { url: `http://127.0.0.1:9/hook-${n}`, enabled_events: ['*'] },
    });

  test('34.4 webhook endpoints are capped at 16 per account: the 17th is 422 on url; the CLI raises one account', async () => {
    const { accountId, key } = await suite.context.account('Endpoint collector');
    for (let n = 1; n <= 16; n += 1) assert.equal((await endpoint(key, n)).status, 201, `endpoint ${n}`);
    const seventeenth = await endpoint(key, 17);
    assert.equal(seventeenth.status, 422, seventeenth.text);
    assert.equal(seventeenth.body.error.code, 'VALIDATION_ERROR');
    assert.equal(seventeenth.body.error.details[0].field, 'url');
    assert.match(seventeenth.body.error.details[0].message, /16 webhook endpoints/);
    assert.match(seventeenth.body.error.details[0].message, /bms accounts set-limits/);
    // Another account is not affected; a deleted endpoint frees its place.
    assert.equal((await endpoint(suite.key, 1)).status, 201);
    const list = await suite.context.request('GET', '/v1/webhook-endpoints?limit=1', { key });
    assert.equal((await api('DELETE', `/v1/webhook-endpoints/${list.body.data[0].id}`, undefined, key)).status, 200);
    assert.equal((await endpoint(key, 17)).status, 201);
    assert.equal((await endpoint(key, 18)).status, 422);

    // The operator raises this account's limit with the CLI (a real `bms` process on the same database).
    const env = { DATABASE_URL: suite.context.databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    const raised = runBms(['accounts', 'set-limits', accountId, '--webhook-endpoints', '17', '--json'], env);
    assert.equal(raised.status, 0, raised.stderr);
    assert.deepEqual(JSON.parse(raised.stdout), { id: accountId, limits: { webhook_endpoints: 17 } });
    assert.equal((await endpoint(key, 18)).status, 201);
    assert.equal((await endpoint(key, 19)).status, 422);
    const bad = runBms(['accounts', 'set-limits', accountId, '--webhook-endpoints', '0'], env);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--webhook-endpoints must be a whole number/);
  });

  test('34.4 an event fans out to 4,096 endpoints (an account the operator raised) with one statement: 201, one row each', async () => {
    const { accountId, key } = await suite.context.account('Raised account');
    const now = new Date().toISOString();
    const rows = Array.from({ length: 4_096 }, (_, n) => ({
      id: randomUUID(),
      account_id: accountId,
      url: `http://127.0.0.1:9/fan-${n}`,
      description: null,
      enabled_events: JSON.stringify(n % 2 === 0 ? ['*'] : ['client.*']),
      status: 'enabled',
      disabled_reason: null,
      secret: `whsec_${n}`,
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    }));
    // One more that listens for something else: it gets nothing.
    rows.push({ ...rows[0]!, id: randomUUID(), url: 'http://127.0.0.1:9/other', enabled_events: '["invoice.paid"]' });
    for (let start = 0; start < rows.length; start += 500)
      await suite.context.database.db
        .insertInto('webhook_endpoints')
        .values(rows.slice(start, start + 500))
        .execute();

    const created = await suite.context.request('POST', '/v1/clients', { key, body: { name: 'Fan-out' } });
    assert.equal(created.status, 201, created.text);
    const [event] = (await suite.context.request('GET', '/v1/events?limit=1', { key })).body.data;
    const deliveries = await suite.context.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'status', 'attempt', 'event_type'])
      .where('event_id', '=', event.id)
      .execute();
    assert.equal(deliveries.length, 4_096);
    assert.equal(new Set(deliveries.map((delivery) => delivery.endpoint_id)).size, 4_096);
    assert.equal(new Set(deliveries.map((delivery) => delivery.id)).size, 4_096);
    assert.ok(deliveries.every((d) => d.status === 'pending' && d.attempt === 1 && d.event_type === 'client.created'));
    assert.ok(deliveries.every((d) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(d.id)));
  });
});
