// Credit note rules (docs/api-contract.md §22): made for a client or against a sent or paid invoice, of lines or
// of an amount, capped by the invoice's total, editable while draft; issuing, voiding and the money of an issued
// note are credit-notes.money.ts'.
import { newId } from '../../core/deps.js';
import { fieldError, invalidState, type Precondition } from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { CreditNoteRow, InvoiceRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { requireClientReference } from '../clients/index.js';
import {
  accountCurrency,
  assertDeletable,
  assertMove,
  parseStatusFilter,
  presentPriced,
  withoutStoring,
} from '../documents/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { findInvoice } from '../invoices/index.js';
import { propertyForNewDocument, propertyOnUpdate } from '../properties/index.js';
import { guardExternalId } from '../shared/index.js';
import { CREDIT_NOTE_LIFECYCLE, CREDIT_NOTE_STATUSES, type CreditNoteStatus } from './credit-notes.lifecycle.js';
import { priceCreditNote } from './credit-notes.pricing.js';
import * as repository from './credit-notes.repository.js';
import type {
  CreateCreditNoteInput,
  CreditNote,
  ListCreditNotesInput,
  UpdateCreditNoteInput,
} from './credit-notes.schemas.js';
import { issueCreditNote, voidCreditNote } from './credit-notes.money.js';
import { type CreditNoteRecord, getCreditNoteRecord, presentCreditNote, withMoney } from './credit-notes.presenter.js';
import { assertWithinCap, requireCreditableInvoice } from './credit-notes.rules.js';

function assertOneForm(input: { line_items?: unknown; amount?: unknown }, current?: CreditNoteRow): void {
  const lines = input.line_items !== undefined;
  const amount = input.amount !== undefined && input.amount !== null;
  if (current === undefined && lines === amount)
    throw fieldError('amount', 'give line_items or amount: exactly one of them');
  if (current !== undefined && lines && amount) throw fieldError('amount', 'give line_items or amount, not both');
}

function assertIssueDate(issueDate: string | null | undefined, invoice: InvoiceRow | undefined): void {
  if (issueDate && invoice?.issue_date && issueDate < invoice.issue_date)
    throw fieldError('issue_date', `must not be before the invoice's issue_date (${invoice.issue_date})`);
}

export function previewCreditNote(ctx: Context, input: CreateCreditNoteInput): Promise<CreditNote> {
  return withoutStoring(ctx, (tx) => createCreditNote(tx, input));
}

export async function createCreditNote(ctx: Context, input: CreateCreditNoteInput): Promise<CreditNote> {
  return guardExternalId(ctx, 'credit_notes', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      assertOneForm(input);
      const invoice = input.invoice_id === undefined ? undefined : await requireCreditableInvoice(tx, input.invoice_id);
      if (input.tax_rate_ids !== undefined && (input.amount === undefined || invoice))
        throw fieldError('tax_rate_ids', 'is for an amount without an invoice; lines carry their own rates');
      if (invoice && input.client_id !== undefined && input.client_id !== invoice.client_id)
        throw fieldError('client_id', "must be the invoice's client");
      if (invoice && input.currency !== undefined && input.currency !== invoice.currency)
        throw fieldError('currency', `must be the invoice's (${invoice.currency})`);
      const clientId = invoice?.client_id ?? input.client_id;
      if (clientId === undefined) throw fieldError('client_id', 'is required without invoice_id');
      await requireClientReference(tx, clientId);
      assertIssueDate(input.issue_date, invoice);
      const propertyId = await propertyForNewDocument(tx, clientId, input.property_id, invoice?.property_id);
      const currency = invoice?.currency ?? input.currency ?? (await accountCurrency(tx.db, tx.accountId));
      const priced = await priceCreditNote(tx, input, { currency, propertyId, invoice });
      const now = tx.clock.now().toISOString();
      const row: CreditNoteRow = {
        id: newId(),
        account_id: tx.accountId,
        external_id: input.external_id ?? null,
        number: null,
        number_seq: null,
        client_id: clientId,
        invoice_id: invoice?.id ?? null,
        property_id: propertyId,
        reason: input.reason ?? null,
        amount: input.amount ?? null,
        tax_rate_ids: input.tax_rate_ids ? JSON.stringify(input.tax_rate_ids) : null,
        currency,
        ...priced,
        issue_date: input.issue_date ?? null,
        apply_on_issue: input.apply_on_issue === false ? 0 : 1,
        amount_refunded: 0,
        notes: input.notes ?? null,
        status: 'draft',
        issued_at: null,
        voided_at: null,
        delivery_id: null,
        delivery_status: null,
        hosted_token: null,
        hosted_url: null,
        hosted_recipient: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: now,
        updated_at: now,
      };
      if (invoice) await assertWithinCap(tx, row, invoice);
      await repository.insertCreditNote(tx.db, row);
      const note = presentCreditNote((await withMoney(tx.db, tx.accountId, [row]))[0]!);
      await recordEvent(tx, 'credit_note.created', note);
      return note;
    }),
  );
}

export async function getCreditNote(ctx: Context, id: string): Promise<CreditNote> {
  return presentCreditNote(await getCreditNoteRecord(ctx, id));
}

/** Fields change in draft only; an issued note takes metadata (and external_id) and the move to void. */
const ISSUED_EDITS = new Set(['metadata', 'external_id', 'status']);

export async function updateCreditNote(
  ctx: Context,
  id: string,
  input: UpdateCreditNoteInput,
  precondition?: Precondition,
): Promise<CreditNote> {
  return guardExternalId(
    ctx,
    'credit_notes',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getCreditNoteRecord(tx, id, true);
        precondition?.(presentCreditNote(current));
        const from = current.status as CreditNoteStatus;
        const { status, metadata, ...fields } = input;
        const edits = Object.keys(input).filter((key) => key !== 'status');
        if (from === 'void' && edits.length > 0) throw invalidState(CREDIT_NOTE_LIFECYCLE.refusals.edit(from));
        if (from === 'issued' && edits.some((key) => !ISSUED_EDITS.has(key)))
          throw invalidState(CREDIT_NOTE_LIFECYCLE.refusals.edit(from));
        if (status !== undefined) assertMove(CREDIT_NOTE_LIFECYCLE, from, status);
        if (Object.keys(input).length === 0) return presentCreditNote(current);
        const before = presentCreditNote(current);
        const now = tx.clock.now().toISOString();
        const patch: Partial<CreditNoteRow> = { updated_at: now };
        if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
        if (fields.external_id !== undefined) patch.external_id = fields.external_id;
        if (from === 'draft' && edits.some((key) => !ISSUED_EDITS.has(key))) {
          Object.assign(patch, await draftPatch(tx, current, input));
        }
        let updated = (await repository.updateCreditNote(tx.db, tx.accountId, current.id, patch)) ?? current;
        if (status === 'issued' && from === 'draft') updated = await issueCreditNote(tx, updated);
        else if (status === 'void' && from === 'issued') updated = await voidCreditNote(tx, updated);
        const after = presentCreditNote((await withMoney(tx.db, tx.accountId, [updated]))[0]!);
        await recordChange(tx, {
          resource: 'credit_note',
          before,
          after,
          statusEvents: CREDIT_NOTE_LIFECYCLE.events,
        });
        return after;
      }),
    id,
  );
}

/** A draft's changed fields, lines or amount repriced, the cap checked again. */
async function draftPatch(
  tx: Context,
  current: CreditNoteRow,
  input: UpdateCreditNoteInput,
): Promise<Partial<CreditNoteRow>> {
  assertOneForm(input, current);
  const invoice = current.invoice_id ? await findInvoice(tx.db, tx.accountId, current.invoice_id) : undefined;
  if (invoice && input.client_id !== undefined && input.client_id !== invoice.client_id)
    throw fieldError('client_id', "must be the invoice's client");
  if (invoice && input.currency !== undefined && input.currency !== invoice.currency)
    throw fieldError('currency', `must be the invoice's (${invoice.currency})`);
  if (input.client_id !== undefined) await requireClientReference(tx, input.client_id);
  const property = await propertyOnUpdate(tx, current, input);
  const patch: Partial<CreditNoteRow> = { ...property };
  for (const field of ['client_id', 'reason', 'notes', 'issue_date', 'currency'] as const)
    if (input[field] !== undefined) Object.assign(patch, { [field]: input[field] });
  if (input.apply_on_issue !== undefined) patch.apply_on_issue = input.apply_on_issue ? 1 : 0;
  assertIssueDate(patch.issue_date ?? current.issue_date, invoice);
  const repriced =
    input.line_items !== undefined ||
    input.amount !== undefined ||
    input.tax_rate_ids !== undefined ||
    input.prices_include_tax !== undefined ||
    input.rounding !== undefined ||
    input.discount !== undefined ||
    input.currency !== undefined ||
    input.reason !== undefined;
  if (!repriced) return patch;
  const fromAmount = input.line_items === undefined && (input.amount ?? current.amount) !== null;
  if (input.tax_rate_ids !== undefined && (!fromAmount || invoice))
    throw fieldError('tax_rate_ids', 'is for an amount without an invoice; lines carry their own rates');
  const taxRateIds =
    input.tax_rate_ids !== undefined
      ? input.tax_rate_ids
      : current.tax_rate_ids
        ? fromJson<string[]>(current.tax_rate_ids)
        : undefined;
  const priced = await priceCreditNote(
    tx,
    fromAmount
      ? {
          amount: input.amount ?? Number(current.amount),
          tax_rate_ids: taxRateIds,
          reason: input.reason !== undefined ? input.reason : current.reason,
          rounding: input.rounding,
        }
      : {
          line_items:
            input.line_items ??
            presentPriced(current).line_items.map((line) => ({
              description: line.description,
              quantity: line.quantity,
              unit_amount: line.unit_amount,
              ...(line.tax_rate_ids.length > 0 ? { tax_rate_ids: line.tax_rate_ids } : { tax_rate: line.tax_rate }),
            })),
          prices_include_tax: input.prices_include_tax ?? Number(current.prices_include_tax) === 1,
          rounding: input.rounding ?? (current.rounding as 'per_line' | 'per_document'),
          discount:
            input.discount !== undefined ? input.discount : current.discount ? fromJson(current.discount) : null,
        },
    { currency: patch.currency ?? current.currency, propertyId: property.property_id ?? current.property_id, invoice },
  );
  Object.assign(patch, priced, {
    amount: fromAmount ? (input.amount ?? current.amount) : null,
    tax_rate_ids: fromAmount && taxRateIds ? JSON.stringify(taxRateIds) : null,
  });
  if (invoice) await assertWithinCap(tx, { ...current, ...patch } as CreditNoteRow, invoice);
  return patch;
}

export async function deleteCreditNote(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getCreditNoteRecord(tx, id, true);
    const note = presentCreditNote(current);
    precondition?.(note);
    assertDeletable(CREDIT_NOTE_LIFECYCLE, current.status as CreditNoteStatus);
    await repository.deleteCreditNote(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'credit_note.deleted', note);
    return { id: current.id, deleted: true as const };
  });
}

export async function listCreditNotes(ctx: Context, query: ListCreditNotesInput): Promise<Page<CreditNoteRecord>> {
  const page = pageRequest(query, repository.CREDIT_NOTE_SORTS);
  const statuses = parseStatusFilter(query.status, CREDIT_NOTE_STATUSES);
  const { rows, resumeAfter } = await repository.listCreditNotes(ctx.db, ctx.accountId, { ...query, statuses }, page);
  return toPage<CreditNoteRecord>(await withMoney(ctx.db, ctx.accountId, rows), page, resumeAfter);
}
