// Billing time onto invoices (contract section 29): lines of billed hours at each increment, stated literally, the
// groups, the entries' refusals (422 naming time_entry_ids[i]), once only (drafts racing for one entry: one wins),
// release by a line left out, a deleted draft or a void, and billed hours frozen once billed.
import assert from 'node:assert/strict';
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
let day = 0;
/** A fresh day for each entry, so that no two overlap. */
const nextDay = () => {
  day += 1;
  return new Date(Date.UTC(2026, 8, 1) + day * 86_400_000).toISOString().slice(0, 10);
};

async function setting(increment: number) {
  const response = await api('PUT', '/v1/account', { time_billing_increment_minutes: increment });
  assert.equal(response.status, 200, response.text);
}

async function work(currency?: string) {
  const client = await created('/v1/clients', { name: 'Ada Client' });
  const job = await created('/v1/jobs', {
    client_id: client.id,
    title: 'Boiler service',
    ...(currency ? { currency } : {}),
  });
  const member = await created('/v1/team-members', { name: 'Maria Lopez' });
  return { client, job, member };
}

/** 08:00 to 10:20 less a 5 minute break: 8,100 s (2 h 15 min), at 4,500 an hour cost and 9,000 billed. */
async function entry(
  setup: { job: { id: string }; member: { id: string } },
  options: { approve?: boolean; date?: string; end?: string; extra?: Record<string, unknown> } = {},
) {
  const date = options.date ?? nextDay();
  const made = await created('/v1/time-entries', {
    team_member_id: setup.member.id,
    job_id: setup.job.id,
    started_at: `${date}T08:00:00Z`,
    ended_at: `${date}T${options.end ?? '10:20:00'}Z`,
    break_minutes: options.end ? 0 : 5,
    hourly_cost_amount: 4500,
    hourly_rate_amount: 9000,
    ...options.extra,
  });
  if (options.approve === false) return made;
  const approved = await api('POST', `/v1/time-entries/${made.id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  return approved.body.data;
}

const draft = async (clientId: string, extra: Record<string, unknown> = {}) =>
  created('/v1/invoices', { client_id: clientId, ...extra });
const bill = (invoiceId: string, body: Record<string, unknown>) =>
  api('POST', `/v1/invoices/${invoiceId}/time-entries`, body);

test('billed hours at each increment: 8,100 s becomes these lines of HUR at the rate', async () => {
  // [increment in minutes, billed hours of 2 h 15 min, the line's amount at 9,000 an hour]
  const cases: Array<[number, number, number]> = [
    [3, 2.25, 20250],
    [6, 2.3, 20700],
    [12, 2.2, 19800],
    [15, 2.25, 20250],
    [30, 2.5, 22500],
    [60, 2, 18000],
  ];
  const setup = await work();
  for (const [increment, hours, amount] of cases) {
    await setting(increment);
    const time = await entry(setup);
    const invoice = await draft(setup.client.id);
    const billed = await bill(invoice.id, { time_entry_ids: [time.id] });
    assert.equal(billed.status, 200, billed.text);
    const [line] = billed.body.data.line_items;
    assert.equal(line.quantity, hours, `${increment} min`);
    assert.equal(line.unit_amount, 9000);
    assert.equal(line.amount, amount, `${increment} min`);
    assert.equal(line.unit_code, 'HUR');
    assert.equal(line.unit_cost_amount, null);
    assert.deepEqual(line.time_entry_ids, [time.id]);
    assert.equal(billed.body.data.subtotal_amount, amount);
    const after = (await api('GET', `/v1/time-entries/${time.id}`)).body.data;
    assert.equal(after.invoice_id, invoice.id);
    assert.equal(after.billed_hours, hours);
  }
  // Billed hours are frozen once billed: a new increment moves only unbilled entries.
  await setting(60);
  const unbilled = await entry(setup);
  const billed = (await api('GET', `/v1/time-entries?job_id=${setup.job.id}&billed=true&limit=100`)).body.data;
  assert.deepEqual(
    billed.map((item: { billed_hours: number }) => item.billed_hours).sort(),
    [2, 2.2, 2.25, 2.25, 2.3, 2.5],
  );
  assert.equal((await api('GET', `/v1/time-entries/${unbilled.id}`)).body.data.billed_hours, 2);
  await setting(3);
  assert.equal((await api('GET', `/v1/time-entries/${unbilled.id}`)).body.data.billed_hours, 2.25);
  // A billed entry's figures cannot change.
  await api('POST', `/v1/time-entries/${billed[0].id}/unapprove`, {});
  const frozen = await api('PUT', `/v1/time-entries/${billed[0].id}`, { break_minutes: 0 });
  assert.equal(frozen.status, 409, frozen.text);
  assert.equal(frozen.body.error.code, 'INVALID_STATE');
});

test('group_by: entry, day (member, rate and local date) and team_member (member and rate)', async () => {
  await setting(3);
  const setup = await work();
  const date = nextDay();
  const morning = await entry(setup, { date, end: '09:00:00' });
  const afternoon = await entry(setup, {
    date,
    extra: { started_at: `${date}T13:00:00Z`, ended_at: `${date}T14:30:00Z`, break_minutes: 0 },
  });
  const other = nextDay();
  const next = await entry(setup, { date: other, end: '08:30:00' });
  const ids = [morning.id, afternoon.id, next.id];
  const lines = async (groupBy: string) => {
    const invoice = await draft(setup.client.id);
    const billed = await bill(invoice.id, { time_entry_ids: ids, group_by: groupBy });
    assert.equal(billed.status, 200, billed.text);
    assert.equal((await api('DELETE', `/v1/invoices/${invoice.id}`)).status, 200);
    return billed.body.data.line_items.map(
      (line: { quantity: number; time_entry_ids: string[]; description: string }) => [
        line.quantity,
        line.time_entry_ids,
        line.description,
      ],
    );
  };
  assert.deepEqual(await lines('entry'), [
    [1, [morning.id], `Labour, Maria Lopez, ${date}`],
    [1.5, [afternoon.id], `Labour, Maria Lopez, ${date}`],
    [0.5, [next.id], `Labour, Maria Lopez, ${other}`],
  ]);
  assert.deepEqual(await lines('day'), [
    [2.5, [morning.id, afternoon.id], `Labour, Maria Lopez, ${date}`],
    [0.5, [next.id], `Labour, Maria Lopez, ${other}`],
  ]);
  assert.deepEqual(await lines('team_member'), [[3, ids, `Labour, Maria Lopez, ${date} to ${other}`]]);
  // By job: its qualifying entries (approved, billable, stopped, unbilled), oldest first.
  const invoice = await draft(setup.client.id);
  const byJob = await bill(invoice.id, { job_id: setup.job.id, group_by: 'team_member' });
  assert.equal(byJob.status, 200, byJob.text);
  assert.deepEqual(byJob.body.data.line_items[0].time_entry_ids, ids);
  const nothing = await bill((await draft(setup.client.id)).id, { job_id: setup.job.id });
  assert.equal(nothing.status, 422, nothing.text);
  assert.equal(nothing.body.error.details[0].field, 'job_id');
});

test('refusals: 422 naming time_entry_ids[i]; 409 for a billed entry, a sent invoice, a locked period', async () => {
  await setting(3);
  const setup = await work();
  const stranger = await work();
  const unapproved = await entry(setup, { approve: false });
  const unbillable = await entry(setup, { extra: { billable: false } });
  const elsewhere = await entry(stranger);
  const good = await entry(setup);
  const invoice = await draft(setup.client.id);
  const refused = await bill(invoice.id, {
    time_entry_ids: [good.id, unapproved.id, unbillable.id, elsewhere.id, '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f10'],
  });
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(
    refused.body.error.details.map((detail: { field: string }) => detail.field),
    ['time_entry_ids[1]', 'time_entry_ids[2]', 'time_entry_ids[3]', 'time_entry_ids[4]'],
  );
  // include_unapproved lets the unapproved one through.
  const both = await bill(invoice.id, { time_entry_ids: [good.id, unapproved.id], include_unapproved: true });
  assert.equal(both.status, 200, both.text);
  assert.equal(both.body.data.line_items.length, 2);
  // Once only: on this invoice or another.
  const again = await bill((await draft(setup.client.id)).id, { time_entry_ids: [good.id] });
  assert.equal(again.status, 409, again.text);
  assert.equal(again.body.error.code, 'CONFLICT');
  assert.equal((await bill(invoice.id, { time_entry_ids: [good.id] })).status, 409);
  // A sent invoice takes no time.
  const fresh = await entry(setup);
  const sent = await draft(setup.client.id, {
    line_items: [{ description: 'Call-out', quantity: 1, unit_amount: 5000 }],
  });
  assert.equal((await api('PUT', `/v1/invoices/${sent.id}`, { status: 'sent' })).status, 200);
  const late = await bill(sent.id, { time_entry_ids: [fresh.id] });
  assert.equal(late.status, 409, late.text);
  assert.equal(late.body.error.code, 'INVALID_STATE');
  // Neither or both of time_entry_ids and job_id: 422; an unknown invoice: 404.
  assert.equal((await bill(invoice.id, {})).status, 422);
  assert.equal((await bill(invoice.id, { time_entry_ids: [fresh.id], job_id: setup.job.id })).status, 422);
  assert.equal((await bill('nope', { time_entry_ids: [fresh.id] })).status, 404);
  // An entry in a locked period cannot be billed.
  const lockDate = fresh.started_at.slice(0, 10);
  const unsettled = (await api('GET', '/v1/time-entries?approved=false&limit=100')).body.data;
  for (const item of unsettled) if (!item.running) await api('POST', `/v1/time-entries/${item.id}/approve`, {});
  const locked = await api('POST', '/v1/time-entries/lock', { through_date: lockDate });
  assert.equal(locked.status, 200, locked.text);
  const inLocked = await bill((await draft(setup.client.id)).id, { time_entry_ids: [fresh.id] });
  assert.equal(inLocked.status, 409, inLocked.text);
  assert.equal(inLocked.body.error.code, 'INVALID_STATE');
  assert.equal((await api('POST', '/v1/time-entries/unlock', { through_date: null })).status, 200);
});

test('one entry billed on four drafts at once: one 200, three 409 CONFLICT', async () => {
  await setting(3);
  const setup = await work();
  for (let round = 0; round < 3; round += 1) {
    const time = await entry(setup);
    const drafts = await Promise.all(Array.from({ length: 4 }, () => draft(setup.client.id)));
    const answers = await Promise.all(drafts.map((invoice) => bill(invoice.id, { time_entry_ids: [time.id] })));
    assert.deepEqual(
      answers.map((answer) => answer.status).sort(),
      [200, 409, 409, 409],
      answers.map((answer) => answer.text).join('\n'),
    );
    for (const answer of answers) if (answer.status === 409) assert.equal(answer.body.error.code, 'CONFLICT');
    const winner = drafts[answers.findIndex((answer) => answer.status === 200)];
    assert.equal((await api('GET', `/v1/time-entries/${time.id}`)).body.data.invoice_id, winner.id);
  }
});

test('release: a time line left out, a deleted draft, a void; a kept line needs its entries, quantity and rate', async () => {
  await setting(3);
  const setup = await work();
  const first = await entry(setup);
  const second = await entry(setup);
  const invoice = await draft(setup.client.id, {
    line_items: [{ description: 'Call-out', quantity: 1, unit_amount: 5000 }],
  });
  const billed = (await bill(invoice.id, { time_entry_ids: [first.id, second.id] })).body.data;
  const [callOut, firstLine] = billed.line_items;
  const keep = (line: { description: string; quantity: number; unit_amount: number; time_entry_ids: string[] }) => ({
    description: line.description,
    quantity: line.quantity,
    unit_amount: line.unit_amount,
    time_entry_ids: line.time_entry_ids,
  });
  // A changed quantity or rate, or ids not sent back unchanged: 422.
  for (const [change, field] of [
    [{ quantity: 3 }, 'line_items[1].quantity'],
    [{ unit_amount: 1 }, 'line_items[1].unit_amount'],
    [{ time_entry_ids: [first.id, second.id] }, 'line_items[1].time_entry_ids'],
  ] as const) {
    const wrong = await api('PUT', `/v1/invoices/${invoice.id}`, {
      line_items: [keep(callOut), { ...keep(firstLine), ...change }],
    });
    assert.equal(wrong.status, 422, wrong.text);
    assert.equal(wrong.body.error.details[0].field, field);
  }
  // Kept with a new description; the second line left out releases its entry.
  const edited = await api('PUT', `/v1/invoices/${invoice.id}`, {
    line_items: [keep(callOut), { ...keep(firstLine), description: 'Boiler service labour' }],
  });
  assert.equal(edited.status, 200, edited.text);
  assert.deepEqual(edited.body.data.line_items[1].time_entry_ids, [first.id]);
  assert.equal(edited.body.data.line_items[1].unit_code, 'HUR');
  assert.equal((await api('GET', `/v1/time-entries/${first.id}`)).body.data.invoice_id, invoice.id);
  assert.equal((await api('GET', `/v1/time-entries/${second.id}`)).body.data.invoice_id, null);
  // Deleting the draft releases the rest.
  assert.equal((await api('DELETE', `/v1/invoices/${invoice.id}`)).status, 200);
  assert.equal((await api('GET', `/v1/time-entries/${first.id}`)).body.data.invoice_id, null);
  // Voiding a sent invoice releases its entries, which may then be billed again.
  const next = await draft(setup.client.id);
  assert.equal((await bill(next.id, { time_entry_ids: [first.id] })).status, 200);
  assert.equal((await api('PUT', `/v1/invoices/${next.id}`, { status: 'sent' })).status, 200);
  const voided = await api('PUT', `/v1/invoices/${next.id}`, { status: 'void' });
  assert.equal(voided.status, 200, voided.text);
  assert.equal((await api('GET', `/v1/time-entries/${first.id}`)).body.data.invoice_id, null);
  assert.equal((await bill((await draft(setup.client.id)).id, { time_entry_ids: [first.id] })).status, 200);
  // Billing and release are time_entry.updated events (billed, released, billed, released, billed).
  const events = (await api('GET', '/v1/events?type=time_entry.updated&limit=100')).body.data.filter(
    (event: { data: { object: { id: string } } }) => event.data.object.id === first.id,
  );
  assert.equal(events.length, 5);
});

test('a job in another currency: its entries bill only on an invoice in that currency', async () => {
  await setting(3);
  const setup = await work('EUR');
  const time = await entry(setup);
  const usd = await draft(setup.client.id);
  const refused = await bill(usd.id, { time_entry_ids: [time.id] });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.error.details[0].field, 'time_entry_ids[0]');
  const eur = await draft(setup.client.id, { currency: 'EUR' });
  const billed = await bill(eur.id, { time_entry_ids: [time.id] });
  assert.equal(billed.status, 200, billed.text);
  assert.equal(billed.body.data.line_items[0].amount, 20250);
});

test('billing needs invoices:write and time_entries:write', async () => {
  const { accountId } = await context.account();
  const weak = (await context.key(accountId, ['invoices:write'])).key;
  const response = await context.request('POST', '/v1/invoices/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f10/time-entries', {
    key: weak,
    body: { time_entry_ids: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f10'] },
  });
  assert.equal(response.status, 403, response.text);
  assert.match(String(response.headers['www-authenticate']), /time_entries:write/);
});
