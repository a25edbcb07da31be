// Invoice queries, every one scoped by account.
import { sql, type SqlBool } from 'kysely';
import { lockedIf, timeBoundConditions, type TimeBounds } from '../../db/account-rows.js';
import type { Executor } from '../../db/database.js';
import { applyPage, timestampSorts, type PageRequest, type SortFields } from '../../db/keyset.js';
import { coalesceSort, SORT_SENTINELS } from '../../db/sort-sentinels.js';
import type { DateText, InvoicePatch, InvoiceRow } from '../../db/types.js';
import type { InvoiceStatus } from './invoices.lifecycle.js';

const COLUMNS = [
  'id', 'account_id', 'client_id', 'job_id', 'quote_id', 'number', 'number_seq', 'currency', 'line_items', 'subtotal_amount', 'tax_amount', 'total_amount',
  'amount_paid', 'notes', 'issue_date', 'due_date', 'status', 'sent_at', 'paid_at', 'voided_at', 'delivery_id', 'delivery_status', 'hosted_token', 'hosted_url', 'metadata', 'created_at', 'updated_at',
] as const;

export interface InvoiceFilters extends TimeBounds {
  client_id?: string | undefined;
  statuses?: InvoiceStatus[] | undefined;
  quote_id?: string | undefined;
  job_id?: string | undefined;
  due_before?: DateText | undefined;
  due_after?: DateText | undefined;
  /** true: only overdue invoices as of `today`; false: none of them. */
  overdue?: { today: DateText; wanted: boolean } | undefined;
}

export const INVOICE_SORTS: SortFields<InvoiceRow> = {
  ...timestampSorts<InvoiceRow>(),
  number: { kind: 'integer', expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
  due_date: { kind: 'date', expression: coalesceSort('due_date', 'date'), value: (row) => row.due_date ?? SORT_SENTINELS.date },
};

export async function insertInvoice(db: Executor, row: InvoiceRow): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
}

/** The invoice a hub link names, in whichever account (the token is the credential). */
export async function findInvoiceByToken(db: Executor, token: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').select(COLUMNS).where('hosted_token', '=', token).executeTakeFirst();
}

export async function findInvoice(db: Executor, accountId: string, id: string, lock = false): Promise<InvoiceRow | undefined> {
  const query = db.selectFrom('invoices').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateInvoice(db: Executor, accountId: string, id: string, patch: InvoicePatch): Promise<InvoiceRow | undefined> {
  return db.updateTable('invoices').set(patch).where('account_id', '=', accountId).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
}

export async function deleteInvoice(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('invoices').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** How many invoices bill a job (a job is not deleted while any does). */
export async function countInvoicesOfJob(db: Executor, accountId: string, jobId: string): Promise<number> {
  const row = await db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('count')).where('account_id', '=', accountId).where('job_id', '=', jobId).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listInvoices(db: Executor, accountId: string, filters: InvoiceFilters, page: PageRequest<InvoiceRow>): Promise<InvoiceRow[]> {
  let query = db.selectFrom('invoices').select(COLUMNS).where('account_id', '=', accountId).where((eb) => eb.and(timeBoundConditions(filters)));
  if (filters.client_id !== undefined) query = query.where('client_id', '=', filters.client_id);
  if (filters.statuses !== undefined) query = query.where('status', 'in', filters.statuses);
  if (filters.quote_id !== undefined) query = query.where('quote_id', '=', filters.quote_id);
  if (filters.job_id !== undefined) query = query.where('job_id', '=', filters.job_id);
  if (filters.due_before !== undefined) query = query.where('due_date', '<', filters.due_before);
  if (filters.due_after !== undefined) query = query.where('due_date', '>=', filters.due_after);
  if (filters.overdue !== undefined) {
    const overdue = sql<SqlBool>`(status = 'sent' and due_date is not null and due_date < ${filters.overdue.today})`;
    query = query.where(filters.overdue.wanted ? overdue : sql<SqlBool>`not ${overdue}`);
  }
  return applyPage(query, page).execute();
}
