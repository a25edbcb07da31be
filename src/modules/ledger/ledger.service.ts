// The ledger (docs/api-contract.md §22): entries posted in the transaction of the change they record, each with
// the next sequence of the account and the client's running balance, and the rules checked before the
// transaction may commit (a breach is a fault: a 500, and nothing is stored). Also the client's balance.
import { newId } from '../../core/deps.js';
import { localDate } from '../../core/time.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { LedgerEntryRow } from '../../db/types.js';
import type { Actor, Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { requireRow } from '../shared/index.js';
import { type DayTotalSource, keepDayTotals } from './ledger.day-totals.js';
import { keepCashDayTotals } from './ledger.cash-totals.js';
import { keepEntryDays } from './ledger.entry-days.js';
import { keepInvoiceFigures } from './ledger.invoice-figures.js';
import { keepOpenItems } from './ledger.open-items.js';
import * as repository from './ledger.repository.js';
import type {
  ClientBalance,
  CurrencyBalance,
  LedgerEntry,
  LedgerEntryType,
  ListLedgerEntriesInput,
} from './ledger.schemas.js';

/** An entry to post: what moved; the sequence, running balance, actor and time are the posting's. */
export interface EntryDraft {
  type: LedgerEntryType;
  client_id: string;
  currency: string;
  effective_date: string;
  amount?: number;
  applied_amount?: number;
  invoice_id?: string | null;
  credit_note_id?: string | null;
  payment_id?: string | null;
  refund_id?: string | null;
  application_id?: string | null;
  due_date?: string | null;
  net_amount?: number | null;
  tax_amount?: number | null;
  cost_amount?: number | null;
  /** Internal (not presented): the change of the document's count of product lines without a cost. */
  lines_without_cost?: number | null;
  taxes?: unknown[] | null;
}

/** The local date of an instant in the account's zone: an entry's `effective_date` (§22). */
export async function effectiveDateOf(ctx: Context, instant: string | Date): Promise<string> {
  return localDate(instant, await findAccountTimezone(ctx.db, ctx.accountId));
}

/**
 * Posts the entries in the caller's transaction, in order, and checks the rules for every client, invoice
 * and payment they name. The account's counter is taken last of the transaction's locks (callers post after
 * their own changes), and its lock orders sequences as commits.
 */
export async function postEntries(tx: Context, drafts: readonly EntryDraft[]): Promise<LedgerEntryRow[]> {
  if (drafts.length === 0) return [];
  const { db, accountId } = tx;
  const last = await repository.takeSequences(db, accountId, drafts.length);
  const first = last - drafts.length + 1;
  const balances = new Map<string, number>();
  const now = tx.clock.now().toISOString();
  const actor = JSON.stringify({ type: tx.actor.type, id: tx.actor.id, app_id: tx.actor.app_id ?? null });
  const rows: LedgerEntryRow[] = [];
  for (const [index, draft] of drafts.entries()) {
    const key = `${draft.client_id} ${draft.currency}`;
    const before =
      balances.get(key) ?? (await repository.lastBalance(db, accountId, draft.client_id, draft.currency)) ?? 0;
    const amount = draft.amount ?? 0;
    balances.set(key, before + amount);
    rows.push({
      id: newId(),
      account_id: accountId,
      sequence: first + index,
      client_id: draft.client_id,
      currency: draft.currency,
      type: draft.type,
      effective_date: draft.effective_date,
      amount,
      applied_amount: draft.applied_amount ?? 0,
      balance_amount: before + amount,
      invoice_id: draft.invoice_id ?? null,
      credit_note_id: draft.credit_note_id ?? null,
      payment_id: draft.payment_id ?? null,
      refund_id: draft.refund_id ?? null,
      application_id: draft.application_id ?? null,
      due_date: draft.due_date ?? null,
      net_amount: draft.net_amount ?? null,
      tax_amount: draft.tax_amount ?? null,
      cost_amount: draft.cost_amount ?? null,
      lines_without_cost: draft.lines_without_cost ?? null,
      taxes: draft.taxes ? JSON.stringify(draft.taxes) : null,
      actor,
      created_at: now,
    });
  }
  await repository.insertEntries(db, rows);
  await keepDayTotals(
    db,
    accountId,
    rows.map((row, index) => ({
      ...row,
      sequence: first + index,
      amount: row.amount,
      taxes: (drafts[index]!.taxes as DayTotalSource['taxes']) ?? null,
    })),
  );
  await keepOpenItems(db, accountId, rows);
  await keepEntryDays(db, accountId, rows);
  await keepInvoiceFigures(db, accountId, rows);
  await keepCashDayTotals(
    db,
    accountId,
    rows.map((row, index) => ({ ...row, taxes: (drafts[index]!.taxes as DayTotalSource['taxes']) ?? null })),
  );
  await assertLedgerRules(tx, {
    balances: [...balances.keys()].map((key) => {
      const [clientId, currency] = key.split(' ') as [string, string];
      return { clientId, currency, last: balances.get(key)! };
    }),
    invoiceIds: [...new Set(drafts.flatMap((draft) => (draft.invoice_id ? [draft.invoice_id] : [])))],
    paymentIds: [...new Set(drafts.flatMap((draft) => (draft.payment_id ? [draft.payment_id] : [])))],
    creditNoteIds: [...new Set(drafts.flatMap((draft) => (draft.credit_note_id ? [draft.credit_note_id] : [])))],
  });
  return rows;
}

/** Thrown when a rule of §22 does not hold: a fault of BMS, answered 500, and the transaction rolls back. */
export class LedgerRuleBroken extends Error {
  override name = 'LedgerRuleBroken';
}

/**
 * The rules of §22, checked in the writing transaction: per (client, currency) the last running balance is the
 * balance the documents give; per invoice its document entries sum to its total (0 once void) and, less what
 * was applied, to its amount due, and its amount_paid and amount_credited are its live applications (unless
 * void: kept as when voided); per payment the applications hold amount_applied and nothing is overspent.
 */
export async function assertLedgerRules(
  tx: Context,
  touched: {
    balances: { clientId: string; currency: string; last: number }[];
    invoiceIds: string[];
    paymentIds: string[];
    creditNoteIds: string[];
  },
): Promise<void> {
  const { db, accountId } = tx;
  for (const { clientId, currency, last } of touched.balances) {
    const figures = await currencyBalance(tx, clientId, currency);
    if (figures.balance_amount !== last)
      throw new LedgerRuleBroken(
        `client ${clientId} ${currency}: the ledger's balance ${last} differs from the documents' ${figures.balance_amount}`,
      );
  }
  for (const invoiceId of touched.invoiceIds) {
    const { invoice, document, applied, paid, credited } = await repository.invoiceFigures(db, accountId, invoiceId);
    if (!invoice) throw new LedgerRuleBroken(`invoice ${invoiceId} is named by an entry but does not exist`);
    const voided = invoice.status === 'void';
    const total = voided ? 0 : Number(invoice.total_amount);
    const due = voided ? 0 : total - Number(invoice.amount_paid) - Number(invoice.amount_credited);
    if (invoice.status !== 'draft' && document !== total)
      throw new LedgerRuleBroken(`invoice ${invoiceId}: its entries sum to ${document}, its total is ${total}`);
    if (invoice.status !== 'draft' && document - applied !== due)
      throw new LedgerRuleBroken(
        `invoice ${invoiceId}: its entries less applications give ${document - applied}, due ${due}`,
      );
    if (!voided && (paid !== Number(invoice.amount_paid) || credited !== Number(invoice.amount_credited)))
      throw new LedgerRuleBroken(`invoice ${invoiceId}: amount_paid or amount_credited differs from its applications`);
    if (due < 0) throw new LedgerRuleBroken(`invoice ${invoiceId}: amount_due ${due} is below 0`);
  }
  for (const paymentId of touched.paymentIds) {
    const { payment, held } = await repository.paymentFigures(db, accountId, paymentId);
    if (!payment) throw new LedgerRuleBroken(`payment ${paymentId} is named by an entry but does not exist`);
    const remaining = Number(payment.amount) - Number(payment.amount_applied) - Number(payment.amount_refunded);
    if (held !== Number(payment.amount_applied) || remaining < 0)
      throw new LedgerRuleBroken(
        `payment ${paymentId}: applied ${payment.amount_applied}, held ${held}, remaining ${remaining}`,
      );
  }
}

async function currencyBalance(ctx: Context, clientId: string, currency: string): Promise<CurrencyBalance> {
  const receivable = await repository.receivableOf(ctx.db, ctx.accountId, clientId, currency);
  const credit =
    (await repository.unappliedPaymentsOf(ctx.db, ctx.accountId, clientId, currency)) +
    (await repository.remainingCreditOf(ctx.db, ctx.accountId, clientId, currency));
  return { currency, receivable_amount: receivable, credit_amount: credit, balance_amount: receivable - credit };
}

/** GET /v1/clients/:id/balance: per currency the client has entries in, from its documents. */
export async function getClientBalance(ctx: Context, clientId: string): Promise<ClientBalance> {
  const client = await getClientRow(ctx, clientId);
  const sequence = await repository.lastSequence(ctx.db, ctx.accountId);
  const balances: CurrencyBalance[] = [];
  for (const currency of await repository.currenciesOfClient(ctx.db, ctx.accountId, client.id))
    balances.push(await currencyBalance(ctx, client.id, currency));
  return { object: 'client_balance', client_id: client.id, ledger_sequence: sequence, balances };
}

export function presentLedgerEntry(row: LedgerEntryRow): LedgerEntry {
  return {
    id: row.id,
    object: 'ledger_entry',
    sequence: Number(row.sequence),
    client_id: row.client_id,
    currency: row.currency,
    type: row.type as LedgerEntryType,
    effective_date: row.effective_date,
    amount: Number(row.amount),
    applied_amount: Number(row.applied_amount),
    balance_amount: Number(row.balance_amount),
    invoice_id: row.invoice_id,
    credit_note_id: row.credit_note_id,
    payment_id: row.payment_id,
    refund_id: row.refund_id,
    application_id: row.application_id,
    due_date: row.due_date,
    net_amount: row.net_amount === null ? null : Number(row.net_amount),
    tax_amount: row.tax_amount === null ? null : Number(row.tax_amount),
    cost_amount: row.cost_amount === null ? null : Number(row.cost_amount),
    taxes: row.taxes === null ? null : fromJson(row.taxes),
    actor: actorOf(fromJson(row.actor)),
    created_at: row.created_at,
    updated_at: row.created_at,
  };
}

/** Entries posted before apps acted have no `app_id`: null, as every actor answers it (docs/api-contract.md §25). */
function actorOf(stored: { type: Actor['type']; id: string | null; app_id?: string | null }) {
  return { type: stored.type, id: stored.id, app_id: stored.app_id ?? null };
}

export async function getLedgerEntry(ctx: Context, id: string): Promise<LedgerEntry> {
  return presentLedgerEntry(
    await requireRow('ledger entry', id, (found) => repository.findEntry(ctx.db, ctx.accountId, found)),
  );
}

export async function listLedgerEntries(ctx: Context, query: ListLedgerEntriesInput): Promise<Page<LedgerEntryRow>> {
  const page = pageRequest(query, repository.ENTRY_SORTS);
  const { rows, resumeAfter } = await repository.listEntries(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}
