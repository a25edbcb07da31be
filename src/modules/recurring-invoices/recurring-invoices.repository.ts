// Recurring invoice queries, every one scoped by account (the worker's look for what is due is the one exception:
// it reads the templates of every account, then works on each in its own account). The invoices a template made
// are read from `invoices` by (recurring_invoice_id, occurrence_date), the column pair the template owns there.
import { sql, type SqlBool } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { RecurringInvoiceRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'external_id',
  'client_id',
  'property_id',
  'job_id',
  'name',
  'invoice',
  'recurrence',
  'send_time',
  'auto_send',
  'catch_up_days',
  'status',
  'paused_from',
  'paused_until',
  'counts_from',
  'next_run_at',
  'occurrences_made',
  'last_invoice_id',
  'last_error',
  'ended_at',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export const RECURRING_SORTS: SortFields<RecurringInvoiceRow> = timestampSorts<RecurringInvoiceRow>();

export interface RecurringFilters extends TimeBounds {
  external_id?: string | undefined;
  client_id?: string | undefined;
  statuses?: string[] | undefined;
}

export async function listRecurringInvoices(
  db: Executor,
  accountId: string,
  filters: RecurringFilters,
  page: PageRequest<RecurringInvoiceRow>,
): Promise<Listed<RecurringInvoiceRow>> {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.statuses !== undefined)
    conditions.push({ column: 'status', expression: sql<SqlBool>`status in (${sql.join(filters.statuses)})` });
  if (filters.client_id !== undefined)
    conditions.push({ column: 'client_id', expression: sql<SqlBool>`client_id = ${filters.client_id}` });
  return runList(
    listPlan(
      db,
      { table: 'recurring_invoices', columns: COLUMNS, scope: { account_id: accountId } },
      { keys: keysOf({ external_id: filters.external_id }), conditions },
      page,
    ),
  );
}

export async function insertRecurringInvoice(db: Executor, row: RecurringInvoiceRow): Promise<void> {
  await db.insertInto('recurring_invoices').values(row).execute();
}

export async function findRecurringInvoice(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<RecurringInvoiceRow | undefined> {
  const query = db
    .selectFrom('recurring_invoices')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateRecurringInvoice(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<RecurringInvoiceRow>,
): Promise<RecurringInvoiceRow> {
  return db
    .updateTable('recurring_invoices')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** How many of the account's templates have not ended (the limit of §32 counts them). */
export async function countOpen(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('recurring_invoices')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('status', '<>', 'ended')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The account's cap of templates not ended; null: the default. */
export async function findLimit(db: Executor, accountId: string): Promise<number | null> {
  const row = await db
    .selectFrom('accounts')
    .select('max_recurring_invoices')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.max_recurring_invoices ?? null;
}

/** The invoices a template made in [from, to] (dates), by occurrence date. */
export async function madeBetween(
  db: Executor,
  accountId: string,
  id: string,
  from: string,
  to: string,
): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'occurrence_date'])
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', id)
    .where('occurrence_date', '>=', from)
    .where('occurrence_date', '<=', to)
    .execute();
  return new Map(rows.map((row) => [String(row.occurrence_date).slice(0, 10), row.id]));
}

/** The templates (any account) not ended whose next run has come, soonest first. */
export async function dueTemplates(
  db: Executor,
  now: string,
  limit: number,
): Promise<Array<{ id: string; account_id: string }>> {
  return db
    .selectFrom('recurring_invoices')
    .select(['id', 'account_id'])
    .where('status', 'in', ['active', 'paused'])
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}
