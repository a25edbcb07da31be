// The invoice as the API shows it: its row, its payments, and is_overdue as of a given day.
import { type Executor, fromJson } from '../../db/index.js';
import type { InvoiceRow } from '../../db/types.js';
import type { DeliveryStatus } from '../documents/index.js';
import { localToday, presentPriced } from '../documents/index.js';
import {
  DEFAULT_REMINDERS,
  findAccountReminders,
  findAccountTimezone,
  readReminders,
  type ReminderSettings,
  reminderSettings,
} from '../accounts/index.js';
import { listInvoiceReminders } from './reminders.repository.js';
import { presentHostedUrl } from '../documents/index.js';
import { listRecentPaymentsOfInvoices } from './payments.repository.js';
import type { InvoiceApplication, InvoicePayment, PaymentMethod } from './payments.schemas.js';
import { listRecentApplications } from './applications.repository.js';
import { storedValues } from '../custom-fields/index.js';
import { storedTags } from '../tags/index.js';
import { requireRow } from '../shared/index.js';
import { findInvoice } from './invoices.repository.js';
import type { Invoice, InvoiceEinvoice, ServicePeriod } from './invoices.schemas.js';

/**
 * An invoice row with its payments as the invoice object lists them (the 20 most recent, and how many there
 * are: docs/api-contract.md §21), and the account's time zone, whose local day decides is_overdue (§14).
 */
export type InvoiceRecord = InvoiceRow & {
  payments: InvoicePayment[];
  payments_count: number;
  timezone: string;
  applications: InvoiceApplication[];
  applications_count: number;
  /** The reminder steps sent for it, and the account's schedule (its next_reminder_at). */
  reminder_steps: InvoiceReminder[];
  reminder_settings: ReminderSettings;
};

export type InvoiceReminder = Invoice['reminders'][number];

/**
 * The row made into its record in place, not copied: on Node 20 (V8 11.3) a property written after a spread in
 * an object literal is slow, so `{ ...row, payments, payments_count, timezone }` over an invoice's 35 columns,
 * and its garbage, would be a large share of a 100-invoice page's CPU time (bench/README.md has the figures).
 * Rows are the repository's own fresh objects, used once.
 */
export function invoiceRecord(
  row: InvoiceRow,
  payments: InvoicePayment[],
  paymentsCount: number,
  timezone: string,
  applications: InvoiceApplication[] = [],
  applicationsCount = 0,
  reminderSteps: InvoiceReminder[] = [],
  settings: ReminderSettings = DEFAULT_REMINDERS,
): InvoiceRecord {
  const record = row as InvoiceRecord;
  record.payments = payments;
  record.payments_count = paymentsCount;
  record.timezone = timezone;
  record.applications = applications;
  record.applications_count = applicationsCount;
  record.reminder_steps = reminderSteps;
  record.reminder_settings = settings;
  return record;
}

/** `now` decides is_overdue (on the account's local day), so the same row reads differently tomorrow. */
export function presentInvoice(row: InvoiceRecord, now: Date): Invoice {
  const priced = presentPriced(row);
  const amountPaid = Number(row.amount_paid);
  const amountCredited = Number(row.amount_credited);
  const amountDue = row.status === 'void' ? 0 : priced.total_amount - amountPaid - amountCredited;
  const remindersOn = Number(row.reminders_enabled) === 1;
  // The priced fields written one by one, in presentPriced's order: not `...priced`, which would make each
  // field after it a slow definition (see invoiceRecord).
  return {
    id: row.id,
    object: 'invoice',
    external_id: row.external_id,
    number: row.number,
    client_id: row.client_id,
    property_id: row.property_id,
    job_id: row.job_id,
    quote_id: row.quote_id,
    currency: priced.currency,
    line_items: priced.line_items,
    prices_include_tax: priced.prices_include_tax,
    rounding: priced.rounding,
    discount: priced.discount,
    discount_amount: priced.discount_amount,
    subtotal_amount: priced.subtotal_amount,
    tax_amount: priced.tax_amount,
    total_amount: priced.total_amount,
    tax_breakdown: priced.tax_breakdown,
    amount_paid: amountPaid,
    amount_credited: amountCredited,
    amount_due: amountDue,
    applications: row.applications,
    applications_count: row.applications_count,
    payments: row.payments,
    payments_count: row.payments_count,
    notes: row.notes,
    issue_date: row.issue_date,
    due_date: row.due_date,
    status: row.status,
    is_overdue: row.status === 'sent' && row.due_date !== null && row.due_date < localToday(now, row.timezone),
    sent_at: row.sent_at,
    delivery_status: row.delivery_status as DeliveryStatus | null,
    hosted_url: presentHostedUrl(row),
    paid_at: row.paid_at,
    voided_at: row.voided_at,
    recurring_invoice_id: row.recurring_invoice_id,
    occurrence_date: row.occurrence_date,
    late_fee_for_invoice_id: row.late_fee_for_invoice_id ?? null,
    buyer_reference: row.buyer_reference ?? null,
    purchase_order: row.purchase_order ?? null,
    delivery_date: row.delivery_date ?? null,
    service_period: row.service_period ? fromJson<ServicePeriod>(row.service_period) : null,
    einvoice: row.einvoice ? fromJson<InvoiceEinvoice>(row.einvoice) : null,
    reminders_enabled: remindersOn,
    reminders: row.reminder_steps,
    next_reminder_at:
      row.status === 'sent' && amountDue > 0 && remindersOn
        ? readReminders(
            row.reminder_settings,
            row,
            row.reminder_steps.map((one) => one.step),
            row.timezone,
            now,
          ).next_at
        : null,
    metadata: fromJson(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    tags: storedTags(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function withPayments(
  db: Executor,
  accountId: string,
  rows: InvoiceRow[],
  timezone: string,
): Promise<InvoiceRecord[]> {
  const ids = rows.map((row) => row.id);
  const { payments, counts } = await listRecentPaymentsOfInvoices(db, accountId, ids);
  const applied = await listRecentApplications(db, accountId, 'invoice_id', ids);
  // Drafts have no reminders; a draft read to be sent needs the schedule (its next_reminder_at once sent).
  const reminded = rows.filter((row) => row.status !== 'draft').map((row) => row.id);
  const steps = await listInvoiceReminders(db, accountId, reminded);
  const settings = rows.some((row) => row.status === 'sent' || row.status === 'draft')
    ? reminderSettings((await findAccountReminders(db, accountId))?.reminders ?? null)
    : DEFAULT_REMINDERS;
  return rows.map((row) =>
    invoiceRecord(
      row,
      payments
        .filter((payment) => payment.invoice_id === row.id)
        .map((payment) => ({
          id: payment.id,
          amount: Number(payment.amount),
          amount_refunded: Number(payment.amount_refunded),
          method: payment.method as PaymentMethod,
          paid_at: payment.paid_at,
        })),
      counts.get(row.id) ?? 0,
      timezone,
      applied.applications
        .filter((application) => application.invoice_id === row.id)
        .map((application) => ({
          id: application.id,
          source: {
            type: application.source_type as 'payment' | 'credit_note',
            id: (application.payment_id ?? application.credit_note_id)!,
          },
          amount: Number(application.amount),
          applied_on: application.applied_on,
        })),
      applied.counts.get(row.id) ?? 0,
      steps
        .filter((step) => step.invoice_id === row.id)
        .map((step) => ({
          step: Number(step.step),
          sent_at: step.sent_at,
          delivery_id: step.delivery_id,
          late_fee_amount: step.late_fee_amount === null ? null : Number(step.late_fee_amount),
          late_fee_invoice_id: step.late_fee_invoice_id ?? null,
        })),
      settings,
    ),
  );
}

/** The addressed invoice with its payments (404 when there is none in the account). */
export async function getInvoiceRecord(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<InvoiceRecord> {
  const row = await requireRow('invoice', id, (found) => findInvoice(db, accountId, found, lock));
  return (await withPayments(db, accountId, [row], await findAccountTimezone(db, accountId)))[0]!;
}
