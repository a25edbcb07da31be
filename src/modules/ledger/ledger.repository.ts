// Ledger queries, every one scoped by account: entries (append-only), the figures the rules compare them
// with, and the balance's sums. The balance reads `invoices`, `payments` and `applications` (see
// docs/architecture.md, "Who owns which table": the ledger stands below the modules that own them).
import { sql } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
} from '../../db/index.js';
import type { LedgerEntryRow } from '../../db/types.js';
import { INVOICE_DOCUMENT_TYPES, type LedgerEntryType } from './ledger.schemas.js';

export const ENTRY_COLUMNS = [
  'id',
  'account_id',
  'sequence',
  'client_id',
  'currency',
  'type',
  'effective_date',
  'amount',
  'applied_amount',
  'balance_amount',
  'invoice_id',
  'credit_note_id',
  'payment_id',
  'refund_id',
  'application_id',
  'due_date',
  'net_amount',
  'tax_amount',
  'cost_amount',
  'lines_without_cost',
  'taxes',
  'actor',
  'created_at',
] as const;

/** Entries sort by sequence (their order) or created_at; `updated_at` is created_at, so it is no sort of its own. */
export const ENTRY_SORTS: SortFields<LedgerEntryRow> = {
  created_at: { kind: 'timestamp', value: (row) => row.created_at },
  sequence: { kind: 'integer', value: (row) => row.sequence },
};

export async function insertEntries(db: Executor, rows: LedgerEntryRow[]): Promise<void> {
  await db.insertInto('ledger_entries').values(rows).execute();
}

/**
 * Takes `count` sequences from the account's ledger counter (a row of `account_counters`, locked by the upsert
 * until the transaction ends on PostgreSQL, and behind the one writer on SQLite) and answers the last one. The
 * lock is what orders sequences as commits: the next transaction waits for this one to commit or roll back.
 */
export async function takeSequences(db: Executor, accountId: string, count: number): Promise<number> {
  const result = await sql<{ value: number | string }>`
    insert into account_counters (account_id, name, value) values (${accountId}, 'ledger', ${count})
    on conflict (account_id, name) do update set value = account_counters.value + ${count}
    returning value`.execute(db);
  return Number(result.rows[0]?.value);
}

/** The account's last sequence, committed (0 before any entry). */
export async function lastSequence(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('account_counters')
    .select('value')
    .where('account_id', '=', accountId)
    .where('name', '=', 'ledger')
    .executeTakeFirst();
  return Number(row?.value ?? 0);
}

/** The last running balance of a client in a currency (0 before any entry). */
export async function lastBalance(db: Executor, accountId: string, clientId: string, currency: string) {
  const row = await db
    .selectFrom('ledger_entries')
    .select('balance_amount')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('currency', '=', currency)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.balance_amount);
}

/** The currencies a client has entries in. */
export async function currenciesOfClient(db: Executor, accountId: string, clientId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select('currency')
    .distinct()
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .orderBy('currency')
    .execute();
  return rows.map((row) => row.currency);
}

/** Σ amount_due of the client's sent invoices in a currency. */
export async function receivableOf(db: Executor, accountId: string, clientId: string, currency: string) {
  const row = await db
    .selectFrom('invoices')
    .select(sql<number | string | null>`sum(total_amount - amount_paid - amount_credited)`.as('due'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('currency', '=', currency)
    .where('status', '=', 'sent')
    .executeTakeFirst();
  return Number(row?.due ?? 0);
}

/** Σ amount_unapplied of the client's payments in a currency. */
export async function unappliedPaymentsOf(db: Executor, accountId: string, clientId: string, currency: string) {
  const row = await db
    .selectFrom('payments')
    .select(sql<number | string | null>`sum(amount - amount_refunded - amount_applied)`.as('unapplied'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return Number(row?.unapplied ?? 0);
}

/** Σ amount_remaining of the client's issued credit notes in a currency: total − refunded − live applications. */
export async function remainingCreditOf(db: Executor, accountId: string, clientId: string, currency: string) {
  const notes = await db
    .selectFrom('credit_notes')
    .select(sql<number | string | null>`sum(total_amount - amount_refunded)`.as('left'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('currency', '=', currency)
    .where('status', '=', 'issued')
    .executeTakeFirst();
  const applied = await db
    .selectFrom('applications')
    .innerJoin('credit_notes', 'credit_notes.id', 'applications.credit_note_id')
    .select(sql<number | string | null>`sum(applications.amount)`.as('held'))
    .where('applications.account_id', '=', accountId)
    .where('applications.client_id', '=', clientId)
    .where('applications.currency', '=', currency)
    .where('applications.source_type', '=', 'credit_note')
    .where('applications.released_at', 'is', null)
    .where('credit_notes.status', '=', 'issued')
    .executeTakeFirst();
  return Number(notes?.left ?? 0) - Number(applied?.held ?? 0);
}

/** A credit note's figures beside what its live applications hold. */
export async function creditNoteFigures(db: Executor, accountId: string, creditNoteId: string) {
  const note = await db
    .selectFrom('credit_notes')
    .select(['status', 'total_amount', 'amount_refunded'])
    .where('account_id', '=', accountId)
    .where('id', '=', creditNoteId)
    .executeTakeFirst();
  const live = await db
    .selectFrom('applications')
    .select(sql<number | string | null>`sum(amount)`.as('held'))
    .where('account_id', '=', accountId)
    .where('credit_note_id', '=', creditNoteId)
    .where('released_at', 'is', null)
    .executeTakeFirst();
  return { note, held: Number(live?.held ?? 0) };
}

/** An invoice's figures beside the sums of its entries: what the rules compare. */
export async function invoiceFigures(db: Executor, accountId: string, invoiceId: string) {
  const invoice = await db
    .selectFrom('invoices')
    .select(['status', 'total_amount', 'amount_paid', 'amount_credited'])
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .executeTakeFirst();
  const sums = await db
    .selectFrom('ledger_entries')
    .select([
      sql<
        number | string | null
      >`sum(case when type in (${sql.join(INVOICE_DOCUMENT_TYPES)}) then amount else 0 end)`.as('document'),
      sql<number | string | null>`sum(applied_amount)`.as('applied'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
  const live = await db
    .selectFrom('applications')
    .select([
      sql<number | string | null>`sum(case when source_type = 'payment' then amount else 0 end)`.as('paid'),
      sql<number | string | null>`sum(case when source_type = 'credit_note' then amount else 0 end)`.as('credited'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('released_at', 'is', null)
    .executeTakeFirst();
  return {
    invoice,
    document: Number(sums?.document ?? 0),
    applied: Number(sums?.applied ?? 0),
    paid: Number(live?.paid ?? 0),
    credited: Number(live?.credited ?? 0),
  };
}

/** A payment's figures beside what its live applications hold. */
export async function paymentFigures(db: Executor, accountId: string, paymentId: string) {
  const payment = await db
    .selectFrom('payments')
    .select(['amount', 'amount_refunded', 'amount_applied'])
    .where('account_id', '=', accountId)
    .where('id', '=', paymentId)
    .executeTakeFirst();
  const live = await db
    .selectFrom('applications')
    .select(sql<number | string | null>`sum(amount)`.as('held'))
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .where('released_at', 'is', null)
    .executeTakeFirst();
  return { payment, held: Number(live?.held ?? 0) };
}

export async function findEntry(db: Executor, accountId: string, id: string): Promise<LedgerEntryRow | undefined> {
  return db
    .selectFrom('ledger_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface EntryFilters extends TimeBounds {
  client_id?: string | undefined;
  currency?: string | undefined;
  type?: LedgerEntryType | undefined;
  invoice_id?: string | undefined;
  credit_note_id?: string | undefined;
  payment_id?: string | undefined;
  effective_from?: string | undefined;
  effective_to?: string | undefined;
  after_sequence?: number | undefined;
}

export async function listEntries(
  db: Executor,
  accountId: string,
  filters: EntryFilters,
  page: PageRequest<LedgerEntryRow>,
): Promise<Listed<LedgerEntryRow>> {
  return runList(listEntriesPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted. One key drives each (a document, a client, a type), then the sort's index. */
export function listEntriesPlan(
  db: Executor,
  accountId: string,
  filters: EntryFilters,
  page: PageRequest<LedgerEntryRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.after_sequence !== undefined)
    conditions.push({ column: 'sequence', expression: sql`sequence > ${filters.after_sequence}` });
  if (filters.effective_from !== undefined)
    conditions.push({ column: 'effective_date', expression: sql`effective_date >= ${filters.effective_from}` });
  if (filters.effective_to !== undefined)
    conditions.push({ column: 'effective_date', expression: sql`effective_date <= ${filters.effective_to}` });
  if (filters.currency !== undefined)
    conditions.push({ column: 'currency', expression: sql`currency = ${filters.currency}` });
  const keys = keysOf({
    invoice_id: filters.invoice_id,
    credit_note_id: filters.credit_note_id,
    payment_id: filters.payment_id,
    client_id: filters.client_id,
    type: filters.type,
  });
  return listPlan(
    db,
    { table: 'ledger_entries', columns: ENTRY_COLUMNS, scope: { account_id: accountId } },
    { keys, conditions },
    page,
  );
}
