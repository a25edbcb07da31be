// The reminder steps sent for invoices (docs/api-contract.md §23): one row per (invoice, step), unique, written in
// the step's transaction; read with the invoices they belong to.
import type { Executor } from '../../db/index.js';
import type { InvoiceReminderRow } from '../../db/types.js';

export async function insertInvoiceReminder(db: Executor, row: InvoiceReminderRow): Promise<void> {
  await db.insertInto('invoice_reminders').values(row).execute();
}

/** The steps sent for these invoices, in step order. */
export async function listInvoiceReminders(
  db: Executor,
  accountId: string,
  invoiceIds: readonly string[],
): Promise<InvoiceReminderRow[]> {
  if (invoiceIds.length === 0) return [];
  return db
    .selectFrom('invoice_reminders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('step')
    .execute();
}

/**
 * The reminder worker's candidates in an account: sent invoices with reminders on and a due date on or before
 * `dueOnOrBefore` (no step of theirs can have come before), a page at a time after `after` (an id).
 */
export async function listReminderCandidates(
  db: Executor,
  accountId: string,
  dueOnOrBefore: string,
  after: string | undefined,
  limit: number,
): Promise<Array<{ id: string }>> {
  let query = db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'sent')
    .where('due_date', '<=', dueOnOrBefore)
    .where('reminders_enabled', '=', 1);
  if (after !== undefined) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}
