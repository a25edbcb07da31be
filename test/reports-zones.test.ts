// Reports in an account's own zone (contract §14, §24: local dates in the account's zone), in two zones and across
// both daylight-saving changes of 2027 (America/Denver: 14 March and 7 November; Europe/Berlin: 28 March and 31
// October): a payment at 23:30 local on a month's last day counts in that month, one at 00:30 local on the first
// in the next, whatever day it is in UTC. Cash revenue by month, the statement's lines and aging at a day's end,
// with the figures worked out by hand.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2027-12-15T12:00:00.000Z')) });
});
after(() => context.close());

/** An account in `timezone`: a client, an invoice of 100,000 issued 2027-03-01 and due 03-31, paid at the instants. */
async function books(timezone: string, payments: [number, string][]) {
  const { key } = await context.account(`Business in ${timezone}`);
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await context.request(method, path, { key, body });
    assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    return response.body.data;
  };
  assert.equal((await call('PUT', '/v1/account', { timezone })).timezone, timezone);
  const clientId = (await call('POST', '/v1/clients', { name: 'Zone Co' }, 201)).id as string;
  const invoice = await call(
    'POST',
    '/v1/invoices',
    {
      client_id: clientId,
      issue_date: '2027-03-01',
      due_date: '2027-03-31',
      line_items: [{ description: 'Work', quantity: 1, unit_amount: 100_000 }],
    },
    201,
  );
  await call('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
  for (const [amount, paidAt] of payments)
    await call('POST', '/v1/payments', { invoice_id: invoice.id, amount, method: 'cash', paid_at: paidAt }, 201);
  const report = (path: string) => call('GET', path);
  return { clientId, report };
}

const months = (report: { rows: { period_start: string; gross_amount: number }[] }) =>
  report.rows.map((row) => [row.period_start, row.gross_amount]);

describe('America/Denver (MST −07:00, MDT −06:00 from 14 March to 7 November 2027)', () => {
  const payments: [number, string][] = [
    [1_000, '2027-03-13T23:30:00-07:00'], // the night before spring forward: 03-14 in UTC
    [2_000, '2027-03-31T23:30:00-06:00'], // 04-01 in UTC
    [4_000, '2027-10-31T23:30:00-06:00'], // a week before fall back: 11-01 in UTC
    [8_000, '2027-11-30T23:30:00-07:00'], // after fall back: 12-01 in UTC
  ];

  test('cash revenue by month counts each payment on its local day', async () => {
    const { report } = await books('America/Denver', payments);
    const revenue = await report('/v1/reports/revenue?from=2027-03-01&to=2027-11-30&interval=month&basis=cash');
    assert.equal(revenue.timezone, 'America/Denver');
    assert.deepEqual(months(revenue), [
      ['2027-03-01', 3_000],
      ['2027-04-01', 0],
      ['2027-05-01', 0],
      ['2027-06-01', 0],
      ['2027-07-01', 0],
      ['2027-08-01', 0],
      ['2027-09-01', 0],
      ['2027-10-01', 4_000],
      ['2027-11-01', 8_000],
    ]);
    assert.equal(revenue.totals.gross_amount, 15_000);
  });

  test("the statement's lines and balances, and aging at a day's end, by local day", async () => {
    const { clientId, report } = await books('America/Denver', payments);
    const statement = await report(`/v1/reports/client-statement?client_id=${clientId}&from=2027-03-14&to=2027-11-30`);
    assert.deepEqual(statement.totals, { opening_balance_amount: 99_000, closing_balance_amount: 85_000 });
    assert.deepEqual(
      statement.rows.map((row: { effective_date: string; amount: number }) => [row.effective_date, row.amount]),
      [
        ['2027-03-31', -2_000],
        ['2027-10-31', -4_000],
        ['2027-11-30', -8_000],
      ],
    );
    const march = await report('/v1/reports/aged-receivables?as_of=2027-03-31');
    assert.equal(march.totals.open_amount, 97_000);
    assert.deepEqual(march.totals.buckets[0], { label: 'current', amount: 97_000 });
    const october = await report('/v1/reports/aged-receivables?as_of=2027-10-31');
    assert.equal(october.totals.open_amount, 93_000);
    assert.deepEqual(october.totals.buckets[4], { label: '91+', amount: 93_000 });
  });
});

describe('Europe/Berlin (CET +01:00, CEST +02:00 from 28 March to 31 October 2027)', () => {
  const payments: [number, string][] = [
    [1_000, '2027-03-28T00:30:00+01:00'], // hours before spring forward: 03-27 in UTC
    [2_000, '2027-03-31T23:30:00+02:00'], // a month's last day, 23:30 local
    [16_000, '2027-04-01T00:30:00+02:00'], // 03-31 in UTC
    [4_000, '2027-10-31T23:30:00+01:00'], // the evening after fall back
    [8_000, '2027-11-01T00:30:00+01:00'], // 10-31 in UTC
  ];

  test('cash revenue by month counts each payment on its local day', async () => {
    const { report } = await books('Europe/Berlin', payments);
    const revenue = await report('/v1/reports/revenue?from=2027-03-01&to=2027-11-30&interval=month&basis=cash');
    assert.equal(revenue.timezone, 'Europe/Berlin');
    assert.deepEqual(months(revenue), [
      ['2027-03-01', 3_000],
      ['2027-04-01', 16_000],
      ['2027-05-01', 0],
      ['2027-06-01', 0],
      ['2027-07-01', 0],
      ['2027-08-01', 0],
      ['2027-09-01', 0],
      ['2027-10-01', 4_000],
      ['2027-11-01', 8_000],
    ]);
    assert.equal(revenue.totals.gross_amount, 31_000);
  });

  test("the statement's lines and balances, and aging at a day's end, by local day", async () => {
    const { clientId, report } = await books('Europe/Berlin', payments);
    const statement = await report(`/v1/reports/client-statement?client_id=${clientId}&from=2027-03-28&to=2027-11-30`);
    assert.deepEqual(statement.totals, { opening_balance_amount: 100_000, closing_balance_amount: 69_000 });
    assert.deepEqual(
      statement.rows.map((row: { effective_date: string; amount: number }) => [row.effective_date, row.amount]),
      [
        ['2027-03-28', -1_000],
        ['2027-03-31', -2_000],
        ['2027-04-01', -16_000],
        ['2027-10-31', -4_000],
        ['2027-11-01', -8_000],
      ],
    );
    const march = await report('/v1/reports/aged-receivables?as_of=2027-03-31');
    assert.equal(march.totals.open_amount, 97_000);
    assert.deepEqual(march.totals.buckets[0], { label: 'current', amount: 97_000 });
    const october = await report('/v1/reports/aged-receivables?as_of=2027-10-31');
    assert.equal(october.totals.open_amount, 77_000);
    assert.deepEqual(october.totals.buckets[4], { label: '91+', amount: 77_000 });
  });
});
