// Application queries (docs/api-contract.md §22): money of a payment or a credit note held by an invoice. A live
// application has `released_at` null; a refund may lower its amount, an unapply or a void releases it.
import { sql } from 'kysely';
import { type Executor, latestPerParent, lockedIf } from '../../db/index.js';
import type { ApplicationRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'client_id',
  'currency',
  'source_type',
  'payment_id',
  'credit_note_id',
  'invoice_id',
  'amount',
  'applied_on',
  'released_at',
  'created_at',
  'updated_at',
] as const;

/** How many applications an invoice or a source lists (docs/api-contract.md §32): the 20 most recent live ones. */
export const LISTED_APPLICATIONS = 20;

export type SourceColumn = 'payment_id' | 'credit_note_id';

export async function insertApplications(db: Executor, rows: ApplicationRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('applications').values(rows).execute();
}

export async function findApplication(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<ApplicationRow | undefined> {
  const query = db.selectFrom('applications').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function setApplicationAmount(
  db: Executor,
  accountId: string,
  id: string,
  amount: number,
  now: string,
): Promise<void> {
  await db
    .updateTable('applications')
    .set({ amount, released_at: amount === 0 ? now : null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** The live applications of a source or an invoice, newest first (the order a refund takes them back in). */
export async function liveApplications(
  db: Executor,
  accountId: string,
  column: SourceColumn | 'invoice_id',
  id: string,
): Promise<ApplicationRow[]> {
  return db
    .selectFrom('applications')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where(column, '=', id)
    .where('released_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** What live applications of an invoice hold, by kind of source. */
export async function heldOnInvoice(db: Executor, accountId: string, invoiceId: string) {
  const row = await db
    .selectFrom('applications')
    .select([
      sql<number | string | null>`sum(case when source_type = 'payment' then amount else 0 end)`.as('paid'),
      sql<number | string | null>`sum(case when source_type = 'credit_note' then amount else 0 end)`.as('credited'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('released_at', 'is', null)
    .executeTakeFirst();
  return { paid: Number(row?.paid ?? 0), credited: Number(row?.credited ?? 0) };
}

/** The 20 most recent live applications of some invoices or sources (oldest first among them), and their counts. */
export async function listRecentApplications(
  db: Executor,
  accountId: string,
  column: SourceColumn | 'invoice_id',
  ids: readonly string[],
) {
  const { rows, counts } = await latestPerParent<ApplicationRow>(
    db,
    { table: 'applications', columns: COLUMNS, parent: column, liveOnly: true },
    accountId,
    ids,
    LISTED_APPLICATIONS,
  );
  return { applications: rows, counts };
}

/** What an invoice holds of deposits (contract §23): its live applications whose payment names a quote. */
export async function depositReceivedOn(db: Executor, accountId: string, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('applications')
    .innerJoin('payments', 'payments.id', 'applications.payment_id')
    .select(sql<number | string | null>`sum(applications.amount)`.as('held'))
    .where('applications.account_id', '=', accountId)
    .where('applications.invoice_id', '=', invoiceId)
    .where('applications.released_at', 'is', null)
    .where('payments.quote_id', 'is not', null)
    .executeTakeFirst();
  return Number(row?.held ?? 0);
}
