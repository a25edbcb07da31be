// Aged receivables and the client statement (docs/api-contract.md §24): both read the ledger's entries up to a
// sequence and dated up to a day, so a back-dated payment changes a past answer and a higher sequence says so.
// Neither reads an account's or a client's whole history: the items open on a day come from the ledger's kept open
// items by index, and only their entries are summed; a statement's lines are a page of the client's entries by day.
import { fieldError } from '../../core/errors.js';
import { addDaysToDate } from '../../core/time.js';
import type { Context } from '../../kernel/context.js';
import {
  findEntriesOfItems,
  findItemsMovedAfter,
  findOpenItemsOn,
  findSettledOpenItemsOn,
  itemKeyOf,
  type OpenItemKey,
  openItemMovesOf,
} from '../ledger/index.js';
import {
  checkRange,
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

/** The number of a day `YYYY-MM-DD` (days since 1970-01-01; years 0001–9999), computed without Temporal. */
function dayNumber(date: string): number {
  const day = new Date(0);
  day.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return Math.round(day.getTime() / 86_400_000);
}

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

function emptyFigures(labels: readonly string[]): AgingFigures {
  return {
    buckets: labels.map((label) => ({ label, amount: 0 })),
    open_amount: 0,
    credit_amount: 0,
    balance_amount: 0,
  };
}

/**
 * The items (invoices' receivables, payments' and credit notes' credit) open on `day` at the standing's sequence,
 * in its currency, with their amounts then. Three reads, each by index: the items still open with no entry after the
 * day nor after the sequence, whose kept amount and due date are theirs then (no entry read); the other items that
 * may be open that day as the books stand now (the kept spans); and those an entry after the sequence moved. The
 * last two are summed from their own entries up to the sequence and the day. Other currencies' items are counted.
 */
async function openItemsAt(ctx: Context, standing: Standing, day: string, clientId?: string) {
  const settled = await findSettledOpenItemsOn(ctx.db, ctx.accountId, day, standing.sequence, clientId);
  const kept = await findOpenItemsOn(ctx.db, ctx.accountId, day, clientId);
  const moved = await findItemsMovedAfter(ctx.db, ctx.accountId, standing.sequence, clientId);
  const keys = new Map<string, OpenItemKey>();
  for (const key of [...kept, ...moved]) keys.set(itemKeyOf(key), key);
  const mine = [...keys.values()].filter((key) => key.currency === standing.currency);
  const counts = new Map<string, number>();
  for (const key of [...settled, ...kept])
    if (key.currency !== standing.currency) counts.set(key.currency, (counts.get(key.currency) ?? 0) + 1);
  const others = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, count]) => ({ currency, count }));
  const invoices = new Map<string, OpenInvoice>();
  const credits = new Map<string, number>();
  for (const item of settled) {
    if (item.currency !== standing.currency) continue;
    if (item.kind !== 'invoice') credits.set(item.client_id, (credits.get(item.client_id) ?? 0) + item.amount);
    else
      invoices.set(`${item.item_id} ${item.client_id}`, {
        invoiceId: item.item_id,
        clientId: item.client_id,
        open: item.amount,
        dueDate: item.due_date,
        issuedOn: item.opened_on,
      });
  }
  const entries = await findEntriesOfItems(ctx.db, ctx.accountId, mine, standing.sequence, day);
  const wanted = new Set(mine.map(itemKeyOf));
  const dueDates = new Map<string, string>();
  const summed = new Set<string>();
  for (const entry of entries) {
    if (entry.invoice_id !== null && entry.due_date !== null) dueDates.set(entry.invoice_id, entry.due_date);
    for (const move of openItemMovesOf(entry)) {
      if (!wanted.has(itemKeyOf(move))) continue;
      if (move.kind !== 'invoice') {
        credits.set(move.client_id, (credits.get(move.client_id) ?? 0) + move.amount);
        continue;
      }
      const key = `${move.item_id} ${move.client_id}`;
      summed.add(key);
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
  for (const key of summed) {
    const invoice = invoices.get(key)!;
    invoice.dueDate = dueDates.get(invoice.invoiceId) ?? null;
  }
  return { invoices: [...invoices.values()].filter((invoice) => invoice.open !== 0), credits, others };
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
  const { invoices: open, credits, others } = await openItemsAt(ctx, standing, asOf, input.client_id);
  const balances = new Map<string, number>();
  for (const invoice of open) balances.set(invoice.clientId, (balances.get(invoice.clientId) ?? 0) + invoice.open);
  for (const [clientId, credit] of credits) balances.set(clientId, (balances.get(clientId) ?? 0) - credit);
  const clientIds = [...new Set([...balances.keys(), ...open.map((invoice) => invoice.clientId)])];
  const names = await repository.findLabels(ctx.db, ctx.accountId, 'clients', clientIds);
  const byClient = new Map<string, AgingFigures>();
  const invoiceRows: AgingRow[] = [];
  const totals = emptyFigures(labels);
  // Days past due by day numbers: a report ages thousands of invoices, and Temporal's polyfill is slow per call.
  const asOfNumber = dayNumber(asOf);
  for (const invoice of open) {
    const due = invoice.dueDate ?? invoice.issuedOn;
    const daysPastDue = asOfNumber - dayNumber(due);
    const index = bucketIndex(bounds, daysPastDue);
    const figures = byClient.get(invoice.clientId) ?? emptyFigures(labels);
    byClient.set(invoice.clientId, figures);
    figures.buckets[index]!.amount += invoice.open;
    figures.open_amount += invoice.open;
    totals.buckets[index]!.amount += invoice.open;
    totals.open_amount += invoice.open;
    if (groupBy === 'invoice') {
      const row = emptyFigures(labels);
      row.buckets[index]!.amount = invoice.open;
      invoiceRows.push({
        client_id: invoice.clientId,
        client_name: names.get(invoice.clientId) ?? '',
        invoice_id: invoice.invoiceId,
        number: null,
        due_date: invoice.dueDate,
        days_past_due: daysPastDue,
        ...row,
        open_amount: invoice.open,
        balance_amount: invoice.open,
      });
    }
  }
  for (const [clientId, balance] of balances) {
    const figures = byClient.get(clientId) ?? emptyFigures(labels);
    figures.balance_amount = balance;
    figures.credit_amount = figures.open_amount - balance;
    byClient.set(clientId, figures);
    totals.credit_amount += figures.credit_amount;
    totals.balance_amount += balance;
  }
  let page: { rows: AgingRow[]; next: RowKey | null };
  if (groupBy === 'invoice') {
    // Paged without their numbers, so that only the page's numbers are read.
    page = pageRows(
      standing,
      invoiceRows,
      (row) => [row.client_name, row.client_id, row.due_date ?? '', row.invoice_id!],
      INVOICE_ROW_KEY,
    );
    const numbers = await repository.findLabels(
      ctx.db,
      ctx.accountId,
      'invoices',
      page.rows.map((row) => row.invoice_id!),
    );
    page.rows = page.rows.map((row) => ({ ...row, number: numbers.get(row.invoice_id!) ?? null }));
  } else {
    const all = [...byClient]
      .filter(([, figures]) => figures.open_amount !== 0 || figures.credit_amount !== 0)
      .map(([clientId, figures]) => ({ client_id: clientId, client_name: names.get(clientId) ?? '', ...figures }));
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
    const { invoices, credits } = await openItemsAt(ctx, standing, day, input.client_id);
    const open = invoices.reduce((sum, invoice) => sum + invoice.open, 0);
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
