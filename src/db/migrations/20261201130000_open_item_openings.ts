// What aging needs of an item on the days it first stood open, kept on its open-item row (docs/decisions.md,
// "Reports: aging reads an item's opening from its row"): the amount summed over its entries dated by the day it
// opened (`opening_amount`), the first later day any entry of it is dated (`opening_until`, 9999-12-31 when none) and
// an invoice's due date as those first entries give it (`opening_due_date`). On a day from `opened_on` to before
// `opening_until`, at a sequence at least the row's last, the item's amount and due date are those: aging takes them
// from the row rather than summing the item's entries. The columns are null on rows written before this migration
// (and on an item whose entries name other clients or currencies): such an item is summed from its entries, as
// before, until a posting moves it and its row is made anew. On SQLite the three open-item indexes aging reads by
// (same names, same first columns) also hold the new columns, so that these reads stay on the index alone.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';
import { columnTypes } from './column-types.js';

const OPENING = ['opening_amount', 'opening_until', 'opening_due_date'];
const ITEM_COLUMNS = ['last_entry_on', 'last_sequence', 'amount', 'currency', 'kind', 'due_date', 'item_id'];
const SPAN = ['account_id', 'span_class', 'opened_on', 'closed_on', 'client_id', ...ITEM_COLUMNS];
const CLIENT_SPAN = ['account_id', 'client_id', 'span_class', 'opened_on', 'closed_on', ...ITEM_COLUMNS];
const STILL_OPEN = [
  'account_id',
  'client_id',
  'currency',
  'kind',
  'opened_on',
  'last_entry_on',
  'last_sequence',
  'amount',
  'due_date',
  'item_id',
];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
async function replaceIndexes(db: Kysely<any>, extra: string[]): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  for (const [name, columns] of [
    ['ledger_open_items_account_span_idx', SPAN],
    ['ledger_open_items_account_client_span_idx', CLIENT_SPAN],
  ] as const) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('ledger_open_items')
      .columns([...columns, ...extra])
      .execute();
  }
  await db.schema.dropIndex('ledger_open_items_still_open_client_idx').execute();
  await sql`create index ledger_open_items_still_open_client_idx on ledger_open_items (${sql.raw(
    [...STILL_OPEN, ...extra].join(', '),
  )}) where span_class = 99`.execute(db);
}

// `any`: see above.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('ledger_open_items').addColumn('opening_amount', 'bigint').execute();
  await db.schema.alterTable('ledger_open_items').addColumn('opening_until', types.date).execute();
  await db.schema.alterTable('ledger_open_items').addColumn('opening_due_date', types.date).execute();
  await replaceIndexes(db, OPENING);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await replaceIndexes(db, []);
  for (const column of OPENING) await db.schema.alterTable('ledger_open_items').dropColumn(column).execute();
}
