// Lists whose filter is not a range of the sort's index (contract section 13; docs/decisions.md "Bounded
// lists"). A small filtered range is read whole: full pages. A large one is found by walking the sort's
// index at most WALK_LIMIT (500) entries a page: a page may come back short, even empty, with has_more
// and a cursor, and following the cursors yields exactly the matching rows in order. The expected rows
// are computed here from the rows the test inserted, not by the code under test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import type { ClientRow, InvoiceRow } from '../src/db/types.js';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';

/** The walk's bound per page, as the contract's decision states it. */
const WALK_LIMIT = 500;
const ROWS = 1200;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const STATUSES = ['sent', 'paid', 'draft', 'void', 'paid', 'sent'] as const;

const clock = new ManualClock(new Date('2026-11-22T10:00:00.000Z'));
let context: TestContext;
let key: string;
const invoices: Omit<InvoiceRow, 'tags'>[] = [];
const clients: Omit<ClientRow, 'tags'>[] = [];
/** The 1,300 clients of "Acme Roofing" that the walk of `q=acme` adds, older than the others. */
const acmeClients: Omit<ClientRow, 'tags'>[] = [];

const instant = (seconds: number) => new Date(START + seconds * 1000).toISOString();
/** Day `n` after 2026-01-01: due dates rise with creation, a hundred invoices a day, as a business's do. */
const day = (n: number) => new Date(START + n * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  context = await createTestContext({ clock });
  const account = await context.account();
  key = account.key;
  const { db } = context.database;
  // Rows go straight into the tables: 1,200 through the API would be most of this test's time.
  for (let index = 0; index < ROWS; index += 1) {
    const name = `Client ${index}`;
    // updated_at falls as created_at rises: a range of one is far from the start of the other's order.
    clients.push({
      id: uuidv7(),
      account_id: account.accountId,
      external_id: null,
      name,
      sort_name: name.toLowerCase(),
      email: null,
      phone: null,
      company_name: null,
      address: null,
      notes: null,
      metadata: '{}',
      custom_fields: '{}',
      einvoicing: null,
      created_at: instant(index),
      updated_at: instant(2 * ROWS - index),
    });
  }
  let number = 0;
  for (let index = 0; index < ROWS; index += 1) {
    const status = STATUSES[index % STATUSES.length]!;
    const numbered = status !== 'draft';
    if (numbered) number += 1;
    invoices.push({
      id: uuidv7(),
      account_id: account.accountId,
      external_id: null,
      client_id: clients[index % 10]!.id,
      property_id: null,
      job_id: null,
      quote_id: null,
      number: numbered ? `INV-${String(number).padStart(6, '0')}` : null,
      number_seq: numbered ? number : null,
      currency: 'USD',
      line_items: '[]',
      subtotal_amount: 1000,
      tax_amount: 0,
      total_amount: 1000,
      prices_include_tax: 0,
      rounding: 'per_line',
      discount: null,
      discount_amount: 0,
      tax_breakdown: null,
      amount_paid: status === 'paid' ? 1000 : 0,
      amount_credited: 0,
      notes: null,
      issue_date: numbered ? day(Math.floor(index / 100)) : null,
      due_date: index % 7 === 0 ? null : day(Math.floor(index / 100)),
      status,
      sent_at: numbered ? instant(index) : null,
      paid_at: status === 'paid' ? instant(index) : null,
      voided_at: status === 'void' ? instant(index) : null,
      recurring_invoice_id: null,
      occurrence_date: null,
      late_fee_for_invoice_id: null,
      reminders_enabled: 1,
      buyer_reference: null,
      purchase_order: null,
      delivery_date: null,
      service_period: null,
      einvoice: null,
      delivery_id: null,
      delivery_status: null,
      hosted_token: null,
      hosted_url: null,
      hosted_recipient: null,
      metadata: '{}',
      custom_fields: '{}',
      created_at: instant(index),
      updated_at: instant(index),
    });
  }
  await db.transaction().execute(async (trx) => {
    for (let at = 0; at < ROWS; at += 200)
      await trx
        .insertInto('clients')
        .values(clients.slice(at, at + 200))
        .execute();
    for (let at = 0; at < ROWS; at += 200)
      await trx
        .insertInto('invoices')
        .values(invoices.slice(at, at + 200))
        .execute();
  });
});
after(() => context.close());

interface Walked {
  ids: string[];
  pages: Array<{ size: number; hasMore: boolean }>;
}

/** Follows next_cursor from the first page to the last; every page must be a 200 of at most `limit` rows. */
async function walk(path: string, query: string, limit = 50): Promise<Walked> {
  const walked: Walked = { ids: [], pages: [] };
  let cursor: string | null = null;
  do {
    const response: ApiResponse = await context.request(
      'GET',
      `${path}?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { key },
    );
    assert.equal(response.status, 200, response.text);
    const { data, meta } = response.body;
    assert.ok(data.length <= limit);
    assert.equal(meta.pagination.has_more, meta.pagination.next_cursor !== null);
    walked.ids.push(...data.map((item: { id: string }) => item.id));
    walked.pages.push({ size: data.length, hasMore: meta.pagination.has_more });
    cursor = meta.pagination.next_cursor;
    assert.ok(walked.pages.length < 200, 'the pages end');
  } while (cursor);
  return walked;
}

/** Rows in the order (key, id), descending when asked: the expected list. */
function ordered<Row extends { id: string }>(
  rows: Row[],
  key: (row: Row) => string | number,
  descending: boolean,
): string[] {
  const sign = descending ? -1 : 1;
  return [...rows]
    .sort((a, b) => sign * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => row.id);
}

const shortPagesWithMore = (walked: Walked) =>
  walked.pages.filter((page, index) => page.hasMore && page.size < 50 && index < walked.pages.length - 1).length;

describe('lists whose filter is not a range of the sort index', () => {
  test('a small range (≤ 500 rows) is read whole: full pages, newest first', async () => {
    const expected = ordered(
      invoices.filter((row) => row.due_date !== null && row.due_date < day(4)),
      (row) => row.created_at,
      true,
    );
    assert.ok(expected.length < WALK_LIMIT && expected.length > 100);
    const walked = await walk('/v1/invoices', `due_before=${day(4)}`);
    assert.deepEqual(walked.ids, expected);
    assert.equal(shortPagesWithMore(walked), 0, 'every page but the last is full');
  });

  test('a large range far from the start of the order: short pages that resume, and exactly the matching rows', async () => {
    // Due before day 7: the oldest 700 invoices less the undated, walked from the newest.
    const expected = ordered(
      invoices.filter((row) => row.due_date !== null && row.due_date < day(7)),
      (row) => row.created_at,
      true,
    );
    assert.ok(expected.length > WALK_LIMIT);
    const walked = await walk('/v1/invoices', `due_before=${day(7)}`);
    assert.deepEqual(walked.ids, expected);
    // The newest 500 rows of the order match nothing: the first page stops at the bound, empty, and says more follow.
    assert.deepEqual(walked.pages[0], { size: 0, hasMore: true });
    assert.ok(
      walked.pages.length <= Math.ceil(ROWS / WALK_LIMIT) + Math.ceil(expected.length / 50) + 1,
      `${walked.pages.length} pages`,
    );
  });

  test('created_before with sort=-number, the same way', async () => {
    // The highest 500 numbers belong to invoices made after the 550th: the first page is empty.
    const expected = ordered(
      invoices.filter((row) => row.created_at < instant(550)),
      (row) => row.number_seq ?? 0,
      true,
    );
    const walked = await walk('/v1/invoices', `created_before=${instant(550)}&sort=-number`);
    assert.deepEqual(walked.ids, expected);
    assert.deepEqual(walked.pages[0], { size: 0, hasMore: true });
  });

  test('status=sent,paid with due_before and sort=-number: each status walked, merged, exact', async () => {
    const expected = ordered(
      invoices.filter(
        (row) => (row.status === 'sent' || row.status === 'paid') && row.due_date !== null && row.due_date < day(7),
      ),
      (row) => row.number_seq ?? 0,
      true,
    );
    const walked = await walk('/v1/invoices', `status=sent,paid&due_before=${day(7)}&sort=-number`);
    assert.deepEqual(walked.ids, expected);
  });

  test('overdue=false (no index orders it) with the default sort: exact', async () => {
    const today = '2026-11-22';
    const expected = ordered(
      invoices.filter((row) => !(row.status === 'sent' && row.due_date !== null && row.due_date < today)),
      (row) => row.created_at,
      true,
    );
    assert.deepEqual((await walk('/v1/invoices', 'overdue=false', 100)).ids, expected);
  });

  test('overdue=true with sort=due_date skips the undated rows: full pages from the first', async () => {
    const expected = ordered(
      invoices.filter((row) => row.status === 'sent' && row.due_date !== null && row.due_date < '2026-11-22'),
      (row) => row.due_date!,
      false,
    );
    const walked = await walk('/v1/invoices', 'overdue=true&sort=due_date');
    assert.deepEqual(walked.ids, expected);
    assert.equal(shortPagesWithMore(walked), 0);
  });

  test('clients: updated_after with sort=created_at, a large range and a small one', async () => {
    const large = ordered(
      clients.filter((row) => row.updated_at >= instant(ROWS + 100)),
      (row) => row.created_at,
      false,
    );
    assert.ok(large.length > WALK_LIMIT);
    const walked = await walk('/v1/clients', `updated_after=${instant(ROWS + 100)}&sort=created_at`);
    assert.deepEqual(walked.ids, large);
    // The oldest clients were updated last: the walk finds a full page at once.
    assert.deepEqual(walked.pages[0], { size: 50, hasMore: true });
    const small = ordered(
      clients.filter((row) => row.updated_at >= instant(2 * ROWS - 150)),
      (row) => row.created_at,
      false,
    );
    const smallWalk = await walk('/v1/clients', `updated_after=${instant(2 * ROWS - 150)}&sort=created_at`);
    assert.deepEqual(smallWalk.ids, small);
    assert.equal(shortPagesWithMore(smallWalk), 0);
  });

  test('q: a common term (over 500 matches: the nearest rows first) and a rare one (its few matches at once), exact', async () => {
    for (const q of ['client', 'Client 11', 'nt 1199']) {
      const expected = ordered(
        clients.filter((row) => row.name.toLowerCase().includes(q.toLowerCase())),
        (row) => row.sort_name,
        false,
      );
      assert.deepEqual((await walk('/v1/clients', `q=${encodeURIComponent(q)}&sort=name`)).ids, expected, q);
    }
  });

  test('q: a term with over 500 matches, none among the nearest 1,000 rows: short pages that resume, exact', async () => {
    // 1,300 older clients of one company, behind the 1,200 newer ones in the default order.
    const accountId = clients[0]!.account_id;
    const older = Array.from({ length: 1300 }, (_, index) => ({
      ...clients[0]!,
      id: uuidv7(),
      account_id: accountId,
      name: `Zed ${index}`,
      sort_name: `zed ${index}`,
      company_name: 'Acme Roofing',
      created_at: instant(index - 10_000),
      updated_at: instant(index - 10_000),
    }));
    acmeClients.push(...older);
    await context.database.db.transaction().execute(async (trx) => {
      for (let at = 0; at < older.length; at += 200)
        await trx
          .insertInto('clients')
          .values(older.slice(at, at + 200))
          .execute();
    });
    const walked = await walk('/v1/clients', 'q=acme');
    assert.deepEqual(
      walked.ids,
      ordered(older, (row) => row.created_at, true),
    );
    // Both engines count over 500 rows for the term (SQLite its matches, PostgreSQL the rows holding the word): a walk.
    assert.deepEqual(walked.pages[0], { size: 0, hasMore: true });
  });

  test('q: common words that no row holds together in that order, and a rare phrase of common words, exact', async () => {
    // After the test above: 1,300 clients of "Acme Roofing", none with "roofing acme".
    const none = await walk('/v1/clients', `q=${encodeURIComponent('roofing acme')}`);
    assert.deepEqual(none.ids, []);
    // SQLite's index counts the phrase's matches: none, one empty page. PostgreSQL's keeps only the words, each
    // in 1,300 rows: over 500, so a walk whose pages end at their window (2,500 rows: three windows of 1,000).
    assert.deepEqual(
      none.pages,
      onPostgres
        ? [
            { size: 0, hasMore: true },
            { size: 0, hasMore: true },
            { size: 0, hasMore: false },
          ]
        : [{ size: 0, hasMore: false }],
    );
    // "zed" in 1,300 rows ("12" is too short for the trigram index): PostgreSQL walks these 111 matches,
    // SQLite reads them at once.
    const rare = await walk('/v1/clients', `q=${encodeURIComponent('Zed 12')}`);
    const expected = ordered(
      acmeClients.filter((row) => /^Zed 12/.test(row.name)),
      (row) => row.created_at,
      true,
    );
    assert.equal(expected.length, 111);
    assert.deepEqual(rare.ids, expected);
  });

  test('a cursor from a short page is an ordinary cursor of its sort: another sort refuses it', async () => {
    const first = await context.request('GET', `/v1/invoices?limit=50&due_before=${day(7)}`, { key });
    const cursor = first.body.meta.pagination.next_cursor;
    assert.ok(cursor);
    const other = await context.request(
      'GET',
      `/v1/invoices?limit=50&due_before=${day(7)}&sort=created_at&cursor=${cursor}`,
      { key },
    );
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'VALIDATION_ERROR');
  });
});
