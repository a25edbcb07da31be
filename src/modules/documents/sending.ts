// What sending a quote and sending an invoice share (docs/api-contract.md §7): the checks, made the same way
// for the send operation and for `PUT {status: "sent"}`, and the e-mail queued in the outbox inside the
// caller's transaction, so a document is never marked sent without its message, nor the reverse.
import { invalidState, validationError, type ErrorDetail } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import type { Executor } from '../../db/index.js';
import type { ClientRow } from '../../db/types.js';
import type { MailField, MailLineItem, MailSnapshot, MailTaxRow } from '../../mail/document-mail.js';
import { readDefinitions } from '../custom-fields/index.js';
import { enqueueMessage } from '../../mail/outbox.repository.js';
import { findAccount } from '../accounts/index.js';
import { findTaxRates } from '../catalog/index.js';
import { businessOnDocument, DEFAULT_LOCALE, effectivePaperSize, printSettings } from '../accounts/index.js';
import { serviceAddressOf } from '../properties/index.js';
import { presentAddress, readEinvoicing } from '../shared/index.js';
import { lineItemsOf, localToday } from './priced.js';

export type SentKind = 'quote' | 'invoice' | 'credit_note';

/**
 * What sending a document and replacing its hosted link need from its kind (quotes and invoices each
 * export one; sent-documents runs the operations once for both).
 */
export interface SendableKind<Row, Item> {
  kind: SentKind;
  /** The document, locked until the transaction ends (404 when the account has none with that id). */
  lock(tx: Context, id: string): Promise<Row>;
  /** The columns that mark it sent (number, link, dates, sent_at), after the send checks; `client` when e-mailed. */
  sentColumns(tx: Context, row: Row, client?: ClientRow): Promise<object>;
  /** Writes `patch` and returns the document as it now is. */
  update(tx: Context, row: Row, patch: object): Promise<Row>;
  present(row: Row, now: Date): Item;
}

/**
 * 409 INVALID_STATE unless the document's status is one it may be sent from; then 422 with every
 * missing piece: a line item, and, when it is e-mailed (`recipient` given), the client's address.
 */
export function assertSendable(
  kind: SentKind,
  sendable: readonly string[],
  document: { status: string; line_items: string },
  recipient?: ClientRow,
): void {
  if (!sendable.includes(document.status))
    throw invalidState(`This ${kind} is '${document.status}'; only ${sendable.join(' or ')} ${kind}s can be sent.`);
  const details: ErrorDetail[] = [];
  if (recipient && !recipient.email)
    details.push({ field: 'client.email', message: 'the client has no e-mail address to send to' });
  if (lineItemsOf(document).length === 0)
    details.push({ field: 'line_items', message: `the ${kind} needs at least one line item before it is sent` });
  if (details.length > 0) throw validationError(details, `This ${kind} cannot be sent yet.`);
}

/** 409 unless the document has a hosted link to rotate: it was sent, and is not a draft again or void. */
export function assertHasHostedLink(kind: SentKind, document: { status: string; hosted_token: string | null }): void {
  if (document.status === 'draft' || document.status === 'void' || document.hosted_token === null) {
    throw invalidState(`This ${kind} is '${document.status}' and has no hosted link; it gets one when it is sent.`);
  }
}

/** What a quote or an invoice (as the API presents it) gives its printed form; the kind-specific fields are optional. */
export interface PrintableDocument {
  id: string;
  number: string | null;
  status: string;
  updated_at: string;
  currency: string;
  prices_include_tax: boolean;
  line_items: Array<
    MailLineItem & { tax_amount: number; discount_amount: number; taxes: Array<{ percentage: number }> }
  >;
  subtotal_amount: number;
  tax_amount: number;
  tax_breakdown: Array<MailTaxRow & { tax_rate_id: string | null }>;
  discount_amount: number;
  total_amount: number;
  notes: string | null;
  /** The property whose address is printed as the service address (docs/api-contract.md §16). */
  property_id?: string | null;
  title?: string | null;
  valid_until?: string | null;
  amount_paid?: number;
  amount_credited?: number;
  amount_due?: number;
  amount_applied?: number;
  amount_remaining?: number;
  /** Quotes: the deposit asked, what its payments hold and what is still due (contract §23). */
  deposit_amount?: number;
  deposit_paid_amount?: number;
  deposit_due_amount?: number;
  /** Invoices: what deposits applied to it hold (contract §23: "Deposit received"); added by the printing caller. */
  deposit_received?: number;
  /** Quotes: the latest hub signature (contract §30), printed while valid on an approved or converted quote. */
  signature?: {
    signer_name: string;
    signed_at: string;
    document_sha256: string;
    invalidated_at: string | null;
    image_attachment_id?: string | null;
  } | null;
  issue_date?: string | null;
  due_date?: string | null;
  hosted_url?: string | null;
  /** A quote's issue date is the day it was (last) sent, or made while a draft. */
  sent_at?: string | null;
  created_at?: string;
  /** Its custom field values by key (the printable ones are printed, docs/api-contract.md §27). */
  custom_fields?: Record<string, unknown>;
}

/** The document's printable custom fields that hold a value, by position, as a printed form carries them. */
async function printedFields(
  db: Executor,
  accountId: string,
  kind: SentKind,
  document: PrintableDocument,
): Promise<MailField[]> {
  const values = document.custom_fields;
  if ((kind !== 'quote' && kind !== 'invoice') || values === undefined || Object.keys(values).length === 0) return [];
  const definitions = await readDefinitions(db, accountId, kind);
  const printed = definitions.fields.filter((field) => field.printable).sort((a, b) => a.position - b.position);
  const fields: MailField[] = [];
  for (const field of printed) {
    const value = values[field.key];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    const optionLabel = (option: unknown) => field.options.find((one) => one.value === option)?.label ?? String(option);
    if (field.type === 'money') fields.push({ label: field.label, amount: value as number });
    else if (field.type === 'date') fields.push({ label: field.label, date: value as string });
    else if (field.type === 'boolean') fields.push({ label: field.label, text: value ? 'Yes' : 'No' });
    else if (field.type === 'select') fields.push({ label: field.label, text: optionLabel(value) });
    else if (field.type === 'multi_select')
      fields.push({ label: field.label, text: (value as unknown[]).map(optionLabel).join(', ') });
    else fields.push({ label: field.label, text: String(value) });
  }
  return fields;
}

/**
 * The issue date a document prints: an invoice's own; a quote's, which has no such field, the account's local
 * day of its last send (of its creation while a draft), so a quote shows when it was issued beside its expiry.
 */
function printedIssueDate(kind: SentKind, document: PrintableDocument, timezone: string | undefined): string | null {
  if (document.issue_date) return document.issue_date;
  const issued = kind === 'quote' ? (document.sent_at ?? document.created_at) : undefined;
  return issued ? localToday(new Date(issued), timezone ?? 'UTC') : null;
}

/**
 * The tax breakdown as printed: a rate's exemption reason and code (docs/api-contract.md §31) beside its row when it
 * has either. Read from the rate: they are frozen with its percentage once a document uses it (§19).
 */
async function printedTaxRows(
  db: Executor,
  accountId: string,
  breakdown: PrintableDocument['tax_breakdown'],
): Promise<MailTaxRow[]> {
  const ids = breakdown.flatMap((row) => row.tax_rate_id ?? []);
  const rates = new Map(ids.length > 0 ? (await findTaxRates(db, accountId, ids)).map((rate) => [rate.id, rate]) : []);
  return breakdown.map(({ tax_rate_id, name, registration_number, percentage, tax_amount }) => {
    const rate = tax_rate_id === null ? undefined : rates.get(tax_rate_id);
    const reason = rate?.exemption_reason ?? null;
    const code = rate?.exemption_reason_code ?? null;
    return {
      name,
      registration_number,
      percentage,
      tax_amount,
      ...(reason !== null || code !== null ? { exemption_reason: reason, exemption_reason_code: code } : {}),
    };
  });
}

/**
 * The document as its PDF and e-mail print it: the business profile and the client as they are now, the
 * document at its current revision. The e-mail freezes this at send time; GET …/pdf builds it afresh.
 */
export async function documentSnapshot(
  db: Executor,
  accountId: string,
  kind: SentKind,
  document: PrintableDocument,
  client: ClientRow,
  message: string | null,
): Promise<MailSnapshot> {
  const account = await findAccount(db, accountId);
  const fields = await printedFields(db, accountId, kind, document);
  return {
    kind,
    ...(account
      ? printSettings(account)
      : { locale: DEFAULT_LOCALE, paper_size: effectivePaperSize(null, null, DEFAULT_LOCALE), timezone: 'UTC' }),
    business: account ? businessOnDocument(account, kind) : { name: 'BMS' },
    client: {
      name: client.name,
      email: client.email,
      company_name: client.company_name,
      address: presentAddress(client.address),
    },
    // Name and address only: a property's access notes are never printed (docs/api-contract.md §16).
    service_address: await serviceAddressOf(db, accountId, document.property_id),
    document: {
      id: document.id,
      number: document.number,
      status: document.status,
      updated_at: document.updated_at,
      title: document.title ?? null,
      currency: document.currency,
      prices_include_tax: document.prices_include_tax,
      line_items: document.line_items.map((line) => ({
        name: line.name ?? null,
        description: line.description,
        quantity: line.quantity,
        unit_amount: line.unit_amount,
        tax_rate: line.tax_rate,
        amount: line.amount,
        tax_amount: line.tax_amount,
        discount_amount: line.discount_amount,
        tax_label: line.taxes.length === 0 ? '0%' : line.taxes.map((tax) => `${tax.percentage}%`).join(' + '),
      })),
      subtotal_amount: document.subtotal_amount,
      tax_amount: document.tax_amount,
      tax_breakdown: await printedTaxRows(db, accountId, document.tax_breakdown),
      discount_amount: document.discount_amount,
      total_amount: document.total_amount,
      amount_paid: document.amount_paid ?? null,
      ...(document.amount_credited ? { amount_credited: document.amount_credited } : {}),
      amount_due: document.amount_due ?? null,
      ...(kind === 'credit_note'
        ? { amount_applied: document.amount_applied ?? 0, amount_remaining: document.amount_remaining ?? 0 }
        : {}),
      // A deposit prints only where there is one, so documents without stay the same bytes (their PDF's ETag).
      ...(kind === 'quote' && document.deposit_amount
        ? {
            deposit_amount: document.deposit_amount,
            deposit_paid_amount: document.deposit_paid_amount ?? 0,
            deposit_due_amount: document.deposit_due_amount ?? 0,
          }
        : {}),
      ...(kind === 'invoice' && document.deposit_received ? { deposit_received: document.deposit_received } : {}),
      // A signature prints only where there is a valid one, so other documents stay the same bytes.
      ...(kind === 'quote' &&
      document.signature &&
      document.signature.invalidated_at === null &&
      (document.status === 'approved' || document.status === 'converted')
        ? {
            signature: {
              signer_name: document.signature.signer_name,
              signed_at: document.signature.signed_at,
              document_sha256: document.signature.document_sha256,
              // A drawn one's image (its bytes never change); absent for a typed one, whose bytes stay as they were.
              ...(document.signature.image_attachment_id
                ? { image_attachment_id: document.signature.image_attachment_id }
                : {}),
            },
          }
        : {}),
      issue_date: printedIssueDate(kind, document, account?.timezone),
      due_date: document.due_date ?? null,
      valid_until: document.valid_until ?? null,
      notes: document.notes,
      ...(fields.length > 0 ? { fields } : {}),
    },
    message,
  };
}

/**
 * Puts the document's e-mail in the outbox as delivery `deliveryId`, frozen as it is now, for the worker to
 * deliver. The caller has already marked the document with that delivery (delivery_status queued).
 */
export async function queueDocumentMail(
  tx: Context,
  client: ClientRow,
  mail: {
    kind: SentKind;
    deliveryId: string;
    document: PrintableDocument;
    message: string | null;
    /** A payment reminder's step (docs/api-contract.md §23): the e-mail reminds rather than sends. */
    reminderStep?: number;
    /** The invoice of its own that bills the reminder's late fee (§32): the reminder names and links it. */
    lateFeeInvoice?: { number: string | null; total_amount: number; hosted_url: string | null } | undefined;
  },
): Promise<void> {
  const now = tx.clock.now().toISOString();
  const id = mail.deliveryId;
  // The client's e-invoice rides on an invoice's send (docs/api-contract.md §31); the worker attaches it.
  const einvoiceFormat =
    mail.kind === 'invoice' && mail.reminderStep === undefined
      ? readEinvoicing(client.einvoicing).einvoice_format
      : null;
  const snapshot = {
    ...(await documentSnapshot(tx.db, tx.accountId, mail.kind, mail.document, client, mail.message)),
    hosted_url: mail.document.hosted_url ?? null,
    ...(mail.reminderStep !== undefined ? { reminder_step: mail.reminderStep } : {}),
    ...(mail.lateFeeInvoice
      ? {
          late_fee_invoice: {
            number: mail.lateFeeInvoice.number,
            total_amount: mail.lateFeeInvoice.total_amount,
            hosted_url: mail.lateFeeInvoice.hosted_url,
          },
        }
      : {}),
    ...(einvoiceFormat !== null ? { einvoice_format: einvoiceFormat } : {}),
  };
  await enqueueMessage(tx.db, {
    id,
    account_id: tx.accountId,
    document_type: mail.kind,
    document_id: mail.document.id,
    recipient: String(client.email),
    message_id: `<${id}@bms.outbox>`,
    snapshot: JSON.stringify(snapshot),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_by: null,
    locked_until: null,
    last_error: null,
    delivered_at: null,
    kind: mail.reminderStep !== undefined ? 'reminder' : null,
    reminder_step: mail.reminderStep ?? null,
    created_at: now,
    updated_at: now,
  });
}
