// The open items' openings' migration on a database with kept open items, on both engines: up adds the three opening
// columns, null on the rows already kept (so such an item is summed from its entries, as before), and on SQLite
// widens aging's three open-item indexes (same names, same first columns) with them; down drops them and gives back
// the indexes as they were, the kept rows untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openingOn, stillOpenMovedAfterQuery } from '../src/modules/ledger/ledger.open-items.js';
import type { FoundOpenItem } from '../src/modules/ledger/index.js';
import { onPostgres } from './helpers/database.js';
import { indexColumns, insertOldAccount, migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a41';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b41';
const INVOICES = ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d41', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d42'];
const MIGRATION = '20261201130000_open_item_openings';
const OPENING = ['opening_amount', 'opening_until', 'opening_due_date'];
const ITEM = ['last_entry_on', 'last_sequence', 'amount', 'currency', 'kind', 'due_date', 'item_id'];
const STILL_OPEN = ['account_id', 'client_id', 'currency', 'kind', 'opened_on', ...ITEM.slice(0, 3), 'due_date'];

/** The table's columns named `opening_…`. */
async function openingColumns(db: Kysely<any>): Promise<string[]> {
  const rows = onPostgres
    ? await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_name = 'ledger_open_items' and column_name like 'opening%' order by ordinal_position`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info('ledger_open_items')
        where name like 'opening%' order by cid`.execute(db);
  return rows.rows.map((row) => row.name);
}

test('the openings are added to kept open items as null (summed from their entries), and dropped by down', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as Kysely<any>;
    await insertOldAccount(database.db, ACCOUNT, 'Old books', '2026-11-01T08:00:00.000Z');
    // Two invoices still open: 10,000 issued on 2 October, due 1 November, partly paid on 20 October (sequence 5);
    // 5,000 issued on 20 October, due 19 November (sequence 4).
    await db
      .insertInto('ledger_open_items')
      .values(
        [
          [INVOICES[0], '2026-10-02', '2026-10-20', '2026-11-01', 6_000, 5],
          [INVOICES[1], '2026-10-20', '2026-10-20', '2026-11-19', 5_000, 4],
        ].map(([item_id, opened_on, last_entry_on, due_date, amount, last_sequence]) => ({
          account_id: ACCOUNT,
          kind: 'invoice',
          item_id,
          client_id: CLIENT,
          currency: 'USD',
          opened_on,
          closed_on: '9999-12-31',
          span_class: 99,
          last_entry_on,
          due_date,
          amount,
          last_sequence,
        })),
      )
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    assert.deepEqual(await openingColumns(db), OPENING);
    const spans = onPostgres ? [] : ['client_id', ...ITEM, ...OPENING];
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_span_idx'), [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...spans,
    ]);
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_client_span_idx'), [
      'account_id',
      'client_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...(onPostgres ? [] : [...ITEM, ...OPENING]),
    ]);
    assert.deepEqual(
      await indexColumns(db, 'ledger_open_items_still_open_client_idx'),
      onPostgres ? [] : [...STILL_OPEN, 'item_id', ...OPENING],
    );
    // On 10 October the first invoice (moved on the 20th) is found with no opening kept: it is summed from its entries.
    const found = (await stillOpenMovedAfterQuery(database.db, ACCOUNT, '2026-10-10').execute()) as FoundOpenItem[];
    assert.deepEqual(
      found.map((item) => [item.item_id, item.opening_amount, item.opening_until, item.opening_due_date]),
      [[INVOICES[0], null, null, null]],
    );
    assert.equal(openingOn(found[0]!, '2026-10-10', 10), null);

    await database.migrateTo(database.before(MIGRATION));
    assert.deepEqual(await openingColumns(db), []);
    assert.deepEqual(await indexColumns(db, 'ledger_open_items_account_span_idx'), [
      'account_id',
      'span_class',
      'opened_on',
      'closed_on',
      ...(onPostgres ? [] : ['client_id', ...ITEM]),
    ]);
    assert.deepEqual(
      await indexColumns(db, 'ledger_open_items_still_open_client_idx'),
      onPostgres ? [] : [...STILL_OPEN, 'item_id'],
    );
    const kept = await sql<{ count: number }>`select count(*) as count from ledger_open_items`.execute(db);
    assert.equal(Number(kept.rows[0]!.count), 2);
  } finally {
    await database.close();
  }
});
