// The request-to-invoice workflow: conversions, copying, cross-account references, atomicity,
// referential rules on delete, and numbering under concurrent requests.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

const LINES = [
  { description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 },
  { description: 'Faucet', quantity: 1, unit_amount: 8999 },
];

let context: TestContext;
let key: string;
let clientId: string;

async function post(path: string, body: unknown, expected = 201) {
  const response = await context.request('POST', path, { key, body });
  assert.equal(response.status, expected, response.text);
  return response.body.data ?? response.body;
}

async function put(path: string, body: unknown, expected = 200) {
  const response = await context.request('PUT', path, { key, body });
  assert.equal(response.status, expected, response.text);
  return response.body.data ?? response.body;
}

async function get(path: string) {
  return (await context.request('GET', path, { key })).body.data;
}

async function approvedQuote(client = clientId, extra: Record<string, unknown> = {}) {
  const quote = await post('/v1/quotes', { client_id: client, title: 'New faucet', line_items: LINES, ...extra });
  await put(`/v1/quotes/${quote.id}`, { status: 'sent' });
  return put(`/v1/quotes/${quote.id}`, { status: 'approved' });
}

before(async () => {
  context = await createTestContext();
});
after(() => context.close());
beforeEach(async () => {
  ({ key } = await context.account());
  clientId = (await post('/v1/clients', { name: 'Jane', email: 'jane@example.com' })).id;
});

describe('request -> quote -> job -> invoice', () => {
  test('the whole path, each step converting the one before', async () => {
    const request = await post('/v1/service-requests', {
      client_id: clientId,
      title: 'Leaking faucet',
      source: 'phone',
      preferred_date: '2026-12-01',
    });
    assert.deepEqual([request.status, request.source, request.preferred_date], ['new', 'phone', '2026-12-01']);

    const quote = await post('/v1/quotes', {
      client_id: clientId,
      request_id: request.id,
      title: 'New faucet',
      line_items: LINES,
      valid_until: '2026-12-31',
    });
    const convertedRequest = await get(`/v1/service-requests/${request.id}`);
    assert.equal(convertedRequest.status, 'converted');
    assert.ok(convertedRequest.converted_at);
    assert.equal(quote.number, null, 'a draft quote has no number');

    await put(`/v1/quotes/${quote.id}`, { status: 'sent' });
    await put(`/v1/quotes/${quote.id}`, { status: 'approved' });

    const job = await post('/v1/jobs', {
      quote_id: quote.id,
      scheduled_start: '2026-12-02T09:00:00Z',
      scheduled_end: '2026-12-02T12:00:00+01:00',
    });
    assert.equal(job.client_id, clientId, 'client copied from the quote');
    assert.equal(job.title, 'New faucet', 'title copied from the quote');
    assert.equal(job.request_id, request.id, 'request link carried over');
    assert.match(job.number, /^J-\d{6}$/);
    assert.equal(job.scheduled_end, '2026-12-02T11:00:00.000Z', 'timestamps are stored in UTC');
    assert.deepEqual(
      job.line_items.map((item: any) => [item.description, item.amount, item.tax_amount]),
      [
        ['Labour', 12000, 1065],
        ['Faucet', 8999, 0],
      ],
    );
    assert.equal(job.total_amount, quote.total_amount);
    assert.notEqual(job.line_items[0].id, quote.line_items[0].id, 'copied lines get their own ids');
    const convertedQuote = await get(`/v1/quotes/${quote.id}`);
    assert.equal(convertedQuote.status, 'converted');
    assert.ok(convertedQuote.converted_at);

    await put(`/v1/jobs/${job.id}`, { status: 'completed' });
    const invoice = await post('/v1/invoices', { job_id: job.id });
    assert.equal(invoice.client_id, clientId);
    assert.equal(invoice.quote_id, quote.id, "the job's quote is the invoice's quote");
    assert.equal(invoice.total_amount, job.total_amount);
    assert.equal(invoice.status, 'draft');
    assert.equal((await get(`/v1/jobs/${job.id}`)).status, 'completed', 'invoicing does not change the job');

    const sent = await put(`/v1/invoices/${invoice.id}`, { status: 'sent' });
    const paid = await put(`/v1/invoices/${invoice.id}`, { status: 'paid' });
    assert.equal(paid.number, sent.number);
    assert.equal(paid.amount_due, 0);
  });

  test('an invoice straight from an approved quote converts it and copies its lines and currency', async () => {
    const quote = await approvedQuote(clientId, { currency: 'EUR' });
    const invoice = await post('/v1/invoices', { quote_id: quote.id });
    assert.deepEqual(
      [invoice.client_id, invoice.currency, invoice.total_amount, invoice.quote_id],
      [clientId, 'EUR', quote.total_amount, quote.id],
    );
    assert.equal((await get(`/v1/quotes/${quote.id}`)).status, 'converted');
  });

  test('given lines win over copied ones', async () => {
    const quote = await approvedQuote();
    const job = await post('/v1/jobs', {
      quote_id: quote.id,
      title: 'Own title',
      line_items: [{ description: 'Only this', quantity: 1, unit_amount: 100 }],
    });
    assert.deepEqual([job.title, job.line_items.length, job.total_amount], ['Own title', 1, 100]);
  });

  test('a job straight from a request converts it; a quote from a converted request is fine', async () => {
    const request = await post('/v1/service-requests', { client_id: clientId, title: 'Gutter' });
    await post('/v1/jobs', { client_id: clientId, request_id: request.id, title: 'Clean gutter' });
    assert.equal((await get(`/v1/service-requests/${request.id}`)).status, 'converted');
    await post('/v1/quotes', { client_id: clientId, request_id: request.id });
  });
});

describe('what the links refuse', () => {
  test('a quote that is not approved cannot become a job or invoice (409), and nothing changes', async () => {
    for (const status of ['draft', 'sent', 'declined']) {
      const quote = await post('/v1/quotes', { client_id: clientId, line_items: LINES });
      if (status !== 'draft') await put(`/v1/quotes/${quote.id}`, { status: 'sent' });
      if (status === 'declined') await put(`/v1/quotes/${quote.id}`, { status: 'declined' });
      for (const path of ['/v1/jobs', '/v1/invoices']) {
        const response = await context.request('POST', path, { key, body: { quote_id: quote.id } });
        assert.equal(response.status, 409, `${status} ${path}: ${response.text}`);
        assert.equal(response.body.error.code, 'INVALID_STATE');
      }
      assert.equal((await get(`/v1/quotes/${quote.id}`)).status, status);
    }
    assert.deepEqual((await context.request('GET', '/v1/jobs', { key })).body.data, []);
  });

  test('a converted quote cannot be converted twice', async () => {
    const quote = await approvedQuote();
    await post('/v1/jobs', { quote_id: quote.id });
    const second = await context.request('POST', '/v1/jobs', { key, body: { quote_id: quote.id } });
    assert.equal(second.status, 409);
  });

  test("another client's quote, job or request is a 422 on the link, and nothing is converted", async () => {
    const otherClient = (await post('/v1/clients', { name: 'Other' })).id;
    const quote = await approvedQuote(otherClient);
    const job = await post('/v1/jobs', { client_id: otherClient, title: 'Theirs' });
    const request = await post('/v1/service-requests', { client_id: otherClient, title: 'Theirs' });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/jobs', { client_id: clientId, quote_id: quote.id }, 'quote_id'],
      ['/v1/invoices', { client_id: clientId, quote_id: quote.id }, 'quote_id'],
      ['/v1/invoices', { client_id: clientId, job_id: job.id }, 'job_id'],
      ['/v1/quotes', { client_id: clientId, request_id: request.id }, 'request_id'],
      ['/v1/jobs', { client_id: clientId, request_id: request.id, title: 'x' }, 'request_id'],
    ];
    for (const [path, body, field] of cases) {
      const response = await context.request('POST', path, { key, body });
      assert.equal(response.status, 422, `${path} ${field}: ${response.text}`);
      assert.equal(response.body.error.details[0].field, field);
    }
    assert.equal((await get(`/v1/quotes/${quote.id}`)).status, 'approved');
    assert.equal((await get(`/v1/service-requests/${request.id}`)).status, 'new');
  });

  test("another account's objects are unknown: 422 on the referring field", async () => {
    const theirs = await context.account('Another business');
    const theirClient = (await context.request('POST', '/v1/clients', { key: theirs.key, body: { name: 'Theirs' } }))
      .body.data.id;
    const theirRequest = (
      await context.request('POST', '/v1/service-requests', {
        key: theirs.key,
        body: { client_id: theirClient, title: 'x' },
      })
    ).body.data.id;
    const theirJob = (
      await context.request('POST', '/v1/jobs', { key: theirs.key, body: { client_id: theirClient, title: 'x' } })
    ).body.data.id;
    const theirQuote = (
      await context.request('POST', '/v1/quotes', { key: theirs.key, body: { client_id: theirClient } })
    ).body.data.id;
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/v1/service-requests', { client_id: theirClient, title: 'x' }, 'client_id'],
      ['POST', '/v1/quotes', { client_id: theirClient }, 'client_id'],
      ['POST', '/v1/quotes', { client_id: clientId, request_id: theirRequest }, 'request_id'],
      ['POST', '/v1/jobs', { client_id: theirClient, title: 'x' }, 'client_id'],
      ['POST', '/v1/jobs', { quote_id: theirQuote }, 'quote_id'],
      ['POST', '/v1/invoices', { job_id: theirJob }, 'job_id'],
      ['POST', '/v1/invoices', { client_id: theirClient }, 'client_id'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await context.request(method, path, { key, body });
      assert.equal(response.status, 422, `${path} ${field}: ${response.text}`);
      assert.deepEqual(
        response.body.error.details.map((detail: { field: string }) => detail.field),
        [field],
      );
    }
    const own = await post('/v1/invoices', { client_id: clientId });
    const moved = await context.request('PUT', `/v1/invoices/${own.id}`, { key, body: { client_id: theirClient } });
    assert.equal(moved.status, 422);
    assert.equal(moved.body.error.details[0].field, 'client_id');
  });

  test('an archived request must be reopened before a quote is made from it', async () => {
    const request = await post('/v1/service-requests', { client_id: clientId, title: 'Old' });
    await put(`/v1/service-requests/${request.id}`, { status: 'archived' });
    const response = await context.request('POST', '/v1/quotes', {
      key,
      body: { client_id: clientId, request_id: request.id },
    });
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'INVALID_STATE');
  });

  test('nothing is half-converted when a later step of the create fails', async () => {
    const request = await post('/v1/service-requests', { client_id: clientId, title: 'Atomic' });
    const quote = await approvedQuote();
    // The quote converts first; the schedule check fails afterwards, inside the same transaction.
    const failedJob = await context.request('POST', '/v1/jobs', {
      key,
      body: {
        quote_id: quote.id,
        request_id: request.id,
        scheduled_start: '2026-12-02T10:00:00Z',
        scheduled_end: '2026-12-02T09:00:00Z',
      },
    });
    assert.equal(failedJob.status, 422);
    assert.equal(failedJob.body.error.details[0].field, 'scheduled_end');
    assert.equal((await get(`/v1/quotes/${quote.id}`)).status, 'approved');
    assert.equal((await get(`/v1/service-requests/${request.id}`)).status, 'new');
    // Lines whose total is negative fail after the quote was converted: rolled back too.
    const failedInvoice = await context.request('POST', '/v1/invoices', {
      key,
      body: { quote_id: quote.id, line_items: [{ description: 'x', quantity: 1, unit_amount: -5 }] },
    });
    assert.equal(failedInvoice.status, 422);
    assert.equal((await get(`/v1/quotes/${quote.id}`)).status, 'approved');
    const job = await post('/v1/jobs', { quote_id: quote.id });
    assert.equal(job.number, 'J-000001', 'failed creates used no job number');
  });

  test('client_id is required unless a source gives it; title unless a quote gives it', async () => {
    const noClient = await context.request('POST', '/v1/invoices', { key, body: {} });
    assert.deepEqual([noClient.status, noClient.body.error.details[0].field], [422, 'client_id']);
    const noTitle = await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId } });
    assert.deepEqual([noTitle.status, noTitle.body.error.details[0].field], [422, 'title']);
    const quote = await post('/v1/quotes', { client_id: clientId, line_items: LINES });
    await put(`/v1/quotes/${quote.id}`, { status: 'sent' });
    const approved = await put(`/v1/quotes/${quote.id}`, { status: 'approved' });
    const job = await post('/v1/jobs', { quote_id: approved.id });
    assert.equal(job.title, `Job for quote ${approved.number}`, 'an untitled quote names the job after its number');
  });

  test('links cannot be changed after creation; due_date not before issue_date', async () => {
    const invoice = await post('/v1/invoices', { client_id: clientId, issue_date: '2026-11-01' });
    const relink = await context.request('PUT', `/v1/invoices/${invoice.id}`, { key, body: { job_id: invoice.id } });
    assert.equal(relink.status, 422);
    assert.equal(relink.body.error.details[0].message, 'job_id is read-only and cannot be set');
    const early = await context.request('PUT', `/v1/invoices/${invoice.id}`, { key, body: { due_date: '2026-10-31' } });
    assert.deepEqual([early.status, early.body.error.details[0].field], [422, 'due_date']);
    const badDate = await context.request('PUT', `/v1/invoices/${invoice.id}`, {
      key,
      body: { due_date: '2026-02-30' },
    });
    assert.deepEqual([badDate.status, badDate.body.error.details[0].field], [422, 'due_date']);
  });
});

describe('a linked document keeps its client', () => {
  test('the job of a quote, the invoice of a job, the quote of a request and a converted request cannot move to another client', async () => {
    const other = (await post('/v1/clients', { name: 'Someone else' })).id;
    const request = await post('/v1/service-requests', { client_id: clientId, title: 'Leak' });
    const quote = await approvedQuote(clientId, { request_id: request.id });
    const job = await post('/v1/jobs', { quote_id: quote.id });
    const invoice = await post('/v1/invoices', { job_id: job.id });
    for (const path of [`/v1/jobs/${job.id}`, `/v1/invoices/${invoice.id}`, `/v1/service-requests/${request.id}`]) {
      const moved = await context.request('PUT', path, { key, body: { client_id: other } });
      assert.equal(moved.status, 422, `${path}: ${moved.text}`);
      assert.equal(moved.body.error.details[0].field, 'client_id');
      assert.match(moved.body.error.details[0].message, /^client_id cannot change: .*made/);
      assert.equal((await get(path)).client_id, clientId, 'unchanged');
    }
    const draft = await post('/v1/quotes', {
      client_id: clientId,
      request_id: (await post('/v1/service-requests', { client_id: clientId, title: 'Drip' })).id,
    });
    assert.equal(
      (await context.request('PUT', `/v1/quotes/${draft.id}`, { key, body: { client_id: other } })).status,
      422,
    );
    assert.equal(
      (await context.request('PUT', `/v1/invoices/${invoice.id}`, { key, body: { client_id: clientId } })).status,
      200,
      'naming the same client is fine',
    );
    const loose = await post('/v1/invoices', { client_id: clientId });
    assert.equal(
      (await put(`/v1/invoices/${loose.id}`, { client_id: other })).client_id,
      other,
      'an unlinked draft may change client',
    );
  });
});

describe('referential rules on delete', () => {
  test('a client with requests, quotes, jobs or invoices cannot be deleted; the message says what refers to it', async () => {
    await post('/v1/service-requests', { client_id: clientId, title: 'x' });
    await post('/v1/quotes', { client_id: clientId });
    await post('/v1/quotes', { client_id: clientId });
    const job = await post('/v1/jobs', { client_id: clientId, title: 'x' });
    const invoice = await post('/v1/invoices', { job_id: job.id });
    const response = await context.request('DELETE', `/v1/clients/${clientId}`, { key });
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'CONFLICT');
    assert.match(response.body.error.message, /1 service request, 2 quotes, 1 job, 1 invoice/);

    const jobDelete = await context.request('DELETE', `/v1/jobs/${job.id}`, { key });
    assert.deepEqual([jobDelete.status, jobDelete.body.error.code], [409, 'CONFLICT']);
    await context.request('DELETE', `/v1/invoices/${invoice.id}`, { key });
    assert.equal(
      (await context.request('DELETE', `/v1/jobs/${job.id}`, { key })).status,
      200,
      'deletable once no invoice refers to it',
    );
  });

  test('a converted quote cannot be deleted', async () => {
    const quote = await approvedQuote();
    await post('/v1/jobs', { quote_id: quote.id });
    const response = await context.request('DELETE', `/v1/quotes/${quote.id}`, { key });
    assert.deepEqual([response.status, response.body.error.code], [409, 'INVALID_STATE']);
  });
});

describe('numbering', () => {
  test('concurrent mark-sent gives unique, gapless numbers; drafts have none; numbers are per account', async () => {
    const ids = [];
    for (let index = 0; index < 30; index += 1)
      ids.push((await post('/v1/invoices', { client_id: clientId, line_items: LINES })).id);
    const responses = await Promise.all(
      ids.map((id) => context.request('PUT', `/v1/invoices/${id}`, { key, body: { status: 'sent' } })),
    );
    assert.ok(responses.every((response) => response.status === 200));
    const numbers = responses.map((response) => response.body.data.number).sort();
    assert.deepEqual(
      numbers,
      Array.from({ length: 30 }, (_, index) => `INV-${String(index + 1).padStart(6, '0')}`),
    );

    const other = await context.account('Other');
    const otherClient = (await context.request('POST', '/v1/clients', { key: other.key, body: { name: 'x' } })).body
      .data.id;
    const otherInvoice = (
      await context.request('POST', '/v1/invoices', {
        key: other.key,
        body: { client_id: otherClient, line_items: LINES },
      })
    ).body.data.id;
    const sent = await context.request('PUT', `/v1/invoices/${otherInvoice}`, {
      key: other.key,
      body: { status: 'sent' },
    });
    assert.equal(sent.body.data.number, 'INV-000001');
  });

  test('concurrent job creation numbers J-000001.. without gaps; a deleted number is not reused', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: `Job ${index}` } }),
      ),
    );
    const numbers = responses.map((response) => response.body.data.number).sort();
    assert.deepEqual(
      numbers,
      Array.from({ length: 20 }, (_, index) => `J-${String(index + 1).padStart(6, '0')}`),
    );
    const last = responses.find((response) => response.body.data.number === 'J-000020')!.body.data.id;
    await context.request('DELETE', `/v1/jobs/${last}`, { key });
    assert.equal((await post('/v1/jobs', { client_id: clientId, title: 'After' })).number, 'J-000021');
  });

  test('quote numbers are their own sequence', async () => {
    const quote = await approvedQuote();
    assert.equal(quote.number, 'Q-000001');
  });
});
