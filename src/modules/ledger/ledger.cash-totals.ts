// The ledger's cash day totals (docs/architecture.md, "Kept copies"): per account, currency, local day and tax rate,
// the sums of the cash basis's moves (docs/api-contract.md §24 "Revenue", cash): payment money applied to invoices
// less its releases, and credit-note refunds, each split cumulatively over its document's net and taxes, and the
// money received but left unapplied. A move depends only on its document's entries up to it, so it is computed once,
// as the entry posts, in the posting's transaction; cash revenue and the cash tax summary read these rows by day.
import { type Executor, fromJson } from '../../db/index.js';
import type { LedgerCashDayTotalRow } from '../../db/types.js';
import { type DayShare, findDayRows, keepDayRows, zeroAmounts } from './ledger.day-rows.js';
import { rateKeyOf, untaxedOf } from './ledger.day-totals.js';
import { largestRemainder, proRata } from './ledger.money.js';
import { INVOICE_DOCUMENT_TYPES } from './ledger.schemas.js';

/** The entry types the cash basis reads (those of other currencies are counted). */
export const CASH_TYPES = ['applied', 'unapplied', 'credit_note_refunded', 'payment_received', 'payment_refunded'];
const CASH = new Set(CASH_TYPES);
const INVOICE_TYPES = new Set<string>(INVOICE_DOCUMENT_TYPES);
const CREDIT_NOTE_TYPES = new Set(['credit_note_issued', 'credit_note_voided']);

interface EntryTax {
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable_amount: number;
  tax_amount: number;
}

/** What the cash basis reads of an entry. */
export interface CashEntry {
  sequence: number;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  applied_amount: number;
  invoice_id: string | null;
  credit_note_id: string | null;
  payment_id: string | null;
  net_amount?: number | null;
  tax_amount?: number | null;
  taxes?: readonly EntryTax[] | null;
}

/** One rate's part of a move. */
export interface MoveTax {
  key: string;
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable: number;
  tax: number;
}

/** A change of cash revenue: its net, the part no rate applied to, its tax, each rate's part; a refund of a note? */
export interface CashMove {
  creditNote: boolean;
  net: number;
  untaxed: number;
  tax: number;
  taxes: MoveTax[];
}

/** A document's figures as its entries so far give them: net, and per rate (in first-seen order) taxable and tax. */
class Figures {
  net = 0;
  readonly rates = new Map<string, MoveTax>();

  add(entry: CashEntry, sign: 1 | -1): void {
    this.net += sign * (entry.net_amount ?? entry.amount - (entry.tax_amount ?? 0));
    for (const tax of entry.taxes ?? []) {
      const key = rateKeyOf(tax);
      const rate = this.rates.get(key) ?? { ...tax, key, taxable: 0, tax: 0 };
      rate.taxable += sign * tax.taxable_amount;
      rate.tax += sign * tax.tax_amount;
      this.rates.set(key, rate);
    }
  }
}

/**
 * The cumulative split (§24 "Revenue", cash): after each money entry, everything received so far is shared over
 * the document's [net, taxes] by largest remainder, each rate's taxable amount pro rata alone (halves away), and
 * the entry counts the change from what was counted before.
 */
class CumulativeSplit {
  private received = 0;
  private counted: { net: number; untaxed: number; taxes: Map<string, { tax: number; taxable: number }> } = {
    net: 0,
    untaxed: 0,
    taxes: new Map(),
  };

  constructor(private readonly figures: Figures) {}

  move(change: number, creditNote: boolean, sign: 1 | -1): CashMove {
    this.received += change;
    const rates = [...this.figures.rates.values()];
    const whole = this.figures.net + rates.reduce((sum, rate) => sum + rate.tax, 0);
    const shares = largestRemainder(this.received, [this.figures.net, ...rates.map((rate) => rate.tax)]);
    const untaxed = proRata(
      this.received,
      untaxedOf(
        this.figures.net,
        rates.map((rate) => rate.taxable),
      ),
      whole,
    );
    const taxes = new Map<string, { tax: number; taxable: number }>();
    const moveTaxes: MoveTax[] = [];
    for (const [index, rate] of rates.entries()) {
      const now = { tax: shares[index + 1]!, taxable: proRata(this.received, rate.taxable, whole) };
      const before = this.counted.taxes.get(rate.key) ?? { tax: 0, taxable: 0 };
      taxes.set(rate.key, now);
      moveTaxes.push({ ...rate, tax: sign * (now.tax - before.tax), taxable: sign * (now.taxable - before.taxable) });
    }
    // A rate that left the document gives back what was counted under it.
    for (const [key, before] of this.counted.taxes)
      if (!taxes.has(key))
        moveTaxes.push({
          key,
          tax_rate_id: null,
          name: null,
          percentage: null,
          tax: -sign * before.tax,
          taxable: -sign * before.taxable,
        });
    const move = {
      creditNote,
      tax: moveTaxes.reduce((sum, tax) => sum + tax.tax, 0),
      net: sign * (shares[0]! - this.counted.net),
      untaxed: sign * (untaxed - this.counted.untaxed),
      taxes: moveTaxes,
    };
    this.counted = { net: shares[0]!, untaxed, taxes };
    return move;
  }
}

/** Whether an entry is payment money applied to (or released from) an invoice: a cash move of the invoice. */
const appliedMoney = (entry: CashEntry) =>
  entry.payment_id !== null && entry.invoice_id !== null && (entry.type === 'applied' || entry.type === 'unapplied');

const HISTORY_COLUMNS = [
  'sequence',
  'currency',
  'type',
  'effective_date',
  'amount',
  'applied_amount',
  'invoice_id',
  'credit_note_id',
  'payment_id',
  'net_amount',
  'tax_amount',
  'taxes',
] as const;

/** Every entry naming one of the documents, in sequence order (from the (account, document, sequence) index). */
async function historiesOf(
  db: Executor,
  accountId: string,
  column: 'invoice_id' | 'credit_note_id',
  ids: readonly string[],
): Promise<Map<string, CashEntry[]>> {
  const histories = new Map<string, CashEntry[]>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db
      .selectFrom('ledger_entries')
      .select([...HISTORY_COLUMNS])
      .where('account_id', '=', accountId)
      .where(column, 'in', ids.slice(start, start + 500))
      .execute();
    for (const row of rows) {
      const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
      const entry: CashEntry = {
        ...row,
        sequence: Number(row.sequence),
        amount: Number(row.amount),
        applied_amount: Number(row.applied_amount),
        net_amount: number(row.net_amount),
        tax_amount: number(row.tax_amount),
        taxes: row.taxes === null ? null : (fromJson(row.taxes) as EntryTax[]),
      };
      const id = (column === 'invoice_id' ? entry.invoice_id : entry.credit_note_id)!;
      histories.set(id, [...(histories.get(id) ?? []), entry]);
    }
  }
  for (const history of histories.values()) history.sort((a, b) => a.sequence - b.sequence);
  return histories;
}

/**
 * The cash moves of the entries (by sequence): each applied or unapplied payment money and each credit-note refund,
 * from its document's entries before it (a walk of the document's history).
 */
export async function cashMovesOf(
  db: Executor,
  accountId: string,
  entries: readonly CashEntry[],
): Promise<Map<number, CashMove>> {
  const wanted = new Set<number>();
  const invoiceIds = new Set<string>();
  const noteIds = new Set<string>();
  for (const entry of entries) {
    if (appliedMoney(entry)) invoiceIds.add(entry.invoice_id!);
    else if (entry.type === 'credit_note_refunded' && entry.credit_note_id !== null) noteIds.add(entry.credit_note_id);
    else continue;
    wanted.add(entry.sequence);
  }
  const moves = new Map<number, CashMove>();
  for (const [column, ids, creditNote] of [
    ['invoice_id', invoiceIds, false],
    ['credit_note_id', noteIds, true],
  ] as const) {
    if (ids.size === 0) continue;
    for (const history of (await historiesOf(db, accountId, column, [...ids])).values()) {
      const figures = new Figures();
      const split = new CumulativeSplit(figures);
      for (const entry of history) {
        if (!creditNote && INVOICE_TYPES.has(entry.type) && entry.credit_note_id === null) figures.add(entry, 1);
        else if (creditNote && CREDIT_NOTE_TYPES.has(entry.type)) figures.add(entry, -1);
        else if (!creditNote && appliedMoney(entry)) {
          const move = split.move(entry.applied_amount, false, 1);
          if (wanted.has(entry.sequence)) moves.set(entry.sequence, move);
        } else if (creditNote && entry.type === 'credit_note_refunded') {
          const move = split.move(entry.amount, true, -1);
          if (wanted.has(entry.sequence)) moves.set(entry.sequence, move);
        }
      }
    }
  }
  return moves;
}

export const CASH_AMOUNT_COLUMNS = [
  'net_amount',
  'no_tax_amount',
  'taxable_amount',
  'tax_amount',
  'invoices_tax_amount',
  'credit_notes_tax_amount',
  'unapplied_amount',
] as const;
type CashAmounts = Record<(typeof CASH_AMOUNT_COLUMNS)[number], number> & { entry_count: number };

export interface CashShare extends CashAmounts, DayShare {}

const zero = (): CashAmounts => zeroAmounts(CASH_AMOUNT_COLUMNS);

/** The rows a cash entry adds to: the day's ('' key: its move, the money left unapplied, a count) and its rates'. */
export function cashSharesOf(entry: CashEntry, move: CashMove | undefined): CashShare[] {
  if (!CASH.has(entry.type)) return [];
  let unapplied = 0;
  if (entry.type === 'payment_received' || entry.type === 'payment_refunded') unapplied = -entry.amount;
  else if (appliedMoney(entry)) unapplied = -entry.applied_amount;
  const shares: CashShare[] = [
    {
      rate_key: '',
      tax_rate_id: null,
      name: null,
      percentage: null,
      ...zero(),
      entry_count: 1,
      net_amount: move?.net ?? 0,
      no_tax_amount: move?.untaxed ?? 0,
      tax_amount: move?.tax ?? 0,
      unapplied_amount: unapplied,
    },
  ];
  for (const tax of move?.taxes ?? [])
    shares.push({
      rate_key: tax.key,
      tax_rate_id: tax.tax_rate_id,
      name: tax.name,
      percentage: tax.percentage === null ? null : String(tax.percentage),
      ...zero(),
      entry_count: 1,
      taxable_amount: tax.taxable,
      tax_amount: tax.tax,
      [move!.creditNote ? 'credit_notes_tax_amount' : 'invoices_tax_amount']: tax.tax,
    });
  return shares;
}

/** Adds the posted cash entries' moves to their day rows in one statement. Called by `postEntries` alone. */
export async function keepCashDayTotals(db: Executor, accountId: string, posted: readonly CashEntry[]) {
  const cash = posted.filter((entry) => CASH.has(entry.type));
  if (cash.length === 0) return;
  const moves = await cashMovesOf(db, accountId, cash);
  await keepDayRows(
    db,
    'ledger_cash_day_totals',
    accountId,
    cash,
    (entry) => cashSharesOf(entry, moves.get(entry.sequence)),
    CASH_AMOUNT_COLUMNS,
  );
}

/** The cash day totals of every currency from `from` to `to`, by the primary key's (account, currency, day) prefix. */
export function findCashDayTotals(db: Executor, accountId: string, from: string, to: string) {
  return findDayRows<LedgerCashDayTotalRow>(db, 'ledger_cash_day_totals', accountId, from, to, CASH_AMOUNT_COLUMNS);
}
