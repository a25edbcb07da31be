// Recurring invoices (contract section 23 and the settled readings of section 32) through the API and the test
// clock: the contract's monthly figures (01-31, 02-28, 03-31, 04-30 … 2028-02-29), run moments across both
// daylight-saving changes in two zones, a zone change that moves no date, invoices made by the worker when the clock
// passes their moment (issue_date the day made, occurrence_date the date stood for), auto_send through the outbox to
// a real SMTP server, idempotent passes and two workers at once, catch-up counting its last day, skip, pause that
// resumes by itself (actor system), count with a skipped date, the limits and the 409 of a named client. The clock
// only moves forward, so the tests run in the order of the time they set.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { smtpTransport } from '../src/mail/transports.js';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { RecurringInvoiceWorker } from '../src/workers/recurring-invoice-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { runBmsAsync } from './helpers/processes.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let smtp: TestSmtpServer;
let worker: RecurringInvoiceWorker;

before(async () => {
  smtp = await startSmtpServer();
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  const { app, database } = context;
  worker = new RecurringInvoiceWorker(database, app.clock, app.links, quiet);
  const outbox = new OutboxWorker(
    database,
    smtpTransport(smtp.url),
    app.clock,
    { pollMs: 10, leaseMs: 60_000, retryBaseMs: 1, maxAttempts: 3, fromAddress: 'billing@example.com' },
    quiet,
    app.pdf,
  );
  app.workerPasses.set('recurring_invoices', () => worker.runPass());
  app.workerPasses.set('outbox', () => outbox.runPass());
});
after(async () => {
  await context.close();
  await smtp.close();
});

async function account(timezone: string) {
  const { accountId, key } = await context.account(`Business in ${timezone}`);
  const api = async (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const zone = await api('PUT', '/v1/account', { timezone });
  assert.equal(zone.status, 200, zone.text);
  const client = await api('POST', '/v1/clients', { name: 'Acme', email: 'ap@acme.example' });
  assert.equal(client.status, 201, client.text);
  return { accountId, key, api, clientId: client.body.data.id as string };
}

const lines = [{ description: 'Monthly maintenance', quantity: 1, unit_amount: 12500 }];

async function setClock(now: string) {
  const set = await context.request('PUT', '/test/clock', { body: { now } });
  assert.equal(set.status, 200, set.text);
}

async function runWorker(name = 'recurring_invoices'): Promise<number> {
  const run = await context.request('POST', '/test/workers/run', { body: { worker: name } });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.body.data.worker, name);
  return run.body.data.processed;
}

test('monthly from 2027-01-31 with last_day: 01-31, 02-28, 03-31, 04-30 … 2028-02-29 (contract §23)', async () => {
  const { api, clientId } = await account('America/Denver');
  const created = await api('POST', '/v1/recurring-invoices', {
    client_id: clientId,
    name: 'Maintenance plan',
    invoice: { line_items: lines },
    recurrence: { frequency: 'monthly', start_date: '2027-01-31' },
  });
  assert.equal(created.status, 201, created.text);
  const template = created.body.data;
  assert.equal(created.headers.location, `/v1/recurring-invoices/${template.id}`);
  assert.equal(template.object, 'recurring_invoice');
  assert.equal(template.status, 'active');
  assert.equal(template.send_time, '09:00');
  assert.equal(template.auto_send, false);
  assert.equal(template.catch_up_days, 30);
  assert.equal(template.invoice.payment_terms_days, 30);
  assert.equal(template.recurrence.month_day_overflow, 'last_day');
  assert.equal(template.recurrence.rrule, 'FREQ=MONTHLY');
  assert.equal(template.next_occurrence_date, '2027-01-31');
  assert.equal(template.next_run_at, '2027-01-31T16:00:00.000Z');
  assert.equal(template.occurrences_made, 0);
  assert.equal(template.last_error, null);
  assert.equal('time' in template.recurrence, false);

  const year = await api('GET', `/v1/recurring-invoices/${template.id}/occurrences?from=2027-01-01&to=2027-12-31`);
  assert.equal(year.status, 200, year.text);
  assert.deepEqual(
    year.body.data.map((one: { occurrence_date: string }) => one.occurrence_date),
    [
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
      '2027-05-31',
      '2027-06-30',
      '2027-07-31',
      '2027-08-31',
      '2027-09-30',
      '2027-10-31',
      '2027-11-30',
      '2027-12-31',
    ],
  );
  assert.ok(year.body.data.every((one: { status: string }) => one.status === 'upcoming'));
  const leap = await api('GET', `/v1/recurring-invoices/${template.id}/occurrences?from=2028-02-01&to=2028-03-31`);
  assert.deepEqual(
    leap.body.data.map((one: { occurrence_date: string }) => one.occurrence_date),
    ['2028-02-29', '2028-03-31'],
  );
  for (const query of [
    'from=2027-02-30&to=2027-03-31',
    'from=2027-01-01&to=2027-13-01',
    'from=0000-01-01&to=0000-02-01',
  ]) {
    const wrong = await api('GET', `/v1/recurring-invoices/${template.id}/occurrences?${query}`);
    assert.equal(wrong.status, 422, `${query}: ${wrong.text}`);
  }
  const notADate = await api('POST', `/v1/recurring-invoices/${template.id}/skip`, { occurrence_date: '2027-02-29' });
  assert.equal(notADate.status, 422, notADate.text);
  const tooWide = await api('GET', `/v1/recurring-invoices/${template.id}/occurrences?from=2027-01-01&to=2028-01-02`);
  assert.equal(tooWide.status, 422, tooWide.text);
  assert.equal(tooWide.body.error.details[0].field, 'to');

  const ended = await api('DELETE', `/v1/recurring-invoices/${template.id}`);
  assert.equal(ended.status, 200, ended.text);
  assert.equal(ended.body.data.status, 'ended');
  assert.ok(ended.body.data.ended_at);
  assert.equal(ended.body.data.next_run_at, null);
  const read = await api('GET', `/v1/recurring-invoices/${template.id}`);
  assert.equal(read.body.data.status, 'ended');
  assert.equal((await api('PUT', `/v1/recurring-invoices/${template.id}`, { name: 'x' })).status, 409);
});

test('09:00 stays 09:00 across both daylight-saving changes, in Denver, New York and Berlin; a zone change moves no date', async () => {
  const expected: Record<string, string[]> = {
    // MST (UTC−7) until 2027-03-14, MDT (UTC−6) until 2027-11-07: the issue's 16:00Z before and 15:00Z after.
    'America/Denver': [
      '2027-01-15T16:00:00.000Z',
      '2027-02-15T16:00:00.000Z',
      '2027-03-15T15:00:00.000Z',
      '2027-04-15T15:00:00.000Z',
      '2027-10-15T15:00:00.000Z',
      '2027-11-15T16:00:00.000Z',
      '2027-12-15T16:00:00.000Z',
    ],
    // EST (UTC−5) until 2027-03-14, EDT (UTC−4) until 2027-11-07.
    'America/New_York': [
      '2027-01-15T14:00:00.000Z',
      '2027-02-15T14:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
      '2027-04-15T13:00:00.000Z',
      '2027-10-15T13:00:00.000Z',
      '2027-11-15T14:00:00.000Z',
      '2027-12-15T14:00:00.000Z',
    ],
    // CET (UTC+1) until 2027-03-28, CEST (UTC+2) until 2027-10-31.
    'Europe/Berlin': [
      '2027-01-15T08:00:00.000Z',
      '2027-02-15T08:00:00.000Z',
      '2027-03-15T08:00:00.000Z',
      '2027-04-15T07:00:00.000Z',
      '2027-10-15T07:00:00.000Z',
      '2027-11-15T08:00:00.000Z',
      '2027-12-15T08:00:00.000Z',
    ],
  };
  const months = ['01', '02', '03', '04', '10', '11', '12'];
  for (const [zone, runs] of Object.entries(expected)) {
    const { api, clientId } = await account(zone);
    const created = await api('POST', '/v1/recurring-invoices', {
      client_id: clientId,
      invoice: { line_items: lines },
      recurrence: { rrule: 'FREQ=MONTHLY;BYMONTHDAY=15', start_date: '2027-01-15' },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    assert.match(created.body.data.recurrence.summary, new RegExp(`09:00 \\(${zone.replace('/', '\\/')}\\)`));
    const listed = await api('GET', `/v1/recurring-invoices/${id}/occurrences?from=2027-01-01&to=2027-12-31`);
    const byMonth = new Map(
      listed.body.data.map((one: { occurrence_date: string; run_at: string }) => [
        one.occurrence_date.slice(5, 7),
        one.run_at,
      ]),
    );
    assert.deepEqual(
      months.map((month) => byMonth.get(month)),
      runs,
      zone,
    );
    // A change of the account's zone moves no occurrence date; the run moments follow the new zone.
    assert.equal((await api('PUT', '/v1/account', { timezone: 'Asia/Tokyo' })).status, 200);
    const moved = await api('GET', `/v1/recurring-invoices/${id}/occurrences?from=2027-01-01&to=2027-12-31`);
    assert.deepEqual(
      moved.body.data.map((one: { occurrence_date: string }) => one.occurrence_date),
      listed.body.data.map((one: { occurrence_date: string }) => one.occurrence_date),
    );
    assert.equal(moved.body.data[0].run_at, '2027-01-15T00:00:00.000Z');
    assert.equal((await api('DELETE', `/v1/recurring-invoices/${id}`)).status, 200);
  }
});

test('a bad template is 422 naming each field, never a 500', async () => {
  const { api, clientId } = await account('UTC');
  const base = {
    client_id: clientId,
    invoice: { line_items: lines },
    recurrence: { frequency: 'monthly', start_date: '2027-01-31' },
  };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, catch_up_days: 91 }, 'catch_up_days'],
    [{ ...base, send_time: '24:00' }, 'send_time'],
    [{ ...base, recurrence: { ...base.recurrence, time: '09:00' } }, 'recurrence.time'],
    [{ ...base, recurrence: { ...base.recurrence, timezone: 'UTC' } }, 'recurrence.timezone'],
    [{ ...base, recurrence: { ...base.recurrence, count: 1001 } }, 'recurrence.count'],
    [
      { ...base, recurrence: { frequency: 'monthly', start_date: '2027-01-31', until: '2037-03-01' } },
      'recurrence.until',
    ],
    [{ ...base, invoice: { currency: 'USD' } }, 'invoice.line_items'],
    [{ ...base, invoice: { line_items: [] } }, 'invoice.line_items'],
    [{ ...base, invoice: { line_items: lines, payment_terms_days: 366 } }, 'invoice.payment_terms_days'],
    [{ ...base, client_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }, 'client_id'],
    [{ ...base, status: 'paused' }, 'status'],
    [
      {
        ...base,
        invoice: { line_items: [{ product_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', quantity: 1 }] },
      },
      'invoice.line_items[0].product_id',
    ],
  ];
  for (const [body, field] of cases) {
    const response = await api('POST', '/v1/recurring-invoices', body);
    assert.equal(response.status, 422, `${field}: ${response.text}`);
    assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    assert.ok(
      response.body.error.details.some((detail: { field: string }) => detail.field.startsWith(field)),
      `${field}: ${response.text}`,
    );
  }
  // One 422 names every unknown id, the template's lines' under invoice., beside the other wrong fields.
  const several = await api('POST', '/v1/recurring-invoices', {
    ...base,
    client_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    catch_up_days: 91,
    invoice: { line_items: [{ product_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02', quantity: 1 }] },
  });
  assert.equal(several.status, 422, several.text);
  assert.deepEqual(several.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
    'catch_up_days',
    'client_id',
    'invoice.line_items[0].product_id',
  ]);
  // auto_send also needs invoices:send; naming a job, jobs:read.
  const { key } = await context.account('Scoped');
  const limited = await context.key((await context.request('GET', '/v1/account', { key })).body.data.id, [
    'recurring_invoices:write',
    'recurring_invoices:read',
    'clients:write',
  ]);
  const client = await context.request('POST', '/v1/clients', { key: limited.key, body: { name: 'B' } });
  const refused = await context.request('POST', '/v1/recurring-invoices', {
    key: limited.key,
    body: { ...base, client_id: client.body.data.id, auto_send: true },
  });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body.error.code, 'INSUFFICIENT_SCOPE');
});

let e2e: Awaited<ReturnType<typeof account>>;
let planId: string;
let draftsId: string;

test('the worker makes each invoice once when the clock passes its moment, and auto_send e-mails it', async () => {
  await setClock('2027-01-31T07:00:00.000Z');
  e2e = await account('Europe/Berlin');
  const { api, clientId } = e2e;
  const plan = await api('POST', '/v1/recurring-invoices', {
    client_id: clientId,
    invoice: { line_items: lines, notes: 'Thank you.' },
    recurrence: { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=3', start_date: '2027-01-31' },
    auto_send: true,
    external_id: 'plan-1',
  });
  assert.equal(plan.status, 201, plan.text);
  planId = plan.body.data.id;
  assert.equal(plan.body.data.next_run_at, '2027-01-31T08:00:00.000Z');
  const duplicate = await api('POST', '/v1/recurring-invoices', {
    client_id: clientId,
    invoice: { line_items: lines },
    recurrence: { frequency: 'monthly', start_date: '2027-01-31' },
    external_id: 'plan-1',
  });
  assert.equal(duplicate.status, 409, duplicate.text);
  const noEmail = await api('POST', '/v1/clients', { name: 'No Mail Ltd' });
  const drafts = await api('POST', '/v1/recurring-invoices', {
    client_id: noEmail.body.data.id,
    invoice: { line_items: lines },
    recurrence: { frequency: 'monthly', by_month_day: [31], start_date: '2027-01-31' },
    auto_send: true,
  });
  assert.equal(drafts.status, 201, drafts.text);
  draftsId = drafts.body.data.id;

  assert.equal(await runWorker(), 0, 'nothing before 09:00 in Berlin');
  await setClock('2027-01-31T08:05:00.000Z');
  assert.equal(await runWorker(), 2);
  assert.equal(await runWorker(), 0, 'a second pass makes nothing again');

  const made = await api('GET', `/v1/invoices?recurring_invoice_id=${planId}`);
  assert.equal(made.status, 200, made.text);
  assert.equal(made.body.data.length, 1);
  const invoice = made.body.data[0];
  assert.equal(invoice.recurring_invoice_id, planId);
  assert.equal(invoice.occurrence_date, '2027-01-31');
  assert.equal(invoice.issue_date, '2027-01-31');
  assert.equal(invoice.due_date, '2027-03-02');
  assert.equal(invoice.status, 'sent');
  assert.equal(invoice.total_amount, 12500);
  assert.equal(invoice.notes, 'Thank you.');
  assert.equal(invoice.number, 'INV-000001');

  assert.ok((await runWorker('outbox')) >= 1);
  const mail = (await smtp.waitFor(1)).find((one) => one.attachments[0]?.filename === 'INV-000001.pdf');
  assert.ok(mail, 'the invoice was e-mailed with its PDF');
  assert.equal((mail.to as { text: string }).text, 'ap@acme.example');

  const read = await api('GET', `/v1/recurring-invoices/${planId}`);
  assert.equal(read.body.data.occurrences_made, 1);
  assert.equal(read.body.data.last_invoice_id, invoice.id);
  assert.equal(read.body.data.next_occurrence_date, '2027-02-28');
  assert.equal(read.body.data.next_run_at, '2027-02-28T08:00:00.000Z');

  const draft = await api('GET', `/v1/invoices?recurring_invoice_id=${draftsId}`);
  assert.equal(draft.body.data.length, 1);
  assert.equal(draft.body.data[0].status, 'draft');
  const draftTemplate = await api('GET', `/v1/recurring-invoices/${draftsId}`);
  assert.equal(draftTemplate.body.data.last_error.occurrence_date, '2027-01-31');
  assert.match(draftTemplate.body.data.last_error.message, /e-mail/);

  const events = await api('GET', '/v1/events?type=invoice.sent');
  const sent = events.body.data.find((event: any) => event.data.object.id === invoice.id);
  assert.equal(sent.actor.type, 'system');

  const occurrences = await api('GET', `/v1/recurring-invoices/${planId}/occurrences?from=2027-01-01&to=2027-04-30`);
  assert.deepEqual(
    occurrences.body.data.map((one: any) => [one.occurrence_date, one.status, one.invoice_id]),
    [
      ['2027-01-31', 'made', invoice.id],
      ['2027-02-28', 'upcoming', null],
      ['2027-03-31', 'upcoming', null],
    ],
  );
});

test('skip: a date the rule does not give is 422, a made one 409; a skipped date counts toward count', async () => {
  const { api } = e2e;
  const wrong = await api('POST', `/v1/recurring-invoices/${planId}/skip`, { occurrence_date: '2027-02-27' });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.error.details[0].field, 'occurrence_date');
  const made = await api('POST', `/v1/recurring-invoices/${planId}/skip`, { occurrence_date: '2027-01-31' });
  assert.equal(made.status, 409, made.text);
  assert.equal(made.body.error.code, 'INVALID_STATE');
  const skipped = await api('POST', `/v1/recurring-invoices/${planId}/skip`, { occurrence_date: '2027-03-31' });
  assert.equal(skipped.status, 200, skipped.text);
  assert.deepEqual(skipped.body.data.recurrence.exdates, ['2027-03-31']);

  await setClock('2027-02-28T08:10:00.000Z');
  assert.equal(await runWorker(), 2);
  const read = await api('GET', `/v1/recurring-invoices/${planId}`);
  // COUNT=3: 01-31 and 02-28 made, 03-31 skipped: nothing is left, so it ended.
  assert.equal(read.body.data.status, 'ended');
  assert.equal(read.body.data.occurrences_made, 2);
  assert.equal(read.body.data.next_occurrence_date, null);
  const ended = await api('GET', '/v1/events?type=recurring_invoice.ended');
  const event = ended.body.data.find((one: any) => one.data.object.id === planId);
  assert.ok(event, 'recurring_invoice.ended');
  assert.equal(event.actor.type, 'system');
  const occurrences = await api('GET', `/v1/recurring-invoices/${planId}/occurrences?from=2027-01-01&to=2027-04-30`);
  assert.deepEqual(
    occurrences.body.data.map((one: any) => [one.occurrence_date, one.status]),
    [
      ['2027-01-31', 'made'],
      ['2027-02-28', 'made'],
      ['2027-03-31', 'skipped'],
    ],
  );
  // The client, the template names: 409.
  const remove = await api('DELETE', `/v1/clients/${e2e.clientId}`);
  assert.equal(remove.status, 409, remove.text);
  assert.equal((await api('DELETE', `/v1/recurring-invoices/${draftsId}`)).status, 200);
});

test('catch-up makes what is within catch_up_days of today, its last day included, oldest first; older is missed', async () => {
  const { api, clientId } = await account('UTC');
  const daily = await api('POST', '/v1/recurring-invoices', {
    client_id: clientId,
    invoice: { line_items: lines },
    recurrence: { frequency: 'daily', start_date: '2027-03-01' },
    catch_up_days: 2,
  });
  assert.equal(daily.status, 201, daily.text);
  const id = daily.body.data.id;
  await setClock('2027-03-05T10:00:00.000Z');
  // draftsId's next date is 2027-03-31: only the daily template makes invoices now.
  assert.equal(await runWorker(), 3);
  const occurrences = await api('GET', `/v1/recurring-invoices/${id}/occurrences?from=2027-02-25&to=2027-03-06`);
  assert.deepEqual(
    occurrences.body.data.map((one: any) => [one.occurrence_date, one.status]),
    [
      ['2027-03-01', 'missed'],
      ['2027-03-02', 'missed'],
      ['2027-03-03', 'made'],
      ['2027-03-04', 'made'],
      ['2027-03-05', 'made'],
      ['2027-03-06', 'upcoming'],
    ],
  );
  const invoices = await api('GET', `/v1/invoices?recurring_invoice_id=${id}&sort=created_at`);
  assert.deepEqual(
    invoices.body.data.map((one: any) => [one.occurrence_date, one.issue_date]),
    [
      ['2027-03-03', '2027-03-05'],
      ['2027-03-04', '2027-03-05'],
      ['2027-03-05', '2027-03-05'],
    ],
  );

  // Two workers (two instances) at once never make an occurrence twice.
  const second = new RecurringInvoiceWorker(context.database, context.app.clock, context.app.links, quiet);
  await setClock('2027-03-07T09:30:00.000Z');
  const [first, other] = await Promise.all([worker.runPass(), second.runPass()]);
  assert.equal(first + other, 2);
  const after = await api('GET', `/v1/invoices?recurring_invoice_id=${id}&limit=100`);
  assert.equal(after.body.data.length, 5);
  assert.equal(new Set(after.body.data.map((one: any) => one.occurrence_date)).size, 5);

  // Pause until a date: nothing is made in it, nor caught up; after it the worker resumes it as system.
  const paused = await api('POST', `/v1/recurring-invoices/${id}/pause`, { until: '2027-03-08' });
  assert.equal(paused.status, 200, paused.text);
  assert.equal(paused.body.data.status, 'paused');
  assert.equal(paused.body.data.paused_from, '2027-03-07');
  assert.equal(paused.body.data.paused_until, '2027-03-08');
  const inPause = await api('GET', `/v1/recurring-invoices/${id}/occurrences?from=2027-03-08&to=2027-03-09`);
  assert.deepEqual(
    inPause.body.data.map((one: any) => [one.occurrence_date, one.status]),
    [
      ['2027-03-08', 'paused'],
      ['2027-03-09', 'upcoming'],
    ],
  );
  await setClock('2027-03-09T09:30:00.000Z');
  assert.equal(await runWorker(), 1);
  const resumed = await api('GET', `/v1/recurring-invoices/${id}`);
  assert.equal(resumed.body.data.status, 'active');
  assert.equal(resumed.body.data.paused_until, null);
  const events = await api('GET', '/v1/events?type=recurring_invoice.resumed');
  const event = events.body.data.find((one: any) => one.data.object.id === id);
  assert.ok(event, 'recurring_invoice.resumed');
  assert.equal(event.actor.type, 'system');
  const made = await api('GET', `/v1/invoices?recurring_invoice_id=${id}&limit=100`);
  assert.deepEqual(made.body.data.map((one: any) => one.occurrence_date).sort(), [
    '2027-03-03',
    '2027-03-04',
    '2027-03-05',
    '2027-03-06',
    '2027-03-07',
    '2027-03-09',
  ]);
  // resume of one not paused: 409.
  const notPaused = await api('POST', `/v1/recurring-invoices/${id}/resume`, {});
  assert.equal(notPaused.status, 409, notPaused.text);
  assert.equal((await api('DELETE', `/v1/recurring-invoices/${id}`)).status, 200);
});

test('on the days the clocks change, the invoice is made at 09:00 local: 07:00Z in Berlin, 14:00Z in New York', async () => {
  const berlin = await account('Europe/Berlin');
  const newYork = await account('America/New_York');
  const create = (who: typeof berlin, rrule: string, start: string, sendTime = '09:00') =>
    who.api('POST', '/v1/recurring-invoices', {
      client_id: who.clientId,
      invoice: { line_items: lines },
      recurrence: { rrule, start_date: start },
      send_time: sendTime,
    });
  // Berlin springs forward on 2027-03-28 (CET to CEST); New York falls back on 2027-11-07 (EDT to EST).
  const spring = await create(berlin, 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=28', '2027-03-28');
  const autumn = await create(newYork, 'FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=7', '2027-11-07');
  // 02:30 does not exist in New York on 2027-03-14: moved forward by the gap, to 03:30 EDT.
  const gap = await create(newYork, 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=14', '2027-03-14', '02:30');
  assert.equal(spring.body.data.next_run_at, '2027-03-28T07:00:00.000Z');
  assert.equal(autumn.body.data.next_run_at, '2027-11-07T14:00:00.000Z');
  assert.equal(gap.body.data.next_run_at, '2027-03-14T07:30:00.000Z');

  await setClock('2027-03-14T07:29:00.000Z');
  assert.equal(await runWorker(), 0);
  await setClock('2027-03-14T07:31:00.000Z');
  assert.equal(await runWorker(), 1);

  await setClock('2027-03-28T06:59:00.000Z');
  assert.equal(await runWorker(), 0);
  await setClock('2027-03-28T07:01:00.000Z');
  assert.equal(await runWorker(), 1);
  const made = await berlin.api('GET', `/v1/invoices?recurring_invoice_id=${spring.body.data.id}`);
  assert.deepEqual(
    made.body.data.map((one: any) => [one.occurrence_date, one.issue_date]),
    [['2027-03-28', '2027-03-28']],
  );
  await setClock('2027-11-07T13:59:00.000Z');
  assert.equal(await runWorker(), 0);
  await setClock('2027-11-07T14:01:00.000Z');
  assert.equal(await runWorker(), 1);
  const fallBack = await newYork.api('GET', `/v1/invoices?recurring_invoice_id=${autumn.body.data.id}`);
  assert.deepEqual(
    fallBack.body.data.map((one: any) => [one.occurrence_date, one.issue_date, one.due_date]),
    [['2027-11-07', '2027-11-07', '2027-12-07']],
  );
  // A change of the zone: the next run (2028-11-07 at 09:00) moves to the new zone at the worker's next pass.
  const stored = async () =>
    (
      await context.database.db
        .selectFrom('recurring_invoices')
        .select('next_run_at')
        .where('id', '=', autumn.body.data.id)
        .executeTakeFirstOrThrow()
    ).next_run_at;
  assert.equal(new Date(String(await stored())).toISOString(), '2028-11-07T14:00:00.000Z');
  assert.equal((await newYork.api('PUT', '/v1/account', { timezone: 'Asia/Tokyo' })).status, 200);
  assert.equal(await runWorker(), 0);
  assert.equal(new Date(String(await stored())).toISOString(), '2028-11-07T00:00:00.000Z');
});

test('an account holds at most 1,000 recurring invoices not ended; `bms accounts set-limits --recurring-invoices` changes it', async () => {
  const { accountId, api, clientId } = await account('UTC');
  const env = { DATABASE_URL: context.databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  const lowered = await runBmsAsync(['accounts', 'set-limits', accountId, '--recurring-invoices', '1', '--json'], env);
  assert.equal(lowered.status, 0, lowered.stderr);
  assert.deepEqual(JSON.parse(lowered.stdout), {
    id: accountId,
    limits: { webhook_endpoints: 16, recurring_invoices: 1, attachment_bytes: 5368709120 },
  });
  const body = {
    client_id: clientId,
    invoice: { line_items: lines },
    recurrence: { frequency: 'weekly', start_date: '2028-01-03' },
  };
  const first = await api('POST', '/v1/recurring-invoices', body);
  assert.equal(first.status, 201, first.text);
  const second = await api('POST', '/v1/recurring-invoices', body);
  assert.equal(second.status, 422, second.text);
  assert.equal(second.body.error.details[0].field, 'recurrence');
  assert.match(second.body.error.details[0].message, /bms accounts set-limits --recurring-invoices/);
  // An ended one no longer counts.
  assert.equal((await api('DELETE', `/v1/recurring-invoices/${first.body.data.id}`)).status, 200);
  assert.equal((await api('POST', '/v1/recurring-invoices', body)).status, 201);
  const back = await runBmsAsync(
    ['accounts', 'set-limits', accountId, '--recurring-invoices', 'default', '--json'],
    env,
  );
  assert.equal(JSON.parse(back.stdout).limits.recurring_invoices, 1000);
});
