// Credit note queries, every one scoped by account: the notes, their refunds, and what an invoice's notes total.
import { sql } from 'kysely';
import {
  type Executor,
  keysOf,
  latestPerParent,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  SORT_SENTINELS,
  coalesceSort,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { CreditNotePatch, CreditNoteRefundRow, CreditNoteRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'external_id',
  'number',
  'number_seq',
  'client_id',
  'invoice_id',
  'property_id',
  'reason',
  'amount',
  'tax_rate_ids',
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
  'issue_date',
  'apply_on_issue',
  'amount_refunded',
  'notes',
  'status',
  'issued_at',
  'voided_at',
  'delivery_id',
  'delivery_status',
  'hosted_token',
  'hosted_url',
  'hosted_recipient',
  'metadata',
  'created_at',
  'updated_at',
] as const;
const REFUND_COLUMNS = [
  'id',
  'account_id',
  'credit_note_id',
  'amount',
  'method',
  'reference',
  'reason',
  'refunded_at',
  'created_at',
] as const;

/** How many refunds a note lists (docs/api-contract.md §32). */
export const LISTED_REFUNDS = 20;

export const CREDIT_NOTE_SORTS: SortFields<CreditNoteRow> = {
  ...timestampSorts<CreditNoteRow>(),
  number: { kind: 'integer', expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
  issue_date: {
    kind: 'date',
    expression: coalesceSort('issue_date', 'date'),
    value: (row) => row.issue_date ?? SORT_SENTINELS.date,
  },
};

export async function insertCreditNote(db: Executor, row: CreditNoteRow): Promise<void> {
  await db.insertInto('credit_notes').values(row).execute();
}

export async function findCreditNote(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<CreditNoteRow | undefined> {
  const query = db.selectFrom('credit_notes').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateCreditNote(
  db: Executor,
  accountId: string,
  id: string,
  patch: CreditNotePatch,
): Promise<CreditNoteRow | undefined> {
  return db
    .updateTable('credit_notes')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** The note a hub link names, in whichever account (the token is the credential). */
export async function findCreditNoteByToken(db: Executor, token: string): Promise<CreditNoteRow | undefined> {
  return db.selectFrom('credit_notes').select(COLUMNS).where('hosted_token', '=', token).executeTakeFirst();
}

/** The delivery_status of the note's send `deliveryId`, while that send is its last one (the outbox worker). */
export async function setCreditNoteDeliveryStatus(
  db: Executor,
  accountId: string,
  id: string,
  deliveryId: string,
  status: string,
): Promise<void> {
  await db
    .updateTable('credit_notes')
    .set({ delivery_status: status })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

export async function deleteCreditNote(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('credit_notes').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The total of an invoice's credit notes that are not void, but one (the note being changed). */
export async function creditedTotalOfInvoice(db: Executor, accountId: string, invoiceId: string, except: string) {
  const row = await db
    .selectFrom('credit_notes')
    .select(sql<number | string | null>`sum(total_amount)`.as('total'))
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '!=', 'void')
    .where('id', '!=', except)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

export async function insertRefund(db: Executor, row: CreditNoteRefundRow): Promise<void> {
  await db.insertInto('credit_note_refunds').values(row).execute();
}

/** The 20 most recent refunds of some notes (oldest first among them), and how many each has. */
export async function listRecentRefunds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows, counts } = await latestPerParent<CreditNoteRefundRow>(
    db,
    { table: 'credit_note_refunds', columns: REFUND_COLUMNS, parent: 'credit_note_id' },
    accountId,
    ids,
    LISTED_REFUNDS,
  );
  return { refunds: rows, counts };
}

/** What the live applications of some notes hold, per note. */
export async function heldByNotes(db: Executor, accountId: string, ids: readonly string[]) {
  const held = new Map<string, number>();
  if (ids.length === 0) return held;
  const rows = await db
    .selectFrom('applications')
    .select(['credit_note_id', sql<number | string>`sum(amount)`.as('held')])
    .where('account_id', '=', accountId)
    .where('credit_note_id', 'in', ids)
    .where('released_at', 'is', null)
    .groupBy('credit_note_id')
    .execute();
  for (const row of rows) held.set(String(row.credit_note_id), Number(row.held));
  return held;
}

export interface CreditNoteFilters extends TimeBounds {
  external_id?: string | undefined;
  client_id?: string | undefined;
  invoice_id?: string | undefined;
  statuses?: readonly string[] | undefined;
}

export async function listCreditNotes(
  db: Executor,
  accountId: string,
  filters: CreditNoteFilters,
  page: PageRequest<CreditNoteRow>,
): Promise<Listed<CreditNoteRow>> {
  return runList(listCreditNotesPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listCreditNotesPlan(
  db: Executor,
  accountId: string,
  filters: CreditNoteFilters,
  page: PageRequest<CreditNoteRow>,
) {
  const keys = keysOf({
    external_id: filters.external_id,
    client_id: filters.client_id,
    invoice_id: filters.invoice_id,
  });
  const among = filters.statuses && { column: 'status', values: filters.statuses };
  return listPlan(
    db,
    { table: 'credit_notes', columns: COLUMNS, scope: { account_id: accountId } },
    { keys, among, conditions: timeBoundConditions(filters) },
    page,
  );
}
