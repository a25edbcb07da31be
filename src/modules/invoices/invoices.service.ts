// Invoice rules: made from a job or an approved quote (converting it), editable while draft or sent,
// numbered and dated on first send, paid and void final, delete only while draft.
import { sql } from 'kysely';
import type { AnySelect } from '../../db/account-table.js';
import { accountTable } from '../../db/account-table.js';
import type { Db, Executor } from '../../db/database.js';
import type { InvoiceRow, JobRow, QuoteRow } from '../../db/types.js';
import { coalesceSort, SORT_SENTINELS } from '../../db/sort-sentinels.js';
import { fromJson, toIso } from '../../db/values.js';
import type { Clock } from '../../deps.js';
import { newId } from '../../deps.js';
import type { Precondition } from '../../http/etag.js';
import { fieldError, invalidState } from '../../http/errors.js';
import { pageRequest, timestampSorts, toPage, type Page, type SortFields } from '../../http/pagination.js';
import { copyLineItems } from '../documents/line-items.js';
import { applyDocumentFilters } from '../documents/list-filters.js';
import { sendingColumns } from '../documents/numbering.js';
import { accountCurrency, addDays, lineItemsOf, presentPriced, pricedColumns, todayUtc } from '../documents/priced.js';
import { requireReference, requireRow } from '../documents/references.js';
import { assertTransition, type TransitionTable } from '../documents/state-machine.js';
import { convertQuote } from '../quotes/quotes.service.js';
import { INVOICE_STATUSES, type CreateInvoiceInput, type Invoice, type InvoiceStatus, type ListInvoicesInput, type UpdateInvoiceInput } from './invoices.schemas.js';

export const INVOICE_TRANSITIONS: TransitionTable<InvoiceStatus> = {
  draft: ['sent'],
  sent: ['paid', 'void'],
  paid: [],
  void: [],
};

export const INVOICE_EDITABLE: readonly InvoiceStatus[] = ['draft', 'sent'];
export const DEFAULT_PAYMENT_TERMS_DAYS = 30;

const invoices = accountTable('invoices');

/** `now` decides is_overdue, so the same row reads differently tomorrow. */
export function presentInvoice(row: InvoiceRow, now: Date = new Date()): Invoice {
  const priced = presentPriced(row);
  const amountPaid = Number(row.amount_paid);
  return {
    id: row.id,
    object: 'invoice',
    number: row.number,
    client_id: row.client_id,
    job_id: row.job_id,
    quote_id: row.quote_id,
    ...priced,
    amount_paid: amountPaid,
    amount_due: row.status === 'void' ? 0 : priced.total_amount - amountPaid,
    notes: row.notes,
    issue_date: row.issue_date,
    due_date: row.due_date,
    status: row.status,
    is_overdue: row.status === 'sent' && row.due_date !== null && row.due_date < todayUtc(now),
    sent_at: toIso(row.sent_at),
    paid_at: toIso(row.paid_at),
    voided_at: toIso(row.voided_at),
    metadata: fromJson(row.metadata),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

function assertDueAfterIssue(issueDate: string | null, dueDate: string | null): void {
  if (issueDate !== null && dueDate !== null && dueDate < issueDate) throw fieldError('due_date', 'must not be before issue_date');
}

/**
 * The job and quote an invoice is made from. With a job, the job's quote is the invoice's quote unless
 * another is named; a quote named explicitly (other than the job's) must be approved and is converted.
 */
async function resolveSources(trx: Executor, clock: Clock, accountId: string, input: CreateInvoiceInput): Promise<{ job?: JobRow; quote?: QuoteRow; quoteId: string | null }> {
  const job = input.job_id === undefined ? undefined : await requireReference(trx, 'jobs', accountId, input.job_id, 'job_id');
  if (job && input.client_id !== undefined && job.client_id !== input.client_id) throw fieldError('job_id', 'belongs to another client');
  if (input.quote_id === undefined || input.quote_id === job?.quote_id) return { job, quoteId: job?.quote_id ?? null };
  const quote = await convertQuote(trx, clock, accountId, input.quote_id, input.client_id ?? job?.client_id);
  return { job, quote, quoteId: quote.id };
}

export async function createInvoice(db: Db, clock: Clock, accountId: string, input: CreateInvoiceInput): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const { job, quote, quoteId } = await resolveSources(trx, clock, accountId, input);
    const clientId = input.client_id ?? job?.client_id ?? quote?.client_id;
    if (clientId === undefined) throw fieldError('client_id', 'is required unless job_id or quote_id is given');
    await requireReference(trx, 'clients', accountId, clientId, 'client_id');
    const source = job ?? quote;
    const priced = pricedColumns(input.line_items ?? (source ? copyLineItems(lineItemsOf(source)) : []));
    const issueDate = input.issue_date ?? null;
    const dueDate = input.due_date !== undefined ? input.due_date : issueDate && addDays(issueDate, DEFAULT_PAYMENT_TERMS_DAYS);
    assertDueAfterIssue(issueDate, dueDate);
    const now = clock.now();
    const row: InvoiceRow = {
      id: newId(),
      account_id: accountId,
      number: null,
      number_seq: null,
      client_id: clientId,
      job_id: job?.id ?? null,
      quote_id: quoteId,
      currency: input.currency ?? source?.currency ?? (await accountCurrency(trx, accountId)),
      ...priced,
      amount_paid: 0,
      notes: input.notes ?? null,
      issue_date: issueDate,
      due_date: dueDate,
      status: 'draft',
      sent_at: null,
      paid_at: null,
      voided_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await invoices.insert(trx, row);
    return presentInvoice(row, now);
  });
}

export async function getInvoice(db: Executor, accountId: string, id: string, now: Date = new Date()): Promise<Invoice> {
  return presentInvoice(await requireRow(db, 'invoices', accountId, id), now);
}

/**
 * The columns that mark an invoice sent: a number on first send, issue_date today when empty, due_date
 * issue_date + 30 days when empty, sent_at now. Shared by `PUT {status: "sent"}` and the send operation.
 */
export async function sentColumns(trx: Executor, clock: Clock, accountId: string, invoice: Pick<InvoiceRow, 'number' | 'number_seq' | 'line_items' | 'issue_date' | 'due_date'>) {
  const now = clock.now();
  const issueDate = invoice.issue_date ?? todayUtc(now);
  return {
    ...(await sendingColumns(trx, accountId, 'invoice', invoice)),
    issue_date: issueDate,
    due_date: invoice.due_date ?? addDays(issueDate, DEFAULT_PAYMENT_TERMS_DAYS),
    sent_at: now.toISOString(),
  };
}

export async function updateInvoice(db: Db, clock: Clock, accountId: string, id: string, input: UpdateInvoiceInput, precondition?: Precondition): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'invoices', accountId, id, true);
    precondition?.(presentInvoice(current, clock.now()));
    const from = current.status as InvoiceStatus;
    const { status, metadata, line_items: lineItems, ...fields } = input;
    const changesFields = Object.keys(input).some((key) => key !== 'status');
    if (changesFields && !INVOICE_EDITABLE.includes(from)) throw invalidState(`This invoice is '${from}', which is final: nothing about it can change.`);
    if (status !== undefined) assertTransition('invoice', INVOICE_TRANSITIONS, from, status);
    if (fields.client_id !== undefined) await requireReference(trx, 'clients', accountId, fields.client_id, 'client_id');
    const now = clock.now();
    if (Object.keys(input).length === 0) return presentInvoice(current, now);

    const patch: Partial<InvoiceRow> = { ...fields, updated_at: now.toISOString() };
    if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
    if (lineItems !== undefined) Object.assign(patch, pricedColumns(lineItems));
    assertDueAfterIssue(patch.issue_date !== undefined ? patch.issue_date : current.issue_date, patch.due_date !== undefined ? patch.due_date : current.due_date);
    if (status !== undefined && status !== from) {
      if (status === 'sent') Object.assign(patch, await sentColumns(trx, clock, accountId, { ...current, ...patch }));
      if (status === 'paid') Object.assign(patch, { status, paid_at: now.toISOString(), amount_paid: Number(patch.total_amount ?? current.total_amount) });
      if (status === 'void') Object.assign(patch, { status, voided_at: now.toISOString() });
    }
    return presentInvoice((await invoices.update(trx, accountId, current.id, patch)) ?? current, now);
  });
}

export async function deleteInvoice(db: Db, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'invoices', accountId, id, true);
    precondition?.(presentInvoice(current));
    if (current.status !== 'draft') throw invalidState(`This invoice is '${current.status}'; only draft invoices can be deleted. Void a sent invoice instead.`);
    await invoices.delete(trx, accountId, current.id);
    return { id: current.id, deleted: true as const };
  });
}

const SORTS: SortFields<InvoiceRow> = {
  ...timestampSorts<InvoiceRow>(),
  number: { expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
  due_date: { expression: coalesceSort('due_date', 'date'), value: (row) => row.due_date ?? SORT_SENTINELS.date },
};

function overdueCondition(select: AnySelect, today: string, overdue: boolean): AnySelect {
  const condition = sql<boolean>`(status = 'sent' and due_date is not null and due_date < ${today})`;
  return select.where(overdue ? condition : sql<boolean>`not ${condition}`);
}

export async function listInvoices(db: Executor, accountId: string, query: ListInvoicesInput, now: Date = new Date()): Promise<Page<InvoiceRow>> {
  const page = pageRequest(query, SORTS);
  const rows = await invoices.list(db, accountId, page, (select) => {
    let filtered = applyDocumentFilters(select, query, INVOICE_STATUSES);
    if (query.overdue !== undefined) filtered = overdueCondition(filtered, todayUtc(now), query.overdue);
    if (query.due_before !== undefined) filtered = filtered.where(sql.ref('due_date'), '<', query.due_before);
    if (query.due_after !== undefined) filtered = filtered.where(sql.ref('due_date'), '>=', query.due_after);
    if (query.quote_id !== undefined) filtered = filtered.where(sql.ref('quote_id'), '=', query.quote_id);
    if (query.job_id !== undefined) filtered = filtered.where(sql.ref('job_id'), '=', query.job_id);
    return filtered;
  });
  return toPage(rows, page);
}
