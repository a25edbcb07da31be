// The ledger's open items (docs/architecture.md, "Kept copies"; docs/decisions.md, "Reports at scale"): per account,
// item (an invoice, a payment, a credit note), client and currency, the span of local days over which the item's
// amount — an invoice's document entries less its applications, a source's money less what it applied — is not 0,
// kept by `ledger` in each posting's transaction; aged receivables and statements find the items open on a day from
// it by index. Also the index the statement's lines are read from: a client's entries by day. Existing entries are
// summed in here once.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { daysBetween } from '../../core/time.js';
import { columnTypes } from './column-types.js';

const INVOICE_DOCUMENTS = new Set(['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided']);
const APPLICATIONS = new Set(['applied', 'unapplied']);
const STILL_OPEN = '9999-12-31';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('ledger_open_items')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('item_id', types.id, (column) => column.notNull())
    .addColumn('client_id', types.id, (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('opened_on', types.date, (column) => column.notNull())
    .addColumn('closed_on', types.date, (column) => column.notNull())
    .addColumn('span_class', 'integer', (column) => column.notNull())
    // The day of its latest entry (a 0 change too): an item open with nothing after the day is its amount that day.
    .addColumn('last_entry_on', types.date, (column) => column.notNull())
    // An invoice's due date as its latest entry naming one gives it.
    .addColumn('due_date', types.date)
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('last_sequence', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('ledger_open_items_pk', ['account_id', 'kind', 'item_id', 'client_id', 'currency'])
    .execute();
  // The items open on a day: per span class, a range of the days they opened (the report's reads); `closed_on` in
  // the index so that a span closed by the day is passed over without its row being read.
  await db.schema
    .createIndex('ledger_open_items_account_span_idx')
    .on('ledger_open_items')
    .columns(['account_id', 'span_class', 'opened_on', 'closed_on'])
    .execute();
  await db.schema
    .createIndex('ledger_open_items_account_client_span_idx')
    .on('ledger_open_items')
    .columns(['account_id', 'client_id', 'span_class', 'opened_on', 'closed_on'])
    .execute();
  // A client's entries by day: the statement's lines and their sums.
  await db.schema
    .createIndex('ledger_entries_account_client_date_idx')
    .on('ledger_entries')
    .columns(['account_id', 'client_id', 'currency', 'effective_date', 'sequence'])
    .execute();

  const accounts = await db.selectFrom('accounts').select('id').orderBy('id').execute();
  for (const { id } of accounts) await backfillAccount(db, id);
}

const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));

/** The same rows as `ledger`'s posting keeps (modules/ledger/ledger.open-items.ts), from the entries so far. */
async function backfillAccount(db: Kysely<any>, accountId: string): Promise<void> {
  const entries = await db
    .selectFrom('ledger_entries')
    .select([
      'sequence',
      'client_id',
      'currency',
      'type',
      'effective_date',
      'amount',
      'applied_amount',
      'invoice_id',
      'payment_id',
      'credit_note_id',
      'due_date',
    ])
    .where('account_id', '=', accountId)
    .orderBy('sequence')
    .execute();
  const items = new Map<
    string,
    { key: Record<string, string>; days: Map<string, number>; last: number; due: string | null }
  >();
  const move = (entry: Record<string, any>, kind: string, itemId: string, amount: number) => {
    const id = `${kind} ${itemId} ${entry.client_id} ${entry.currency}`;
    const item = items.get(id) ?? {
      key: { kind, item_id: itemId, client_id: entry.client_id, currency: entry.currency },
      days: new Map<string, number>(),
      last: 0,
      due: null,
    };
    if (kind === 'invoice' && entry.due_date !== null) item.due = day(entry.due_date);
    const date = day(entry.effective_date);
    item.days.set(date, (item.days.get(date) ?? 0) + amount);
    item.last = Math.max(item.last, Number(entry.sequence));
    items.set(id, item);
  };
  for (const entry of entries) {
    const amount = Number(entry.amount);
    const applied = Number(entry.applied_amount);
    if (entry.invoice_id !== null) {
      if (INVOICE_DOCUMENTS.has(entry.type)) move(entry, 'invoice', entry.invoice_id, amount);
      else if (APPLICATIONS.has(entry.type)) move(entry, 'invoice', entry.invoice_id, -applied);
    }
    if (entry.payment_id !== null) move(entry, 'payment', entry.payment_id, -amount - applied);
    else if (entry.credit_note_id !== null) move(entry, 'credit_note', entry.credit_note_id, -amount - applied);
  }
  const rows: Record<string, unknown>[] = [];
  for (const { key, days, last, due } of items.values()) {
    const changes = [...days].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (changes.length === 0) continue;
    const amount = changes.reduce((sum, [, change]) => sum + change, 0);
    const openedOn = changes[0]![0];
    const closedOn = amount === 0 ? changes[changes.length - 1]![0] : STILL_OPEN;
    rows.push({
      account_id: accountId,
      ...key,
      opened_on: openedOn,
      closed_on: closedOn,
      span_class: spanClassOf(openedOn, closedOn),
      last_entry_on: [...days.keys()].sort().reverse()[0],
      due_date: due,
      amount,
      last_sequence: last,
    });
  }
  for (let start = 0; start < rows.length; start += 200)
    await db
      .insertInto('ledger_open_items')
      .values(rows.slice(start, start + 200))
      .execute();
}

/** 0–11: a span of at most 4^class days; 99: still open (as the posting's `spanClassOf`). */
function spanClassOf(openedOn: string, closedOn: string): number {
  if (closedOn === STILL_OPEN) return 99;
  const days = daysBetween(openedOn, closedOn);
  let bound = 1;
  for (let spanClass = 0; spanClass < 12; spanClass++, bound *= 4) if (days <= bound) return spanClass;
  return 99;
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_entries_account_client_date_idx').execute();
  await db.schema.dropTable('ledger_open_items').execute();
}
