// Job profitability (contract §24): per job, its invoices issued in the period and not void — revenue their nets less
// their credit notes', cost their entries' (Σ round(quantity × unit_cost_amount), credit notes lower none), margin
// and basis points rounded half away from zero (null at revenue 0), product lines without a cost counted; the
// period cut by issue date, an old answer repeated at ?ledger_sequence=N, pages with totals on each, and CSV.
// Every figure is worked out by hand in the comments.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
});
after(() => context.close());

async function books() {
  const { key } = await context.account();
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await context.request(method, path, { key, body });
    assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    return response.body.data;
  };
  const product = async (name: string, unitAmount: number, costAmount?: number) =>
    (
      await call(
        'POST',
        '/v1/products',
        {
          type: 'material',
          name,
          unit_amount: unitAmount,
          ...(costAmount === undefined ? {} : { cost_amount: costAmount }),
        },
        201,
      )
    ).id as string;
  const job = async (clientId: string, title: string) =>
    (await call('POST', '/v1/jobs', { client_id: clientId, title, line_items: [] }, 201)).id as string;
  const invoice = async (jobId: string, lines: unknown[], issueDate: string, send = true) => {
    const created = await call(
      'POST',
      '/v1/invoices',
      { job_id: jobId, line_items: lines, issue_date: issueDate },
      201,
    );
    if (send) await call('PUT', `/v1/invoices/${created.id}`, { status: 'sent' });
    return created.id as string;
  };
  const credit = async (invoiceId: string, amount: number) => {
    const note = await call('POST', '/v1/credit-notes', { invoice_id: invoiceId, amount, reason: 'Goodwill' }, 201);
    await call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
  };
  const report = (query: string, headers: Record<string, string> = {}) =>
    context.request('GET', `/v1/reports/job-profitability?${query}`, { key, headers });
  return { call, product, job, invoice, credit, report };
}

type Row = { job_id: string; [field: string]: unknown };
const figures = (row: Row) => [
  row.job_id,
  row.revenue_amount,
  row.cost_amount,
  row.margin_amount,
  row.margin_basis_points,
  row.lines_without_cost,
];

test('revenue less credit notes, cost from the lines, basis points halves away, voids and other periods left out', async () => {
  const b = await books();
  const client = (await b.call('POST', '/v1/clients', { name: 'Ada Client' }, 201)).id as string;
  const valve = await b.product('Valve', 9000, 5200);
  const pipe = await b.product('Pipe', 3000);
  const widget = await b.product('Widget', 1000, 333);
  const boiler = await b.product('Boiler', 20000, 12345);
  const loss = await b.product('Loss leader', 20000, 20001);
  const boilerJob = await b.job(client, 'Boiler service');
  const roofJob = await b.job(client, 'Roof repair');
  const refundedJob = await b.job(client, 'Refunded');
  const lossJob = await b.job(client, 'Loss');

  // Boiler service, 2 Nov: valves 2 × 9,000 (cost 2 × 5,200 = 10,400), a pipe 3,000 without a cost, a call-out
  // 5,000 without a product (not a product line): net 26,000, cost 10,400, one line without a cost.
  const first = await b.invoice(
    boilerJob,
    [
      { product_id: valve, quantity: 2 },
      { product_id: pipe },
      { description: 'Call-out', quantity: 1, unit_amount: 5000 },
    ],
    '2026-11-02',
  );
  // 10 Nov: widgets 1.5 × 1,000 = 1,500; cost round(1.5 × 333 = 499.5) = 500.
  await b.invoice(boilerJob, [{ product_id: widget, quantity: 1.5 }], '2026-11-10');
  // Left out: a void invoice, a draft, and an invoice issued after the period.
  const voided = await b.invoice(boilerJob, [{ product_id: valve, quantity: 1 }], '2026-11-12');
  await b.call('PUT', `/v1/invoices/${voided}`, { status: 'void' });
  await b.invoice(boilerJob, [{ product_id: valve, quantity: 1 }], '2026-11-12', false);
  await b.invoice(boilerJob, [{ product_id: valve, quantity: 1 }], '2026-11-21');

  // Before any credit note: Boiler service has 26,000 + 1,500 = 27,500 revenue, 10,900 cost, 16,600 margin,
  // 16,600 × 10,000 ÷ 27,500 = 6,036.36… → 6,036 basis points.
  const early = await b.report('from=2026-11-01&to=2026-11-20');
  assert.equal(early.status, 200, early.text);
  assert.deepEqual(early.body.data.rows.map(figures), [[boilerJob, 27500, 10900, 16600, 6036, 1]]);

  // A credit note of 2,600 (no tax: net 2,600) lowers revenue to 24,900, not the cost: margin 14,000,
  // 14,000 × 10,000 ÷ 24,900 = 5,622.48… → 5,622.
  await b.credit(first, 2600);
  // Roof repair, 5 Nov: a boiler 20,000, cost 12,345: margin 7,655, 7,655 × 10,000 ÷ 20,000 = 3,827.5 → 3,828
  // (half away from zero). Its invoice of 31 Oct is before the period.
  await b.invoice(roofJob, [{ product_id: boiler, quantity: 1 }], '2026-11-05');
  await b.invoice(roofJob, [{ description: 'Survey', quantity: 1, unit_amount: 5000 }], '2026-10-31');
  // Refunded, 6 Nov: a widget 1,000 (cost 333) credited in full: revenue 0, cost 333, margin −333, null.
  const refunded = await b.invoice(refundedJob, [{ product_id: widget, quantity: 1 }], '2026-11-06');
  await b.credit(refunded, 1000);
  // Loss, 7 Nov: 20,000 at a cost of 20,001: margin −1, −1 × 10,000 ÷ 20,000 = −0.5 → −1 (half away from zero).
  await b.invoice(lossJob, [{ product_id: loss, quantity: 1 }], '2026-11-07');

  const response = await b.report('from=2026-11-01&to=2026-11-20');
  assert.equal(response.status, 200, response.text);
  const report = response.body.data;
  assert.equal(report.object, 'report');
  assert.equal(report.type, 'job_profitability');
  assert.equal(report.currency, 'USD');
  assert.deepEqual(report.parameters, {
    currency: 'USD',
    from: '2026-11-01',
    to: '2026-11-20',
    client_id: null,
    job_id: null,
  });
  assert.deepEqual(report.rows.map(figures), [
    [boilerJob, 24900, 10900, 14000, 5622, 1],
    [roofJob, 20000, 12345, 7655, 3828, 0],
    [refundedJob, 0, 333, -333, null, 0],
    [lossJob, 20000, 20001, -1, -1, 0],
  ]);
  assert.deepEqual(
    report.rows.map((row: Row) => [row.title, row.client_id]),
    [
      ['Boiler service', client],
      ['Roof repair', client],
      ['Refunded', client],
      ['Loss', client],
    ],
  );
  // Totals: 64,900 revenue, 43,579 cost, 21,321 margin, 21,321 × 10,000 ÷ 64,900 = 3,285.26… → 3,285.
  assert.deepEqual(report.totals, {
    revenue_amount: 64900,
    cost_amount: 43579,
    margin_amount: 21321,
    margin_basis_points: 3285,
    lines_without_cost: 1,
  });

  // The answer before the credit notes, repeated exactly at its sequence.
  const repeated = await b.report(`from=2026-11-01&to=2026-11-20&ledger_sequence=${early.body.data.ledger_sequence}`);
  assert.equal(repeated.status, 200, repeated.text);
  assert.deepEqual({ ...repeated.body.data, computed_at: null }, { ...early.body.data, computed_at: null });
  assert.ok(report.ledger_sequence > early.body.data.ledger_sequence);

  // Pages of two rows, the totals of all on each; the cursor pins the sequence.
  const page = await b.report('from=2026-11-01&to=2026-11-20&limit=3');
  assert.deepEqual(
    page.body.data.rows.map((row: Row) => row.job_id),
    [boilerJob, roofJob, refundedJob],
  );
  assert.equal(page.body.meta.pagination.has_more, true);
  const next = await b.report(`from=2026-11-01&to=2026-11-20&limit=3&cursor=${page.body.meta.pagination.next_cursor}`);
  assert.deepEqual(
    next.body.data.rows.map((row: Row) => row.job_id),
    [lossJob],
  );
  assert.deepEqual(next.body.data.totals, report.totals);
  assert.equal(next.body.meta.pagination.has_more, false);

  // Filters: one job; another client's none (totals 0, basis points null).
  const one = (await b.report(`from=2026-11-01&to=2026-11-20&job_id=${roofJob}`)).body.data;
  assert.deepEqual(one.rows.map(figures), [[roofJob, 20000, 12345, 7655, 3828, 0]]);
  assert.deepEqual(one.totals, {
    revenue_amount: 20000,
    cost_amount: 12345,
    margin_amount: 7655,
    margin_basis_points: 3828,
    lines_without_cost: 0,
  });
  const other = (await b.call('POST', '/v1/clients', { name: 'Other' }, 201)).id as string;
  const none = (await b.report(`from=2026-11-01&to=2026-11-20&client_id=${other}`)).body.data;
  assert.deepEqual(none.rows, []);
  assert.deepEqual(none.totals, {
    revenue_amount: 0,
    cost_amount: 0,
    margin_amount: 0,
    margin_basis_points: null,
    lines_without_cost: 0,
  });
  // The period cut by issue date: 31 Oct alone holds Roof repair's survey, 5,000 with no cost.
  const october = (await b.report('from=2026-10-31&to=2026-10-31')).body.data;
  assert.deepEqual(october.rows.map(figures), [[roofJob, 5000, 0, 5000, 10000, 0]]);

  // CSV: every row, money with two decimals, basis points as integers, totals last.
  const csv = await b.report('from=2026-11-01&to=2026-11-20', { accept: 'text/csv' });
  assert.equal(csv.status, 200);
  assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
  assert.equal(csv.headers['content-disposition'], 'attachment; filename="job_profitability-2026-11-20.csv"');
  assert.equal(csv.headers['bms-ledger-sequence'], String(report.ledger_sequence));
  const lines = csv.text.trim().split('\r\n');
  assert.equal(
    lines[0],
    'job_id,number,title,client_id,revenue_amount,cost_amount,margin_amount,margin_basis_points,lines_without_cost',
  );
  assert.equal(lines.length, 6);
  assert.match(lines[2]!, new RegExp(`^${roofJob},[^,]*,Roof repair,${client},200.00,123.45,76.55,3828,0$`));
  assert.match(lines[3]!, new RegExp(`^${refundedJob},[^,]*,Refunded,${client},0.00,3.33,-3.33,,0$`));
  assert.equal(lines[5], 'TOTAL,,,,649.00,435.79,213.21,3285,1');
});

test('an edit of a sent invoice moves its cost; the answer before the edit is repeated at its sequence', async () => {
  const b = await books();
  const client = (await b.call('POST', '/v1/clients', { name: 'Edit Co' }, 201)).id as string;
  const valve = await b.product('Valve', 9000, 5200);
  const pipe = await b.product('Pipe', 3000);
  const job = await b.job(client, 'Edited');
  // One valve: revenue 9,000, cost 5,200, margin 3,800, 3,800 × 10,000 ÷ 9,000 = 4,222.2… → 4,222.
  const invoice = await b.invoice(job, [{ product_id: valve, quantity: 1 }], '2026-11-03');
  const before = (await b.report('from=2026-11-01&to=2026-11-30')).body.data;
  assert.deepEqual(before.rows.map(figures), [[job, 9000, 5200, 3800, 4222, 0]]);
  // Three valves and a pipe without a cost: revenue 30,000, cost 15,600, margin 14,400, 4,800 basis points.
  await b.call('PUT', `/v1/invoices/${invoice}`, {
    line_items: [{ product_id: valve, quantity: 3 }, { product_id: pipe }],
  });
  const after = (await b.report('from=2026-11-01&to=2026-11-30')).body.data;
  assert.deepEqual(after.rows.map(figures), [[job, 30000, 15600, 14400, 4800, 1]]);
  const repeated = (await b.report(`from=2026-11-01&to=2026-11-30&ledger_sequence=${before.ledger_sequence}`)).body
    .data;
  assert.deepEqual({ ...repeated, computed_at: null }, { ...before, computed_at: null });
});

test('bad input: a missing or reversed period, an unknown job, a sequence beyond the latest', async () => {
  const b = await books();
  const fields = async (query: string, status = 422) => {
    const response = await b.report(query);
    assert.equal(response.status, status, response.text);
    return response.body.error;
  };
  assert.equal((await fields('to=2026-11-30')).code, 'VALIDATION_ERROR');
  assert.equal((await fields('from=2026-11-30&to=2026-11-01')).details[0].field, 'to');
  assert.equal(
    (await fields('from=2026-11-01&to=2026-11-30&ledger_sequence=999999')).details[0].field,
    'ledger_sequence',
  );
  assert.equal((await fields('from=2026-11-01&to=2026-11-30&job_id=nope')).code, 'VALIDATION_ERROR');
  assert.equal(
    (await fields('from=2026-11-01&to=2026-11-30&job_id=019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', 404)).code,
    'NOT_FOUND',
  );
});
