// Aged receivables and the client statement (docs/api-contract.md §24): both read the ledger's entries up to a
// sequence and dated up to a day, so a back-dated payment changes a past answer and a higher sequence says so.
// Neither reads an account's or a client's whole history: the items open on a day come from the ledger's kept open
// items by index, and only their entries are summed; a statement's lines are a page of the client's entries by day.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { fieldError } from '../../core/errors.js';
import { addDaysToDate, dayNumber } from '../../core/time.js';
import type { Context } from '../../kernel/context.js';
import {
  clientPieces,
  daysBefore,
  entriesOfItems,
  findItemsMovedAfter,
  findOpenItemsOn,
  findSettledOpenInvoices,
  findSettledOpenItemSums,
  findStillOpenMovedAfter,
  type FoundOpenItem,
  itemKeyOf,
  type OpenItemKey,
  openItemMovesOf,
  openingOn,
  type SettledSum,
} from '../ledger/index.js';
import {
  checkRange,
  compareKeys,
  type KeyKind,
  notFoundClient,
  paged,
  pageRows,
  positionOf,
  reportOf,
  type RowKey,
  type Standing,
} from './reports.common.js';
import * as repository from './reports.repository.js';
import type {
  AgedReceivablesInput,
  AgingFigures,
  AgingRow,
  ClientStatementInput,
  Report,
  StatementLine,
} from './reports.schemas.js';

const MAX_BUCKETS = 6;

/** `30,60,90` → [30, 60, 90]: at most 6 increasing whole days of 1–3,650 (contract §32). */
export function parseBuckets(text: string | undefined): number[] {
  if (text === undefined) return [30, 60, 90];
  const parts = text.split(',');
  const days = parts.map((part) => (/^\d{1,4}$/.test(part.trim()) ? Number(part.trim()) : Number.NaN));
  if (parts.length > MAX_BUCKETS || days.some((day) => !Number.isInteger(day) || day < 1 || day > 3650))
    throw fieldError('buckets', `must be 1 to ${MAX_BUCKETS} whole numbers of days from 1 to 3650, comma-separated`);
  if (days.some((day, index) => index > 0 && day <= days[index - 1]!))
    throw fieldError('buckets', 'must be increasing');
  return days;
}

/** "current", "1-30", "31-60", "61-90", "91+". */
export function bucketLabels(bounds: readonly number[]): string[] {
  const labels = ['current'];
  let start = 1;
  for (const bound of bounds) {
    labels.push(`${start}-${bound}`);
    start = bound + 1;
  }
  labels.push(`${start}+`);
  return labels;
}

/** The bucket of a number of days past due: 0 for current (≤ 0), then (0, b1], (b1, b2], …, (bn, ∞). */
function bucketIndex(bounds: readonly number[], daysPastDue: number): number {
  if (daysPastDue <= 0) return 0;
  const index = bounds.findIndex((bound) => daysPastDue <= bound);
  return index === -1 ? bounds.length + 1 : index + 1;
}

interface OpenInvoice {
  invoiceId: string;
  clientId: string;
  open: number;
  dueDate: string | null;
  issuedOn: string;
}

type AgingParameters = {
  currency: string;
  as_of: string;
  buckets: number[];
  group_by: 'client' | 'invoice';
  client_id: string | null;
};

/** Rows in the order of their client's name (then id), an invoice's by due date (none first), then id. */
const CLIENT_ROW_KEY: readonly KeyKind[] = ['text', 'text'];
const INVOICE_ROW_KEY: readonly KeyKind[] = ['text', 'text', 'text', 'text'];

const totalOf = (amounts: readonly number[]) => amounts.reduce((sum, amount) => sum + amount, 0);

function emptyFigures(labels: readonly string[]): AgingFigures {
  return {
    buckets: labels.map((label) => ({ label, amount: 0 })),
    open_amount: 0,
    credit_amount: 0,
    balance_amount: 0,
  };
}

/**
 * What is open on `day` at the standing's sequence, in its currency. Three reads, each by index: the items still open
 * with no entry after the day nor after the sequence ("settled"), whose kept amount and due date are theirs then,
 * summed per client, currency and kind, a column per bucket, by the database (no entry read, a row per client); the
 * other items that may be open that day as the books stand now (the still-open items with a later entry, the kept
 * spans); and those an entry after the sequence moved. The last two are summed from their own entries up to the
 * sequence and the day. Other currencies' items are counted. The still-open items are read a piece of clients at a
 * time, the entries a batch at a time, with a turn of the event loop between, all in the report's one read snapshot
 * (`onOneSnapshot`).
 */
async function openItemsAt(
  ctx: Context,
  standing: Standing,
  day: string,
  bounds: readonly number[],
  clientId?: string,
) {
  const starts = bounds.map((bound) => daysBefore(day, bound));
  const counts = new Map<string, number>();
  const count = (currency: string, items: number) => {
    if (currency !== standing.currency) counts.set(currency, (counts.get(currency) ?? 0) + items);
  };
  const settled: SettledSum[] = [];
  const credits = new Map<string, number>();
  const keys = new Map<string, OpenItemKey | FoundOpenItem>();
  const found = (items: readonly FoundOpenItem[]) => {
    for (const key of items) {
      count(key.currency, 1);
      keys.set(itemKeyOf(key), key);
    }
  };
  for await (const piece of clientPieces(ctx.db, ctx.accountId, clientId)) {
    const sums = await findSettledOpenItemSums(ctx.db, ctx.accountId, day, standing.sequence, starts, clientId, piece);
    for (const sum of sums) {
      count(sum.currency, sum.count);
      if (sum.currency !== standing.currency) continue;
      if (sum.kind === 'invoice') settled.push(sum);
      else credits.set(sum.client_id, (credits.get(sum.client_id) ?? 0) + totalOf(sum.amounts));
    }
    found(await findStillOpenMovedAfter(ctx.db, ctx.accountId, day, clientId, piece));
    await yieldTurn();
  }
  found(await findOpenItemsOn(ctx.db, ctx.accountId, day, clientId));
  for (const key of await findItemsMovedAfter(ctx.db, ctx.accountId, standing.sequence, day, clientId))
    keys.set(itemKeyOf(key), key);
  const others = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, count]) => ({ currency, count }));
  // An item found by its row (not one moved after the sequence) whose opening holds on the day is taken from it; the
  // others are summed from their entries.
  const invoices = new Map<string, OpenInvoice>();
  const mine: OpenItemKey[] = [];
  for (const [key, item] of keys) {
    if (item.currency !== standing.currency) continue;
    const opening = 'opening_amount' in item ? openingOn(item, day, standing.sequence) : null;
    if (opening === null) mine.push(item);
    else if (item.kind !== 'invoice') credits.set(item.client_id, (credits.get(item.client_id) ?? 0) + opening.amount);
    else
      invoices.set(key, {
        invoiceId: item.item_id,
        clientId: item.client_id,
        open: opening.amount,
        dueDate: opening.dueDate,
        issuedOn: opening.openedOn,
      });
  }
  const wanted = new Set(mine.map(itemKeyOf));
  const dueDates = new Map<string, string>();
  for await (const batch of entriesOfItems(ctx.db, ctx.accountId, mine, standing.sequence, day)) {
    for (const entry of batch.entries) {
      if (batch.kind === 'invoice' && entry.invoice_id !== null && entry.due_date !== null)
        dueDates.set(entry.invoice_id, entry.due_date);
      for (const move of openItemMovesOf(entry)) {
        // Each item's moves are summed from its own batch.
        if (move.kind !== batch.kind || !wanted.has(itemKeyOf(move))) continue;
        if (move.kind !== 'invoice') {
          credits.set(move.client_id, (credits.get(move.client_id) ?? 0) + move.amount);
          continue;
        }
        const key = itemKeyOf(move);
        const invoice = invoices.get(key) ?? {
          invoiceId: move.item_id,
          clientId: move.client_id,
          open: 0,
          dueDate: null,
          issuedOn: entry.effective_date,
        };
        invoice.open += move.amount;
        invoices.set(key, invoice);
      }
    }
    await yieldTurn();
  }
  for (const invoice of invoices.values()) invoice.dueDate ??= dueDates.get(invoice.invoiceId) ?? null;
  return { settled, invoices: [...invoices.values()].filter((invoice) => invoice.open !== 0), credits, others };
}

export async function agedReceivables(
  ctx: Context,
  standing: Standing,
  input: AgedReceivablesInput,
): Promise<Report<AgingParameters, AgingFigures, AgingRow>> {
  const bounds = parseBuckets(input.buckets);
  const labels = bucketLabels(bounds);
  const asOf = input.as_of ?? standing.today;
  const groupBy = input.group_by ?? 'client';
  const { settled, invoices: open, credits, others } = await openItemsAt(ctx, standing, asOf, bounds, input.client_id);
  // Days past due by day numbers: a report ages thousands of invoices, and Temporal's polyfill is slow per call.
  const asOfNumber = dayNumber(asOf);
  const daysPastDue = (invoice: OpenInvoice) => asOfNumber - dayNumber(invoice.dueDate ?? invoice.issuedOn);
  const byClient = new Map<string, AgingFigures>();
  /** Each client's open invoices (an invoice row each). */
  const invoiceCounts = new Map<string, number>();
  const totals = emptyFigures(labels);
  const figuresOf = (clientId: string) => {
    const figures = byClient.get(clientId) ?? emptyFigures(labels);
    byClient.set(clientId, figures);
    return figures;
  };
  const addOpen = (clientId: string, bucket: number, amount: number, invoices: number) => {
    const figures = figuresOf(clientId);
    figures.buckets[bucket]!.amount += amount;
    figures.open_amount += amount;
    totals.buckets[bucket]!.amount += amount;
    totals.open_amount += amount;
    invoiceCounts.set(clientId, (invoiceCounts.get(clientId) ?? 0) + invoices);
  };
  for (const sum of settled)
    for (let bucket = 0; bucket < sum.amounts.length; bucket++)
      addOpen(sum.client_id, bucket, sum.amounts[bucket]!, bucket === 0 ? sum.count : 0);
  for (const invoice of open) addOpen(invoice.clientId, bucketIndex(bounds, daysPastDue(invoice)), invoice.open, 1);
  for (const [clientId, credit] of credits) figuresOf(clientId).credit_amount += credit;
  for (const figures of byClient.values()) {
    figures.balance_amount = figures.open_amount - figures.credit_amount;
    totals.credit_amount += figures.credit_amount;
    totals.balance_amount += figures.balance_amount;
  }
  const names = await repository.findLabels(ctx.db, ctx.accountId, 'clients', [...byClient.keys()]);
  const nameOf = (clientId: string) => names.get(clientId) ?? '';
  let page: { rows: AgingRow[]; next: RowKey | null };
  if (groupBy === 'invoice') {
    page = await invoicePage(ctx, standing, asOf, invoiceCounts, nameOf, open, (invoice) => {
      const days = daysPastDue(invoice);
      const row = emptyFigures(labels);
      row.buckets[bucketIndex(bounds, days)]!.amount = invoice.open;
      return {
        client_id: invoice.clientId,
        client_name: nameOf(invoice.clientId),
        invoice_id: invoice.invoiceId,
        number: null,
        due_date: invoice.dueDate,
        days_past_due: days,
        ...row,
        open_amount: invoice.open,
        balance_amount: invoice.open,
      };
    });
  } else {
    const all = [...byClient]
      .filter(([, figures]) => figures.open_amount !== 0 || figures.credit_amount !== 0)
      .map(([clientId, figures]) => ({ client_id: clientId, client_name: nameOf(clientId), ...figures }));
    page = pageRows(standing, all, (row) => [row.client_name, row.client_id], CLIENT_ROW_KEY);
  }
  const parameters = {
    currency: standing.currency,
    as_of: asOf,
    buckets: bounds,
    group_by: groupBy,
    client_id: input.client_id ?? null,
  };
  return paged(reportOf('aged_receivables', standing, parameters, others, totals, page.rows), page.next);
}

/**
 * A page of invoice rows, in the order of their client's name and id, then due date (none first) and id. The clients
 * with open invoices are put in that order (their counts are known from the sums); from the cursor's client on,
 * batches of clients holding about the rows the page still needs have their settled open invoices read (by the
 * client's index) beside those summed from entries, so a page reads about its own rows, not every open invoice.
 */
async function invoicePage(
  ctx: Context,
  standing: Standing,
  asOf: string,
  counts: ReadonlyMap<string, number>,
  nameOf: (clientId: string) => string,
  unsettled: readonly OpenInvoice[],
  rowOf: (invoice: OpenInvoice) => AgingRow,
): Promise<{ rows: AgingRow[]; next: RowKey | null }> {
  const keyOf = (row: AgingRow): RowKey => [row.client_name, row.client_id, row.due_date ?? '', row.invoice_id!];
  const clients = [...counts]
    .filter(([, count]) => count > 0)
    .map(([clientId]) => [nameOf(clientId), clientId] as const)
    .sort(compareKeys);
  const after = positionOf(standing, INVOICE_ROW_KEY);
  let index = 0;
  if (after) while (index < clients.length && compareKeys(clients[index]!, after.slice(0, 2)) < 0) index++;
  const byClient = new Map<string, OpenInvoice[]>();
  for (const invoice of unsettled) {
    const invoices = byClient.get(invoice.clientId);
    if (invoices) invoices.push(invoice);
    else byClient.set(invoice.clientId, [invoice]);
  }
  const rows: AgingRow[] = [];
  let found = 0;
  while (index < clients.length && found <= standing.limit) {
    const batch: string[] = [];
    for (let wanted = 0; index < clients.length && wanted <= standing.limit - found; index++) {
      const clientId = clients[index]![1];
      batch.push(clientId);
      wanted += counts.get(clientId)!;
    }
    const read = await findSettledOpenInvoices(
      ctx.db,
      ctx.accountId,
      asOf,
      standing.sequence,
      standing.currency,
      batch,
    );
    const invoices: OpenInvoice[] = read.map((item) => ({
      invoiceId: item.item_id,
      clientId: item.client_id,
      open: item.amount,
      dueDate: item.due_date,
      issuedOn: item.opened_on,
    }));
    for (const clientId of batch) invoices.push(...(byClient.get(clientId) ?? []));
    for (const invoice of invoices) {
      const row = rowOf(invoice);
      rows.push(row);
      if (!after || compareKeys(keyOf(row), after) > 0) found++;
    }
    await yieldTurn();
  }
  const page = pageRows(standing, rows, keyOf, INVOICE_ROW_KEY);
  // Only the page's numbers are read.
  const numbers = await repository.findLabels(
    ctx.db,
    ctx.accountId,
    'invoices',
    page.rows.map((row) => row.invoice_id!),
  );
  return { rows: page.rows.map((row) => ({ ...row, number: numbers.get(row.invoice_id!) ?? null })), next: page.next };
}

type StatementParameters = { currency: string; client_id: string; from: string; to: string };
type StatementTotals = { opening_balance_amount: number; closing_balance_amount: number };

/** A statement line's key: its day and sequence. */
const STATEMENT_KEY: readonly KeyKind[] = ['date', 'integer'];

const DESCRIPTIONS: Record<string, string> = {
  invoice_issued: 'Invoice',
  invoice_adjusted: 'Invoice adjusted',
  late_fee: 'Late fee',
  invoice_voided: 'Invoice voided',
  payment_received: 'Payment received',
  payment_refunded: 'Payment refunded',
  credit_note_issued: 'Credit note',
  credit_note_voided: 'Credit note voided',
  credit_note_refunded: 'Credit note refunded',
};

export async function clientStatement(
  ctx: Context,
  standing: Standing,
  input: ClientStatementInput,
): Promise<Report<StatementParameters, StatementTotals, StatementLine>> {
  checkRange(input.from, input.to);
  const names = await repository.findLabels(ctx.db, ctx.accountId, 'clients', [input.client_id]);
  if (!names.has(input.client_id)) throw notFoundClient(input.client_id);
  const balanceOn = async (day: string) => {
    const { settled, invoices, credits } = await openItemsAt(ctx, standing, day, [], input.client_id);
    const open =
      settled.reduce((sum, item) => sum + totalOf(item.amounts), 0) +
      invoices.reduce((sum, invoice) => sum + invoice.open, 0);
    return open - (credits.get(input.client_id) ?? 0);
  };
  const bounds = {
    clientId: input.client_id,
    currency: standing.currency,
    from: input.from,
    to: input.to,
    through: standing.sequence,
  };
  // Nothing is dated before the first day there is.
  const before = (day: string) => (day <= '0001-01-01' ? Promise.resolve(0) : balanceOn(addDaysToDate(day, -1)));
  const opening = await before(input.from);
  const closing = await balanceOn(input.to);
  // A later page: its running balance starts from the balance after the cursor's line, that is the balance the day
  // before that line's plus that day's entries up to its sequence. Both are bounded reads, wherever the page is.
  const after = positionOf(standing, STATEMENT_KEY) as repository.StatementKey | undefined;
  if (after && (after[0] < input.from || after[0] > input.to))
    throw fieldError('cursor', 'was made for another statement: pass the same from and to as the first page');
  const start = after
    ? (after[0] === input.from ? opening : await before(after[0])) +
      (await repository.sumDayThrough(ctx.db, ctx.accountId, bounds, after))
    : opening;
  // The page's lines, one more to know whether more follow.
  const period = await repository.findStatementLines(ctx.db, ctx.accountId, bounds, after, standing.limit + 1);
  const others = await repository.countOtherCurrencies(ctx.db, ctx.accountId, bounds);
  const more = period.length > standing.limit;
  const lines = period.slice(0, standing.limit);
  const invoiceNumbers = await repository.findLabels(ctx.db, ctx.accountId, 'invoices', [
    ...new Set(lines.flatMap((entry) => (entry.invoice_id && !entry.credit_note_id ? [entry.invoice_id] : []))),
  ]);
  const noteNumbers = await repository.findLabels(ctx.db, ctx.accountId, 'credit_notes', [
    ...new Set(lines.flatMap((entry) => (entry.credit_note_id ? [entry.credit_note_id] : []))),
  ]);
  let balance = start;
  const rows: StatementLine[] = lines.map((entry) => {
    balance += entry.amount;
    const number = entry.credit_note_id
      ? (noteNumbers.get(entry.credit_note_id) ?? null)
      : entry.invoice_id && entry.payment_id === null
        ? (invoiceNumbers.get(entry.invoice_id) ?? null)
        : null;
    const words = DESCRIPTIONS[entry.type] ?? entry.type;
    return {
      effective_date: entry.effective_date,
      sequence: entry.sequence,
      type: entry.type,
      number,
      description: number ? `${words} ${number}` : words,
      amount: entry.amount,
      balance_amount: balance,
    };
  });
  const parameters = { currency: standing.currency, client_id: input.client_id, from: input.from, to: input.to };
  const report = reportOf(
    'client_statement',
    standing,
    parameters,
    others,
    { opening_balance_amount: opening, closing_balance_amount: closing },
    rows,
  );
  const last = rows[rows.length - 1];
  return paged(report, more && last ? [last.effective_date, last.sequence] : null);
}
