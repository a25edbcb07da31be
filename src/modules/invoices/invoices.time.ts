// Time billed on an invoice (docs/api-contract.md §29): time-entries, which stands above invoices, adds an invoice's
// lines of billed time through `addTimeLines` and registers what releases entries; the invoice's own writes call it
// when a time line is left out of a PUT, when a draft is deleted and when the invoice is voided.
import { invalidState } from '../../core/errors.js';
import type { InvoiceRow } from '../../db/types.js';
import { type Context } from '../../kernel/context.js';
import { assertEditable, type LineItemInput, lineItemsOf, pricingWithAddedLines } from '../documents/index.js';
import { recordChange } from '../events/index.js';
import { INVOICE_LIFECYCLE, type InvoiceStatus } from './invoices.lifecycle.js';
import { getInvoiceRecord, invoiceRecord, presentInvoice } from './invoices.presenter.js';
import * as repository from './invoices.repository.js';
import type { Invoice } from './invoices.schemas.js';

/** Releases the entries of `entryIds` that `invoiceId` bills: their invoice_id cleared, their figures live again. */
export type TimeReleaseListener = (tx: Context, invoiceId: string, entryIds: readonly string[]) => Promise<void>;
let timeRelease: TimeReleaseListener | undefined;

export function onTimeReleased(listener: TimeReleaseListener): void {
  timeRelease = listener;
}

/** The entries an invoice's stored lines bill. */
export function billedEntryIds(row: Pick<InvoiceRow, 'line_items'>): string[] {
  return lineItemsOf(row).flatMap((line) => line.time_entry_ids);
}

/** Releases what `before` billed and `after` no longer does (after null: all of it, the draft deleted or voided). */
export async function releaseTime(
  tx: Context,
  invoiceId: string,
  before: Pick<InvoiceRow, 'line_items'>,
  after: Pick<InvoiceRow, 'line_items'> | null,
): Promise<void> {
  const kept = new Set(after === null ? [] : billedEntryIds(after));
  const released = billedEntryIds(before).filter((id) => !kept.has(id));
  if (released.length > 0 && timeRelease) await timeRelease(tx, invoiceId, released);
}

/** The locked draft invoice that time is billed on (404; another status: 409 INVALID_STATE). */
export async function lockDraftInvoice(tx: Context, id: string) {
  const record = await getInvoiceRecord(tx.db, tx.accountId, id, true);
  const status = record.status as InvoiceStatus;
  assertEditable(INVOICE_LIFECYCLE, status);
  if (status !== 'draft') throw invalidState(`This invoice is '${status}'; time is billed only on a draft invoice.`);
  return record;
}

/** Adds lines of billed time (their `kept` names the entries) to a locked draft, priced with the others. */
export async function addTimeLines(
  tx: Context,
  record: Awaited<ReturnType<typeof lockDraftInvoice>>,
  lines: LineItemInput[],
): Promise<{ invoice: Invoice; lines: number }> {
  const now = tx.clock.now();
  const before = presentInvoice(record, now);
  const stored = lineItemsOf(record);
  const priced = await pricingWithAddedLines(tx, record, lines, record.property_id);
  const updated =
    (await repository.updateInvoice(tx.db, tx.accountId, record.id, { ...priced, updated_at: now.toISOString() })) ??
    record;
  const after = presentInvoice(
    invoiceRecord(
      updated,
      record.payments,
      record.payments_count,
      record.timezone,
      record.applications,
      record.applications_count,
    ),
    now,
  );
  await recordChange(tx, { resource: 'invoice', before, after, statusEvents: INVOICE_LIFECYCLE.events });
  return { invoice: after, lines: stored.length };
}
