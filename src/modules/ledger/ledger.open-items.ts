// The ledger's open items (docs/architecture.md, "Kept copies"): per account, item (an invoice, a payment or a credit
// note), client and currency, the span of local days over which the item is open — an invoice's receivable (its
// document entries less its applications) or a source's credit (its money less what it applied and refunded) is not
// 0 — kept by the only poster of entries, in the posting's transaction. Aged receivables and the client statement's
// opening balance find the items open on a day from these spans by index (docs/api-contract.md §24 "Scale"), then
// sum those items' own entries at the report's sequence; items an entry after that sequence touched are added, so
// an older `?ledger_sequence=N` is repeated exactly.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { type RawBuilder, sql } from 'kysely';
import { dateOfDayNumber, dayNumber, daysBetween } from '../../core/time.js';
import type { Executor } from '../../db/index.js';
import type { LedgerOpenItemRow } from '../../db/types.js';
import { findEntryDaysAfter } from './ledger.entry-days.js';
import { INVOICE_DOCUMENT_TYPES } from './ledger.schemas.js';

const INVOICE_DOCUMENTS = new Set<string>(INVOICE_DOCUMENT_TYPES);
const APPLICATIONS = new Set<string>(['applied', 'unapplied']);

export type OpenItemKind = 'invoice' | 'payment' | 'credit_note';

/** What an entry gives an item: the fields of an entry that say which items it moves and by how much. */
export interface OpenItemSource {
  client_id: string;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  applied_amount: number;
  invoice_id: string | null;
  payment_id: string | null;
  credit_note_id: string | null;
  due_date?: string | null;
}

export interface OpenItemMove {
  kind: OpenItemKind;
  item_id: string;
  client_id: string;
  currency: string;
  /** + the client owes more on the invoice / − the source holds less credit … as the item's own amount. */
  amount: number;
}

/**
 * The items an entry moves. An invoice's open amount: its document entries' `amount` less its applications'
 * `applied_amount`. A payment's or credit note's credit: − its entries' `amount` less their `applied_amount`. So for
 * every client, Σ invoices' open − Σ sources' credit = Σ entries' `amount` (§24: balance = open − credit).
 */
export function openItemMovesOf(entry: OpenItemSource): OpenItemMove[] {
  const moves: OpenItemMove[] = [];
  const at = { client_id: entry.client_id, currency: entry.currency };
  if (entry.invoice_id !== null) {
    if (INVOICE_DOCUMENTS.has(entry.type))
      moves.push({ kind: 'invoice', item_id: entry.invoice_id, ...at, amount: entry.amount });
    else if (APPLICATIONS.has(entry.type))
      moves.push({ kind: 'invoice', item_id: entry.invoice_id, ...at, amount: -entry.applied_amount });
  }
  const source: [OpenItemKind, string] | null =
    entry.payment_id !== null
      ? ['payment', entry.payment_id]
      : entry.credit_note_id !== null
        ? ['credit_note', entry.credit_note_id]
        : null;
  if (source) moves.push({ kind: source[0], item_id: source[1], ...at, amount: -entry.amount - entry.applied_amount });
  return moves;
}

/** Spans of at most 4^k days are kept in class k (0–11: 4^11 days outlast year 9999); one still open in class 99. */
export const OPEN_CLASS = 99;
export const SPAN_CLASSES = 12;
export const STILL_OPEN = '9999-12-31';

export function spanClassOf(openedOn: string, closedOn: string): number {
  if (closedOn === STILL_OPEN) return OPEN_CLASS;
  const days = daysBetween(openedOn, closedOn);
  let bound = 1;
  for (let spanClass = 0; spanClass < SPAN_CLASSES; spanClass++, bound *= 4) if (days <= bound) return spanClass;
  return OPEN_CLASS;
}

export const itemKeyOf = (item: { kind: string; item_id: string; client_id: string; currency: string }) =>
  `${item.kind} ${item.item_id} ${item.client_id} ${item.currency}`;

/**
 * The kept rows of items from all their moves: per (item, client, currency), the first day its amount is not 0 and
 * the day from which it stays 0 (`STILL_OPEN` when its amount is not 0 at the end); items never open have no row.
 * With each, its opening (`openingOf`), except for the items in `unkept` and those whose moves name more than one
 * client or currency.
 */
export function openItemRowsOf(
  accountId: string,
  moves: readonly KeptMove[],
  unkept: ReadonlySet<string> = new Set(),
): LedgerOpenItemRow[] {
  const byKey = new Map<string, KeptMove[]>();
  const keysOfItem = new Map<string, number>();
  for (const move of moves) {
    const key = itemKeyOf(move);
    const item = byKey.get(key);
    if (item) item.push(move);
    else {
      byKey.set(key, [move]);
      keysOfItem.set(move.item_id, (keysOfItem.get(move.item_id) ?? 0) + 1);
    }
  }
  const rows: LedgerOpenItemRow[] = [];
  for (const itemMoves of byKey.values()) {
    const move = itemMoves[0]!;
    const days = new Map<string, number>();
    let last = 0;
    let due = { sequence: 0, date: null as string | null };
    for (const { effective_date, amount, sequence, due_date } of itemMoves) {
      days.set(effective_date, (days.get(effective_date) ?? 0) + amount);
      last = Math.max(last, sequence);
      if (move.kind === 'invoice' && due_date !== null && sequence > due.sequence) due = { sequence, date: due_date };
    }
    const changes = [...days].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (changes.length === 0) continue;
    const amount = changes.reduce((sum, [, change]) => sum + change, 0);
    const openedOn = changes[0]![0];
    const closedOn = amount === 0 ? changes[changes.length - 1]![0] : STILL_OPEN;
    const kept = keysOfItem.get(move.item_id) === 1 && !unkept.has(move.item_id);
    rows.push({
      account_id: accountId,
      kind: move.kind,
      item_id: move.item_id,
      client_id: move.client_id,
      currency: move.currency,
      opened_on: openedOn,
      closed_on: closedOn,
      span_class: spanClassOf(openedOn, closedOn),
      last_entry_on: [...days.keys()].sort().reverse()[0]!,
      due_date: due.date,
      amount,
      last_sequence: last,
      ...(kept
        ? openingOf(itemMoves, openedOn)
        : { opening_amount: null, opening_until: null, opening_due_date: null }),
    });
  }
  return rows;
}

/** A move of an item with what its entry says of it: the day, the sequence and an invoice's due date. */
type KeptMove = OpenItemMove & { effective_date: string; sequence: number; due_date: string | null };

/**
 * An item's opening: its amount over its moves dated by `openedOn` (the day it opened), the first later day it has a
 * move (`STILL_OPEN` when none) and an invoice's due date as its latest move by then naming one gives it. On any day
 * from `openedOn` to before that later day, at a sequence at least the item's last, those are its amount and due
 * date: aging reads them from the row instead of the item's entries.
 */
function openingOf(moves: readonly KeptMove[], openedOn: string) {
  let amount = 0;
  let until = STILL_OPEN;
  let due = { sequence: 0, date: null as string | null };
  for (const move of moves) {
    if (move.effective_date > openedOn) {
      if (move.effective_date < until) until = move.effective_date;
      continue;
    }
    amount += move.amount;
    if (move.due_date !== null && move.sequence > due.sequence) due = { sequence: move.sequence, date: move.due_date };
  }
  return {
    opening_amount: amount,
    opening_until: until,
    opening_due_date: moves[0]!.kind === 'invoice' ? due.date : null,
  };
}

const ITEM_COLUMN = { invoice: 'invoice_id', payment: 'payment_id', credit_note: 'credit_note_id' } as const;

/**
 * Keeps the rows of every item the posted entries move: each item's entries read again by its index (the posted
 * ones included: same transaction) and its rows written anew. Called by `postEntries` alone.
 */
export async function keepOpenItems(db: Executor, accountId: string, posted: readonly OpenItemSource[]) {
  const touched = new Map<string, Set<string>>();
  for (const entry of posted)
    for (const move of openItemMovesOf(entry)) {
      const ids = touched.get(move.kind) ?? new Set<string>();
      ids.add(move.item_id);
      touched.set(move.kind, ids);
    }
  for (const [kind, ids] of touched) {
    const column = ITEM_COLUMN[kind as OpenItemKind];
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
      .where(column, 'in', [...ids])
      .execute();
    // An invoice an entry gives a due date without moving it keeps no opening (its due date is not its moves').
    const unkept = new Set<string>();
    const moves = entries.flatMap((row) => {
      const entry = { ...row, amount: Number(row.amount), applied_amount: Number(row.applied_amount) };
      const own = openItemMovesOf(entry).filter((move) => move.kind === kind && ids.has(move.item_id));
      if (own.length === 0 && row.due_date !== null && row.invoice_id !== null) unkept.add(row.invoice_id);
      return own.map((move) => ({
        ...move,
        effective_date: entry.effective_date,
        sequence: Number(row.sequence),
        due_date: row.due_date,
      }));
    });
    await db
      .deleteFrom('ledger_open_items')
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('item_id', 'in', [...ids])
      .execute();
    const rows = openItemRowsOf(accountId, moves, unkept);
    if (rows.length > 0) await db.insertInto('ledger_open_items').values(rows).execute();
  }
}

export interface OpenItemKey {
  kind: OpenItemKind;
  item_id: string;
  client_id: string;
  currency: string;
}

/** An item a report found open on a day, to be summed from its entries or taken from its opening. */
export interface FoundOpenItem extends OpenItemKey {
  opened_on: string;
  last_sequence: number;
  opening_amount: number | null;
  opening_until: string | null;
  opening_due_date: string | null;
}

const FOUND_COLUMNS = [
  'kind',
  'item_id',
  'client_id',
  'currency',
  'opened_on',
  'last_sequence',
  'opening_amount',
  'opening_until',
  'opening_due_date',
] as const;

/**
 * An item's amount and an invoice's due date on `day` at the sequence `through` from its kept opening (null when its
 * entries must be summed): the day is from the day it opened to before its next move, and no move of it is after the
 * sequence, so its moves by the day are those of its opening.
 */
export function openingOn(item: FoundOpenItem, day: string, through: number) {
  if (item.opening_amount === null || item.opening_until === null) return null;
  if (item.opened_on > day || day >= item.opening_until || Number(item.last_sequence) > through) return null;
  if (item.kind === 'invoice' && item.opening_due_date === null) return null;
  return { amount: Number(item.opening_amount), dueDate: item.opening_due_date, openedOn: item.opened_on };
}

/**
 * How much a report reads at a time, each piece a few milliseconds of the database's work at 100,000 invoices
 * (docs/decisions.md, "Reports: aging summed by the database"): still-open items per piece of aging, kept invoice
 * figures per piece of job profitability, jobs per batch of its rows, sequences per range of the entries after a
 * report's. Tests lower them to walk many pieces.
 */
export const REPORT_PIECES = { openItems: 4_000, figures: 4_000, jobs: 500, sequences: 5_000 };

/**
 * A piece of the still-open items a report reads at a time: those of the clients in (`after`, `through`] (null: from
 * the first, to the last). Pieces hold about `REPORT_PIECES.openItems` items each, so that no read, and no sum of what
 * it found, holds the event loop long on SQLite (docs/api-contract.md §13).
 */
export interface ClientPiece {
  after: string | null;
  through: string | null;
}

/**
 * The pieces of the still-open items (one client's with `clientId`: one piece), in their clients' order: each ends
 * at the client of the item `REPORT_PIECES.openItems` places on in the still-open index (a seek and as many keys),
 * the last at the account's last client. A client holding more items than a piece is a piece of its own.
 */
export async function* clientPieces(db: Executor, accountId: string, clientId?: string): AsyncGenerator<ClientPiece> {
  if (clientId !== undefined) {
    yield { after: null, through: null };
    return;
  }
  let after: string | null = null;
  for (;;) {
    let query = stillOpen(db, accountId).select('client_id');
    if (after !== null) query = query.where('client_id', '>', after);
    const row = await query.orderBy('client_id').limit(1).offset(REPORT_PIECES.openItems).executeTakeFirst();
    yield { after, through: row?.client_id ?? null };
    if (!row) return;
    after = row.client_id;
  }
}

/**
 * The still-open items of an account (span class 99), read from `ledger_open_items_still_open_client_idx`: a partial
 * index, which the database uses only when the statement names the class as a literal.
 */
function stillOpen(db: Executor, accountId: string, clientId?: string, piece?: ClientPiece) {
  let query = db
    .selectFrom('ledger_open_items')
    .where('account_id', '=', accountId)
    .where('span_class', '=', sql.lit(OPEN_CLASS));
  if (clientId !== undefined) query = query.where('client_id', '=', clientId);
  if (piece?.after) query = query.where('client_id', '>', piece.after);
  if (piece?.through) query = query.where('client_id', '<=', piece.through);
  return query;
}

/**
 * The items that may be open on `day` as the ledger stands now, to be summed from their entries (every currency; one
 * client's with `clientId`): per span class of the closed spans a range of the (account[, client], class, opened_on)
 * index — a span of class k open on `day` opened after `day` − 4^k. Reads about as many keys as items open that day.
 * The still-open items with an entry after the day are `stillOpenMovedAfterQuery`'s.
 */
export function openItemsOnQuery(db: Executor, accountId: string, day: string, clientId?: string) {
  const arm = (spanClass: number, openedAfter: string) => {
    let query = db.selectFrom('ledger_open_items').select(FOUND_COLUMNS).where('account_id', '=', accountId);
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    return query
      .where('span_class', '=', spanClass)
      .where('opened_on', '>', openedAfter)
      .where('opened_on', '<=', day)
      .where('closed_on', '>', day);
  };
  let query = arm(0, daysBefore(day, 1));
  for (let spanClass = 1, bound = 4; spanClass < SPAN_CLASSES; spanClass++, bound *= 4)
    query = query.unionAll(arm(spanClass, daysBefore(day, bound)));
  return query;
}

/**
 * The still-open items of a piece opened by `day` with an entry after it (every currency): open on `day` or not,
 * they are summed from their entries. A range of the still-open index, the rest filtered; in the index's order, so
 * that SQLite reads that range rather than the still-open class's days by the span index.
 */
export function stillOpenMovedAfterQuery(
  db: Executor,
  accountId: string,
  day: string,
  clientId?: string,
  piece?: ClientPiece,
) {
  return stillOpen(db, accountId, clientId, piece)
    .select(FOUND_COLUMNS)
    .where('opened_on', '<=', day)
    .where('last_entry_on', '>', day)
    .orderBy('client_id');
}

/** `day` less `days`, as a date (never before 0001-01-01). */
export function daysBefore(day: string, days: number): string {
  const earlier = dayNumber(day) - days;
  return earlier < FIRST_DAY ? '0001-01-01' : dateOfDayNumber(earlier);
}

const FIRST_DAY = dayNumber('0001-01-01');

/**
 * The items still open whose every entry is dated by `day` and none after the sequence `through` ("settled"): open on
 * `day` with their kept amount and due date, no entry read.
 */
function settledOpenItemsOn(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  clientId?: string,
  piece?: ClientPiece,
) {
  return stillOpen(db, accountId, clientId, piece)
    .where('opened_on', '<=', day)
    .where('last_entry_on', '<=', day)
    .where('last_sequence', '<=', through)
    .where('amount', '<>', 0);
}

/**
 * Settled items summed per client, currency and kind: their amount per aging bucket (a source's credit is its
 * buckets' sum) and their count.
 */
export interface SettledSum {
  currency: string;
  client_id: string;
  kind: OpenItemKind;
  /** Per bucket: current, then each of `bucketStarts`' ranges, then the rest. */
  amounts: number[];
  count: number;
}

/**
 * The settled items (`settledOpenItemsOn`) of a piece summed per client, currency and kind by the database, a column
 * per aging bucket, so that a report reads a row per client rather than a row per open item. The groups come in the
 * still-open index's order, never sorted. An item's bucket is the number of `bucketStarts` (increasing days past
 * due, as the days they start: `day` − b) its due date (else the day it opened) is before: 0 for a due date on or
 * after `day` ("current"), 1 for one before it and on or after `day` − b1, and so on.
 */
export function settledOpenItemSumsQuery(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  bucketStarts: readonly string[],
  clientId?: string,
  piece?: ClientPiece,
) {
  const due = sql`coalesce(${sql.ref('due_date')}, ${sql.ref('opened_on')})`;
  const starts = [day, ...bucketStarts];
  const amount = (condition: RawBuilder<unknown>, bucket: number) =>
    sql<number | string>`sum(case when ${condition} then ${sql.ref('amount')} else 0 end)`.as(`bucket_${bucket}`);
  const buckets = starts.map((start, index) =>
    amount(index === 0 ? sql`${due} >= ${start}` : sql`${due} < ${starts[index - 1]} and ${due} >= ${start}`, index),
  );
  buckets.push(amount(sql`${due} < ${starts[starts.length - 1]}`, starts.length));
  return settledOpenItemsOn(db, accountId, day, through, clientId, piece)
    .select(['client_id', 'currency', 'kind', ...buckets, sql<number | string>`count(*)`.as('count')])
    .groupBy(['client_id', 'currency', 'kind']);
}

export async function findSettledOpenItemSums(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  bucketStarts: readonly string[],
  clientId?: string,
  piece?: ClientPiece,
): Promise<SettledSum[]> {
  const rows = (await settledOpenItemSumsQuery(
    db,
    accountId,
    day,
    through,
    bucketStarts,
    clientId,
    piece,
  ).execute()) as unknown as Record<string, string | number>[];
  return rows.map((row) => ({
    currency: row.currency as string,
    client_id: row.client_id as string,
    kind: row.kind as OpenItemKind,
    amounts: Array.from({ length: bucketStarts.length + 2 }, (_, bucket) => Number(row[`bucket_${bucket}`])),
    count: Number(row.count),
  }));
}

/** A settled open invoice (an aging row): its kept amount, due date and the day it opened. */
export interface SettledOpenInvoice {
  item_id: string;
  client_id: string;
  amount: number;
  due_date: string | null;
  opened_on: string;
}

/** The settled open invoices of some clients in one currency: a range of the client's index per client. */
export function settledOpenInvoicesQuery(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  currency: string,
  clientIds: readonly string[],
) {
  return settledOpenItemsOn(db, accountId, day, through)
    .select(['item_id', 'client_id', 'amount', 'due_date', 'opened_on'])
    .where('client_id', 'in', [...clientIds])
    .where('kind', '=', 'invoice')
    .where('currency', '=', currency);
}

export async function findSettledOpenInvoices(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  currency: string,
  clientIds: readonly string[],
): Promise<SettledOpenInvoice[]> {
  const found: SettledOpenInvoice[] = [];
  for (let start = 0; start < clientIds.length; start += 500) {
    if (start > 0) await yieldTurn();
    const rows = await settledOpenInvoicesQuery(
      db,
      accountId,
      day,
      through,
      currency,
      clientIds.slice(start, start + 500),
    ).execute();
    for (const row of rows) found.push({ ...row, amount: Number(row.amount) });
  }
  return found;
}

export async function findOpenItemsOn(
  db: Executor,
  accountId: string,
  day: string,
  clientId?: string,
): Promise<FoundOpenItem[]> {
  return (await openItemsOnQuery(db, accountId, day, clientId).execute()) as FoundOpenItem[];
}

export async function findStillOpenMovedAfter(
  db: Executor,
  accountId: string,
  day: string,
  clientId?: string,
  piece?: ClientPiece,
): Promise<FoundOpenItem[]> {
  return (await stillOpenMovedAfterQuery(db, accountId, day, clientId, piece).execute()) as FoundOpenItem[];
}

/** The account's last entry's sequence (0 before any entry), from the end of its (account, sequence) index. */
export async function lastEntrySequence(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('ledger_entries')
    .select('sequence')
    .where('account_id', '=', accountId)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.sequence) : 0;
}

/**
 * The ranges (from, to] of the sequences after `sequence`, `REPORT_PIECES.sequences` long, up to the account's last:
 * job profitability reads the entries after its sequence a range at a time, with a turn of the event loop between.
 */
export async function* sequenceRangesAfter(
  db: Executor,
  accountId: string,
  sequence: number,
): AsyncGenerator<readonly [from: number, to: number]> {
  const last = await lastEntrySequence(db, accountId);
  const step = REPORT_PIECES.sequences;
  for (let from = sequence; from < last; from += step) {
    if (from > sequence) await yieldTurn();
    yield [from, from + step];
  }
}

/**
 * The items that the entries after `sequence` dated by `day` move (one client's with `clientId`): an item open on
 * `day` at the sequence that no such entry moved is found by its kept row (`openItemsOnQuery`,
 * `settledOpenItemsOn`), entries after the sequence dated later change nothing of `day`. The days by `day` holding
 * an entry after the sequence come from the kept entry days, and only their entries after it are read, 100 days at
 * a time, each a range of the (account, day, sequence) index.
 */
export async function findItemsMovedAfter(
  db: Executor,
  accountId: string,
  sequence: number,
  day: string,
  clientId?: string,
): Promise<OpenItemKey[]> {
  const days = await findEntryDaysAfter(db, accountId, sequence, day);
  const keys = new Map<string, OpenItemKey>();
  for (let start = 0; start < days.length; start += 100) {
    if (start > 0) await yieldTurn();
    let query = db
      .selectFrom('ledger_entries')
      .select([
        'client_id',
        'currency',
        'type',
        'effective_date',
        'amount',
        'applied_amount',
        'invoice_id',
        'payment_id',
        'credit_note_id',
      ])
      .where('account_id', '=', accountId)
      .where('effective_date', 'in', days.slice(start, start + 100))
      .where('sequence', '>', sequence);
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    for (const row of await query.execute())
      for (const move of openItemMovesOf({
        ...row,
        amount: Number(row.amount),
        applied_amount: Number(row.applied_amount),
      }))
        keys.set(itemKeyOf(move), {
          kind: move.kind,
          item_id: move.item_id,
          client_id: move.client_id,
          currency: move.currency,
        });
  }
  return [...keys.values()];
}

/** An entry of an open item as the reports sum it. */
export interface OpenItemEntry extends OpenItemSource {
  sequence: number;
  due_date: string | null;
}

/**
 * The entries of the items (by their index), up to `through` and dated up to `day`: a batch of 500 items of one kind
 * at a time, each batch's entries in sequence order (an entry moving two items comes in each one's batch).
 */
export async function* entriesOfItems(
  db: Executor,
  accountId: string,
  items: readonly OpenItemKey[],
  through: number,
  day: string,
): AsyncGenerator<{ kind: OpenItemKind; entries: OpenItemEntry[] }> {
  for (const kind of ['invoice', 'payment', 'credit_note'] as const) {
    const ids = [...new Set(items.filter((item) => item.kind === kind).map((item) => item.item_id))];
    for (let start = 0; start < ids.length; start += 500) {
      const rows = await db
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
        .where(ITEM_COLUMN[kind], 'in', ids.slice(start, start + 500))
        .where('sequence', '<=', through)
        .where('effective_date', '<=', day)
        .execute();
      const entries = rows.map((row) => ({
        ...row,
        sequence: Number(row.sequence),
        amount: Number(row.amount),
        applied_amount: Number(row.applied_amount),
      }));
      yield { kind, entries: entries.sort((a, b) => a.sequence - b.sequence) };
    }
  }
}
