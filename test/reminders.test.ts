// Payment reminders (contract section 23, "Reminders", and the settled readings of section 32) through the API and
// the test clock: the contract's worked fee sequence (12345 due; 1.5 % → 185; then 2500), passes that add nothing,
// a payment before step 2 (the step never goes) and a payment after it was queued (its delivery canceled, never
// e-mailed), downtime sending only the latest step with its own fee alone, the 24 hours after a send, the schedule's
// 422s, and the reminder e-mails received by a real SMTP server. The clock only moves forward, so the tests run in
// the order of the time they set.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { smtpTransport } from '../src/mail/transports.js';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { ReminderWorker } from '../src/workers/reminder-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let smtp: TestSmtpServer;

before(async () => {
  smtp = await startSmtpServer();
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  const { app, database } = context;
  const reminders = new ReminderWorker(database, app.clock, app.links, quiet);
  const outbox = new OutboxWorker(
    database,
    smtpTransport(smtp.url),
    app.clock,
    { pollMs: 10, leaseMs: 60_000, retryBaseMs: 1, maxAttempts: 3, fromAddress: 'billing@example.com' },
    quiet,
    app.pdf,
  );
  app.workerPasses.set('reminders', () => reminders.runPass());
  app.workerPasses.set('outbox', () => outbox.runPass());
});
after(async () => {
  await context.close();
  await smtp.close();
});

/** The contract's schedule: a friendly note 3 days before, 1.5 % a day after, 2500 two weeks after. */
const SCHEDULE = {
  enabled: true,
  send_time: '09:00',
  steps: [
    { days: -3, late_fee: null },
    { days: 1, late_fee: { type: 'percent', value: 1.5 } },
    { days: 15, late_fee: { type: 'amount', value: 2500 } },
  ],
};

async function setClock(now: string) {
  const set = await context.request('PUT', '/test/clock', { body: { now } });
  assert.equal(set.status, 200, set.text);
}

async function run(worker: string): Promise<number> {
  const ran = await context.request('POST', '/test/workers/run', { body: { worker } });
  assert.equal(ran.status, 200, ran.text);
  return ran.body.data.processed;
}

async function business(name: string, email: string) {
  const { key } = await context.account(name);
  const api = async (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const set = await api('PUT', '/v1/account', { reminders: SCHEDULE });
  assert.equal(set.status, 200, set.text);
  const client = await api('POST', '/v1/clients', { name: 'Acme', email });
  assert.equal(client.status, 201, client.text);
  return { api, clientId: client.body.data.id as string };
}

/** An invoice of 12345 due on `dueDate`, sent now. */
async function sentInvoice(api: Awaited<ReturnType<typeof business>>['api'], clientId: string, dueDate: string) {
  const created = await api('POST', '/v1/invoices', {
    client_id: clientId,
    line_items: [{ description: 'Boiler service', quantity: 1, unit_amount: 12345 }],
    due_date: dueDate,
  });
  assert.equal(created.status, 201, created.text);
  const sent = await api('POST', `/v1/invoices/${created.body.data.id}/send`);
  assert.equal(sent.status, 200, sent.text);
  return sent.body.data;
}

test('the account answers its reminder schedule; a fee before the due date, a 4th step or unordered days are 422', async () => {
  const { key } = await context.account('Schedules');
  const api = async (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const initial = await api('GET', '/v1/account');
  assert.deepEqual(initial.body.data.reminders, { enabled: false, send_time: '09:00', steps: [] });
  const set = await api('PUT', '/v1/account', { reminders: SCHEDULE });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.data.reminders.steps[1], {
    days: 1,
    late_fee: { type: 'percent', value: 1.5, tax_rate_ids: [] },
  });
  const refusals: Array<[unknown, string]> = [
    [{ steps: [{ days: 0, late_fee: { type: 'amount', value: 100 } }] }, 'reminders.steps[0].late_fee'],
    [
      {
        steps: [
          { days: 5, late_fee: null },
          { days: 2, late_fee: null },
        ],
      },
      'reminders.steps[1].days',
    ],
    [{ steps: [{ days: 5, late_fee: { type: 'percent', value: 1.23456 } }] }, 'reminders.steps[0].late_fee.value'],
    [{ steps: [{ days: 5, late_fee: { type: 'percent', value: 101 } }] }, 'reminders.steps[0].late_fee.value'],
    [{ steps: [{ days: 5, late_fee: { type: 'amount', value: 12.5 } }] }, 'reminders.steps[0].late_fee.value'],
  ];
  for (const [reminders, field] of refusals) {
    const refused = await api('PUT', '/v1/account', { reminders });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
    assert.ok(
      refused.body.error.details.some((detail: { field: string }) => detail.field === field),
      `${field} in ${refused.text}`,
    );
  }
  const four = await api('PUT', '/v1/account', {
    reminders: { steps: [1, 2, 3, 4].map((days) => ({ days, late_fee: null })) },
  });
  assert.equal(four.status, 422, four.text);
  const after = await api('GET', '/v1/account');
  assert.deepEqual(after.body.data.reminders, set.body.data.reminders);
});

test('the contract’s fee sequence: 12345 due; 1.5 % → 185; then 2500; two more passes add nothing', async () => {
  await setClock('2027-01-01T10:00:00.000Z');
  const { api, clientId } = await business('Fees', 'fees@acme.example');
  const invoice = await sentInvoice(api, clientId, '2027-01-10');
  assert.equal(invoice.amount_due, 12345);
  assert.equal(invoice.reminders_enabled, true);
  assert.deepEqual(invoice.reminders, []);
  assert.equal(invoice.next_reminder_at, '2027-01-07T09:00:00.000Z');

  await setClock('2027-01-07T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  let read = await api('GET', `/v1/invoices/${invoice.id}`);
  assert.equal(read.body.data.reminders.length, 1);
  assert.equal(read.body.data.reminders[0].step, 1);
  assert.equal(read.body.data.reminders[0].late_fee_amount, null);
  assert.equal(read.body.data.amount_due, 12345);
  assert.equal(read.body.data.next_reminder_at, '2027-01-11T09:00:00.000Z');

  await setClock('2027-01-11T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  read = await api('GET', `/v1/invoices/${invoice.id}`);
  assert.equal(read.body.data.reminders[1].step, 2);
  assert.equal(read.body.data.reminders[1].late_fee_amount, 185);
  assert.equal(read.body.data.total_amount, 12530);
  assert.equal(read.body.data.amount_due, 12530);
  const feeLine = read.body.data.line_items[1];
  assert.equal(feeLine.description, 'Late fee (reminder 2)');
  assert.equal(feeLine.quantity, 1);
  assert.equal(feeLine.unit_amount, 185);
  assert.equal(feeLine.tax_amount, 0);
  assert.equal(await run('reminders'), 0);
  assert.equal(await run('reminders'), 0);

  await setClock('2027-01-25T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  assert.equal(await run('reminders'), 0);
  assert.equal(await run('reminders'), 0);
  read = await api('GET', `/v1/invoices/${invoice.id}`);
  assert.deepEqual(
    read.body.data.reminders.map((one: { step: number; late_fee_amount: number | null }) => [
      one.step,
      one.late_fee_amount,
    ]),
    [
      [1, null],
      [2, 185],
      [3, 2500],
    ],
  );
  assert.equal(read.body.data.amount_due, 15030);
  assert.equal(read.body.data.next_reminder_at, null);
  assert.equal(read.body.data.delivery_status, 'queued', 'reminders leave delivery_status alone');

  const fees = await api('GET', `/v1/ledger-entries?type=late_fee&client_id=${clientId}&sort=sequence`);
  assert.equal(fees.status, 200, fees.text);
  assert.deepEqual(
    fees.body.data.map((entry: { amount: number; effective_date: string }) => [entry.amount, entry.effective_date]),
    [
      [185, '2027-01-11'],
      [2500, '2027-01-25'],
    ],
  );
  const events = await api('GET', '/v1/events?type=invoice.reminder_sent');
  assert.equal(events.body.data.length, 3);

  const deliveries = await api('GET', `/v1/invoices/${invoice.id}/deliveries`);
  assert.deepEqual(
    deliveries.body.data.map((one: { kind: string; reminder_step: number | null }) => [one.kind, one.reminder_step]),
    [
      ['reminder', 3],
      ['reminder', 2],
      ['reminder', 1],
      ['document', null],
    ],
  );

  const before = smtp.messages.length;
  await run('outbox');
  const mails = (await smtp.waitFor(before + 4)).filter((mail) => mail.to && JSON.stringify(mail.to).includes('fees@'));
  const reminders = mails.filter((mail) => mail.subject?.startsWith('Payment reminder: '));
  assert.equal(reminders.length, 3);
  const last = reminders.find((mail) => mail.text?.includes('$150.30'));
  assert.ok(last, 'the third reminder states the amount due, $150.30');
  assert.match(last.subject ?? '', /^Payment reminder: Invoice INV-\d+ from Fees$/);
  assert.match(last.text ?? '', /due on January 10, 2027/);
  assert.match(last.text ?? '', /\/hub\//);
  assert.equal(last.attachments[0]?.contentType, 'application/pdf');
});

test('a payment before step 2 means no step 2; a payment after it was queued cancels its delivery', async () => {
  await setClock('2027-02-01T10:00:00.000Z');
  const { api, clientId } = await business('Payers', 'payers@acme.example');
  const early = await sentInvoice(api, clientId, '2027-02-10');
  const late = await sentInvoice(api, clientId, '2027-02-10');
  await setClock('2027-02-07T09:30:00.000Z');
  assert.equal(await run('reminders'), 2);
  await run('outbox');
  const paid = await api('POST', '/v1/payments', { invoice_id: early.id, amount: 12345, method: 'bank_transfer' });
  assert.equal(paid.status, 201, paid.text);

  await setClock('2027-02-11T09:30:00.000Z');
  assert.equal(await run('reminders'), 1, 'only the unpaid invoice gets step 2');
  const read = await api('GET', `/v1/invoices/${early.id}`);
  assert.equal(read.body.data.status, 'paid');
  assert.equal(read.body.data.reminders.length, 1);
  assert.equal(read.body.data.next_reminder_at, null);

  const reminded = await api('GET', `/v1/invoices/${late.id}`);
  assert.equal(reminded.body.data.amount_due, 12530);
  const pay = await api('POST', '/v1/payments', { invoice_id: late.id, amount: 12530, method: 'card' });
  assert.equal(pay.status, 201, pay.text);
  const before = smtp.messages.length;
  assert.equal(await run('outbox'), 1);
  const deliveries = await api('GET', `/v1/invoices/${late.id}/deliveries`);
  assert.equal(deliveries.body.data[0].kind, 'reminder');
  assert.equal(deliveries.body.data[0].reminder_step, 2);
  assert.equal(deliveries.body.data[0].status, 'canceled');
  assert.equal(smtp.messages.length, before, 'a canceled reminder is never e-mailed');
  const canceled = await api('GET', '/v1/events?type=delivery.canceled');
  assert.equal(canceled.body.data.length, 1);
  assert.equal(canceled.body.data[0].data.object.id, deliveries.body.data[0].id);

  await setClock('2027-02-25T09:30:00.000Z');
  assert.equal(await run('reminders'), 0, 'paid invoices get no further step');
});

test('after downtime only the latest due step goes, with its own fee alone; none before 24 hours after a send', async () => {
  await setClock('2027-03-01T10:00:00.000Z');
  const { api, clientId } = await business('Downtime', 'downtime@acme.example');
  const invoice = await sentInvoice(api, clientId, '2027-03-10');
  const off = await api('POST', '/v1/invoices', {
    client_id: clientId,
    line_items: [{ description: 'No reminders', quantity: 1, unit_amount: 5000 }],
    due_date: '2027-03-10',
    reminders_enabled: false,
  });
  assert.equal(off.status, 201, off.text);
  await api('POST', `/v1/invoices/${off.body.data.id}/send`);

  await setClock('2027-03-26T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  assert.equal(await run('reminders'), 0);
  const read = await api('GET', `/v1/invoices/${invoice.id}`);
  assert.deepEqual(
    read.body.data.reminders.map((one: { step: number; late_fee_amount: number }) => [one.step, one.late_fee_amount]),
    [[3, 2500]],
  );
  assert.equal(read.body.data.amount_due, 14845);
  const skipped = await api('GET', `/v1/invoices/${off.body.data.id}`);
  assert.deepEqual(skipped.body.data.reminders, []);
  assert.equal(skipped.body.data.next_reminder_at, null);

  // Step 1's moment (04-07 09:00) follows this send (04-07 08:00) but waits for 24 hours after it.
  await setClock('2027-04-07T08:00:00.000Z');
  const fresh = await sentInvoice(api, clientId, '2027-04-10');
  await setClock('2027-04-07T09:30:00.000Z');
  assert.equal(await run('reminders'), 0);
  const waiting = await api('GET', `/v1/invoices/${fresh.id}`);
  assert.equal(
    waiting.body.data.next_reminder_at,
    new Date(Date.parse(fresh.sent_at) + 24 * 3600_000).toISOString(),
    '24 hours after the send',
  );
  await setClock('2027-04-08T08:30:00.000Z');
  assert.equal(await run('reminders'), 1);
});

/**
 * A German seller with e-invoicing on (contract §31, §32): a tax number (BT-32) and a registration id, no VAT id, so
 * that a late fee outside the scope of VAT (category O, which no VAT id may stand beside: BR-O-02) is an e-invoice.
 */
const EINVOICING_SELLER = {
  name: 'Frozen Fees',
  legal_name: 'Müller Haustechnik GmbH',
  email: 'buero@mueller-haustechnik.example',
  currency: 'EUR',
  address: { line1: 'Lindenstraße 5', city: 'Berlin', postal_code: '10969', country: 'DE' },
  tax_id: '29/123/45678',
  registration_id: '4000001123452',
  registration_scheme: '0088',
  electronic_address: { scheme: '0088', value: '4000001123452' },
};

test('with e-invoicing on, each fee is a one-line invoice of its own: 185, then 2500; the original never changes', async () => {
  await setClock('2027-05-03T10:00:00.000Z');
  const { key } = await context.account('Frozen fees');
  const api = async (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const created = async (url: string, body: unknown) => {
    const response = await api('POST', url, body);
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  const outside = await created('/v1/tax-rates', {
    name: 'Not subject to VAT',
    percentage: 0,
    tax_category: 'O',
    exemption_reason: 'Default interest and dunning fees are damages, outside the scope of VAT',
  });
  const vat19 = await created('/v1/tax-rates', { name: 'MwSt 19 %', percentage: 19, tax_category: 'S' });
  const seller = await api('PUT', '/v1/account', { ...EINVOICING_SELLER, einvoicing_enabled: true });
  assert.equal(seller.status, 200, seller.text);
  const schedule = await api('PUT', '/v1/account', {
    reminders: {
      enabled: true,
      send_time: '09:00',
      steps: [
        { days: -3, late_fee: null },
        { days: 1, late_fee: { type: 'percent', value: 1.5, tax_rate_ids: [outside.id] } },
        { days: 15, late_fee: { type: 'amount', value: 2500, tax_rate_ids: [outside.id] } },
      ],
    },
  });
  assert.equal(schedule.status, 200, schedule.text);
  const client = await created('/v1/clients', {
    name: 'Anna Schmidt',
    company_name: 'Bäckerei Schmidt',
    email: 'einvoice-fees@acme.example',
    address: { line1: 'Hohe Straße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
  });
  // 103.74 at 19 % is 123.45 due: the contract's 12345.
  const sendOne = async () => {
    const draft = await created('/v1/invoices', {
      client_id: client.id,
      currency: 'EUR',
      rounding: 'per_document',
      line_items: [{ description: 'Boiler service', quantity: 1, unit_amount: 10374, tax_rate_ids: [vat19.id] }],
      due_date: '2027-05-10',
    });
    const sent = await api('POST', `/v1/invoices/${draft.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    return sent.body.data;
  };
  const invoice = await sendOne();
  const paidEarly = await sendOne();
  assert.equal(invoice.total_amount, 12345);
  assert.equal(invoice.late_fee_for_invoice_id, null);
  assert.match(invoice.einvoice.sha256.ubl, /^[0-9a-f]{64}$/, 'the original is frozen when sent');
  const frozen = async () =>
    Promise.all(
      ['ubl', 'cii'].map(async (format) => {
        const file = await api('GET', `/v1/invoices/${invoice.id}/einvoice?format=${format}`);
        assert.equal(file.status, 200, file.text);
        return file.raw.toString('base64');
      }),
    );
  const filesBefore = await frozen();

  await setClock('2027-05-07T09:30:00.000Z');
  // The earlier tests' last invoice gets its step 3 in this pass too.
  assert.ok((await run('reminders')) >= 2);
  for (const one of [invoice, paidEarly])
    assert.equal((await api('GET', `/v1/invoices/${one.id}`)).body.data.reminders.length, 1, 'step 1, no fee');
  await run('outbox');
  const paid = await api('POST', '/v1/payments', { invoice_id: paidEarly.id, amount: 12345, method: 'bank_transfer' });
  assert.equal(paid.status, 201, paid.text);

  await setClock('2027-05-11T09:30:00.000Z');
  assert.equal(await run('reminders'), 1, 'step 2 goes to the unpaid invoice only');
  assert.equal(await run('reminders'), 0);
  assert.equal(await run('reminders'), 0);
  await setClock('2027-05-25T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  assert.equal(await run('reminders'), 0);
  assert.equal(await run('reminders'), 0);

  const read = (await api('GET', `/v1/invoices/${invoice.id}`)).body.data;
  assert.equal(read.total_amount, 12345, 'the original’s total is unchanged');
  assert.equal(read.amount_due, 12345);
  assert.equal(read.line_items.length, 1);
  assert.deepEqual(read.einvoice, invoice.einvoice);
  assert.deepEqual(await frozen(), filesBefore, 'the original’s e-invoice is byte-identical');
  assert.deepEqual(
    read.reminders.map((one: { step: number; late_fee_amount: number | null }) => [one.step, one.late_fee_amount]),
    [
      [1, null],
      [2, 185],
      [3, 2500],
    ],
  );
  assert.equal(read.reminders[0].late_fee_invoice_id, null);
  const feeIds: string[] = read.reminders
    .slice(1)
    .map((one: { late_fee_invoice_id: string }) => one.late_fee_invoice_id);
  const fees = await Promise.all(feeIds.map(async (id) => (await api('GET', `/v1/invoices/${id}`)).body.data));
  for (const [index, [step, amount]] of [
    [2, 185],
    [3, 2500],
  ].entries()) {
    const fee = fees[index];
    assert.equal(fee.late_fee_for_invoice_id, invoice.id);
    assert.equal(fee.status, 'sent');
    assert.match(fee.number, /^INV-\d{6}$/);
    assert.equal(fee.client_id, client.id);
    assert.equal(fee.currency, 'EUR');
    assert.equal(fee.line_items.length, 1);
    assert.equal(fee.line_items[0].description, `Late fee (reminder ${step})`);
    assert.equal(fee.line_items[0].quantity, 1);
    assert.equal(fee.line_items[0].unit_amount, amount);
    assert.deepEqual(fee.line_items[0].tax_rate_ids, [outside.id]);
    assert.equal(fee.total_amount, amount);
    assert.equal(fee.amount_due, amount);
    assert.ok(fee.notes.includes(invoice.number), `its notes cite ${invoice.number}: ${fee.notes}`);
    assert.equal(fee.reminders_enabled, false);
    assert.match(fee.einvoice.sha256.ubl, /^[0-9a-f]{64}$/, 'the fee invoice is frozen as an e-invoice');
    for (const format of ['ubl', 'cii']) {
      const validation = await api('POST', `/v1/invoices/${fee.id}/einvoice/validate`, { format });
      assert.equal(validation.status, 200, validation.text);
      assert.equal(validation.body.data.valid, true, validation.text);
    }
    const deliveries = await api('GET', `/v1/invoices/${fee.id}/deliveries`);
    assert.deepEqual(
      deliveries.body.data.map((one: { kind: string; reminder_step: number | null }) => [one.kind, one.reminder_step]),
      [['document', null]],
    );
    const entries = await api('GET', `/v1/ledger-entries?invoice_id=${fee.id}`);
    assert.deepEqual(
      entries.body.data.map((entry: { type: string; amount: number }) => [entry.type, entry.amount]),
      [['late_fee', amount]],
      'the fee invoice is issued by its late_fee entry alone',
    );
  }
  const early = (await api('GET', `/v1/invoices/${paidEarly.id}`)).body.data;
  assert.deepEqual([early.status, early.reminders.length], ['paid', 1], 'a payment before step 2 cancels it');
  const all = await api('GET', `/v1/invoices?client_id=${client.id}&limit=100`);
  assert.equal(all.body.data.length, 4, 'two invoices and two fee invoices');

  const lateFees = await api('GET', `/v1/ledger-entries?type=late_fee&client_id=${client.id}&sort=sequence`);
  assert.deepEqual(
    lateFees.body.data.map((entry: { amount: number; invoice_id: string; effective_date: string }) => [
      entry.amount,
      entry.invoice_id,
      entry.effective_date,
    ]),
    [
      [185, feeIds[0], '2027-05-11'],
      [2500, feeIds[1], '2027-05-25'],
    ],
  );
  const balance = await api('GET', `/v1/clients/${client.id}/balance`);
  assert.equal(balance.status, 200, balance.text);
  assert.deepEqual(balance.body.data.balances, [
    { currency: 'EUR', receivable_amount: 15030, credit_amount: 0, balance_amount: 15030 },
  ]);
  for (const type of ['invoice.created', 'invoice.sent']) {
    const events = await api('GET', `/v1/events?type=${type}&limit=100`);
    for (const id of feeIds)
      assert.equal(
        events.body.data.filter((event: { data: { object: { id: string } } }) => event.data.object.id === id).length,
        1,
        `${type} for the fee invoice`,
      );
  }

  const before = smtp.messages.length;
  assert.equal(await run('outbox'), 4, 'two reminders and two fee invoices');
  const mails = (await smtp.waitFor(before + 4)).slice(before);
  const reminder = mails.find((mail) => mail.subject?.startsWith('Payment reminder: ') && mail.text?.includes('€1.85'));
  assert.ok(reminder, 'the step 2 reminder names its fee');
  assert.match(reminder.text ?? '', new RegExp(`billed separately on invoice ${fees[0].number}`));
  assert.ok(reminder.text?.includes(fees[0].hosted_url), 'and links it');
  assert.ok(mails.some((mail) => mail.subject === `Invoice ${fees[1].number} from Frozen Fees`));
});

test('a fee that cannot be the e-invoice its client asks for is waived: the step goes without it', async () => {
  await setClock('2027-06-01T10:00:00.000Z');
  const { key } = await context.account('Waived fees');
  const api = async (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  const vat19 = await api('POST', '/v1/tax-rates', { name: 'MwSt 19 %', percentage: 19, tax_category: 'S' });
  assert.equal(vat19.status, 201, vat19.text);
  const seller = await api('PUT', '/v1/account', {
    ...EINVOICING_SELLER,
    name: 'Waived Fees',
    einvoicing_enabled: true,
    reminders: { enabled: true, steps: [{ days: 1, late_fee: { type: 'amount', value: 2500 } }] },
  });
  assert.equal(seller.status, 200, seller.text);
  const client = await api('POST', '/v1/clients', {
    name: 'Anna Schmidt',
    email: 'waived-fees@acme.example',
    address: { line1: 'Hohe Straße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
    einvoice_format: 'ubl',
  });
  assert.equal(client.status, 201, client.text);
  const draft = await api('POST', '/v1/invoices', {
    client_id: client.body.data.id,
    currency: 'EUR',
    rounding: 'per_document',
    line_items: [
      { description: 'Boiler service', quantity: 1, unit_amount: 10374, tax_rate_ids: [vat19.body.data.id] },
    ],
    due_date: '2027-06-10',
  });
  assert.equal(draft.status, 201, draft.text);
  const sent = await api('POST', `/v1/invoices/${draft.body.data.id}/send`);
  assert.equal(sent.status, 200, sent.text);

  // The step names no rate: its fee's line has none (BMS-EI-01), and this client takes e-invoices only.
  await setClock('2027-06-11T09:30:00.000Z');
  assert.equal(await run('reminders'), 1);
  assert.equal(await run('reminders'), 0);
  const read = (await api('GET', `/v1/invoices/${draft.body.data.id}`)).body.data;
  assert.deepEqual(
    read.reminders.map((one: { step: number }) => one.step),
    [1],
  );
  assert.equal(read.reminders[0].late_fee_amount, null);
  assert.equal(read.reminders[0].late_fee_invoice_id, null);
  assert.equal(read.total_amount, 12345);
  const all = await api('GET', `/v1/invoices?client_id=${client.body.data.id}`);
  assert.equal(all.body.data.length, 1, 'no fee invoice');
  const fees = await api('GET', `/v1/ledger-entries?type=late_fee&client_id=${client.body.data.id}`);
  assert.deepEqual(fees.body.data, []);
});
