// Invoice rules: made from a job or an approved quote (converting it), editable while draft or sent,
// numbered and dated on first send, paid and void final, delete only while draft.
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import type { Db, Executor } from '../../db/database.js';
import { pageRequest, toPage, type Page } from '../../db/keyset.js';
import type { InvoiceRow, JobRow, QuoteRow } from '../../db/types.js';
import { getClientRow, requireClientReference } from '../clients/clients.service.js';
import type { SendInput } from '../documents/document.schemas.js';
import { assertClientKept } from '../documents/client-link.js';
import { copyLineItems } from '../documents/line-items.js';
import { parseStatusFilter } from '../documents/list-filters.js';
import { accountCurrency, lineItemsOf, pricedColumns, todayUtc } from '../documents/priced.js';
import { assertHasHostedLink, queueDocumentMail } from '../documents/sending.js';
import { assertTransition } from '../documents/state-machine.js';
import { requireJobReference } from '../jobs/jobs.service.js';
import { convertQuote } from '../quotes/quotes.service.js';
import {
  assertInvoiceDeletable,
  assertInvoiceEditable,
  defaultDueDate,
  INVOICE_STATUS_EVENTS,
  INVOICE_STATUSES,
  INVOICE_TRANSITIONS,
  invoiceSentColumns,
  type InvoiceStatus,
} from './invoices.lifecycle.js';
import * as repository from './invoices.repository.js';
import { previousAttributes, recordChange, recordEvent } from '../events/events.service.js';
import { newHostedLink, type HostedLinks } from '../documents/hosted-links.js';
import { recordPayment, settleInvoice } from './payments.service.js';
import { getInvoiceRecord as getRow, presentInvoice, withPayments, type InvoiceRecord } from './invoices.presenter.js';
import type { CreateInvoiceInput, Invoice, ListInvoicesInput, UpdateInvoiceInput } from './invoices.schemas.js';

function assertDueAfterIssue(issueDate: string | null, dueDate: string | null): void {
  if (issueDate !== null && dueDate !== null && dueDate < issueDate) throw fieldError('due_date', 'must not be before issue_date');
}

/**
 * The job and quote an invoice is made from. With a job, the job's quote is the invoice's quote unless
 * another is named; a quote named explicitly (other than the job's) must be approved and is converted.
 */
async function resolveSources(trx: Executor, clock: Clock, accountId: string, input: CreateInvoiceInput): Promise<{ job?: JobRow; quote?: QuoteRow; quoteId: string | null }> {
  const job = input.job_id === undefined ? undefined : await requireJobReference(trx, accountId, input.job_id);
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
    await requireClientReference(trx, accountId, clientId);
    const source = job ?? quote;
    const priced = pricedColumns(input.line_items ?? (source ? copyLineItems(lineItemsOf(source)) : []));
    const issueDate = input.issue_date ?? null;
    const dueDate = input.due_date !== undefined ? input.due_date : issueDate && (await defaultDueDate(trx, accountId, issueDate));
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
      delivery_id: null,
      delivery_status: null,
      hosted_token: null,
      hosted_url: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await repository.insertInvoice(trx, row);
    const invoice = presentInvoice({ ...row, payments: [] }, now);
    await recordEvent(trx, clock, accountId, 'invoice.created', invoice);
    return invoice;
  });
}

export async function getInvoice(db: Executor, accountId: string, id: string, now: Date): Promise<Invoice> {
  return presentInvoice(await getRow(db, accountId, id), now);
}

export async function updateInvoice(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string, input: UpdateInvoiceInput, precondition?: Precondition): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    precondition?.(presentInvoice(current, clock.now()));
    const from = current.status as InvoiceStatus;
    const { status, metadata, line_items: lineItems, ...fields } = input;
    if (Object.keys(input).some((key) => key !== 'status')) assertInvoiceEditable(from);
    if (status !== undefined) assertTransition('invoice', INVOICE_TRANSITIONS, from, status);
    assertClientKept(current.client_id, fields.client_id, current.job_id !== null ? 'the invoice was made from a job' : current.quote_id !== null ? 'the invoice was made from a quote' : undefined);
    if (fields.client_id !== undefined) {
      await requireClientReference(trx, accountId, fields.client_id);
      if (current.payments.length > 0 && fields.client_id !== current.client_id) throw fieldError('client_id', 'cannot change: payments are recorded against this invoice');
    }
    const now = clock.now();
    if (Object.keys(input).length === 0) return presentInvoice(current, now);

    if ((status ?? from) === 'sent') {
      // What sending required stays true while sent: a line, an issue date and a due date.
      if (lineItems !== undefined && lineItems.length === 0) throw fieldError('line_items', 'a sent invoice keeps at least one line item; void it instead');
      for (const field of ['issue_date', 'due_date'] as const) if (fields[field] === null && from === 'sent') throw fieldError(field, 'a sent invoice keeps its issue and due dates');
    }
    const patch: Partial<InvoiceRow> = { ...fields, updated_at: now.toISOString() };
    if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
    if (lineItems !== undefined) {
      Object.assign(patch, pricedColumns(lineItems));
      if (Number(patch.total_amount) < Number(current.amount_paid)) throw fieldError('line_items', `the total would be below the ${current.amount_paid} already paid; refund a payment first`);
    }
    assertDueAfterIssue(patch.issue_date !== undefined ? patch.issue_date : current.issue_date, patch.due_date !== undefined ? patch.due_date : current.due_date);
    if (status === 'sent' && from !== 'sent') Object.assign(patch, await invoiceSentColumns(trx, clock, links, accountId, { ...current, ...patch }));
    // A void invoice's hosted page stops working (contract section 12).
    if (status === 'void' && from !== 'void') Object.assign(patch, { status, voided_at: now.toISOString(), hosted_token: null, hosted_url: null });
    const updated = (await repository.updateInvoice(trx, accountId, current.id, patch)) ?? current;
    const edited = presentInvoice({ ...updated, payments: current.payments }, now);
    await recordChange(trx, clock, accountId, 'invoice', presentInvoice(current, now), edited, INVOICE_STATUS_EVENTS);
    // Marking paid records the rest as a payment (method `other`), so the balance always comes from payments.
    if (status === 'paid' && from !== 'paid') await payInFull(trx, clock, updated, edited);
    else if (lineItems !== undefined && Number(updated.amount_paid) > 0) await settleInvoice(trx, clock, updated, edited);
    return presentInvoice(await getRow(trx, accountId, current.id), now);
  });
}

async function payInFull(trx: Executor, clock: Clock, invoice: InvoiceRow, before: Invoice): Promise<void> {
  const due = Number(invoice.total_amount) - Number(invoice.amount_paid);
  if (due > 0) await recordPayment(trx, clock, invoice, { amount: due, method: 'other' });
  else await settleInvoice(trx, clock, invoice, before);
}

/**
 * Sends the invoice: in one transaction, assign its number and dates on first send, move it to `sent`,
 * and queue the e-mail to the client's stored address. The response never waits for SMTP.
 */
export async function sendInvoice(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string, input: SendInput): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    const client = await getClientRow(trx, accountId, current.client_id);
    const columns = await invoiceSentColumns(trx, clock, links, accountId, current, client);
    const now = clock.now();
    const deliveryId = newId();
    const patch = { ...columns, delivery_id: deliveryId, delivery_status: 'queued', updated_at: now.toISOString() };
    const updated = (await repository.updateInvoice(trx, accountId, current.id, patch)) ?? current;
    const invoice = presentInvoice({ ...updated, payments: current.payments }, now);
    // Every send is an invoice.sent, a re-send too (its sent_at moves).
    await recordEvent(trx, clock, accountId, 'invoice.sent', invoice, { previous_attributes: previousAttributes(presentInvoice(current, now), invoice) });
    await queueDocumentMail(trx, clock, accountId, client, { kind: 'invoice', deliveryId, message: input?.message ?? null, document: invoice });
    return invoice;
  });
}

/** Replaces the invoice's hosted link: the old URL stops working at once. */
export async function rotateInvoiceLink(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    assertHasHostedLink('invoice', current);
    const now = clock.now();
    const updated = (await repository.updateInvoice(trx, accountId, current.id, { ...newHostedLink(links), updated_at: now.toISOString() })) ?? current;
    const invoice = presentInvoice({ ...updated, payments: current.payments }, now);
    await recordChange(trx, clock, accountId, 'invoice', presentInvoice(current, now), invoice);
    return invoice;
  });
}

export async function deleteInvoice(db: Db, clock: Clock, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    const invoice = presentInvoice(current, clock.now());
    precondition?.(invoice);
    assertInvoiceDeletable(current.status as InvoiceStatus);
    await repository.deleteInvoice(trx, accountId, current.id);
    await recordEvent(trx, clock, accountId, 'invoice.deleted', invoice);
    return { id: current.id, deleted: true as const };
  });
}

export async function listInvoices(db: Executor, accountId: string, query: ListInvoicesInput, now: Date): Promise<Page<InvoiceRecord>> {
  const page = pageRequest(query, repository.INVOICE_SORTS);
  const { overdue, ...filters } = query;
  const statuses = parseStatusFilter(query.status, INVOICE_STATUSES);
  const { rows, resumeAfter } = await repository.listInvoices(db, accountId, { ...filters, statuses, overdue: overdue === undefined ? undefined : { today: todayUtc(now), wanted: overdue } }, page);
  return toPage<InvoiceRecord>(await withPayments(db, accountId, rows), page, resumeAfter);
}
