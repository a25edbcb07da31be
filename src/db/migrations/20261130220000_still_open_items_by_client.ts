// Aging's sums of the still-open items in their clients' order (docs/decisions.md, "Reports: aging summed by the
// database"): a partial index of the still-open class (span class 99) led by the client, then currency and kind, so
// that the database sums each client's items per bucket as it walks them — the groups come in the index's order and
// are never sorted — and reads a piece of clients as one range. It holds every column aging reads of such an item,
// so no row of the table is read. Only still-open items are in it: closed spans are read by the span indexes as
// before. SQLite only, as the covering indexes before it: PostgreSQL's aging met its target, its planner sums the
// groups by hashing rather than sorting, and with so few rows in its tests it reads by its narrower indexes.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

/** The still-open items' columns, the client first; aging's sums group by the first three. */
const COLUMNS = [
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
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await sql`create index ledger_open_items_still_open_client_idx on ledger_open_items (${sql.raw(
    COLUMNS.join(', '),
  )}) where span_class = 99`.execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await db.schema.dropIndex('ledger_open_items_still_open_client_idx').execute();
}
