// The money of a credit note (docs/api-contract.md §22): issuing (number, dates, the rates' snapshot, its ledger
// entries and, with apply_on_issue and a sent invoice, an application of min(total, amount_due)), voiding
// (refused once anything was refunded; else its applications are released), applying, unapplying, refunding.
import { creditNoteIssued } from './credit-notes.freezing.js';
import { newId } from '../../core/deps.js';
import { fieldError, invalidState } from '../../core/errors.js';
import { normalizeInstant } from '../../db/index.js';
import type { CreditNoteRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { hostedLinkOnSend, localToday, numberOnSend, presentPriced } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import {
  type ApplyInput,
  applyToInvoices,
  findApplication,
  liveApplications,
  lockInvoices,
  onCreditNoteReleased,
  takeBack,
  type UnapplyInput,
} from '../invoices/index.js';
import { effectiveDateOf, type EntryDraft, postEntries } from '../ledger/index.js';
import { requireReference } from '../shared/index.js';
import * as repository from './credit-notes.repository.js';
import { getCreditNoteRecord, presentCreditNote } from './credit-notes.presenter.js';
import { assertWithinCap } from './credit-notes.rules.js';
import type { CreditNote, RefundCreditNoteInput } from './credit-notes.schemas.js';

/** The note's document entry: −total when issued, +total when voided, with its net, tax and taxes. */
function documentEntry(
  row: CreditNoteRow,
  type: 'credit_note_issued' | 'credit_note_voided',
  date: string,
): EntryDraft {
  const priced = presentPriced(row);
  const sign = type === 'credit_note_issued' ? -1 : 1;
  return {
    type,
    client_id: row.client_id,
    currency: row.currency,
    effective_date: date,
    amount: sign * priced.total_amount,
    credit_note_id: row.id,
    invoice_id: row.invoice_id,
    net_amount: sign * priced.subtotal_amount,
    tax_amount: sign * priced.tax_amount,
    taxes: priced.tax_breakdown.map((rate) => ({
      tax_rate_id: rate.tax_rate_id,
      name: rate.name,
      percentage: rate.percentage,
      taxable_amount: sign * rate.taxable_amount,
      tax_amount: sign * rate.tax_amount,
    })),
  };
}

/** What the note has left to apply or refund, read under its row lock. */
async function remainingOf(tx: Context, id: string): Promise<number> {
  const note = await getCreditNoteRecord(tx, id, true);
  return Number(note.total_amount) - note.held - Number(note.amount_refunded);
}

/**
 * Issues a draft (the caller holds its row; the invoice is locked here before the account's counters): the
 * number, issue_date (today when empty) and issued_at, the cap checked again, the entries, and the application
 * to a sent invoice. Answers the updated row.
 */
export async function issueCreditNote(tx: Context, row: CreditNoteRow): Promise<CreditNoteRow> {
  const invoice = row.invoice_id ? (await lockInvoices(tx, [row.invoice_id])).get(row.invoice_id) : undefined;
  if (invoice && invoice.status !== 'sent' && invoice.status !== 'paid')
    throw invalidState(
      `The invoice is '${invoice.status}'; a credit note is issued against a sent or paid invoice only.`,
    );
  if (invoice) await assertWithinCap(tx, row, invoice);
  const now = tx.clock.now();
  const timezone = await findAccountTimezone(tx.db, tx.accountId);
  const issueDate = row.issue_date ?? localToday(now, timezone);
  if (invoice?.issue_date && issueDate < invoice.issue_date)
    throw fieldError('issue_date', `must not be before the invoice's issue_date (${invoice.issue_date})`);
  const issued = (await repository.updateCreditNote(tx.db, tx.accountId, row.id, {
    status: 'issued',
    // Its hub page lives from issue to void (§22); a send records the address the link went to.
    ...hostedLinkOnSend(row, tx.links, row.client_id, undefined),
    ...(await numberOnSend(tx.db, tx.accountId, 'credit_note', row)),
    issue_date: issueDate,
    issued_at: now.toISOString(),
    updated_at: now.toISOString(),
  }))!;
  const entries: EntryDraft[] = [documentEntry(issued, 'credit_note_issued', issueDate)];
  if (invoice && invoice.status === 'sent' && Number(issued.apply_on_issue) === 1) {
    const due = Number(invoice.total_amount) - Number(invoice.amount_paid) - Number(invoice.amount_credited);
    const amount = Math.min(Number(issued.total_amount), due);
    if (amount > 0) {
      const applied = await applyToInvoices(
        tx,
        { ...sourceOf(issued), remaining: async () => Number(issued.total_amount) },
        [{ invoice_id: invoice.id, amount }],
        undefined,
      );
      entries.push(...applied.entries);
    }
  }
  await postEntries(tx, entries);
  await creditNoteIssued(tx, issued);
  return issued;
}

function sourceOf(note: CreditNoteRow) {
  return {
    type: 'credit_note' as const,
    id: note.id,
    client_id: note.client_id,
    currency: note.currency,
    dated: note.issue_date!,
  };
}

/** Voids an issued note: 409 once anything was refunded; its applications are released (those invoices owe again). */
export async function voidCreditNote(tx: Context, row: CreditNoteRow): Promise<CreditNoteRow> {
  if (Number(row.amount_refunded) > 0) throw invalidState('This credit note has refunds; it can no longer be voided.');
  const held = await liveApplications(tx.db, tx.accountId, 'credit_note_id', row.id);
  await lockInvoices(
    tx,
    held.map((application) => application.invoice_id),
  );
  const now = tx.clock.now().toISOString();
  const today = await effectiveDateOf(tx, now);
  const entries: EntryDraft[] = [];
  for (const application of held) entries.push(await takeBack(tx, application, Number(application.amount), today));
  const voided = (await repository.updateCreditNote(tx.db, tx.accountId, row.id, {
    status: 'void',
    voided_at: now,
    hosted_token: null,
    hosted_url: null,
    hosted_recipient: null,
    updated_at: now,
  }))!;
  entries.push(documentEntry(voided, 'credit_note_voided', today));
  await postEntries(tx, entries);
  return voided;
}

function assertIssued(note: CreditNoteRow, what: string): void {
  if (note.status !== 'issued')
    throw invalidState(`This credit note is '${note.status}'; only an issued credit note is ${what}.`);
}

/** POST /v1/credit-notes/:id/apply: its remaining credit onto sent invoices of its client, all or nothing. */
export async function applyCreditNote(ctx: Context, id: string, input: ApplyInput): Promise<CreditNote> {
  return inTransaction(ctx, async (tx) => {
    // The note first, then its invoices: the order issue and void lock them in, so none can deadlock.
    const found = await getCreditNoteRecord(tx, id, true);
    assertIssued(found, 'applied');
    const before = presentCreditNote(found);
    const { entries } = await applyToInvoices(
      tx,
      { ...sourceOf(found), remaining: () => remainingOf(tx, found.id) },
      input.applications,
      input.applied_on,
    );
    await repository.updateCreditNote(tx.db, tx.accountId, found.id, { updated_at: tx.clock.now().toISOString() });
    const after = presentCreditNote(await getCreditNoteRecord(tx, found.id));
    await recordEvent(tx, 'credit_note.applied', after, { previous_attributes: previousAttributes(before, after) });
    await postEntries(tx, entries);
    return after;
  });
}

// An invoice's void releases the applications it held: a note's is its unapply too (§22 "Events").
onCreditNoteReleased(async (tx, creditNoteId) => {
  const before = presentCreditNote(await getCreditNoteRecord(tx, creditNoteId, true));
  return async () => {
    const after = presentCreditNote(await getCreditNoteRecord(tx, creditNoteId));
    await recordEvent(tx, 'credit_note.unapplied', after, { previous_attributes: previousAttributes(before, after) });
  };
});

/** POST /v1/credit-notes/:id/unapply {application_id}: one application reversed (409 once released). */
export async function unapplyCreditNote(ctx: Context, id: string, input: UnapplyInput): Promise<CreditNote> {
  return inTransaction(ctx, async (tx) => {
    const found = await getCreditNoteRecord(tx, id, true);
    const application = await requireReference('application_id', 'application', input.application_id, (found) =>
      findApplication(tx.db, tx.accountId, found),
    );
    if (application.credit_note_id !== found.id)
      throw fieldError('application_id', 'is not an application of this credit note');
    await lockInvoices(tx, [application.invoice_id]);
    const current = (await findApplication(tx.db, tx.accountId, application.id, true))!;
    if (current.released_at !== null) throw invalidState('This application was already released.');
    const before = presentCreditNote(await getCreditNoteRecord(tx, found.id, true));
    const entry = await takeBack(tx, current, Number(current.amount), await effectiveDateOf(tx, tx.clock.now()));
    await repository.updateCreditNote(tx.db, tx.accountId, found.id, { updated_at: tx.clock.now().toISOString() });
    const after = presentCreditNote(await getCreditNoteRecord(tx, found.id));
    await recordEvent(tx, 'credit_note.unapplied', after, { previous_attributes: previousAttributes(before, after) });
    await postEntries(tx, [entry]);
    return after;
  });
}

/** POST /v1/credit-notes/:id/refund: money paid back from what remains (default all of it). */
export async function refundCreditNote(ctx: Context, id: string, input: RefundCreditNoteInput): Promise<CreditNote> {
  return inTransaction(ctx, async (tx) => {
    const found = await getCreditNoteRecord(tx, id, true);
    assertIssued(found, 'refunded');
    const remaining = await remainingOf(tx, found.id);
    const before = presentCreditNote(await getCreditNoteRecord(tx, found.id));
    if (remaining === 0) throw fieldError('amount', 'nothing remains to refund on this credit note');
    const amount = input.amount ?? remaining;
    if (amount > remaining) throw fieldError('amount', `must not exceed the amount remaining (${remaining})`);
    const now = tx.clock.now().toISOString();
    const refundedAt = input.refunded_at === undefined ? now : normalizeInstant(input.refunded_at);
    if (refundedAt > now) throw fieldError('refunded_at', 'must not be in the future');
    const refund = {
      id: newId(),
      account_id: tx.accountId,
      credit_note_id: found.id,
      amount,
      method: input.method,
      reference: input.reference ?? null,
      reason: input.reason ?? null,
      refunded_at: refundedAt,
      created_at: now,
    };
    await repository.insertRefund(tx.db, refund);
    await repository.updateCreditNote(tx.db, tx.accountId, found.id, {
      amount_refunded: Number(found.amount_refunded) + amount,
      updated_at: now,
    });
    const after = presentCreditNote(await getCreditNoteRecord(tx, found.id));
    await recordEvent(tx, 'credit_note.refunded', after, { previous_attributes: previousAttributes(before, after) });
    await postEntries(tx, [
      {
        type: 'credit_note_refunded',
        client_id: found.client_id,
        currency: found.currency,
        effective_date: await effectiveDateOf(tx, refundedAt),
        amount,
        credit_note_id: found.id,
        refund_id: refund.id,
        invoice_id: found.invoice_id,
      },
    ]);
    return after;
  });
}
