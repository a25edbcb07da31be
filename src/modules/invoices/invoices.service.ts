// Invoice rules: made from a job or an approved quote (converting it), editable while draft or sent,
// numbered and dated on first send, paid and void final, delete only while draft. What each move does is
// the lifecycle's (invoices.lifecycle.ts); sending is sent-documents'.
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import { type Page, pageRequest, toPage } from '../../db/index.js';
import type { InvoiceRow, JobRow, QuoteRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { requireClientReference } from '../clients/index.js';
import {
  accountCurrency,
  assertClientKept,
  assertCurrencyKept,
  assertDeletable,
  assertEditable,
  assertHolds,
  assertMove,
  enter,
  parseStatusFilter,
  pricingForNew,
  pricingForUpdate,
  propertyAfter,
  withoutStoring,
  localToday,
  type SendableKind,
  hostedLinkOnClientChange,
} from '../documents/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, tagConditions, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf } from '../attachments/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { propertyForNewDocument, propertyOnUpdate } from '../properties/index.js';
import { requireJobReference } from '../jobs/index.js';
import { convertQuote } from '../quotes/index.js';
import {
  defaultDueDate,
  INVOICE_LIFECYCLE,
  INVOICE_STATUSES,
  invoiceSentColumns,
  type InvoiceStatus,
} from './invoices.lifecycle.js';
import {
  getInvoiceRecord,
  invoiceRecord,
  presentInvoice,
  withPayments,
  type InvoiceRecord,
} from './invoices.presenter.js';
import * as repository from './invoices.repository.js';
import type {
  CreateInvoiceInput,
  Invoice,
  ListInvoicesInput,
  ServicePeriod,
  UpdateInvoiceInput,
} from './invoices.schemas.js';
import { recordPayment, settleInvoice } from './payments.service.js';
import { deductDeposits } from './deposits.service.js';
import { postInvoiceEdited, postInvoiceIssued, postInvoiceVoided } from './invoices.ledger.js';
import { guardExternalId, readEinvoicing } from '../shared/index.js';
import { releaseTime } from './invoices.time.js';
import { assertNotFrozen, invoiceSent } from './invoices.freezing.js';

const getRow = (ctx: Context, id: string, lock = false) => getInvoiceRecord(ctx.db, ctx.accountId, id, lock);

function assertDueAfterIssue(issueDate: string | null, dueDate: string | null): void {
  if (issueDate !== null && dueDate !== null && dueDate < issueDate)
    throw fieldError('due_date', 'must not be before issue_date');
}

/** BG-14 as stored: its end not before its start (docs/api-contract.md §31). */
function servicePeriodColumn(period: ServicePeriod | null | undefined): string | null {
  if (!period) return null;
  if (period.end_date < period.start_date) throw fieldError('service_period.end_date', 'must not be before start_date');
  return JSON.stringify({ start_date: period.start_date, end_date: period.end_date });
}

/**
 * The job and quote an invoice is made from. With a job, the job's quote is the invoice's quote unless
 * another is named; a quote named explicitly (other than the job's) must be approved and is converted.
 */
async function resolveSources(
  tx: Context,
  input: CreateInvoiceInput,
): Promise<{ job?: JobRow; quote?: QuoteRow; quoteId: string | null }> {
  const job = input.job_id === undefined ? undefined : await requireJobReference(tx, input.job_id);
  if (job && input.client_id !== undefined && job.client_id !== input.client_id)
    throw fieldError('job_id', 'belongs to another client');
  if (input.quote_id === undefined || input.quote_id === job?.quote_id) return { job, quoteId: job?.quote_id ?? null };
  const quote = await convertQuote(tx, input.quote_id, input.client_id ?? job?.client_id);
  return { job, quote, quoteId: quote.id };
}

/** The invoice a create with this body would store; nothing is stored (docs/api-contract.md §19). */
export function previewInvoice(ctx: Context, input: CreateInvoiceInput): Promise<Invoice> {
  return withoutStoring(ctx, (tx) => createInvoice(tx, input));
}

/**
 * What made an invoice that BMS made itself, read-only on the invoice: a recurring invoice's occurrence
 * (docs/api-contract.md §23), or a reminder step's late fee on another invoice (§32).
 */
export type InvoiceOrigin =
  | { recurring_invoice_id: string; occurrence_date: string }
  | { late_fee_for_invoice_id: string };

export async function createInvoice(ctx: Context, input: CreateInvoiceInput, origin?: InvoiceOrigin): Promise<Invoice> {
  return guardExternalId(ctx, 'invoices', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      const { job, quote, quoteId } = await resolveSources(tx, input);
      const clientId = input.client_id ?? job?.client_id ?? quote?.client_id;
      if (clientId === undefined) throw fieldError('client_id', 'is required unless job_id or quote_id is given');
      const client = await requireClientReference(tx, clientId);
      const servicePeriod = servicePeriodColumn(input.service_period);
      const propertyId = await propertyForNewDocument(
        tx,
        clientId,
        input.property_id,
        job ? job.property_id : quote?.property_id,
      );
      const source = job ?? quote;
      const currency = input.currency ?? source?.currency ?? (await accountCurrency(tx.db, tx.accountId));
      const priced = await pricingForNew(tx, input, { currency, propertyId, source });
      const issueDate = input.issue_date ?? null;
      const dueDate =
        input.due_date !== undefined ? input.due_date : issueDate && (await defaultDueDate(tx, issueDate));
      assertDueAfterIssue(issueDate, dueDate);
      const now = tx.clock.now();
      const row: InvoiceRow = {
        id: newId(),
        external_id: input.external_id ?? null,
        account_id: tx.accountId,
        number: null,
        number_seq: null,
        client_id: clientId,
        property_id: propertyId,
        job_id: job?.id ?? null,
        quote_id: quoteId,
        currency,
        ...priced,
        amount_paid: 0,
        amount_credited: 0,
        notes: input.notes ?? null,
        issue_date: issueDate,
        due_date: dueDate,
        status: 'draft',
        sent_at: null,
        paid_at: null,
        voided_at: null,
        recurring_invoice_id: origin && 'recurring_invoice_id' in origin ? origin.recurring_invoice_id : null,
        occurrence_date: origin && 'occurrence_date' in origin ? origin.occurrence_date : null,
        late_fee_for_invoice_id: origin && 'late_fee_for_invoice_id' in origin ? origin.late_fee_for_invoice_id : null,
        reminders_enabled: input.reminders_enabled === false ? 0 : 1,
        buyer_reference:
          input.buyer_reference !== undefined
            ? input.buyer_reference
            : readEinvoicing(client.einvoicing).buyer_reference,
        purchase_order: input.purchase_order ?? null,
        delivery_date: input.delivery_date ?? null,
        service_period: servicePeriod,
        einvoice: null,
        delivery_id: null,
        delivery_status: null,
        hosted_token: null,
        hosted_url: null,
        hosted_recipient: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        custom_fields: '{}',
        tags: '[]',
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      row.custom_fields = await createdCustomFields(tx, 'invoice', row, input.custom_fields, origin !== undefined);
      row.tags = (await writeTags(tx, 'invoice', row, input.tags, undefined)) ?? '[]';
      await repository.insertInvoice(tx.db, row);
      const timezone = await findAccountTimezone(tx.db, tx.accountId);
      const invoice = presentInvoice(invoiceRecord(row, [], 0, timezone), now);
      await recordEvent(tx, 'invoice.created', invoice);
      return invoice;
    }),
  );
}

export async function getInvoice(ctx: Context, id: string, now: Date): Promise<Invoice> {
  return presentInvoice(await getRow(ctx, id), now);
}

export async function updateInvoice(
  ctx: Context,
  id: string,
  input: UpdateInvoiceInput,
  precondition?: Precondition,
): Promise<Invoice> {
  return guardExternalId(
    ctx,
    'invoices',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentInvoice(current, tx.clock.now()));
        const from = current.status as InvoiceStatus;
        const {
          status,
          metadata,
          custom_fields: _customFields,
          tags: _tags,
          reminders_enabled: remindersEnabled,
          line_items: lineItems,
          prices_include_tax: _inclusive,
          rounding: _rounding,
          discount: _discount,
          property_id: _property,
          service_period: servicePeriod,
          ...fields
        } = input;
        if (Object.keys(input).some((key) => key !== 'status')) assertEditable(INVOICE_LIFECYCLE, from);
        assertNotFrozen(current, input);
        if (status !== undefined) assertMove(INVOICE_LIFECYCLE, from, status);
        assertClientKept(
          current.client_id,
          fields.client_id,
          current.job_id !== null
            ? 'the invoice was made from a job'
            : current.quote_id !== null
              ? 'the invoice was made from a quote'
              : undefined,
        );
        assertCurrencyKept(current, fields.currency, current.payments_count);
        if (fields.client_id !== undefined) {
          await requireClientReference(tx, fields.client_id);
          if (current.payments_count > 0 && fields.client_id !== current.client_id)
            throw fieldError('client_id', 'cannot change: payments are recorded against this invoice');
          if (Number(current.amount_credited) > 0 && fields.client_id !== current.client_id)
            throw fieldError('client_id', 'cannot change: credit is applied to this invoice');
        }
        const property = await propertyOnUpdate(tx, current, input);
        const now = tx.clock.now();
        if (Object.keys(input).length === 0) return presentInvoice(current, now);
        const values = await updatedCustomFields(tx, 'invoice', current, input.custom_fields, current.custom_fields);
        const tags = await writeTags(tx, 'invoice', current, input.tags, current.tags);
        // Custom fields and tags named with the values they hold change nothing: no write, updated_at kept.
        if (
          values === undefined &&
          tags === undefined &&
          Object.keys(input).every((key) => key === 'custom_fields' || key === 'tags')
        )
          return presentInvoice(current, now);

        const priced = await pricingForUpdate(tx, current, input, propertyAfter(current, property));
        assertHolds(INVOICE_LIFECYCLE, status ?? from, { ...fields, ...priced }, from);
        const patch: Partial<InvoiceRow> = {
          ...fields,
          ...property,
          ...hostedLinkOnClientChange(current, fields.client_id, tx.links),
          updated_at: now.toISOString(),
        };
        if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
        if (values !== undefined) patch.custom_fields = values;
        if (tags !== undefined) patch.tags = tags;
        if (servicePeriod !== undefined) patch.service_period = servicePeriodColumn(servicePeriod);
        if (remindersEnabled !== undefined) patch.reminders_enabled = remindersEnabled ? 1 : 0;
        if (priced.total_amount !== undefined) {
          Object.assign(patch, priced);
          const held = Number(current.amount_paid) + Number(current.amount_credited);
          if (Number(patch.total_amount) < held)
            throw fieldError(
              'line_items',
              `the total would be below the ${held} already paid or credited; refund or unapply first`,
            );
        }
        assertDueAfterIssue(
          patch.issue_date !== undefined ? patch.issue_date : current.issue_date,
          patch.due_date !== undefined ? patch.due_date : current.due_date,
        );
        if (status === 'sent' && from !== 'sent')
          Object.assign(patch, await invoiceSentColumns(tx, { ...current, ...patch }));
        // Paid is reached by payments (below), never stamped here.
        if (status === 'void') Object.assign(patch, enter(INVOICE_LIFECYCLE, from, status, now.toISOString()));
        let updated = withExtrasOf(
          (await repository.updateInvoice(tx.db, tx.accountId, current.id, patch)) ?? current,
          current,
        );
        // The first send's ledger entry, deposits and e-invoice, as the send makes them, before the event shows them.
        if (from === 'draft' && updated.status === 'sent' && (await issueAndFreeze(tx, current, updated, true)))
          updated = await getRow(tx, current.id);
        // A time line left out, or the invoice voided, releases the entries it billed (contract §29).
        if (status === 'void') await releaseTime(tx, current.id, current, null);
        else if (priced.line_items !== undefined) await releaseTime(tx, current.id, current, updated);
        const edited = presentInvoice(updated, now);
        await recordChange(tx, {
          resource: 'invoice',
          before: presentInvoice(current, now),
          after: edited,
          statusEvents: INVOICE_LIFECYCLE.events,
        });
        // The ledger first: the edit or the void of what this PUT changed (the issue is posted above).
        if (from === 'sent' && updated.status === 'void') await postInvoiceVoided(tx, updated);
        else if (from === 'sent') await postInvoiceEdited(tx, current, updated);
        // Marking paid records the rest as a payment (method `other`), so the balance always comes from payments.
        if (status === 'paid' && from !== 'paid') await payInFull(tx, updated, edited);
        else if (lineItems !== undefined && Number(updated.amount_paid) + Number(updated.amount_credited) > 0)
          await settleInvoice(tx, updated, edited);
        return presentInvoice(await getRow(tx, current.id), now);
      }),
    id,
  );
}

/** The row with what `record` read beside it (payments, applications, reminders, zone): unchanged by the write. */
const withExtrasOf = (row: InvoiceRow, record: InvoiceRecord): InvoiceRecord =>
  invoiceRecord(
    row,
    record.payments,
    record.payments_count,
    record.timezone,
    record.applications,
    record.applications_count,
    record.reminder_steps,
    record.reminder_settings,
  );

/**
 * What follows marking an invoice sent, in its transaction and in this order on every path (the send, `PUT
 * {status: "sent"}`): the first send issues it (its ledger entry) and deducts its quote's deposits (contract
 * §23); then a send (`freeze`) freezes its e-invoice, whose BT-113 counts those deposits as paid (§31, §32).
 * Answers whether the row changed since `updated`.
 */
async function issueAndFreeze(tx: Context, before: InvoiceRow, updated: InvoiceRow, freeze: boolean): Promise<boolean> {
  let changed = false;
  if (before.status === 'draft' && updated.status === 'sent') {
    await postInvoiceIssued(tx, updated);
    changed = await deductDeposits(tx, updated);
  }
  if (freeze) {
    const current = changed ? await getRow(tx, updated.id) : updated;
    if ((await invoiceSent(tx, current)) !== current) changed = true;
  }
  return changed;
}

async function payInFull(tx: Context, invoice: InvoiceRow, before: Invoice): Promise<void> {
  const due = Number(invoice.total_amount) - Number(invoice.amount_paid) - Number(invoice.amount_credited);
  if (due > 0) await recordPayment(tx, invoice, { amount: due, method: 'other' });
  else await settleInvoice(tx, invoice, before);
}

/** What sent-documents needs to send an invoice, or replace its hosted link. */
export const SENDABLE_INVOICE: SendableKind<InvoiceRecord, Invoice> = {
  kind: 'invoice',
  lock: (tx, id) => getRow(tx, id, true),
  sentColumns: invoiceSentColumns,
  update: async (tx, row, patch) => {
    const updated = (await repository.updateInvoice(tx.db, tx.accountId, row.id, patch)) ?? row;
    // A send (not a link's rotation) freezes the e-invoice; the first one issues the invoice before.
    if (await issueAndFreeze(tx, row, updated, 'sent_at' in patch)) return getRow(tx, row.id);
    return withExtrasOf(updated, row);
  },
  present: presentInvoice,
};

export async function deleteInvoice(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    const invoice = presentInvoice(current, tx.clock.now());
    precondition?.(invoice);
    assertDeletable(INVOICE_LIFECYCLE, current.status as InvoiceStatus);
    await releaseTime(tx, current.id, current, null);
    await deleteCustomFieldValues(tx.db, tx.accountId, 'invoice', current.id);
    await deleteObjectTags(tx, 'invoice', current.id);
    await deleteAttachmentsOf(tx, 'invoice', current.id);
    await repository.deleteInvoice(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'invoice.deleted', invoice);
    return { id: current.id, deleted: true as const };
  });
}

export async function listInvoices(ctx: Context, query: ListInvoicesInput, now: Date): Promise<Page<InvoiceRecord>> {
  const { db, accountId } = ctx;
  const page = pageRequest(query, repository.INVOICE_SORTS);
  const { overdue, ...filters } = query;
  const statuses = parseStatusFilter(query.status, INVOICE_STATUSES);
  // One read of the account's zone serves the overdue filter and every invoice's is_overdue.
  const timezone = await findAccountTimezone(db, accountId);
  const today = localToday(now, timezone);
  const custom = [
    ...(await customFieldConditions(db, accountId, 'invoice', 'invoices', query)),
    ...(await tagConditions(db, accountId, 'invoice', 'invoices', query)),
  ];
  const { rows, resumeAfter } = await repository.listInvoices(
    db,
    accountId,
    { ...filters, statuses, overdue: overdue === undefined ? undefined : { today, wanted: overdue }, custom },
    page,
  );
  return toPage<InvoiceRecord>(await withPayments(db, accountId, rows, timezone), page, resumeAfter);
}
