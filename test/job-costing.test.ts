// Job costing and lines' internal unit_cost_amount (contract section 29): the worked case's figures stated literally,
// switching from the job's lines to its sent invoices (drafts, voids and another currency's left out), the cost
// copied when a line is made and never back-filled, and never printed on a PDF, an e-mail or the client hub.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const created = async (url: string, body: Record<string, unknown>) => {
  const response = await api('POST', url, body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};
const costing = async (jobId: string) => {
  const response = await api('GET', `/v1/jobs/${jobId}/costing`);
  assert.equal(response.status, 200, response.text);
  return response.body.data;
};

test('the worked case: labour, materials, price, profit and margin, from the job’s lines then its sent invoices', async () => {
  const client = await created('/v1/clients', { name: 'Ada Client', email: 'ada@example.com' });
  const valve = await created('/v1/products', {
    type: 'material',
    name: 'Valve',
    unit_amount: 9000,
    cost_amount: 5200,
  });
  const pipe = await created('/v1/products', { type: 'material', name: 'Pipe', unit_amount: 3000 });
  const job = await created('/v1/jobs', {
    client_id: client.id,
    title: 'Boiler service',
    line_items: [
      { product_id: valve.id, quantity: 2 },
      { product_id: pipe.id },
      { description: 'Call-out', quantity: 1, unit_amount: 5000 },
    ],
  });
  assert.deepEqual(
    job.line_items.map((line: { unit_cost_amount: number | null }) => line.unit_cost_amount),
    [5200, null, null],
  );
  const member = await created('/v1/team-members', { name: 'Maria Lopez' });
  // 08:00 to 10:20 less 5 minutes: 8,100 s at 4,500 an hour cost (10,125) and 9,000 billed (2.25 h: 20,250).
  const time = await created('/v1/time-entries', {
    team_member_id: member.id,
    job_id: job.id,
    started_at: '2026-11-20T08:00:00Z',
    ended_at: '2026-11-20T10:20:00Z',
    break_minutes: 5,
    hourly_cost_amount: 4500,
    hourly_rate_amount: 9000,
  });
  const other = await created('/v1/team-members', { name: 'Sam Rivera' });
  await created('/v1/time-entries/start', { team_member_id: other.id, job_id: job.id });

  assert.deepEqual(await costing(job.id), {
    object: 'job_costing',
    job_id: job.id,
    currency: 'USD',
    price_basis: 'job',
    price_amount: 26000,
    labour: {
      entries: 1,
      seconds: 8100,
      cost_amount: 10125,
      billable_amount: 20250,
      unbilled_billable_amount: 20250,
      unapproved_entries: 1,
      running_entries: 1,
    },
    materials: { lines: 2, cost_amount: 10400, lines_without_cost: 1 },
    cost_amount: 20525,
    profit_amount: 5475,
    margin_percent: 21.06,
    excluded_invoice_ids: [],
  });

  // A product's cost changed later changes no line: lines copy it when made.
  assert.equal((await api('PUT', `/v1/products/${valve.id}`, { cost_amount: 6000 })).status, 200);
  const invoice = await created('/v1/invoices', { job_id: job.id });
  assert.deepEqual(
    invoice.line_items.map((line: { unit_cost_amount: number | null }) => line.unit_cost_amount),
    [5200, null, null],
  );
  const billed = await api('POST', `/v1/invoices/${invoice.id}/time-entries`, {
    time_entry_ids: [time.id],
    include_unapproved: true,
  });
  assert.equal(billed.status, 200, billed.text);
  assert.equal(billed.body.data.subtotal_amount, 46250);
  // A draft does not count: still the job's lines; the entry is billed now.
  const drafted = await costing(job.id);
  assert.equal(drafted.price_basis, 'job');
  assert.equal(drafted.price_amount, 26000);
  assert.equal(drafted.labour.unbilled_billable_amount, 0);

  assert.equal((await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' })).status, 200);
  const sent = await costing(job.id);
  assert.deepEqual(
    {
      basis: sent.price_basis,
      price: sent.price_amount,
      materials: sent.materials,
      labour: sent.labour.cost_amount,
      cost: sent.cost_amount,
      profit: sent.profit_amount,
      margin: sent.margin_percent,
    },
    {
      basis: 'invoices',
      price: 46250,
      materials: { lines: 2, cost_amount: 10400, lines_without_cost: 1 },
      labour: 10125,
      cost: 20525,
      profit: 25725,
      margin: 55.62,
    },
  );

  // An invoice of the job in another currency is listed, not converted; voided, the USD one counts no more.
  const euro = await created('/v1/invoices', {
    job_id: job.id,
    currency: 'EUR',
    line_items: [{ description: 'Extra', quantity: 1, unit_amount: 1000 }],
  });
  assert.equal((await api('PUT', `/v1/invoices/${euro.id}`, { status: 'sent' })).status, 200);
  assert.deepEqual((await costing(job.id)).excluded_invoice_ids, [euro.id]);
  assert.equal((await costing(job.id)).price_amount, 46250);
  assert.equal((await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'void' })).status, 200);
  const voided = await costing(job.id);
  assert.equal(voided.price_basis, 'invoices');
  assert.equal(voided.price_amount, 0);
  assert.equal(voided.profit_amount, -10125);
  assert.equal(voided.margin_percent, null);
  assert.deepEqual(voided.materials, { lines: 0, cost_amount: 0, lines_without_cost: 0 });
});

test('margin_percent rounds halves away from zero; materials round each line', async () => {
  const client = await created('/v1/clients', { name: 'Grace' });
  const bolt = await created('/v1/products', { type: 'material', name: 'Bolt', unit_amount: 3, cost_amount: 1 });
  // 0.5 × 1 = 0.5 → 1; price round(0.5 × 3) = 2 (halves up): profit 1, margin 50.
  const job = await created('/v1/jobs', {
    client_id: client.id,
    title: 'Bolts',
    line_items: [{ product_id: bolt.id, quantity: 0.5 }],
  });
  const figures = await costing(job.id);
  assert.deepEqual(figures.materials, { lines: 1, cost_amount: 1, lines_without_cost: 0 });
  assert.equal(figures.price_amount, 2);
  assert.equal(figures.margin_percent, 50);
  // price 3, cost 2: profit 1 → 33.333… → 33.33; price 3, cost 4: −33.33.
  const three = await created('/v1/jobs', {
    client_id: client.id,
    title: 'Three',
    line_items: [
      { product_id: bolt.id, quantity: 1 },
      { product_id: bolt.id, quantity: 1, unit_amount: 0 },
    ],
  });
  assert.equal((await costing(three.id)).margin_percent, 33.33);
  const loss = await created('/v1/products', { type: 'material', name: 'Loss', unit_amount: 3, cost_amount: 4 });
  const losing = await created('/v1/jobs', {
    client_id: client.id,
    title: 'Loss',
    line_items: [{ product_id: loss.id, quantity: 1 }],
  });
  assert.equal((await costing(losing.id)).margin_percent, -33.33);
  // An unknown job: 404; a key without time_entries:read: 403.
  assert.equal((await api('GET', '/v1/jobs/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f10/costing')).status, 404);
  assert.equal((await api('GET', '/v1/jobs/nope/costing')).status, 404);
  const { accountId } = await context.account();
  const weak = (await context.key(accountId, ['jobs:read'])).key;
  const refused = await context.request('GET', `/v1/jobs/${job.id}/costing`, { key: weak });
  assert.equal(refused.status, 403);
  assert.match(String(refused.headers['www-authenticate']), /time_entries:read/);
});

test('unit_cost_amount is read-only and never printed on the PDF, the e-mail or the client hub', async () => {
  const client = await created('/v1/clients', { name: 'Ada Print', email: 'ada.print@example.com' });
  // A cost no other figure of the invoice has: 76,543.21 (7654321 minor units).
  const heater = await created('/v1/products', {
    type: 'material',
    name: 'Water heater',
    unit_amount: 120000,
    cost_amount: 7654321,
  });
  const refused = await api('POST', '/v1/invoices', {
    client_id: client.id,
    line_items: [{ product_id: heater.id, unit_cost_amount: 1 }],
  });
  assert.equal(refused.status, 422, refused.text);
  const invoice = await created('/v1/invoices', { client_id: client.id, line_items: [{ product_id: heater.id }] });
  assert.equal(invoice.line_items[0].unit_cost_amount, 7654321);
  const sent = await api('POST', `/v1/invoices/${invoice.id}/send`, {});
  assert.equal(sent.status, 200, sent.text);
  const forms = ['7654321', '76,543.21', '76543.21', '76 543,21', '76.543,21'];
  const pdf = await api('GET', `/v1/invoices/${invoice.id}/pdf`);
  assert.equal(pdf.status, 200);
  const file = path.join(context.directory, `${invoice.id}.pdf`);
  fs.writeFileSync(file, pdf.raw);
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  assert.match(text, /1,200\.00/);
  const hub = await context.request('GET', new URL(sent.body.data.hosted_url).pathname);
  assert.equal(hub.status, 200);
  assert.match(hub.text, /Water heater/);
  const mails = await context.database.db
    .selectFrom('outbox_messages')
    .select('snapshot')
    .where('document_id', '=', invoice.id)
    .execute();
  assert.equal(mails.length, 1);
  for (const form of forms) {
    assert.ok(!text.includes(form), `the PDF prints ${form}`);
    assert.ok(!hub.text.includes(form), `the hub prints ${form}`);
    assert.ok(!String(mails[0]?.snapshot).includes(form), `the e-mail carries ${form}`);
  }
});

test('the costing follows every change of an entry’s times, its stop and the account’s increment (the kept seconds)', async () => {
  const client = await created('/v1/clients', { name: 'Kept Seconds' });
  const job = await created('/v1/jobs', { client_id: client.id, title: 'Kept seconds' });
  const member = await created('/v1/team-members', {
    name: 'Lee Park',
    hourly_cost_amount: 6000,
    hourly_rate_amount: 12000,
  });
  const labour = async () => (await costing(job.id)).labour;
  // 1 h 10 min 30 s less 10 minutes: 3,630 s at 6,000 an hour cost (6,050) and 12,000 billed.
  const entry = await created('/v1/time-entries', {
    team_member_id: member.id,
    job_id: job.id,
    started_at: '2026-11-19T08:00:00Z',
    ended_at: '2026-11-19T09:10:30Z',
    break_minutes: 10,
    hourly_cost_amount: 6000,
    hourly_rate_amount: 12000,
  });
  const account = (await api('GET', '/v1/account')).body.data;
  assert.equal(account.time_billing_increment_minutes, 3);
  // 3,630 s in 3-minute increments: 20.17 → 20 increments, 1.00 h → 12,000.
  let now = await labour();
  assert.deepEqual([now.entries, now.seconds, now.cost_amount, now.billable_amount], [1, 3630, 6050, 12000]);
  // Start moved 30 minutes earlier, break down to 5: 5,730 s; cost 9,550; 31.8 → 32 increments = 1.60 h → 19,200.
  let response = await api('PUT', `/v1/time-entries/${entry.id}`, {
    started_at: '2026-11-19T07:30:00Z',
    break_minutes: 5,
  });
  assert.equal(response.status, 200, response.text);
  now = await labour();
  assert.deepEqual([now.seconds, now.cost_amount, now.billable_amount], [5730, 9550, 19200]);
  // A timer started at 10:00 is running (not counted), then stopped at 10:45:00: 2,700 s more; cost 4,500; 0.75 h → 9,000.
  clock.set(new Date('2026-11-21T10:00:00.000Z'));
  const timer = await created('/v1/time-entries/start', { team_member_id: member.id, job_id: job.id });
  now = await labour();
  assert.deepEqual([now.entries, now.running_entries, now.seconds], [1, 1, 5730]);
  clock.set(new Date('2026-11-21T10:45:00.000Z'));
  response = await api('POST', `/v1/time-entries/${timer.id}/stop`, {});
  assert.equal(response.status, 200, response.text);
  now = await labour();
  assert.deepEqual(
    [now.entries, now.running_entries, now.seconds, now.cost_amount, now.billable_amount],
    [2, 0, 8430, 14050, 28200],
  );
  // The increment to 15 minutes: 5,730 s → 6.37 → 6 increments = 1.50 h (18,000); 2,700 s → 3 = 0.75 h (9,000).
  response = await api('PUT', '/v1/account', { time_billing_increment_minutes: 15 });
  assert.equal(response.status, 200, response.text);
  now = await labour();
  assert.deepEqual([now.seconds, now.cost_amount, now.billable_amount], [8430, 14050, 27000]);
  await api('PUT', '/v1/account', { time_billing_increment_minutes: 3 });
});
