// Making a recurring invoice's occurrences (docs/api-contract.md §23): one occurrence per transaction, under the
// template's row lock, oldest due first. The invoice (what POST /v1/invoices would make then, issue_date the local
// day it is made), its send through §7's outbox with auto_send, its events and the template's new state commit
// together; the unique (recurring_invoice_id, occurrence_date) of invoices backs the lock up across instances. An
// occurrence that cannot be made leaves last_error and is tried again at the next pass; a client without an
// e-mail address leaves the invoice a draft, with last_error. A pause whose paused_until has passed ends here.
import { AppError } from '../../core/errors.js';
import type { RecurringInvoiceRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { localToday } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { createInvoice, SENDABLE_INVOICE } from '../invoices/index.js';
import { sendDocument } from '../sent-documents/index.js';
import { isUniqueViolation } from '../shared/index.js';
import { addDays, dueDates, invoiceInput, readingOf, settledColumns, startOfDay } from './occurrences.js';
import { presentRecurringInvoice } from './recurring-invoices.presenter.js';
import * as repository from './recurring-invoices.repository.js';

/** What one turn did: made an invoice, found nothing due, failed (last_error), or found no template to work on. */
export interface Turn {
  state: 'made' | 'idle' | 'failed' | 'gone';
  /** More is due on this template now. */
  more: boolean;
}

/** A paused template whose paused_until has passed is active again from the day after (event resumed, as system). */
async function resumeWhenOver(tx: Context, row: RecurringInvoiceRow, zone: string): Promise<RecurringInvoiceRow> {
  if (row.status !== 'paused' || row.paused_until === null) return row;
  if (localToday(tx.clock.now(), zone) <= row.paused_until) return row;
  const before = await presentRecurringInvoice(tx, row, zone);
  const resumed = await repository.updateRecurringInvoice(tx.db, tx.accountId, row.id, {
    status: 'active',
    paused_from: null,
    paused_until: null,
    counts_from: startOfDay(addDays(row.paused_until, 1), zone),
    updated_at: tx.clock.now().toISOString(),
  });
  const after = await presentRecurringInvoice(tx, resumed, zone);
  await recordEvent(tx, 'recurring_invoice.resumed', after, { previous_attributes: previousAttributes(before, after) });
  return resumed;
}

/** Writes the template's state after a turn, and its end when its rule gives no more. */
async function settle(
  tx: Context,
  row: RecurringInvoiceRow,
  zone: string,
  made: Map<string, string>,
  patch: Partial<RecurringInvoiceRow>,
): Promise<void> {
  const now = tx.clock.now();
  const next = { ...row, ...patch };
  const columns = settledColumns(next, { zone, now, made }, now);
  const changed =
    Object.keys(patch).length > 0 ||
    columns.next_run_at !== row.next_run_at ||
    columns.status !== row.status ||
    columns.ended_at !== row.ended_at;
  if (!changed) return;
  const updated = await repository.updateRecurringInvoice(tx.db, tx.accountId, row.id, {
    ...patch,
    ...columns,
    updated_at: now.toISOString(),
  });
  if (updated.status === 'ended' && row.status !== 'ended')
    await recordEvent(tx, 'recurring_invoice.ended', await presentRecurringInvoice(tx, updated, zone));
}

/** Makes the template's oldest due occurrence, if any (the worker's turn; ctx acts as system in its account). */
export async function makeNextOccurrence(ctx: Context, id: string): Promise<Turn> {
  let trying: string | undefined;
  try {
    return await inTransaction(ctx, async (tx) => {
      const found = await repository.findRecurringInvoice(tx.db, tx.accountId, id, true);
      if (!found || found.status === 'ended') return { state: 'gone', more: false } as Turn;
      const zone = await findAccountTimezone(tx.db, tx.accountId);
      const row = await resumeWhenOver(tx, found, zone);
      const now = tx.clock.now();
      const reading = await readingOf(tx, row, zone, now);
      const due = dueDates(row, reading);
      const date = due[0];
      const made = new Map(reading.made);
      if (date === undefined) {
        await settle(tx, row, zone, made, {});
        return { state: 'idle', more: false } as Turn;
      }
      trying = date;
      const invoice = await createInvoice(tx, invoiceInput(row, localToday(now, zone)), {
        recurring_invoice_id: row.id,
        occurrence_date: date,
      });
      made.set(date, invoice.id);
      let lastError: string | null = null;
      if (Number(row.auto_send) === 1) {
        const client = await getClientRow(tx, row.client_id);
        if (client.email === null || client.email === '')
          lastError = JSON.stringify({
            occurrence_date: date,
            message: 'The client has no e-mail address: the invoice was made and left a draft, not sent.',
          });
        else await sendDocument(tx, SENDABLE_INVOICE, invoice.id, undefined);
      }
      await settle(tx, row, zone, made, {
        occurrences_made: Number(row.occurrences_made) + 1,
        last_invoice_id: invoice.id,
        last_error: lastError,
      });
      return { state: 'made', more: due.length > 1 } as Turn;
    });
  } catch (error) {
    // Another instance made it first: its unique (recurring_invoice_id, occurrence_date) refused this one.
    if (isUniqueViolation(error)) return { state: 'idle', more: true };
    if (!(error instanceof AppError) || trying === undefined) throw error;
    const date = trying;
    await inTransaction(ctx, async (tx) => {
      const row = await repository.findRecurringInvoice(tx.db, tx.accountId, id, true);
      if (!row) return;
      const detail = error.details?.map((one) => `${one.field}: ${one.message}`).join('; ');
      await repository.updateRecurringInvoice(tx.db, tx.accountId, id, {
        last_error: JSON.stringify({
          occurrence_date: date,
          message: detail ? `${error.message} (${detail})` : error.message,
        }),
        updated_at: tx.clock.now().toISOString(),
      });
    });
    return { state: 'failed', more: false };
  }
}
