// What an invoice's life posts to the ledger (docs/api-contract.md §22, "Types"): issued on its issue_date,
// adjusted by a change of a sent invoice's total or due date (a new issue date, client or currency is a
// reversal under the old and a restatement under the new), voided, releasing what was applied to it.
import type { InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { documentCostOf, lineItemsOf, presentPriced, type TaxBreakdown } from '../documents/index.js';
import { effectiveDateOf, type EntryDraft, postEntries } from '../ledger/index.js';
import { liveApplications } from './applications.repository.js';
import { takeBack } from './applications.service.js';
import { releasedFromPayment } from './payments.service.js';

type Figures = {
  amount: number;
  net: number;
  tax: number;
  cost: number;
  withoutCost: number;
  taxes: Map<string, LedgerTax>;
};
type LedgerTax = {
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable_amount: number;
  tax_amount: number;
};

function figuresOf(row: InvoiceRow): Figures {
  const priced = presentPriced(row);
  const taxes = new Map<string, LedgerTax>();
  for (const rate of priced.tax_breakdown as TaxBreakdown)
    taxes.set(`${rate.tax_rate_id} ${rate.name} ${rate.percentage}`, {
      tax_rate_id: rate.tax_rate_id,
      name: rate.name,
      percentage: rate.percentage,
      taxable_amount: rate.taxable_amount,
      tax_amount: rate.tax_amount,
    });
  // The internal cost rides on the document entries (§22 `cost_amount`) so that job profitability (§24) reads it
  // from the ledger as it stood at any sequence.
  const cost = documentCostOf(lineItemsOf(row));
  return {
    amount: priced.total_amount,
    net: priced.subtotal_amount,
    tax: priced.tax_amount,
    cost: cost.cost_amount,
    withoutCost: cost.lines_without_cost,
    taxes,
  };
}

/** An invoice entry carrying `sign` × the invoice's figures (or their change from `from`). */
function documentEntry(
  type: 'invoice_issued' | 'invoice_adjusted' | 'invoice_voided' | 'late_fee',
  row: InvoiceRow,
  effectiveDate: string,
  figures: Figures,
  sign: 1 | -1,
  from?: Figures,
): EntryDraft {
  const taxes = [...figures.taxes].map(([key, rate]) => ({
    ...rate,
    taxable_amount: sign * (rate.taxable_amount - (from?.taxes.get(key)?.taxable_amount ?? 0)),
    tax_amount: sign * (rate.tax_amount - (from?.taxes.get(key)?.tax_amount ?? 0)),
  }));
  for (const [key, rate] of from?.taxes ?? [])
    if (!figures.taxes.has(key))
      taxes.push({ ...rate, taxable_amount: -sign * rate.taxable_amount, tax_amount: -sign * rate.tax_amount });
  return {
    type,
    client_id: row.client_id,
    currency: row.currency,
    effective_date: effectiveDate,
    amount: sign * (figures.amount - (from?.amount ?? 0)),
    invoice_id: row.id,
    due_date: row.due_date,
    net_amount: sign * (figures.net - (from?.net ?? 0)),
    tax_amount: sign * (figures.tax - (from?.tax ?? 0)),
    cost_amount: sign * (figures.cost - (from?.cost ?? 0)),
    lines_without_cost: sign * (figures.withoutCost - (from?.withoutCost ?? 0)),
    taxes: taxes.filter((rate) => rate.taxable_amount !== 0 || rate.tax_amount !== 0),
  };
}

/**
 * invoice_issued, on its issue date: when a draft becomes sent (send, or `PUT {status: "sent"}`). A late fee's
 * own invoice (docs/api-contract.md §32) is issued by its `late_fee` entry instead, on the day the fee is added
 * (its issue date): one document entry of +total, so the invoice's entries still sum to its total (§22 Rules).
 */
export async function postInvoiceIssued(tx: Context, row: InvoiceRow): Promise<void> {
  const type = (row.late_fee_for_invoice_id ?? null) === null ? 'invoice_issued' : 'late_fee';
  await postEntries(tx, [documentEntry(type, row, row.issue_date!, figuresOf(row), 1)]);
}

/** The entries of an edit of a sent invoice (none when nothing the ledger records changed). */
export async function postInvoiceEdited(tx: Context, before: InvoiceRow, after: InvoiceRow): Promise<void> {
  const old = figuresOf(before);
  const now = figuresOf(after);
  const restated =
    before.client_id !== after.client_id ||
    before.currency !== after.currency ||
    before.issue_date !== after.issue_date;
  if (restated) {
    await postEntries(tx, [
      documentEntry('invoice_adjusted', before, before.issue_date!, old, -1),
      documentEntry('invoice_adjusted', after, after.issue_date!, now, 1),
    ]);
    return;
  }
  const changed =
    old.amount !== now.amount ||
    old.net !== now.net ||
    old.tax !== now.tax ||
    old.cost !== now.cost ||
    old.withoutCost !== now.withoutCost;
  if (!changed && before.due_date === after.due_date) return;
  await postEntries(tx, [
    documentEntry('invoice_adjusted', after, await effectiveDateOf(tx, tx.clock.now()), now, 1, old),
  ]);
}

/** late_fee: the change a reminder step's fee line made to the invoice, dated the day it is added (§32). */
export async function postLateFee(tx: Context, before: InvoiceRow, after: InvoiceRow): Promise<void> {
  await postEntries(tx, [
    documentEntry('late_fee', after, await effectiveDateOf(tx, tx.clock.now()), figuresOf(after), 1, figuresOf(before)),
  ]);
}

/**
 * invoice_voided (−total) and the release of every live application of the invoice (its sources' money is
 * the client's credit again). The caller has marked the row void; the invoice keeps amount_paid and
 * amount_credited as when voided (§32).
 */
/**
 * Who hears that a void releases a credit note's application: `credit-notes`, which stands above `invoices`
 * and registers at import. Called before the release with the note's id; the answer, called after it, records
 * the note's `credit_note.unapplied` as its own unapply does.
 */
export type CreditReleaseListener = (tx: Context, creditNoteId: string) => Promise<() => Promise<void>>;
let creditRelease: CreditReleaseListener | undefined;

export function onCreditNoteReleased(listener: CreditReleaseListener): void {
  creditRelease = listener;
}

export async function postInvoiceVoided(tx: Context, row: InvoiceRow): Promise<void> {
  const today = await effectiveDateOf(tx, tx.clock.now());
  const entries: EntryDraft[] = [documentEntry('invoice_voided', row, today, figuresOf(row), -1)];
  for (const application of await liveApplications(tx.db, tx.accountId, 'invoice_id', row.id)) {
    const released =
      application.credit_note_id !== null ? await creditRelease?.(tx, application.credit_note_id) : undefined;
    entries.push(await takeBack(tx, application, Number(application.amount), today, false));
    if (application.payment_id !== null)
      await releasedFromPayment(tx, application.payment_id, Number(application.amount));
    await released?.();
  }
  await postEntries(tx, entries);
}
