// The ledger's open items (docs/architecture.md, "Kept copies"): per account, item (an invoice, a payment or a credit
// note), client and currency, the span of local days over which the item is open — an invoice's receivable (its
// document entries less its applications) or a source's credit (its money less what it applied and refunded) is not
// 0 — kept by the only poster of entries, in the posting's transaction. Aged receivables and the client statement's
// opening balance find the items open on a day from these spans by index (docs/api-contract.md §24 "Scale"), then
// sum those items' own entries at the report's sequence; items an entry after that sequence touched are added, so
// an older `?ledger_sequence=N` is repeated exactly.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { Temporal } from '@js-temporal/polyfill';
import { sql } from 'kysely';
import { daysBetween } from '../../core/time.js';
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
 */
export function openItemRowsOf(
  accountId: string,
  moves: readonly (OpenItemMove & { effective_date: string; sequence: number; due_date: string | null })[],
): LedgerOpenItemRow[] {
  const byKey = new Map<
    string,
    { move: OpenItemMove; days: Map<string, number>; last: number; due: { sequence: number; date: string | null } }
  >();
  for (const move of moves) {
    const key = itemKeyOf(move);
    const item = byKey.get(key) ?? {
      move,
      days: new Map<string, number>(),
      last: 0,
      due: { sequence: 0, date: null },
    };
    item.days.set(move.effective_date, (item.days.get(move.effective_date) ?? 0) + move.amount);
    item.last = Math.max(item.last, move.sequence);
    if (move.kind === 'invoice' && move.due_date !== null && move.sequence > item.due.sequence)
      item.due = { sequence: move.sequence, date: move.due_date };
    byKey.set(key, item);
  }
  const rows: LedgerOpenItemRow[] = [];
  for (const { move, days, last, due } of byKey.values()) {
    const changes = [...days].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (changes.length === 0) continue;
    const amount = changes.reduce((sum, [, change]) => sum + change, 0);
    const openedOn = changes[0]![0];
    const closedOn = amount === 0 ? changes[changes.length - 1]![0] : STILL_OPEN;
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
    });
  }
  return rows;
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
    const moves = entries.flatMap((row) => {
      const entry = { ...row, amount: Number(row.amount), applied_amount: Number(row.applied_amount) };
      return openItemMovesOf(entry)
        .filter((move) => move.kind === kind && ids.has(move.item_id))
        .map((move) => ({
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
    const rows = openItemRowsOf(accountId, moves);
    if (rows.length > 0) await db.insertInto('ledger_open_items').values(rows).execute();
  }
}

export interface OpenItemKey {
  kind: OpenItemKind;
  item_id: string;
  client_id: string;
  currency: string;
}

/**
 * A piece of the items a report reads at a time: those opened in (`after`, `through`] (`after` null: from the first
 * day). Pieces hold about `REPORT_PIECES.openItems` items still open each, so that no read, and no sum of what it
 * found, holds the event loop long on SQLite (docs/api-contract.md §13; docs/decisions.md, "Reports without long
 * holds").
 */
export interface OpenedPiece {
  after: string | null;
  through: string;
}

/**
 * How much a report reads at a time, each piece a few milliseconds of SQLite's work at 100,000 invoices now that its
 * reads come from covering indexes (docs/decisions.md, "Reports: SQLite's aging at speed"): items still open per
 * piece of aging, kept invoice figures per piece of job profitability, jobs per batch of its rows, sequences per
 * range of the entries after a report's. Tests lower them to walk many pieces.
 */
export const REPORT_PIECES = { openItems: 4_000, figures: 4_000, jobs: 500, sequences: 5_000 };

/**
 * The pieces of the items that may be open on `day` (one client's with `clientId`), in the order of the day they
 * opened: each ends at the day of the item `REPORT_PIECES.openItems` places on in the still-open class's index (a
 * seek and as many keys), the last at `day`. Every item opened by `day`, of any span class, is in exactly one piece.
 */
export async function* openedPieces(
  db: Executor,
  accountId: string,
  day: string,
  clientId?: string,
): AsyncGenerator<OpenedPiece> {
  let after: string | null = null;
  for (;;) {
    let query = db.selectFrom('ledger_open_items').select('opened_on').where('account_id', '=', accountId);
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    query = query.where('span_class', '=', OPEN_CLASS);
    if (after !== null) query = query.where('opened_on', '>', after);
    const row = await query
      .where('opened_on', '<=', day)
      .orderBy('opened_on')
      .limit(1)
      .offset(REPORT_PIECES.openItems)
      .executeTakeFirst();
    const through = row?.opened_on ?? day;
    yield { after, through };
    if (through >= day) return;
    after = through;
  }
}

/** The later of two lower bounds of the day an item opened (null: none). */
const laterOf = (a: string | null, b: string | null) => (a === null ? b : b === null || a > b ? a : b);

/**
 * The items that may be open on `day` as the ledger stands now, to be summed from their entries (every currency; one
 * client's with `clientId`; those of a piece with `piece`): per span class a range of the (account[, client], class,
 * opened_on) index — a span of class k open on `day` opened after `day` − 4^k — and the items still open, opened by
 * `day`, with an entry after it (those with none are `settledOpenItemsOn`'s). Reads about as many keys as items open
 * that day.
 */
export function openItemsOnQuery(db: Executor, accountId: string, day: string, clientId?: string, piece?: OpenedPiece) {
  const through = piece?.through ?? day;
  const arm = (spanClass: number, openedAfter: string | null) => {
    let query = db
      .selectFrom('ledger_open_items')
      .select(['kind', 'item_id', 'client_id', 'currency'])
      .where('account_id', '=', accountId);
    if (clientId !== undefined) query = query.where('client_id', '=', clientId);
    query = query.where('span_class', '=', spanClass);
    if (openedAfter !== null) query = query.where('opened_on', '>', openedAfter);
    query = query.where('opened_on', '<=', through);
    return spanClass === OPEN_CLASS ? query.where('last_entry_on', '>', day) : query.where('closed_on', '>', day);
  };
  let query = arm(OPEN_CLASS, piece?.after ?? null);
  let bound = 1;
  for (let spanClass = 0; spanClass < SPAN_CLASSES; spanClass++, bound *= 4) {
    const after = laterOf(daysBefore(day, bound), piece?.after ?? null);
    // A class whose spans cannot reach into the piece is not read.
    if (after === null || after < through) query = query.unionAll(arm(spanClass, after));
  }
  return query;
}

/** `day` less `days`, as a date (never before 0001-01-01). */
export function daysBefore(day: string, days: number): string {
  const earlier = Temporal.PlainDate.from(day).subtract({ days });
  return earlier.year < 1 ? '0001-01-01' : earlier.toString();
}

/**
 * The items still open whose every entry is dated by `day` and none after the sequence `through` ("settled"): open on
 * `day` with their kept amount and due date, no entry read (a range of the same index, the rest filtered).
 */
function settledOpenItemsOn(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  clientId?: string,
  piece?: OpenedPiece,
) {
  let query = db.selectFrom('ledger_open_items').where('account_id', '=', accountId);
  if (clientId !== undefined) query = query.where('client_id', '=', clientId);
  query = query.where('span_class', '=', OPEN_CLASS);
  if (piece?.after) query = query.where('opened_on', '>', piece.after);
  return query
    .where('opened_on', '<=', piece?.through ?? day)
    .where('last_entry_on', '<=', day)
    .where('last_sequence', '<=', through)
    .where('amount', '<>', 0);
}

/** Settled items summed: per currency, client, kind and aging bucket (0 for a source's credit), their amount and count. */
export interface SettledSum {
  currency: string;
  client_id: string;
  kind: OpenItemKind;
  bucket: number;
  amount: number;
  count: number;
}

/**
 * The settled items (`settledOpenItemsOn`) summed per currency, client, kind and bucket by the database, so that
 * a report reads a few rows per client rather than a row per open item. An invoice's bucket is the number of
 * `bucketStarts` (increasing days past due, as the days they start: `day` − b) its due date (else the day it opened)
 * is before, less none: 0 for a due date on or after `day` ("current"), 1 for one on or after `day` − b1, and so on.
 */
export function settledOpenItemSumsQuery(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  bucketStarts: readonly string[],
  clientId?: string,
  piece?: OpenedPiece,
) {
  const due = sql`coalesce(${sql.ref('due_date')}, ${sql.ref('opened_on')})`;
  const arms = [day, ...bucketStarts].map((start, index) => sql`when ${due} >= ${start} then ${sql.lit(index)}`);
  const bucket = sql<number>`case when ${sql.ref('kind')} <> 'invoice' then 0 ${sql.join(arms, sql` `)} else ${sql.lit(
    bucketStarts.length + 1,
  )} end`;
  return settledOpenItemsOn(db, accountId, day, through, clientId, piece)
    .select([
      'currency',
      'client_id',
      'kind',
      bucket.as('bucket'),
      sql<number | string>`sum(${sql.ref('amount')})`.as('amount'),
      sql<number | string>`count(*)`.as('count'),
    ])
    .groupBy(['currency', 'client_id', 'kind', sql.ref('bucket') as never]);
}

export async function findSettledOpenItemSums(
  db: Executor,
  accountId: string,
  day: string,
  through: number,
  bucketStarts: readonly string[],
  clientId?: string,
  piece?: OpenedPiece,
): Promise<SettledSum[]> {
  const rows = await settledOpenItemSumsQuery(db, accountId, day, through, bucketStarts, clientId, piece).execute();
  return rows.map((row) => ({
    currency: row.currency,
    client_id: row.client_id,
    kind: row.kind as OpenItemKind,
    bucket: Number(row.bucket),
    amount: Number(row.amount),
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
  piece?: OpenedPiece,
): Promise<OpenItemKey[]> {
  const rows = await openItemsOnQuery(db, accountId, day, clientId, piece).execute();
  return rows as OpenItemKey[];
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
