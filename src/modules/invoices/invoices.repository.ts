// Invoice queries, every one scoped by account.
import { type Insertable, sql, type SqlBool } from 'kysely';
import {
  type Condition,
  coalesceSort,
  compare,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockRows,
  type PageRequest,
  runList,
  SORT_SENTINELS,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { DateText, InvoicePatch, InvoiceRow, InvoicesTable } from '../../db/types.js';
import { tagNamesColumn } from '../tags/index.js';
import type { InvoiceStatus } from './invoices.lifecycle.js';

const COLUMNS = [
  'id',
  'account_id',
  'external_id',
  'client_id',
  'property_id',
  'job_id',
  'quote_id',
  'number',
  'number_seq',
  'currency',
  'line_items',
  'subtotal_amount',
  'tax_amount',
  'total_amount',
  'prices_include_tax',
  'rounding',
  'discount',
  'discount_amount',
  'tax_breakdown',
  'amount_paid',
  'amount_credited',
  'notes',
  'issue_date',
  'due_date',
  'status',
  'sent_at',
  'paid_at',
  'voided_at',
  'recurring_invoice_id',
  'occurrence_date',
  'late_fee_for_invoice_id',
  'reminders_enabled',
  'buyer_reference',
  'purchase_order',
  'delivery_date',
  'service_period',
  'einvoice',
  'delivery_id',
  'delivery_status',
  'hosted_token',
  'hosted_url',
  'hosted_recipient',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface InvoiceFilters extends TimeBounds {
  external_id?: string | undefined;
  client_id?: string | undefined;
  statuses?: InvoiceStatus[] | undefined;
  quote_id?: string | undefined;
  job_id?: string | undefined;
  recurring_invoice_id?: string | undefined;
  due_before?: DateText | undefined;
  due_after?: DateText | undefined;
  /** true: only overdue invoices as of `today`; false: none of them. */
  overdue?: { today: DateText; wanted: boolean } | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const INVOICE_SORTS: SortFields<InvoiceRow> = {
  ...timestampSorts<InvoiceRow>(),
  number: { kind: 'integer', expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
  due_date: {
    kind: 'date',
    expression: coalesceSort('due_date', 'date'),
    value: (row) => row.due_date ?? SORT_SENTINELS.date,
  },
};

/** A new invoice's row; its tags are its links (modules/tags), written apart. */
export async function insertInvoice(db: Executor, row: Insertable<InvoicesTable> & { tags?: string }): Promise<void> {
  const { tags: _tags, ...columns } = row;
  await db.insertInto('invoices').values(columns).execute();
}

/** The invoice a hub link names, in whichever account (the token is the credential). */
export async function findInvoiceByToken(db: Executor, token: string): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'invoices'))
    .where('hosted_token', '=', token)
    .executeTakeFirst();
}

export async function findInvoice(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<InvoiceRow | undefined> {
  const query = db
    .selectFrom('invoices')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'invoices'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (lock) await lockRows(db, 'invoices', { account_id: accountId, id });
  return query.executeTakeFirst();
}

export async function updateInvoice(
  db: Executor,
  accountId: string,
  id: string,
  patch: InvoicePatch,
): Promise<InvoiceRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('invoices')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .returning(tagNamesColumn(db, 'invoices'))
    .executeTakeFirst();
}

export async function deleteInvoice(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('invoices').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** How many invoices bill a job (a job is not deleted while any does). */
export async function listInvoices(
  db: Executor,
  accountId: string,
  filters: InvoiceFilters,
  page: PageRequest<InvoiceRow>,
): Promise<Listed<InvoiceRow>> {
  return runList(listInvoicesPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listInvoicesPlan(
  db: Executor,
  accountId: string,
  filters: InvoiceFilters,
  page: PageRequest<InvoiceRow>,
) {
  const conditions = [...timeBoundConditions(filters), ...(filters.custom ?? [])];
  if (filters.due_before !== undefined) conditions.push(compare('due_date', '<', filters.due_before, 'date'));
  if (filters.due_after !== undefined) conditions.push(compare('due_date', '>=', filters.due_after, 'date'));
  let statuses: readonly string[] | undefined = filters.statuses;
  if (filters.overdue?.wanted === true) {
    // Overdue is sent and past due: the status range of 'sent', with due_date before today.
    statuses = (statuses ?? ['sent']).filter((status) => status === 'sent');
    conditions.push(compare('due_date', '<', filters.overdue.today, 'date'));
  } else if (filters.overdue?.wanted === false) {
    conditions.push({
      column: 'status',
      expression: sql<SqlBool>`not (status = 'sent' and due_date is not null and due_date < ${filters.overdue.today})`,
    });
  }
  const keys = keysOf({
    external_id: filters.external_id,
    client_id: filters.client_id,
    quote_id: filters.quote_id,
    job_id: filters.job_id,
    recurring_invoice_id: filters.recurring_invoice_id,
  });
  const among = statuses && { column: 'status', values: statuses };
  return listPlan(
    db,
    {
      table: 'invoices',
      columns: COLUMNS,
      scope: { account_id: accountId },
      computed: (from) => tagNamesColumn(db, from, accountId),
    },
    { keys, among, conditions },
    page,
  );
}

/** The delivery_status of the invoice's send `deliveryId`, while that send is its last one (the outbox worker). */
export async function setInvoiceDeliveryStatus(
  db: Executor,
  accountId: string,
  id: string,
  deliveryId: string,
  status: string,
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ delivery_status: status })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

/** A job's sent and paid invoices, oldest first: what its costing's price and materials come from (§29). */
export async function findIssuedInvoicesOfJob(
  db: Executor,
  accountId: string,
  jobId: string,
): Promise<Array<Pick<InvoiceRow, 'id' | 'currency' | 'subtotal_amount' | 'line_items'>>> {
  return db
    .selectFrom('invoices')
    .select(['id', 'currency', 'subtotal_amount', 'line_items'])
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .where('status', 'in', ['sent', 'paid'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The ids of a quote's sent invoices, for a deposit to lock before its quote (contract §23). */
export async function findUnpaidInvoicesOfQuote(db: Executor, accountId: string, quoteId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .where('status', '=', 'sent')
    .execute();
  return rows.map((row) => row.id);
}
