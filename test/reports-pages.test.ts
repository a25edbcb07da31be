// Reports page by a keyset cursor (contract §5, §24). A walk of every page of a long client statement, a few lines a
// page and page edges inside a day, gives every line once, in (date, sequence) order, each running balance the one
// before plus its amount and the last the closing balance; entries written between pages (back-dated or not) are
// not in the walk, whose cursor pins the sequence, and a fresh walk has them. Aged receivables by invoice and by
// client walk the same way (rows read a page at a time, by client). Every report's cursor is checked: a forged one,
// or another report's, is a 422. The figures are worked out by hand in the comments.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
});
after(() => context.close());

type Line = { effective_date: string; sequence: number; type: string; amount: number; balance_amount: number };

async function books() {
  const { key } = await context.account();
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await context.request(method, path, { key, body });
    assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    return response.body.data;
  };
  const client = async (name: string) => (await call('POST', '/v1/clients', { name }, 201)).id as string;
  const invoice = async (clientId: string, amount: number, issueDate: string, dueDate = '2026-12-31') => {
    const created = await call(
      'POST',
      '/v1/invoices',
      {
        client_id: clientId,
        line_items: [{ description: 'Work', quantity: 1, unit_amount: amount }],
        issue_date: issueDate,
        due_date: dueDate,
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
      { invoice_id: invoiceId, amount, method: 'cash', paid_at: `${paidOn}T12:00:00.000Z` },
      201,
    );
  const report = (path: string) => context.request('GET', path, { key });
  /** Every page of `path` at `limit` rows; `between` runs after each page. */
  const walk = async (path: string, limit: number, between?: (page: number) => Promise<void>) => {
    const rows: Record<string, unknown>[] = [];
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await report(`${path}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.status, 200, response.text);
      pages++;
      rows.push(...response.body.data.rows);
      seen.push([response.body.data.ledger_sequence, response.body.data.totals]);
      cursor = response.body.meta.pagination.next_cursor;
      assert.equal(response.body.meta.pagination.has_more, cursor !== null);
      if (cursor) assert.equal(response.body.data.rows.length, limit, 'a page before the last is full');
      if (between) await between(pages);
    } while (cursor);
    for (const page of seen) assert.deepEqual(page, seen[0], 'every page pins the sequence and has the totals of all');
    return { rows, pages, totals: (seen[0] as [number, unknown])[1] };
  };
  return { call, client, invoice, pay, report, walk };
}

/** 2026-10-01 plus `days`. */
const day = (days: number) => new Date(Date.UTC(2026, 9, 1 + days)).toISOString().slice(0, 10);

test('a walk of every page of a statement: each line once, in order, the balance running on across pages', async () => {
  const b = await books();
  const clientId = await b.client('Many Lines Ltd');
  const other = await b.client('Someone Else');
  // 40 invoices of 1,000 + i, four a day from 2026-10-01 to 2026-10-10, each paid 500 the day it is issued: 80 lines,
  // eight a day. Another client's invoice each day is no line of this statement.
  for (let index = 0; index < 40; index++) {
    const id = await b.invoice(clientId, 1_000 + index, day(Math.floor(index / 4)));
    await b.pay(id, 500, day(Math.floor(index / 4)));
    if (index % 4 === 0) await b.invoice(other, 7_777, day(index / 4));
  }
  const base = `/v1/reports/client-statement?client_id=${clientId}&from=2026-09-01&to=2026-11-21`;
  // Σ lines = Σ (1,000 + i) − 40 × 500 = 40,000 + 780 − 20,000 = 20,780; nothing before from.
  const totals = { opening_balance_amount: 0, closing_balance_amount: 20_780 };

  const walk = async (limit: number, between?: (page: number) => Promise<void>) => {
    const lines: Line[] = [];
    const sequences = new Set<number>();
    let cursor: string | null = null;
    let pages = 0;
    let pinned: number | undefined;
    let first: unknown;
    do {
      const response = await b.report(`${base}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.status, 200, response.text);
      const report = response.body.data;
      pinned ??= report.ledger_sequence;
      assert.equal(report.ledger_sequence, pinned, 'the cursor pins the sequence');
      pages++;
      lines.push(...report.rows);
      for (const line of report.rows as Line[]) sequences.add(line.sequence);
      cursor = response.body.meta.pagination.next_cursor;
      assert.equal(response.body.meta.pagination.has_more, cursor !== null);
      if (cursor) assert.equal(report.rows.length, limit);
      if (between) await between(pages);
      first ??= report.totals;
      assert.deepEqual(report.totals, first, 'the totals of all rows on every page');
    } while (cursor);
    assert.equal(sequences.size, lines.length, 'no line twice');
    return { lines, pages, totals: first };
  };

  const checkRunning = (lines: Line[], opening: number) => {
    let balance = opening;
    for (const [index, line] of lines.entries()) {
      balance += line.amount;
      assert.equal(line.balance_amount, balance, `line ${index}`);
      if (index > 0) {
        const before = lines[index - 1]!;
        assert.ok(
          before.effective_date < line.effective_date ||
            (before.effective_date === line.effective_date && before.sequence < line.sequence),
          `line ${index} after line ${index - 1}`,
        );
      }
    }
    return balance;
  };

  // Seven lines a page: 80 lines are 12 pages (11 × 7 + 3), and most page edges fall inside a day.
  const seven = await b.report(`${base}&limit=7`);
  const whole = await b.report(`${base}&limit=100`);
  assert.equal(whole.body.data.rows.length, 80);
  assert.deepEqual(whole.body.data.totals, totals);
  // Written between pages: a back-dated invoice of 300 on 2026-10-02 (before the walk's place after page 3), one of
  // 200 on 2026-10-09 (after it); neither is in this walk.
  const { lines, pages } = await walk(7, async (page) => {
    if (page !== 3) return;
    await b.invoice(clientId, 300, '2026-10-02');
    await b.invoice(clientId, 200, '2026-10-09');
  });
  assert.equal(pages, 12);
  assert.equal(lines.length, 80);
  assert.deepEqual(
    lines.map((line) => line.sequence),
    whole.body.data.rows.map((line: Line) => line.sequence),
  );
  assert.deepEqual(lines, whole.body.data.rows, 'the same lines and balances as one page of all');
  assert.equal(checkRunning(lines, 0), 20_780);
  assert.equal(seven.body.data.rows.length, 7);
  // The first day's lines: invoices of 1,000, 1,001, 1,002, 1,003 each followed by its payment of −500.
  assert.deepEqual(
    lines.slice(0, 8).map((line) => [line.effective_date, line.amount, line.balance_amount]),
    [
      ['2026-10-01', 1_000, 1_000],
      ['2026-10-01', -500, 500],
      ['2026-10-01', 1_001, 1_501],
      ['2026-10-01', -500, 1_001],
      ['2026-10-01', 1_002, 2_003],
      ['2026-10-01', -500, 1_503],
      ['2026-10-01', 1_003, 2_506],
      ['2026-10-01', -500, 2_006],
    ],
  );

  // A fresh walk, three lines a page: the two new invoices are in it, in their days; closing 20,780 + 300 + 200.
  const fresh = await walk(3);
  assert.equal(fresh.lines.length, 82);
  assert.equal(fresh.pages, 28);
  assert.deepEqual(fresh.totals, { opening_balance_amount: 0, closing_balance_amount: 21_280 });
  assert.equal(checkRunning(fresh.lines, 0), 21_280);
  const added = fresh.lines.filter((line) => line.amount === 300 || line.amount === 200);
  assert.deepEqual(
    added.map((line) => [line.effective_date, line.amount]),
    [
      ['2026-10-02', 300],
      ['2026-10-09', 200],
    ],
  );
  // 2026-10-01's eight lines, 2026-10-02's eight, then the back-dated invoice (dated 2026-10-02, a later sequence).
  assert.equal(fresh.lines[16]!.amount, 300);
  assert.equal(fresh.lines[16]!.effective_date, '2026-10-02');

  // A statement from a later day: opening the balance the day before, the lines of the range, the walk the same.
  const late = `/v1/reports/client-statement?client_id=${clientId}&from=2026-10-05&to=2026-10-07`;
  const all = (await b.report(`${late}&limit=100`)).body.data;
  // Before 2026-10-05: days 1–4 are invoices 0–15, Σ (1,000 + i) − 16 × 500 = 16,000 + 120 − 8,000 = 8,120, and
  // the back-dated 300: 8,420. Days 5–7 are invoices 16–27: 12,000 + Σ 16..27 (258) − 6,000 = 6,258; closing 14,678.
  assert.deepEqual(all.totals, { opening_balance_amount: 8_420, closing_balance_amount: 14_678 });
  assert.equal(all.rows.length, 24);
  const paged: Line[] = [];
  let cursor: string | null = null;
  do {
    const response = await b.report(`${late}&limit=5${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(response.status, 200, response.text);
    paged.push(...response.body.data.rows);
    cursor = response.body.meta.pagination.next_cursor;
  } while (cursor);
  assert.deepEqual(paged, all.rows);
  assert.equal(checkRunning(paged, 8_420), 14_678);
});

test("a forged cursor, another report's, or one for other dates is a 422 on cursor", async () => {
  const b = await books();
  const clientId = await b.client('Cursor Co');
  for (let index = 0; index < 3; index++) await b.invoice(clientId, 1_000, day(index));
  const base = `/v1/reports/client-statement?client_id=${clientId}&from=2026-10-01&to=2026-10-31`;
  const page = await b.report(`${base}&limit=1`);
  const cursor = page.body.meta.pagination.next_cursor as string;
  assert.ok(cursor);
  const aging = await b.report(`/v1/reports/aged-receivables?as_of=2026-11-01&group_by=invoice&limit=1`);
  const agingCursor = aging.body.meta.pagination.next_cursor as string;
  assert.ok(agingCursor);
  const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  for (const bad of [
    'not-a-cursor',
    agingCursor,
    forge(['r2', 1, '2026-02-30', 1]),
    forge(['r2', 1, '2026-10-01', 'x']),
    forge(['r2', -1, '2026-10-01', 1]),
    forge(['r1', 1, 0]),
  ]) {
    const response = await b.report(`${base}&cursor=${bad}`);
    assert.equal(response.status, 422, `${bad}: ${response.text}`);
    assert.equal(response.body.error.details[0].field, 'cursor');
  }
  // A cursor of this statement asked with other dates that leave its line outside.
  const moved = await b.report(
    `/v1/reports/client-statement?client_id=${clientId}&from=2026-10-05&to=2026-10-31&cursor=${cursor}`,
  );
  assert.equal(moved.status, 422, moved.text);
  // The other reports check theirs too: the statement's cursor is no aging cursor.
  const wrong = await b.report(`/v1/reports/aged-receivables?as_of=2026-11-01&group_by=invoice&cursor=${cursor}`);
  assert.equal(wrong.status, 422, wrong.text);
});

test('aged receivables by invoice and by client: every row once, in order, a page at a time', async () => {
  const b = await books();
  // Made out of name order. Client k of B–F (k = 1–5) has k invoices of k × 1,000 + j × 100 (j = 0…k−1), issued
  // 2026-09-01 and due 2026-10-01 + 7j days; A has none.
  const ids = new Map<string, string>();
  for (const letter of ['F', 'B', 'D', 'A', 'E', 'C']) ids.set(letter, await b.client(`Client ${letter}`));
  const first = new Map<string, string>();
  for (const [k, letter] of ['B', 'C', 'D', 'E', 'F'].entries())
    for (let j = 0; j <= k; j++) {
      const id = await b.invoice(ids.get(letter)!, (k + 1) * 1_000 + j * 100, '2026-09-01', day(7 * j));
      if (j === 0) first.set(letter, id);
    }
  // E's first invoice paid 300 on 2026-10-20 (open 3,700 at 2026-11-01); D's paid 500 on 2026-11-10, after as_of.
  await b.pay(first.get('E')!, 300, '2026-10-20');
  await b.pay(first.get('D')!, 500, '2026-11-10');
  const path = '/v1/reports/aged-receivables?as_of=2026-11-01&group_by=invoice';
  const whole = (await b.report(`${path}&limit=100`)).body.data;
  const expected = [
    ['Client B', '2026-10-01', 1_000],
    ['Client C', '2026-10-01', 2_000],
    ['Client C', '2026-10-08', 2_100],
    ['Client D', '2026-10-01', 3_000],
    ['Client D', '2026-10-08', 3_100],
    ['Client D', '2026-10-15', 3_200],
    ['Client E', '2026-10-01', 3_700],
    ['Client E', '2026-10-08', 4_100],
    ['Client E', '2026-10-15', 4_200],
    ['Client E', '2026-10-22', 4_300],
    ['Client F', '2026-10-01', 5_000],
    ['Client F', '2026-10-08', 5_100],
    ['Client F', '2026-10-15', 5_200],
    ['Client F', '2026-10-22', 5_300],
    ['Client F', '2026-10-29', 5_400],
  ];
  const figures = (rows: Record<string, unknown>[]) =>
    rows.map((row) => [row.client_name, row.due_date, row.open_amount]);
  assert.deepEqual(figures(whole.rows), expected);
  // 1,000 + 4,100 + 9,300 + 16,300 + 26,000 = 56,700 open; no credit at as_of.
  assert.equal(whole.totals.open_amount, 56_700);
  assert.equal(whole.totals.balance_amount, 56_700);
  // Four rows a page: 15 rows are 4 pages. A payment back-dated to 2026-10-15 on F's first invoice, made after the
  // second page, is not in the walk.
  const walked = await b.walk(path, 4, async (page) => {
    if (page === 2) await b.pay(first.get('F')!, 1_000, '2026-10-15');
  });
  assert.equal(walked.pages, 4);
  assert.deepEqual(walked.rows, whole.rows);
  assert.deepEqual(walked.totals, whole.totals);
  // One row a page, past each client's edge.
  const single = await b.walk(path.replace('as_of=2026-11-01', 'as_of=2026-11-01&buckets=10,20'), 1);
  assert.equal(single.pages, 15);
  assert.deepEqual(
    single.rows.map((row) => row.invoice_id),
    whole.rows.map((row: Record<string, unknown>) => row.invoice_id),
  );
  // A fresh walk has the payment: F's first invoice open 4,000, the total 55,700.
  const fresh = await b.walk(path, 4);
  assert.deepEqual(fresh.rows[10]!.open_amount, 4_000);
  assert.equal((fresh.totals as { open_amount: number }).open_amount, 55_700);

  // By client, two a page: B–F in name order, A (nothing open) left out.
  const clients = await b.walk('/v1/reports/aged-receivables?as_of=2026-11-01', 2);
  assert.equal(clients.pages, 3);
  assert.deepEqual(
    clients.rows.map((row) => [row.client_name, row.open_amount]),
    [
      ['Client B', 1_000],
      ['Client C', 4_100],
      ['Client D', 9_300],
      ['Client E', 16_300],
      ['Client F', 25_000],
    ],
  );
});
