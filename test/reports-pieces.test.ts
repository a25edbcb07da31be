// Reports read in pieces (contract §13: no request holds the event loop past 50 ms; §24): aged receivables, the
// client statement and job profitability read the kept open items a piece at a time (by the day they opened), the
// entries after an old sequence a range at a time, and jobs in the order of their numbers a batch at a time, with a
// turn of the event loop between, all on one read snapshot. Pieces of one item, one figure, one job and one sequence
// give the figures worked out by hand below, as the default pieces do; a payment posted while a report is being read
// leaves that report's figures those of its own ledger_sequence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../src/core/deps.js';
import { REPORT_PIECES } from '../src/modules/ledger/index.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
});
after(() => context.close());

const DEFAULT_PIECES = { ...REPORT_PIECES };

/** Runs `work` with pieces of one item, figure, job and sequence: every piece boundary the books have is crossed. */
async function inSmallestPieces<T>(work: () => Promise<T>): Promise<T> {
  Object.assign(REPORT_PIECES, { openItems: 1, figures: 1, jobs: 1, sequences: 1 });
  try {
    return await work();
  } finally {
    Object.assign(REPORT_PIECES, DEFAULT_PIECES);
  }
}

async function books() {
  const { key, accountId } = await context.account();
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await context.request(method, path, { key, body });
    assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    return response.body.data;
  };
  const client = async (name: string) => (await call('POST', '/v1/clients', { name }, 201)).id as string;
  const job = async (clientId: string, title: string) =>
    (await call('POST', '/v1/jobs', { client_id: clientId, title, line_items: [] }, 201)).id as string;
  const invoice = async (
    owner: { client_id: string } | { job_id: string },
    amount: number,
    issued: string,
    due: string,
  ) => {
    const created = await call(
      'POST',
      '/v1/invoices',
      {
        ...owner,
        line_items: [{ description: 'Work', quantity: 1, unit_amount: amount }],
        issue_date: issued,
        due_date: due,
      },
      201,
    );
    await call('PUT', `/v1/invoices/${created.id}`, { status: 'sent' });
    return created.id as string;
  };
  const pay = (invoiceId: string, amount: number, paidOn: string) =>
    call(
      'POST',
      '/v1/payments',
      { invoice_id: invoiceId, amount, method: 'cash', paid_at: `${paidOn}T08:00:00.000Z` },
      201,
    );
  const report = async (path: string) => {
    const response = await context.request('GET', path, { key });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    return response.body as { data: Record<string, any>; meta: { pagination: { next_cursor: string | null } } };
  };
  return { accountId, call, client, job, invoice, pay, report };
}

/**
 * Alpha: 10,000 issued 1 Sep due 15 Sep (job First), 4,000 paid 10 Oct; 20,000 issued 1 Oct due 31 Oct (job Third).
 * Beta: 5,000 issued 1 Aug due 31 Aug, paid 5 Nov; 7,000 issued 1 Nov due 1 Dec (job Fourth). Job Second has none.
 */
async function seed() {
  const b = await books();
  const alpha = await b.client('Alpha');
  const beta = await b.client('Beta');
  const first = await b.job(alpha, 'First');
  const second = await b.job(alpha, 'Second');
  const third = await b.job(alpha, 'Third');
  const fourth = await b.job(beta, 'Fourth');
  const a1 = await b.invoice({ job_id: first }, 10_000, '2026-09-01', '2026-09-15');
  const a2 = await b.invoice({ job_id: third }, 20_000, '2026-10-01', '2026-10-31');
  const b1 = await b.invoice({ client_id: beta }, 5_000, '2026-08-01', '2026-08-31');
  const b2 = await b.invoice({ job_id: fourth }, 7_000, '2026-11-01', '2026-12-01');
  await b.pay(a1, 4_000, '2026-10-10');
  const beforeBeta = (await b.report('/v1/reports/aged-receivables')).data.ledger_sequence as number;
  await b.pay(b1, 5_000, '2026-11-05');
  return { ...b, alpha, beta, jobs: { first, second, third, fourth }, invoices: { a1, a2, b1, b2 }, beforeBeta };
}

type Books = Awaited<ReturnType<typeof seed>>;

const buckets = (current: number, b30: number, b60: number, b90: number, over: number) => [
  { label: 'current', amount: current },
  { label: '1-30', amount: b30 },
  { label: '31-60', amount: b60 },
  { label: '61-90', amount: b90 },
  { label: '91+', amount: over },
];

/** Every figure of the books, asked as a caller would; `computed_at` left out. */
async function figuresOf(b: Books) {
  const strip = (data: Record<string, any>): Record<string, any> => ({ ...data, computed_at: null });
  const agingToday = strip((await b.report('/v1/reports/aged-receivables')).data);
  const agingNovember = strip((await b.report('/v1/reports/aged-receivables?as_of=2026-11-01')).data);
  const agingBefore = strip((await b.report(`/v1/reports/aged-receivables?ledger_sequence=${b.beforeBeta}`)).data);
  const invoiceRows = [];
  let cursor: string | null = null;
  do {
    const page = await b.report(
      `/v1/reports/aged-receivables?group_by=invoice&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
    );
    invoiceRows.push(...page.data.rows);
    cursor = page.meta.pagination.next_cursor;
  } while (cursor);
  const statement = strip(
    (await b.report(`/v1/reports/client-statement?client_id=${b.alpha}&from=2026-10-05&to=2026-11-21`)).data,
  );
  const jobRows = [];
  cursor = null;
  do {
    const page = await b.report(
      `/v1/reports/job-profitability?from=2026-08-01&to=2026-11-21&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
    );
    jobRows.push(page.data.rows, page.data.totals);
    cursor = page.meta.pagination.next_cursor;
  } while (cursor);
  return { agingToday, agingNovember, agingBefore, invoiceRows, statement, jobRows };
}

test('pieces of one item, figure, job and sequence answer the figures worked out by hand, as the default pieces do', async () => {
  const b = await seed();
  const small = await inSmallestPieces(() => figuresOf(b));
  const whole = await figuresOf(b);
  assert.deepEqual(small, whole);

  // As of 21 Nov: Alpha 6,000 of 10,000 due 15 Sep, 67 days past due (61-90), and 20,000 due 31 Oct, 21 days
  // (1-30); Beta 7,000 due 1 Dec (current), its 5,000 paid.
  const rows = small.agingToday.rows.map((row: any) => [
    row.client_name,
    row.buckets,
    row.open_amount,
    row.balance_amount,
  ]);
  assert.deepEqual(rows, [
    ['Alpha', buckets(0, 20_000, 0, 6_000, 0), 26_000, 26_000],
    ['Beta', buckets(7_000, 0, 0, 0, 0), 7_000, 7_000],
  ]);
  assert.deepEqual(small.agingToday.totals.buckets, buckets(7_000, 20_000, 0, 6_000, 0));
  assert.equal(small.agingToday.totals.balance_amount, 33_000);

  // As of 1 Nov: Alpha's 6,000 47 days past due (31-60), 20,000 1 day (1-30); Beta's 5,000 due 31 Aug 62 days
  // (61-90), 7,000 issued that day (current).
  assert.deepEqual(
    small.agingNovember.rows.map((row: any) => [row.client_name, row.buckets]),
    [
      ['Alpha', buckets(0, 20_000, 6_000, 0, 0)],
      ['Beta', buckets(7_000, 0, 0, 5_000, 0)],
    ],
  );

  // Before Beta's payment, as of 21 Nov: its 5,000 82 days past due (61-90) beside the 7,000.
  assert.deepEqual(
    small.agingBefore.rows.map((row: any) => [row.client_name, row.buckets, row.open_amount]),
    [
      ['Alpha', buckets(0, 20_000, 0, 6_000, 0), 26_000],
      ['Beta', buckets(7_000, 0, 0, 5_000, 0), 12_000],
    ],
  );

  // By invoice, a row a page: Alpha's by due date, then Beta's.
  assert.deepEqual(
    small.invoiceRows.map((row: any) => [row.invoice_id, row.due_date, row.days_past_due, row.open_amount]),
    [
      [b.invoices.a1, '2026-09-15', 67, 6_000],
      [b.invoices.a2, '2026-10-31', 21, 20_000],
      [b.invoices.b2, '2026-12-01', -10, 7_000],
    ],
  );

  // Alpha's statement from 5 Oct: 10,000 + 20,000 open before it; the payment of 10 Oct; 26,000 at the close.
  assert.deepEqual(small.statement.totals, { opening_balance_amount: 30_000, closing_balance_amount: 26_000 });
  assert.deepEqual(
    small.statement.rows.map((line: any) => [line.effective_date, line.amount, line.balance_amount]),
    [['2026-10-10', -4_000, 26_000]],
  );

  // Jobs by number, a row a page: First 10,000, Third 20,000, Fourth 7,000 (no cost: margin 10,000 basis points);
  // Second has no invoice and no row; Beta's 5,000 has no job. The totals of all on every page.
  const totals = {
    revenue_amount: 37_000,
    cost_amount: 0,
    margin_amount: 37_000,
    margin_basis_points: 10_000,
    lines_without_cost: 0,
  };
  const job = (jobId: string, revenue: number) => [
    [{ job_id: jobId, revenue_amount: revenue, cost_amount: 0, margin_amount: revenue, margin_basis_points: 10_000 }],
    totals,
  ];
  const pick = (row: any) => ({
    job_id: row.job_id,
    revenue_amount: row.revenue_amount,
    cost_amount: row.cost_amount,
    margin_amount: row.margin_amount,
    margin_basis_points: row.margin_basis_points,
  });
  assert.deepEqual(
    small.jobRows.map((entry, index) => (index % 2 === 0 ? (entry as any[]).map(pick) : entry)),
    [...job(b.jobs.first, 10_000), ...job(b.jobs.third, 20_000), ...job(b.jobs.fourth, 7_000)],
  );
});

test('a payment posted while a report is read in pieces leaves the report the figures of its own ledger_sequence', async () => {
  const b = await seed();
  const [aging] = await inSmallestPieces(() =>
    Promise.all([b.report('/v1/reports/aged-receivables?group_by=invoice'), b.pay(b.invoices.a2, 5_000, '2026-11-20')]),
  );
  const again = await b.report(
    `/v1/reports/aged-receivables?group_by=invoice&ledger_sequence=${aging.data.ledger_sequence}`,
  );
  assert.deepEqual({ ...aging.data, computed_at: null }, { ...again.data, computed_at: null });
  // Alpha's 20,000 is open in full before the payment, 15,000 after: never both, never counted twice.
  const a2 = aging.data.rows.find((row: any) => row.invoice_id === b.invoices.a2);
  assert.ok([20_000, 15_000].includes(a2.open_amount), JSON.stringify(a2));
  assert.equal(aging.data.totals.open_amount, a2.open_amount + 6_000 + 7_000);
});

test('?ledger_sequence=N answers the old figures byte for byte after many later entries, back-dated ones too', async () => {
  const b = await seed();
  const paths = [
    '/v1/reports/aged-receivables?as_of=2026-11-01',
    '/v1/reports/aged-receivables?group_by=invoice',
    `/v1/reports/client-statement?client_id=${b.alpha}&from=2026-09-01&to=2026-11-21`,
    '/v1/reports/revenue?from=2026-08-01&to=2026-11-21&interval=month',
    '/v1/reports/revenue?from=2026-08-01&to=2026-11-21&interval=week&basis=cash',
    '/v1/reports/tax-summary?from=2026-08-01&to=2026-11-21',
    '/v1/reports/tax-summary?from=2026-08-01&to=2026-11-21&basis=cash',
    '/v1/reports/job-profitability?from=2026-08-01&to=2026-11-21',
  ];
  const text = (data: Record<string, unknown>) => JSON.stringify({ ...data, computed_at: null });
  const old: string[] = [];
  for (const path of paths) old.push(text((await b.report(path)).data));
  const sequence = JSON.parse(old[0]!).ledger_sequence as number;
  // Accrual revenue by month as the books stood: August 5,000, September 10,000, October 20,000, November 7,000.
  assert.deepEqual(
    JSON.parse(old[3]!).rows.map((row: any) => [row.period_start, row.period_end, row.net_amount, row.gross_amount]),
    [
      ['2026-08-01', '2026-08-31', 5_000, 5_000],
      ['2026-09-01', '2026-09-30', 10_000, 10_000],
      ['2026-10-01', '2026-10-31', 20_000, 20_000],
      ['2026-11-01', '2026-11-21', 7_000, 7_000],
    ],
  );

  // Twelve invoices later, every other one back-dated into the period, and payments on some, one on Alpha's oldest.
  for (let index = 0; index < 12; index++) {
    const issued = index % 2 === 0 ? '2026-09-15' : '2026-11-21';
    const owner = index % 3 === 0 ? { job_id: b.jobs.second } : { client_id: index % 2 === 0 ? b.alpha : b.beta };
    const invoice = await b.invoice(owner, 1_000 * (index + 1), issued, '2026-11-30');
    if (index % 4 === 1) await b.pay(invoice, 500, '2026-11-21');
  }
  await b.pay(b.invoices.a1, 1_000, '2026-10-20');
  const latest = (await b.report(paths[0]!)).data;
  assert.ok(latest.ledger_sequence > sequence);
  assert.notEqual(text((await b.report(paths[3]!)).data), old[3]);

  for (const [index, path] of paths.entries()) {
    const again = `${path}${path.includes('?') ? '&' : '?'}ledger_sequence=${sequence}`;
    assert.equal(text((await b.report(again)).data), old[index], again);
    const small = await inSmallestPieces(() => b.report(again));
    assert.equal(text(small.data), old[index], `${again} in the smallest pieces`);
  }

  // The kept entry days (what an old aging finds its later entries' days from) are the entries' own: each day's last
  // sequence, the back-dated ones' days raised too.
  const db = context.database.db;
  const kept = await db
    .selectFrom('ledger_entry_days')
    .select(['effective_date', 'last_sequence'])
    .where('account_id', '=', b.accountId)
    .orderBy('effective_date')
    .execute();
  const entries = await db
    .selectFrom('ledger_entries')
    .select(['effective_date', sql<number>`max(sequence)`.as('last_sequence')])
    .where('account_id', '=', b.accountId)
    .groupBy('effective_date')
    .orderBy('effective_date')
    .execute();
  const days = (rows: { effective_date: string; last_sequence: unknown }[]) =>
    rows.map((row) => [row.effective_date, Number(row.last_sequence)]);
  assert.deepEqual(days(kept), days(entries));
  assert.ok(days(kept).some(([day]) => day === '2026-09-15'));
});

/** A credit note made and issued (the draft's POST, then its PUT to `issued`). */
async function issuedCreditNote(b: Awaited<ReturnType<typeof books>>, body: Record<string, unknown>) {
  const note = await b.call('POST', '/v1/credit-notes', body, 201);
  await b.call('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
  return note;
}

test('a past as_of sums the items moved after it from their entries: partial payments, credit notes and bucket bounds', async () => {
  const b = await books();
  const gamma = await b.client('Gamma');
  // G1 due 2 Oct: 30 days past due on 1 Nov (1-30); G2 due 1 Oct: 31 (31-60); G3 due 1 Nov: 0 (current); G4 due
  // 2 Aug: 91 (91+). G1, G2 and G3 have entries after 1 Nov (summed from their entries), G4 none (a kept sum).
  const g1 = await b.invoice({ client_id: gamma }, 10_000, '2026-09-01', '2026-10-02');
  const g2 = await b.invoice({ client_id: gamma }, 8_000, '2026-09-01', '2026-10-01');
  const g3 = await b.invoice({ client_id: gamma }, 5_000, '2026-10-20', '2026-11-01');
  const g4 = await b.invoice({ client_id: gamma }, 4_000, '2026-08-01', '2026-08-02');
  await b.pay(g1, 3_000, '2026-10-15');
  await b.pay(g1, 2_000, '2026-11-10');
  await issuedCreditNote(b, { invoice_id: g2, amount: 1_000, issue_date: '2026-10-20' });
  await b.pay(g2, 7_000, '2026-11-15');
  await b.pay(g3, 5_000, '2026-11-02');
  await b.pay(g4, 1_000, '2026-10-01');
  // G2's credit note, dated 20 Oct, is applied when issued (today, 21 Nov): on 1 Nov a credit of 1,000 and G2 owes
  // 8,000. The client's credit of 1,500 from 25 Oct, applied to G1 on 12 Nov.
  const credit = await issuedCreditNote(b, { client_id: gamma, amount: 1_500, issue_date: '2026-10-25' });
  await b.call('POST', `/v1/credit-notes/${credit.id}/apply`, {
    applications: [{ invoice_id: g1, amount: 1_500 }],
    applied_on: '2026-11-12',
  });

  const ask = async () => ({
    client: (await b.report('/v1/reports/aged-receivables?as_of=2026-11-01')).data,
    invoices: (await b.report('/v1/reports/aged-receivables?as_of=2026-11-01&group_by=invoice')).data,
    today: (await b.report('/v1/reports/aged-receivables')).data,
  });
  const whole = await ask();
  const small = await inSmallestPieces(ask);
  const strip = (data: Record<string, any>) => ({ ...data, computed_at: null });
  for (const name of ['client', 'invoices', 'today'] as const) assert.deepEqual(strip(small[name]), strip(whole[name]));

  assert.deepEqual(
    whole.client.rows.map((row: any) => [row.client_name, row.buckets, row.open_amount, row.credit_amount]),
    [['Gamma', buckets(5_000, 7_000, 8_000, 0, 3_000), 23_000, 2_500]],
  );
  assert.deepEqual(whole.client.totals, {
    buckets: buckets(5_000, 7_000, 8_000, 0, 3_000),
    open_amount: 23_000,
    credit_amount: 2_500,
    balance_amount: 20_500,
  });
  assert.deepEqual(
    whole.invoices.rows.map((row: any) => [row.invoice_id, row.due_date, row.days_past_due, row.open_amount]),
    [
      [g4, '2026-08-02', 91, 3_000],
      [g2, '2026-10-01', 31, 8_000],
      [g1, '2026-10-02', 30, 7_000],
      [g3, '2026-11-01', 0, 5_000],
    ],
  );
  assert.deepEqual(whole.invoices.totals, whole.client.totals);
  // As of 21 Nov: G1's 3,500 50 days past due (31-60), G4's 3,000 111 days (91+); the credit applied.
  assert.deepEqual(whole.today.totals, {
    buckets: buckets(0, 0, 3_500, 0, 3_000),
    open_amount: 6_500,
    credit_amount: 0,
    balance_amount: 6_500,
  });
});
