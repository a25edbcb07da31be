// The still-open items' client index on a database with kept open items, on both engines: up adds, on SQLite, a
// partial index of the still-open class led by the client, holding every column aging reads of such an item; the
// kept rows are untouched and aging's sums read them, a column per bucket, in the clients' order; down drops it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { settledOpenItemSumsQuery, stillOpenMovedAfterQuery } from '../src/modules/ledger/ledger.open-items.js';
import { onPostgres } from './helpers/database.js';
import { insertOldAccount, migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9a31';
const CLIENTS = ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b31', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9b32'];
const ITEMS = [
  '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d31',
  '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d32',
  '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d33',
  '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9d34',
];
const MIGRATION = '20261130220000_still_open_items_by_client';
const INDEX = 'ledger_open_items_still_open_client_idx';

/** The index's definition as the engine keeps it. */
async function definitionOf(db: Kysely<any>): Promise<string> {
  const rows = onPostgres
    ? await sql<{ text: string }>`select indexdef as text from pg_indexes where indexname = ${INDEX}`.execute(db)
    : await sql<{ text: string }>`select sql as text from sqlite_master where name = ${INDEX}`.execute(db);
  return rows.rows[0]?.text ?? '';
}

test('the still-open items are indexed by client over kept rows, which aging sums as before, and down drops it', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(MIGRATION));
    const db = database.db as never as Kysely<any>;
    const now = '2026-11-01T08:00:00.000Z';
    await insertOldAccount(database.db, ACCOUNT, 'Old books', now);
    const item = (index: number, fields: Record<string, unknown>) => ({
      account_id: ACCOUNT,
      kind: 'invoice',
      item_id: ITEMS[index],
      currency: 'USD',
      closed_on: '9999-12-31',
      span_class: 99,
      last_sequence: index + 1,
      ...fields,
    });
    // The first client: 10,000 due 1 November (14 days past due on 15 November: 1-30) and 5,000 due 19 November
    // (current). The second: 2,500 due 1 September (75 days: 31+), and 700 paid on 3 November (a closed span).
    await db
      .insertInto('ledger_open_items')
      .values([
        item(0, {
          client_id: CLIENTS[0],
          opened_on: '2026-10-02',
          last_entry_on: '2026-10-02',
          due_date: '2026-11-01',
          amount: 10_000,
        }),
        item(1, {
          client_id: CLIENTS[0],
          opened_on: '2026-10-20',
          last_entry_on: '2026-10-20',
          due_date: '2026-11-19',
          amount: 5_000,
        }),
        item(2, {
          client_id: CLIENTS[1],
          opened_on: '2026-08-02',
          last_entry_on: '2026-08-02',
          due_date: '2026-09-01',
          amount: 2_500,
        }),
        item(3, {
          client_id: CLIENTS[1],
          opened_on: '2026-10-01',
          closed_on: '2026-11-03',
          span_class: 3,
          last_entry_on: '2026-11-03',
          due_date: '2026-10-31',
          amount: 0,
        }),
      ])
      .execute();

    assert.ok((await database.migrateToLatest()).includes(MIGRATION));
    // SQLite only: PostgreSQL reads them by its span indexes, as before.
    if (onPostgres) assert.equal(await definitionOf(db), '');
    else {
      assert.match(await definitionOf(db), /\(account_id, client_id, currency, kind, opened_on, last_entry_on/);
      assert.match(await definitionOf(db), /where span_class = 99/i);
    }
    const sums = await settledOpenItemSumsQuery(database.db, ACCOUNT, '2026-11-15', 10, ['2026-10-16']).execute();
    assert.deepEqual(
      sums.map((row) => [row.client_id, ...[row.bucket_0, row.bucket_1, row.bucket_2, row.count].map(Number)]),
      [
        [CLIENTS[0], 5_000, 10_000, 0, 2],
        [CLIENTS[1], 0, 0, 2_500, 1],
      ],
    );
    // On 15 October the second invoice had not opened, and nothing still open has an entry after that day.
    assert.deepEqual(await stillOpenMovedAfterQuery(database.db, ACCOUNT, '2026-10-15').execute(), []);

    await database.migrateTo(database.before(MIGRATION));
    assert.equal(await definitionOf(db), '');
    assert.equal(
      Number((await db.selectFrom('ledger_open_items').select(sql`count(*)`.as('n')).executeTakeFirst())?.n),
      4,
    );
  } finally {
    await database.close();
  }
});
