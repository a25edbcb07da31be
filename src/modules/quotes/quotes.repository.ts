// Quote queries, every one scoped by account.
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockRows,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { QuotePatch, QuoteRow } from '../../db/types.js';
import { tagNamesColumn } from '../tags/index.js';
import type { QuoteStatus } from './quotes.lifecycle.js';

const COLUMNS = [
  'id',
  'account_id',
  'external_id',
  'client_id',
  'property_id',
  'request_id',
  'deposit_type',
  'deposit_value',
  'deposit_paid_amount',
  'number',
  'number_seq',
  'title',
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
  'notes',
  'valid_until',
  'status',
  'sent_at',
  'approved_at',
  'approved_by',
  'declined_at',
  'decline_reason',
  'converted_at',
  'signature',
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

export interface QuoteFilters extends TimeBounds {
  external_id?: string | undefined;
  client_id?: string | undefined;
  statuses?: QuoteStatus[] | undefined;
  request_id?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const QUOTE_SORTS: SortFields<QuoteRow> = {
  ...timestampSorts<QuoteRow>(),
  number: { kind: 'integer', expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
};

/** A new quote's row; its tags are its links (modules/tags), written apart. */
export async function insertQuote(db: Executor, row: QuoteRow): Promise<void> {
  const { tags: _tags, ...columns } = row;
  await db.insertInto('quotes').values(columns).execute();
}

export async function findQuote(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<QuoteRow | undefined> {
  const query = db
    .selectFrom('quotes')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'quotes'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (lock) await lockRows(db, 'quotes', { account_id: accountId, id });
  return query.executeTakeFirst();
}

export async function updateQuote(
  db: Executor,
  accountId: string,
  id: string,
  patch: QuotePatch,
): Promise<QuoteRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('quotes')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .returning(tagNamesColumn(db, 'quotes'))
    .executeTakeFirst();
}

/** The quote a hub link names, in whichever account (the token is the credential). */
export async function findQuoteByToken(db: Executor, token: string, lock = false): Promise<QuoteRow | undefined> {
  if (lock) await lockRows(db, 'quotes', { hosted_token: token });
  return db
    .selectFrom('quotes')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'quotes'))
    .where('hosted_token', '=', token)
    .executeTakeFirst();
}

export async function deleteQuote(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('quotes').where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function listQuotes(
  db: Executor,
  accountId: string,
  filters: QuoteFilters,
  page: PageRequest<QuoteRow>,
): Promise<Listed<QuoteRow>> {
  return runList(listQuotesPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listQuotesPlan(db: Executor, accountId: string, filters: QuoteFilters, page: PageRequest<QuoteRow>) {
  const keys = keysOf({
    external_id: filters.external_id,
    client_id: filters.client_id,
    request_id: filters.request_id,
  });
  const among = filters.statuses && { column: 'status', values: filters.statuses };
  return listPlan(
    db,
    {
      table: 'quotes',
      columns: COLUMNS,
      scope: { account_id: accountId },
      computed: (from) => tagNamesColumn(db, from, accountId),
    },
    { keys, among, conditions: [...timeBoundConditions(filters), ...(filters.custom ?? [])] },
    page,
  );
}

/** The delivery_status of the quote's send `deliveryId`, while that send is its last one (the outbox worker). */
export async function setQuoteDeliveryStatus(
  db: Executor,
  accountId: string,
  id: string,
  deliveryId: string,
  status: string,
): Promise<void> {
  await db
    .updateTable('quotes')
    .set({ delivery_status: status })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

/**
 * How many payments name the quote (its deposits): a reference count before a delete, over payments' key
 * (docs/architecture.md, "Who owns which table"), since the invoices module that owns payments stands above.
 */
export async function countQuoteDeposits(db: Executor, accountId: string, quoteId: string): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('quote_id', '=', quoteId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
