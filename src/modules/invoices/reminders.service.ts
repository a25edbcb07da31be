// Payment reminders (docs/api-contract.md §23, §32): a step is one transaction under the invoice's lock: the row
// unique per (invoice, step), the late fee as a line of its own with its `late_fee` ledger entry, the e-mail
// queued in the outbox as a reminder, and `invoice.reminder_sent`. The steps owed are the account's schedule
// read against the invoice (accounts' readReminders): only the latest due step goes, once, never on a paid or
// void invoice (checked under the lock). A reminder the outbox finds paid, void or switched off when it takes it
// is cancelled there (sent-documents' deliveries).
import { depositReceivedOn } from './applications.repository.js';
import { newId } from '../../core/deps.js';
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
import { addDays, multiplyDivideRounded, pricingWithAddedLines, queueDocumentMail } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { postLateFee } from './invoices.ledger.js';
import { getInvoiceRecord, invoiceRecord, presentInvoice } from './invoices.presenter.js';
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

/** Sends the reminder step the invoice is owed now, if any; whether one was sent. */
export async function sendDueReminder(ctx: Context, invoiceId: string): Promise<boolean> {
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
    // A frozen e-invoice's figures never change (contract §32): its reminders go without a fee line. (The late-fee
    // invoice of its own that the contract issues instead is not built yet.)
    const fee =
      (current.einvoice ?? null) !== null ? 0 : lateFeeOf(step, before.amount_due, current.currency, account.currency);
    let row = current;
    if (fee > 0) {
      const priced = await pricingWithAddedLines(
        tx,
        current,
        [
          {
            description: `Late fee (reminder ${due})`,
            quantity: 1,
            unit_amount: fee,
            tax_rate_ids: step.late_fee?.tax_rate_ids ?? [],
          },
        ],
        current.property_id,
      );
      const updated = await repository.updateInvoice(tx.db, tx.accountId, current.id, {
        ...priced,
        updated_at: now.toISOString(),
      });
      await postLateFee(tx, current, updated!);
      row = invoiceRecord(
        updated!,
        current.payments,
        current.payments_count,
        current.timezone,
        current.applications,
        current.applications_count,
        current.reminder_steps,
        current.reminder_settings,
      );
    } else {
      row = invoiceRecord(
        (await repository.updateInvoice(tx.db, tx.accountId, current.id, { updated_at: now.toISOString() }))!,
        current.payments,
        current.payments_count,
        current.timezone,
        current.applications,
        current.applications_count,
        current.reminder_steps,
        current.reminder_settings,
      );
    }
    const deliveryId = newId();
    const sentAt = now.toISOString();
    await insertInvoiceReminder(tx.db, {
      id: newId(),
      account_id: tx.accountId,
      invoice_id: current.id,
      step: due,
      sent_at: sentAt,
      delivery_id: deliveryId,
      late_fee_amount: fee > 0 ? fee : null,
      created_at: sentAt,
    });
    row.reminder_steps = [
      ...current.reminder_steps,
      { step: due, sent_at: sentAt, delivery_id: deliveryId, late_fee_amount: fee > 0 ? fee : null },
    ];
    const after = presentInvoice(row, now);
    await queueDocumentMail(tx, client, {
      kind: 'invoice',
      deliveryId,
      document: { ...after, deposit_received: await depositReceivedOn(tx.db, tx.accountId, current.id) },
      message: null,
      reminderStep: due,
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
