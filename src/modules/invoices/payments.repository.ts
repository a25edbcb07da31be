// Payment and refund queries, every one scoped by account.
import { sql, type SqlBool } from 'kysely';
import {
  compare,
  type Executor,
  keysOf,
  latestPerParent,
  type Listed,
  listPlan,
  lockedIf,
  normalizeInstant,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { PaymentPatch, PaymentRefundRow, PaymentRow } from '../../db/types.js';
import type { PaymentMethod } from './payments.schemas.js';

const COLUMNS = [
  'id',
  'account_id',
  'invoice_id',
  'quote_id',
  'client_id',
  'amount',
  'amount_refunded',
  'amount_applied',
  'overpayment',
  'currency',
  'method',
  'reference',
  'paid_at',
  'notes',
  'metadata',
  'created_at',
  'updated_at',
] as const;
const REFUND_COLUMNS = ['id', 'account_id', 'payment_id', 'amount', 'reason', 'created_at'] as const;

export interface PaymentFilters extends TimeBounds {
  invoice_id?: string | undefined;
  quote_id?: string | undefined;
  client_id?: string | undefined;
  method?: PaymentMethod | undefined;
  paid_after?: string | undefined;
  paid_before?: string | undefined;
  unapplied?: boolean | undefined;
}

export const PAYMENT_SORTS: SortFields<PaymentRow> = {
  ...timestampSorts<PaymentRow>(),
  paid_at: { kind: 'timestamp', value: (row) => row.paid_at },
};

export async function insertPayment(db: Executor, row: PaymentRow): Promise<void> {
  await db.insertInto('payments').values(row).execute();
}

export async function findPayment(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<PaymentRow | undefined> {
  const query = db.selectFrom('payments').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function findPaymentByReference(
  db: Executor,
  accountId: string,
  reference: string,
): Promise<PaymentRow | undefined> {
  return db
    .selectFrom('payments')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export async function updatePayment(
  db: Executor,
  accountId: string,
  id: string,
  patch: PaymentPatch,
): Promise<PaymentRow | undefined> {
  return db
    .updateTable('payments')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/**
 * How many payments an invoice lists, and refunds a payment (docs/api-contract.md §21): the most recent, so
 * that an invoice with thousands of payments stays a small object and a small event; the rest are listed by
 * GET /v1/payments?invoice_id=.
 */
export const LISTED_PAYMENTS = 20;
export const LISTED_REFUNDS = 20;

/**
 * The 20 most recent payments of some invoices (each invoice's oldest first among them), and how many each
 * invoice has. A window over one invoice's rows of the (account_id, invoice_id, paid_at, id) index.
 */
export async function listRecentPaymentsOfInvoices(
  db: Executor,
  accountId: string,
  invoiceIds: readonly string[],
): Promise<{ payments: PaymentRow[]; counts: Map<string, number> }> {
  if (invoiceIds.length === 0) return { payments: [], counts: new Map() };
  const ranked = db
    .selectFrom('payments')
    .select([
      ...COLUMNS,
      sql<number>`row_number() over (partition by invoice_id order by paid_at desc, id desc)`.as('recency'),
      sql<number | string>`count(*) over (partition by invoice_id)`.as('total'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .select([...COLUMNS, 'total'])
    .where('recency', '<=', LISTED_PAYMENTS)
    .orderBy('paid_at')
    .orderBy('id')
    .execute();
  const counts = new Map<string, number>();
  for (const row of rows) if (row.invoice_id !== null) counts.set(row.invoice_id, Number(row.total));
  return { payments: rows.map(({ total: _total, ...payment }) => payment), counts };
}

/** What an invoice has received, net of refunds, in minor units. */
export async function netPaidOfInvoice(db: Executor, accountId: string, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select(sql<number | string | null>`sum(amount - amount_refunded)`.as('paid'))
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
  return Number(row?.paid ?? 0);
}

export async function listPayments(
  db: Executor,
  accountId: string,
  filters: PaymentFilters,
  page: PageRequest<PaymentRow>,
): Promise<Listed<PaymentRow>> {
  return runList(listPaymentsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listPaymentsPlan(
  db: Executor,
  accountId: string,
  filters: PaymentFilters,
  page: PageRequest<PaymentRow>,
) {
  const conditions = timeBoundConditions(filters);
  if (filters.paid_after !== undefined) conditions.push(compare('paid_at', '>=', normalizeInstant(filters.paid_after)));
  if (filters.paid_before !== undefined)
    conditions.push(compare('paid_at', '<', normalizeInstant(filters.paid_before)));
  if (filters.unapplied !== undefined)
    conditions.push({
      column: 'amount_applied',
      expression: filters.unapplied
        ? sql<SqlBool>`amount - amount_refunded - amount_applied > 0`
        : sql<SqlBool>`amount - amount_refunded - amount_applied = 0`,
    });
  const keys = keysOf({ invoice_id: filters.invoice_id, quote_id: filters.quote_id, client_id: filters.client_id });
  const among = filters.method === undefined ? undefined : { column: 'method', values: [filters.method] };
  return listPlan(
    db,
    { table: 'payments', columns: COLUMNS, scope: { account_id: accountId } },
    { keys, among, conditions },
    page,
  );
}

/** A quote's deposit payments with money not yet applied, oldest first (the order they are deducted in). */
export async function unappliedDepositsOfQuote(
  db: Executor,
  accountId: string,
  quoteId: string,
): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .where(sql<SqlBool>`amount - amount_refunded - amount_applied > 0`)
    .orderBy('paid_at')
    .orderBy('id')
    .execute();
}

export async function insertRefund(db: Executor, row: PaymentRefundRow): Promise<void> {
  await db.insertInto('payment_refunds').values(row).execute();
}

/** The 20 most recent refunds of some payments (each payment's oldest first among them), and how many each has. */
export async function listRecentRefundsOfPayments(db: Executor, accountId: string, paymentIds: readonly string[]) {
  const { rows, counts } = await latestPerParent<PaymentRefundRow>(
    db,
    { table: 'payment_refunds', columns: REFUND_COLUMNS, parent: 'payment_id' },
    accountId,
    paymentIds,
    LISTED_REFUNDS,
  );
  return { refunds: rows, counts };
}
