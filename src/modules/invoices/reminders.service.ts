// Payment reminders (docs/api-contract.md §23, §32): a step is one transaction under the invoice's lock: the row
// unique per (invoice, step), the late fee as a line of its own with its `late_fee` ledger entry (with e-invoicing
// on, as an invoice of its own, sent beside the reminder, §32), the e-mail queued in the outbox as a reminder,
// and `invoice.reminder_sent`. The steps owed are the account's schedule
// read against the invoice (accounts' readReminders): only the latest due step goes, once, never on a paid or
// void invoice (checked under the lock). A reminder the outbox finds paid, void or switched off when it takes it
// is cancelled there (sent-documents' deliveries).
import { depositReceivedOn } from './applications.repository.js';
import { newId } from '../../core/deps.js';
import { AppError } from '../../core/errors.js';
import type { ClientRow, InvoicePatch } from '../../db/types.js';
import { localDate } from '../../core/time.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import {
  findAccountReminders,
  readReminders,
  type ReminderSettings,
  reminderSettings,
  type ReminderStep,
} from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { readEinvoicing } from '../shared/index.js';
import { addDays, multiplyDivideRounded, pricingWithAddedLines, queueDocumentMail } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { postLateFee } from './invoices.ledger.js';
import { invoiceSentColumns } from './invoices.lifecycle.js';
import {
  getInvoiceRecord,
  type InvoiceRecord,
  type InvoiceReminder,
  invoiceRecord,
  presentInvoice,
} from './invoices.presenter.js';
import type { Invoice } from './invoices.schemas.js';
import { createInvoice, SENDABLE_INVOICE } from './invoices.service.js';
import * as repository from './invoices.repository.js';
import { insertInvoiceReminder, listReminderCandidates } from './reminders.repository.js';

/** Invoices read per page of an account's pass. */
const PAGE = 100;

/**
 * The fee of a step on an amount due (before the fee), or 0: an amount fee is its value; a percent fee is that
 * share of the amount due, halves away from zero, exactly. Only on invoices in the account's currency (§32).
 */
export function lateFeeOf(step: ReminderStep, amountDue: number, currency: string, accountCurrency: string): number {
  const fee = step.late_fee;
  if (fee === null || currency !== accountCurrency || amountDue <= 0) return 0;
  if (fee.type === 'amount') return fee.value;
  const [whole, fraction = ''] = String(fee.value).split('.');
  const tenThousandths = BigInt(`${whole}${fraction.padEnd(4, '0')}`);
  return Number(multiplyDivideRounded(BigInt(amountDue), tenThousandths, 1_000_000n));
}

/**
 * Thrown inside a step's transaction when the late fee's own invoice cannot be issued (its client asks for an
 * e-invoice the fee cannot be, a rate of the step is refused): the transaction rolls back and the step goes
 * again without the fee, so one invoice never holds back its reminders, nor the account's pass.
 */
class FeeInvoiceRefused extends Error {
  override name = 'FeeInvoiceRefused';
}

/** Sends the reminder step the invoice is owed now, if any; whether one was sent. */
export async function sendDueReminder(ctx: Context, invoiceId: string): Promise<boolean> {
  try {
    return await remind(ctx, invoiceId, true);
  } catch (error) {
    // Inside a caller's transaction nothing rolls back: the refusal is the caller's to handle.
    if (!(error instanceof FeeInvoiceRefused) || ctx.db.isTransaction) throw error;
    return remind(ctx, invoiceId, false);
  }
}

/** A late fee's one line (docs/api-contract.md §23): "Late fee (reminder n)", quantity 1, the step's rates. */
function feeLine(step: number, fee: number, rates: readonly string[]) {
  return { description: `Late fee (reminder ${step})`, quantity: 1, unit_amount: fee, tax_rate_ids: [...rates] };
}

/**
 * The step's fee as an invoice of its own, sent (docs/api-contract.md §32): one line, its notes citing the
 * original's number, `late_fee_for_invoice_id` naming it, in the original's currency and pricing (net or gross,
 * rounding), without its discount, property or reminders (no fee is charged on a fee). It is issued by its
 * `late_fee` entry (postInvoiceIssued), frozen as an e-invoice when it can be one, and e-mailed as its own
 * delivery, with its own `invoice.created` and `invoice.sent`.
 */
async function issueFeeInvoice(
  tx: Context,
  original: InvoiceRecord,
  client: ClientRow,
  step: number,
  fee: number,
  rates: readonly string[],
): Promise<Invoice> {
  try {
    const draft = await createInvoice(
      tx,
      {
        client_id: original.client_id,
        property_id: null,
        currency: original.currency,
        prices_include_tax: Number(original.prices_include_tax) === 1,
        rounding: original.rounding as 'per_line' | 'per_document',
        discount: null,
        line_items: [feeLine(step, fee, rates)],
        notes: `Late fee on invoice ${original.number} (reminder ${step}).`,
        reminders_enabled: false,
        buyer_reference: original.buyer_reference ?? null,
        purchase_order: original.purchase_order ?? null,
      },
      { late_fee_for_invoice_id: original.id },
    );
    const record = await getInvoiceRecord(tx.db, tx.accountId, draft.id, true);
    const now = tx.clock.now();
    const deliveryId = newId();
    const updated = await SENDABLE_INVOICE.update(tx, record, {
      ...(await invoiceSentColumns(tx, record, client)),
      delivery_id: deliveryId,
      delivery_status: 'queued',
      updated_at: now.toISOString(),
    });
    const sent = presentInvoice(updated, now);
    await recordEvent(tx, 'invoice.sent', sent, { previous_attributes: previousAttributes(draft, sent) });
    await queueDocumentMail(tx, client, { kind: 'invoice', deliveryId, document: sent, message: null });
    return sent;
  } catch (error) {
    if (error instanceof AppError) throw new FeeInvoiceRefused(error.message, { cause: error });
    throw error;
  }
}

/**
 * One step in one transaction. The fee is a line of the invoice, or, with e-invoicing on (or on an invoice whose
 * e-invoice is frozen, whose figures never change), an invoice of its own; `withFee` false: none.
 */
async function remind(ctx: Context, invoiceId: string, withFee: boolean): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const current = await getInvoiceRecord(tx.db, tx.accountId, invoiceId, true);
    const now = tx.clock.now();
    const before = presentInvoice(current, now);
    if (before.status !== 'sent' || before.amount_due <= 0 || !before.reminders_enabled) return false;
    const account = await findAccountReminders(tx.db, tx.accountId);
    if (!account) return false;
    const settings = reminderSettings(account.reminders);
    const steps = current.reminder_steps.map((one) => one.step);
    const { due } = readReminders(settings, current, steps, account.timezone, now);
    if (due === undefined) return false;
    const client = await getClientRow(tx, current.client_id);
    // No address to remind: nothing is sent and nothing charged; the step is looked at again next pass.
    if (!client.email) return false;

    const step = settings.steps[due - 1]!;
    // No fee on a fee: a late fee's own invoice, if its reminders are switched on, is reminded without one.
    const charged = withFee && (current.late_fee_for_invoice_id ?? null) === null;
    const fee = charged ? lateFeeOf(step, before.amount_due, current.currency, account.currency) : 0;
    const rates = step.late_fee?.tax_rate_ids ?? [];
    const separate = readEinvoicing(account.einvoicing).einvoicing_enabled || (current.einvoice ?? null) !== null;
    const feeInvoice = fee > 0 && separate ? await issueFeeInvoice(tx, current, client, due, fee, rates) : undefined;
    const patch: InvoicePatch = { updated_at: now.toISOString() };
    if (fee > 0 && !separate)
      Object.assign(patch, await pricingWithAddedLines(tx, current, [feeLine(due, fee, rates)], current.property_id));
    const updated = (await repository.updateInvoice(tx.db, tx.accountId, current.id, patch))!;
    if (fee > 0 && !separate) await postLateFee(tx, current, updated);
    const sentAt = now.toISOString();
    const reminder: InvoiceReminder = {
      step: due,
      sent_at: sentAt,
      delivery_id: newId(),
      late_fee_amount: fee > 0 ? fee : null,
      late_fee_invoice_id: feeInvoice?.id ?? null,
    };
    await insertInvoiceReminder(tx.db, {
      id: newId(),
      account_id: tx.accountId,
      invoice_id: current.id,
      ...reminder,
      created_at: sentAt,
    });
    const row = invoiceRecord(
      updated,
      current.payments,
      current.payments_count,
      current.timezone,
      current.applications,
      current.applications_count,
      [...current.reminder_steps, reminder],
      current.reminder_settings,
    );
    const after = presentInvoice(row, now);
    await queueDocumentMail(tx, client, {
      kind: 'invoice',
      deliveryId: reminder.delivery_id,
      document: { ...after, deposit_received: await depositReceivedOn(tx.db, tx.accountId, current.id) },
      message: null,
      reminderStep: due,
      lateFeeInvoice: feeInvoice,
    });
    await recordEvent(tx, 'invoice.reminder_sent', after, { previous_attributes: previousAttributes(before, after) });
    return true;
  });
}

/** The earliest due date whose invoice a step can be owed today: today less the first step's days. */
function latestDueDate(settings: ReminderSettings, zone: string, now: Date): string {
  const first = settings.steps[0]!.days;
  // A day's margin: a step's moment is its local day at send_time, whatever the hour now.
  return addDays(localDate(now, zone), -first + 1);
}

/** One pass over an account: each candidate invoice gets the step it is owed now; how many reminders went. */
export async function sendAccountReminders(ctx: Context): Promise<number> {
  const account = await findAccountReminders(ctx.db, ctx.accountId);
  if (!account) return 0;
  const settings = reminderSettings(account.reminders);
  if (!settings.enabled || settings.steps.length === 0) return 0;
  const dueBy = latestDueDate(settings, account.timezone, ctx.clock.now());
  let sent = 0;
  let after: string | undefined;
  for (;;) {
    const page = await listReminderCandidates(ctx.db, ctx.accountId, dueBy, after, PAGE);
    for (const { id } of page) if (await sendDueReminder(ctx, id)) sent += 1;
    if (page.length < PAGE) return sent;
    after = page[page.length - 1]!.id;
  }
}
