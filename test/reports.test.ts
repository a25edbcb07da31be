// Reports (contract §24, §32): the client statement (opening + Σ lines = closing), aged receivables moved by a
// back-dated payment with a higher ledger_sequence and the old answer repeated at ?ledger_sequence=N, the cash
// basis's cumulative split of three partial payments over two rates, revenue periods cut at from/to in ISO weeks,
// months and quarters, CSV with formula escaping, and the common 403/422s. Figures are worked out by hand.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { REPORT_TOOLS } from '../src/mcp/report-tools.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
});
after(() => context.close());

/** A fresh account (its own ledger) with helpers bound to its all-scopes key. */
async function books() {
  const { key, accountId } = await context.account();
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await context.request(method, path, { key, body });
    assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    return response.body.data;
  };
  const client = async (name: string) => (await call('POST', '/v1/clients', { name }, 201)).id as string;
  const invoice = async (clientId: string, lines: unknown[], issueDate: string, dueDate?: string) => {
    const created = await call(
      'POST',
      '/v1/invoices',
      { client_id: clientId, line_items: lines, issue_date: issueDate, ...(dueDate ? { due_date: dueDate } : {}) },
      201,
    );
    await call('PUT', `/v1/invoices/${created.id}`, { status: 'sent' });
    return created.id as string;
  };
  const line = (amount: number, taxRateIds: string[] = []) => ({
    description: 'Work',
    quantity: 1,
    unit_amount: amount,
    tax_rate_ids: taxRateIds,
  });
  const pay = (invoiceId: string, amount: number, paidOn: string) =>
    call(
      'POST',
      '/v1/payments',
      { invoice_id: invoiceId, amount, method: 'cash', paid_at: `${paidOn}T12:00:00.000Z` },
      201,
    );
  const report = async (path: string, headers: Record<string, string> = {}) =>
    context.request('GET', path, { key, headers });
  return { key, accountId, call, client, invoice, line, pay, report };
}

describe('client statement', () => {
  test('opening + Σ lines = closing = the balance at to; applications (amount 0) are no lines', async () => {
    const b = await books();
    const clientId = await b.client('Statement Co');
    const first = await b.invoice(clientId, [b.line(10_000)], '2026-10-01', '2026-10-31');
    await b.pay(first, 4_000, '2026-10-15');
    const second = await b.invoice(clientId, [b.line(5_000)], '2026-11-05', '2026-12-05');
    await b
      .call('POST', '/v1/credit-notes', { invoice_id: second, amount: 1_000, reason: 'Goodwill' }, 201)
      .then((note) => b.call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' }));
    const response = await b.report(`/v1/reports/client-statement?client_id=${clientId}&from=2026-10-10&to=2026-11-30`);
    assert.equal(response.status, 200, response.text);
    const report = response.body.data;
    assert.equal(report.object, 'report');
    assert.equal(report.type, 'client_statement');
    assert.deepEqual(report.totals, { opening_balance_amount: 10_000, closing_balance_amount: 10_000 });
    assert.deepEqual(
      report.rows.map((row: Record<string, unknown>) => [row.effective_date, row.type, row.amount, row.balance_amount]),
      [
        ['2026-10-15', 'payment_received', -4_000, 6_000],
        ['2026-11-05', 'invoice_issued', 5_000, 11_000],
        ['2026-11-21', 'credit_note_issued', -1_000, 10_000],
      ],
    );
    assert.match(report.rows[1].description, /^Invoice INV-\d+$/);
    assert.match(report.rows[2].number, /^CN-\d+$/);
    const sum = report.rows.reduce((total: number, row: { amount: number }) => total + row.amount, 0);
    assert.equal(report.totals.opening_balance_amount + sum, report.totals.closing_balance_amount);
    const balance = await b.call('GET', `/v1/clients/${clientId}/balance`);
    assert.equal(balance.balances[0].balance_amount, 10_000);
    // Before the first entry: nothing opens, and one line.
    const early = (await b.report(`/v1/reports/client-statement?client_id=${clientId}&from=2026-09-01&to=2026-10-01`))
      .body.data;
    assert.deepEqual(early.totals, { opening_balance_amount: 0, closing_balance_amount: 10_000 });
    assert.equal(early.rows.length, 1);
  });

  test('an unknown client is 404; client_id, from and to are required', async () => {
    const b = await books();
    const missing = await b.report(
      '/v1/reports/client-statement?client_id=019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01&from=2026-01-01&to=2026-01-31',
    );
    assert.equal(missing.status, 404, missing.text);
    const bare = await b.report('/v1/reports/client-statement');
    assert.equal(bare.status, 422);
    assert.deepEqual(bare.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
      'client_id',
      'from',
      'to',
    ]);
  });
});

describe('aged receivables', () => {
  test('a back-dated payment changes a past as_of under a higher ledger_sequence; ?ledger_sequence=N repeats the old answer', async () => {
    const b = await books();
    const clientId = await b.client('Aging Ltd');
    const invoiceId = await b.invoice(clientId, [b.line(10_000)], '2026-09-01', '2026-10-01');
    const path = '/v1/reports/aged-receivables?as_of=2026-11-15';
    const firstResponse = await b.report(path);
    assert.equal(firstResponse.status, 200, firstResponse.text);
    const first = firstResponse.body.data;
    assert.equal(firstResponse.headers['bms-ledger-sequence'], String(first.ledger_sequence));
    assert.deepEqual(first.rows, [
      {
        client_id: clientId,
        client_name: 'Aging Ltd',
        buckets: [
          { label: 'current', amount: 0 },
          { label: '1-30', amount: 0 },
          { label: '31-60', amount: 10_000 },
          { label: '61-90', amount: 0 },
          { label: '91+', amount: 0 },
        ],
        open_amount: 10_000,
        credit_amount: 0,
        balance_amount: 10_000,
      },
    ]);
    const firstCsv = await b.report(path, { accept: 'text/csv' });
    assert.equal(firstCsv.status, 200);

    await b.pay(invoiceId, 3_000, '2026-11-10');
    const second = (await b.report(path)).body.data;
    assert.ok(second.ledger_sequence > first.ledger_sequence);
    assert.equal(second.rows[0].buckets[2].amount, 7_000);
    assert.equal(second.totals.balance_amount, 7_000);
    // Before the payment's day the invoice is still whole.
    const before = (await b.report('/v1/reports/aged-receivables?as_of=2026-11-09')).body.data;
    assert.equal(before.totals.open_amount, 10_000);

    const again = await b.report(`${path}&ledger_sequence=${first.ledger_sequence}`);
    assert.equal(again.status, 200, again.text);
    const { computed_at: _then, ...oldFigures } = first;
    const { computed_at: _now, ...repeated } = again.body.data;
    assert.equal(JSON.stringify(repeated), JSON.stringify(oldFigures));
    const againCsv = await b.report(`${path}&ledger_sequence=${first.ledger_sequence}`, { accept: 'text/csv' });
    assert.equal(againCsv.raw.toString('hex'), firstCsv.raw.toString('hex'));

    const beyond = await b.report(`${path}&ledger_sequence=${second.ledger_sequence + 1}`);
    assert.equal(beyond.status, 422);
    assert.equal(beyond.body.error.details[0].field, 'ledger_sequence');
  });

  test('buckets, group_by=invoice, credit held; balance = open − credit; zero rows left out', async () => {
    const b = await books();
    const owing = await b.client('Owing');
    const ahead = await b.client('Ahead');
    await b.client('Nothing');
    await b.invoice(owing, [b.line(1_000)], '2026-11-01', '2026-11-20'); // 1 day past due at 11-21
    await b.invoice(owing, [b.line(2_000)], '2026-06-01', '2026-07-01'); // 143 days
    await b.invoice(owing, [b.line(4_000)], '2026-11-10', '2026-12-10'); // current
    const paid = await b.invoice(ahead, [b.line(500)], '2026-11-01', '2026-11-30');
    await b.call('POST', '/v1/payments', { invoice_id: paid, amount: 800, method: 'cash', overpayment: 'credit' }, 201);
    const report = (await b.report('/v1/reports/aged-receivables?buckets=7,120')).body.data;
    assert.deepEqual(report.parameters, {
      currency: 'USD',
      as_of: '2026-11-21',
      buckets: [7, 120],
      group_by: 'client',
      client_id: null,
    });
    assert.deepEqual(
      report.rows.map((row: any) => [
        row.client_name,
        row.buckets.map((bucket: any) => `${bucket.label}:${bucket.amount}`),
        row.open_amount,
        row.credit_amount,
        row.balance_amount,
      ]),
      [
        ['Ahead', ['current:0', '1-7:0', '8-120:0', '121+:0'], 0, 300, -300],
        ['Owing', ['current:4000', '1-7:1000', '8-120:0', '121+:2000'], 7_000, 0, 7_000],
      ],
    );
    assert.deepEqual(report.totals, {
      buckets: [
        { label: 'current', amount: 4_000 },
        { label: '1-7', amount: 1_000 },
        { label: '8-120', amount: 0 },
        { label: '121+', amount: 2_000 },
      ],
      open_amount: 7_000,
      credit_amount: 300,
      balance_amount: 6_700,
    });
    const invoices = (await b.report(`/v1/reports/aged-receivables?group_by=invoice&client_id=${owing}`)).body.data;
    assert.deepEqual(
      invoices.rows.map((row: any) => [row.due_date, row.days_past_due, row.open_amount]),
      [
        ['2026-07-01', 143, 2_000],
        ['2026-11-20', 1, 1_000],
        ['2026-12-10', -19, 4_000],
      ],
    );
    assert.match(invoices.rows[0].number, /^INV-\d+$/);
    assert.equal(invoices.rows[0].buckets[4].amount, 2_000);
    // Paged: one row a page, the totals of all on each, the cursor pins the sequence.
    const page1 = await b.report('/v1/reports/aged-receivables?limit=1');
    assert.equal(page1.body.data.rows.length, 1);
    assert.equal(page1.body.meta.pagination.has_more, true);
    await b.pay(paid, 0 + 100, '2026-11-21').catch(() => undefined);
    const page2 = await b.report(
      `/v1/reports/aged-receivables?limit=1&cursor=${page1.body.meta.pagination.next_cursor}`,
    );
    assert.equal(page2.status, 200, page2.text);
    assert.equal(page2.body.data.ledger_sequence, page1.body.data.ledger_sequence);
    assert.deepEqual(page2.body.data.totals, page1.body.data.totals);
    assert.equal(page2.body.data.rows[0].client_name, 'Owing');
    assert.equal(page2.body.meta.pagination.has_more, false);
  });

  test('bad buckets, unknown parameters and a key without reports:read', async () => {
    const b = await books();
    for (const buckets of ['0', '30,30', '1,2,3,4,5,6,7', '3651', 'x', '30,'])
      assert.equal((await b.report(`/v1/reports/aged-receivables?buckets=${buckets}`)).status, 422, buckets);
    assert.equal((await b.report('/v1/reports/aged-receivables?colour=red')).status, 422);
    const { key } = await context.key(b.accountId, ['invoices:read']);
    const forbidden = await context.request('GET', '/v1/reports/aged-receivables', { key });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'INSUFFICIENT_SCOPE');
  });
});

describe('revenue and tax', () => {
  test('cash: three partial payments on an invoice with two rates sum exactly to its net and taxes, in ISO weeks cut at from/to', async () => {
    const b = await books();
    const gst = (await b.call('POST', '/v1/tax-rates', { name: 'GST', percentage: 5 }, 201)).id;
    const qst = (await b.call('POST', '/v1/tax-rates', { name: 'QST', percentage: 9.975 }, 201)).id;
    const clientId = await b.client('Cash Inc');
    // Net 30,000; GST 5% of 10,000 = 500; QST 9.975% of 20,000 = 1,995; total 32,495.
    const invoiceId = await b.invoice(
      clientId,
      [b.line(10_000, [gst]), b.line(20_000, [qst])],
      '2026-11-01',
      '2026-12-01',
    );
    await b.pay(invoiceId, 10_000, '2026-11-02');
    await b.pay(invoiceId, 10_000, '2026-11-09');
    await b.pay(invoiceId, 12_495, '2026-11-16');
    const report = (await b.report('/v1/reports/revenue?from=2026-11-01&to=2026-11-21&interval=week&basis=cash')).body
      .data;
    // Cumulative largest remainder over [30,000, 500, 1,995] of 32,495: 10,000 → [9,232, 154, 614];
    // 20,000 → [18,464, 308, 1,228]; 32,495 → [30,000, 500, 1,995].
    assert.deepEqual(report.rows, [
      { period_start: '2026-11-01', period_end: '2026-11-01', net_amount: 0, tax_amount: 0, gross_amount: 0 },
      {
        period_start: '2026-11-02',
        period_end: '2026-11-08',
        net_amount: 9_232,
        tax_amount: 768,
        gross_amount: 10_000,
      },
      {
        period_start: '2026-11-09',
        period_end: '2026-11-15',
        net_amount: 9_232,
        tax_amount: 768,
        gross_amount: 10_000,
      },
      {
        period_start: '2026-11-16',
        period_end: '2026-11-21',
        net_amount: 11_536,
        tax_amount: 959,
        gross_amount: 12_495,
      },
    ]);
    assert.deepEqual(report.totals, {
      net_amount: 30_000,
      tax_amount: 2_495,
      gross_amount: 32_495,
      unapplied_received_amount: 0,
    });

    const tax = (await b.report('/v1/reports/tax-summary?from=2026-11-01&to=2026-11-21&basis=cash')).body.data;
    assert.deepEqual(
      tax.rows.map((row: any) => [
        row.tax_rate_id,
        row.name,
        row.percentage,
        row.taxable_amount,
        row.tax_amount,
        row.invoices_tax_amount,
        row.credit_notes_tax_amount,
      ]),
      [
        [gst, 'GST', 5, 10_000, 500, 500, 0],
        [qst, 'QST', 9.975, 20_000, 1_995, 1_995, 0],
      ],
    );
    assert.deepEqual(tax.totals, { taxable_amount: 30_000, tax_amount: 2_495, no_tax_amount: 0 });
    // The second week alone: GST's taxable share pro rata alone, halves away: 6,155 − 3,077.
    const week = (await b.report('/v1/reports/tax-summary?from=2026-11-09&to=2026-11-15&basis=cash')).body.data;
    assert.deepEqual(
      week.rows.map((row: any) => [row.name, row.taxable_amount, row.tax_amount]),
      [
        ['GST', 3_078, 154],
        ['QST', 6_155, 614],
      ],
    );
    // Accrual: the whole invoice on its issue day.
    const accrual = (await b.report('/v1/reports/revenue?from=2026-11-01&to=2026-11-21&interval=week')).body.data;
    assert.deepEqual(accrual.rows[0], {
      period_start: '2026-11-01',
      period_end: '2026-11-01',
      net_amount: 30_000,
      tax_amount: 2_495,
      gross_amount: 32_495,
    });
  });

  test('accrual: months and quarters cut at from/to; credit notes and voids count on their days', async () => {
    const b = await books();
    const clientId = await b.client('Accrual SA');
    await b.invoice(clientId, [b.line(1_000)], '2026-09-10'); // before from
    await b.invoice(clientId, [b.line(2_000)], '2026-09-20');
    const october = await b.invoice(clientId, [b.line(4_000)], '2026-10-31');
    await b.invoice(clientId, [b.line(8_000)], '2026-11-10');
    const voided = await b.invoice(clientId, [b.line(16_000)], '2026-11-12'); // after to
    await b.call('PUT', `/v1/invoices/${voided}`, { status: 'void' });
    const note = await b.call(
      'POST',
      '/v1/credit-notes',
      { invoice_id: october, amount: 1_100, issue_date: '2026-11-05' },
      201,
    );
    await b.call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
    const months = (await b.report('/v1/reports/revenue?from=2026-09-15&to=2026-11-10&interval=month')).body.data;
    assert.deepEqual(
      months.rows.map((row: any) => [row.period_start, row.period_end, row.net_amount]),
      [
        ['2026-09-15', '2026-09-30', 2_000],
        ['2026-10-01', '2026-10-31', 4_000],
        ['2026-11-01', '2026-11-10', 8_000 - 1_100],
      ],
    );
    assert.equal(months.totals.net_amount, 12_900);
    const quarters = (await b.report('/v1/reports/revenue?from=2026-08-20&to=2026-11-10&interval=quarter')).body.data;
    assert.deepEqual(
      quarters.rows.map((row: any) => [row.period_start, row.period_end, row.gross_amount]),
      [
        ['2026-08-20', '2026-09-30', 3_000],
        ['2026-10-01', '2026-11-10', 10_900],
      ],
    );
    // The void on 11-21 (today) takes back what the invoice issued on 11-12 gave.
    const late = (await b.report('/v1/reports/revenue?from=2026-11-11&to=2026-11-21&interval=day')).body.data;
    assert.equal(late.rows.length, 11);
    assert.equal(late.rows[1].net_amount, 16_000);
    assert.equal(late.rows[10].net_amount, -16_000);
    assert.equal(late.totals.net_amount, 0);
  });

  test('?ledger_sequence=N repeats revenue and the tax summary after later entries on the same days, a new rate too', async () => {
    const b = await books();
    const clientId = await b.client('Repeat');
    const gst = (await b.call('POST', '/v1/tax-rates', { name: 'GST', percentage: 5 }, 201)).id;
    await b.invoice(clientId, [b.line(2_000, [gst]), b.line(1_000)], '2026-11-03');
    const paths = [
      '/v1/reports/revenue?from=2026-11-01&to=2026-11-30&interval=week',
      '/v1/reports/tax-summary?from=2026-11-01&to=2026-11-30',
    ];
    const before = [];
    for (const path of paths) before.push((await b.report(path)).body.data);
    assert.deepEqual(
      before[1].rows.map((row: any) => [row.name, row.taxable_amount, row.tax_amount]),
      [['GST', 2_000, 100]],
    );
    assert.equal(before[1].totals.no_tax_amount, 1_000);
    // Later: the same day, another invoice with a new rate, and a credit note.
    const pst = (await b.call('POST', '/v1/tax-rates', { name: 'PST', percentage: 7 }, 201)).id;
    const later = await b.invoice(clientId, [b.line(4_000, [pst])], '2026-11-03');
    await b
      .call('POST', '/v1/credit-notes', { invoice_id: later, amount: 1_070 }, 201)
      .then((note) => b.call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' }));
    const now = (await b.report(paths[1]!)).body.data;
    assert.deepEqual(
      now.rows.map((row: any) => [
        row.name,
        row.taxable_amount,
        row.tax_amount,
        row.invoices_tax_amount,
        row.credit_notes_tax_amount,
      ]),
      [
        ['GST', 2_000, 100, 100, 0],
        ['PST', 3_000, 210, 280, -70],
      ],
    );
    for (const [index, path] of paths.entries()) {
      const again = await b.report(`${path}&ledger_sequence=${before[index].ledger_sequence}`);
      const { computed_at: _then, ...old } = before[index];
      const { computed_at: _now, ...repeated } = again.body.data;
      assert.equal(JSON.stringify(repeated), JSON.stringify(old), path);
    }
  });

  test('ranges: to before from, ten years or more, and a required from/to are 422', async () => {
    const b = await books();
    const fields = async (path: string) =>
      (await b.report(path)).body.error?.details.map((detail: { field: string }) => detail.field);
    assert.deepEqual(await fields('/v1/reports/revenue?from=2026-02-01&to=2026-01-31'), ['to']);
    assert.deepEqual(await fields('/v1/reports/revenue?from=2016-01-01&to=2026-01-01'), ['to']);
    assert.equal((await b.report('/v1/reports/revenue?from=2016-01-02&to=2026-01-01&interval=quarter')).status, 200);
    assert.deepEqual(await fields('/v1/reports/tax-summary?from=2026-01-01'), ['to']);
    assert.equal((await b.report('/v1/reports/revenue?from=2026-01-01&to=2026-01-31&interval=year')).status, 422);
  });
});

describe('CSV', () => {
  test('RFC 4180, formula cells escaped, money as decimals, TOTAL last, the headers of §24', async () => {
    const b = await books();
    const formula = await b.client('=SUM(A1)');
    const quoted = await b.client('Smith, "Bob"');
    const already = await b.client("'@home");
    await b.invoice(formula, [b.line(123_450)], '2026-11-01', '2026-11-30');
    await b.invoice(quoted, [b.line(5)], '2026-11-01', '2026-11-30');
    await b.invoice(already, [b.line(100)], '2026-11-01', '2026-11-30');
    const response = await b.report('/v1/reports/aged-receivables?as_of=2026-11-21', { accept: 'text/csv' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(response.headers['content-disposition'], 'attachment; filename="aged_receivables-2026-11-21.csv"');
    const lines = response.text.split('\r\n');
    assert.equal(
      lines[0],
      'client_id,client_name,bucket_current_amount,bucket_1-30_amount,bucket_31-60_amount,bucket_61-90_amount,bucket_91+_amount,open_amount,credit_amount,balance_amount',
    );
    assert.deepEqual(lines.slice(1), [
      `${already},''@home,1.00,0.00,0.00,0.00,0.00,1.00,0.00,1.00`,
      `${formula},'=SUM(A1),1234.50,0.00,0.00,0.00,0.00,1234.50,0.00,1234.50`,
      `${quoted},"Smith, ""Bob""",0.05,0.00,0.00,0.00,0.00,0.05,0.00,0.05`,
      'TOTAL,,1235.55,0.00,0.00,0.00,0.00,1235.55,0.00,1235.55',
      '',
    ]);
    assert.equal(response.headers['bms-ledger-sequence'], '3');
    // Other Accepts and errors are JSON.
    const json = await b.report('/v1/reports/aged-receivables', { accept: 'application/json' });
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const error = await b.report('/v1/reports/aged-receivables?buckets=0', { accept: 'text/csv' });
    assert.equal(error.status, 422);
    assert.match(String(error.headers['content-type']), /^application\/json/);
  });

  test('revenue and statement CSVs: totals beyond the rows’ columns stand at the end of TOTAL', async () => {
    const b = await books();
    const clientId = await b.client('Csv');
    await b.invoice(clientId, [b.line(1_000)], '2026-11-02');
    const revenue = await b.report('/v1/reports/revenue?from=2026-11-01&to=2026-11-30&basis=cash', {
      accept: 'text/csv',
    });
    assert.deepEqual(revenue.text.split('\r\n'), [
      'period_start,period_end,net_amount,tax_amount,gross_amount,unapplied_received_amount',
      '2026-11-01,2026-11-30,0.00,0.00,0.00,',
      'TOTAL,,0.00,0.00,0.00,0.00',
      '',
    ]);
    assert.equal(revenue.headers['content-disposition'], 'attachment; filename="revenue-2026-11-30.csv"');
    const statement = await b.report(
      `/v1/reports/client-statement?client_id=${clientId}&from=2026-11-01&to=2026-11-30`,
      {
        accept: 'text/csv',
      },
    );
    const lines = statement.text.split('\r\n');
    assert.equal(
      lines[0],
      'effective_date,sequence,type,number,description,amount,balance_amount,opening_balance_amount,closing_balance_amount',
    );
    assert.match(lines[1]!, /^2026-11-02,1,invoice_issued,INV-\d+,Invoice INV-\d+,10\.00,10\.00,,$/);
    assert.equal(lines[2], 'TOTAL,,,,,,,0.00,10.00');
  });
});

describe('MCP tools', () => {
  test('aged_receivables and revenue_report answer the REST report, 25 rows a page, read-only', async () => {
    const b = await books();
    const clientId = await b.client('Mcp');
    await b.invoice(clientId, [b.line(3_000)], '2026-10-01', '2026-10-15');
    const ctx = context.systemContext(b.accountId);
    // A read-only tool never dispatches a request of its own.
    const call = {
      dispatch: (() => assert.fail('a report tool dispatched a request')) as never,
      pdf: {} as never,
    };
    const [aging, revenue] = REPORT_TOOLS;
    assert.deepEqual(
      [aging!.name, aging!.kind, aging!.scope, revenue!.name, revenue!.kind, revenue!.scope],
      ['aged_receivables', 'read', 'reports:read', 'revenue_report', 'read', 'reports:read'],
    );
    const answer = (await aging!.run(ctx, { as_of: '2026-11-21' }, call)) as any;
    const rest = (await b.report('/v1/reports/aged-receivables?as_of=2026-11-21')).body.data;
    assert.deepEqual(answer.totals, rest.totals);
    assert.deepEqual(answer.rows, rest.rows);
    assert.equal(answer.ledger_sequence, rest.ledger_sequence);
    assert.deepEqual([answer.has_more, answer.next_cursor], [false, null]);
    const earned = (await revenue!.run(ctx, { from: '2026-10-01', to: '2026-10-31', interval: 'week' }, call)) as any;
    assert.equal(earned.totals.net_amount, 3_000);
    assert.equal(earned.rows.length, 5);
  });
});
