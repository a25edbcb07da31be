// The recurring invoice as the API answers it: its row, its rule in both forms with a summary at send_time in the
// account's zone, and its next occurrence as of now (which reads the invoices made on the dates still due).
import { fromJson } from '../../db/index.js';
import type { RecurringInvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { describeRecurrence, summarize } from '../visit-schedules/index.js';
import { nextRun, readingOf, ruleOf, runAt } from './occurrences.js';
import type { InvoiceTemplate, RecurringInvoice } from './recurring-invoices.schemas.js';

export async function presentRecurringInvoice(
  ctx: Context,
  row: RecurringInvoiceRow,
  zone?: string,
): Promise<RecurringInvoice> {
  const timezone = zone ?? (await findAccountTimezone(ctx.db, ctx.accountId));
  const rule = ruleOf(row);
  const next = row.status === 'ended' ? null : nextRun(row, await readingOf(ctx, row, timezone, ctx.clock.now()));
  const { time: _time, timezone: _zone, ...recurrence } = describeRecurrence(rule);
  return {
    id: row.id,
    object: 'recurring_invoice',
    external_id: row.external_id,
    client_id: row.client_id,
    property_id: row.property_id,
    job_id: row.job_id,
    name: row.name,
    invoice: fromJson<InvoiceTemplate>(row.invoice),
    recurrence: { ...recurrence, summary: summarize({ ...rule, time: row.send_time, timezone }) },
    send_time: row.send_time,
    auto_send: Number(row.auto_send) === 1,
    catch_up_days: Number(row.catch_up_days),
    status: row.status as RecurringInvoice['status'],
    paused_from: row.paused_from,
    paused_until: row.paused_until,
    next_occurrence_date: next?.date ?? null,
    next_run_at: next?.date ? runAt(next.date, row.send_time, timezone) : null,
    occurrences_made: Number(row.occurrences_made),
    last_invoice_id: row.last_invoice_id,
    last_error: row.last_error === null ? null : fromJson<RecurringInvoice['last_error']>(row.last_error),
    ended_at: row.ended_at,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
