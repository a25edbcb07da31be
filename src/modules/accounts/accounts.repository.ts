// Queries on accounts (the businesses that own every other row) and their logos.
import { type Executor, lockedIf } from '../../db/index.js';
import type { AccountLogoRow, AccountRow } from '../../db/types.js';

type AccountPatch = Partial<Omit<AccountRow, 'id' | 'created_at'>>;

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Executor, id: string, lock = false): Promise<AccountRow | undefined> {
  const query = db.selectFrom('accounts').selectAll().where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** The account's time zone alone: its local day decides is_overdue and the date defaults (docs/api-contract.md §14). */
export async function findAccountTimezone(db: Executor, id: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('timezone').where('id', '=', id).executeTakeFirst();
  return row?.timezone ?? 'UTC';
}

/** The account's `quote_signature` as stored (undefined: no such account). */
export async function findQuoteSignature(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('quote_signature').where('id', '=', id).executeTakeFirst();
  return row?.quote_signature;
}

/**
 * The account's reminder schedule as stored (null: the defaults), its zone and currency, and its e-invoicing (whether
 * a late fee is an invoice of its own, docs/api-contract.md §32): what the reminders need.
 */
export async function findAccountReminders(
  db: Executor,
  id: string,
): Promise<{ reminders: string | null; timezone: string; currency: string; einvoicing?: string | null } | undefined> {
  return db
    .selectFrom('accounts')
    .select(['reminders', 'timezone', 'currency', 'einvoicing'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The accounts with a reminder schedule stored (whether it is on is the schedule's `enabled`). */
export async function listAccountsWithReminders(
  db: Executor,
): Promise<Array<{ id: string; reminders: string | null }>> {
  return db.selectFrom('accounts').select(['id', 'reminders']).where('reminders', 'is not', null).execute();
}

export async function updateAccount(db: Executor, id: string, patch: AccountPatch): Promise<AccountRow | undefined> {
  return db.updateTable('accounts').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function hasLogo(db: Executor, accountId: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('account_logos')
      .select('account_id')
      .where('account_id', '=', accountId)
      .executeTakeFirst()) !== undefined
  );
}

export async function findLogo(db: Executor, accountId: string): Promise<AccountLogoRow | undefined> {
  return db.selectFrom('account_logos').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The logo's fingerprint alone (a PDF's ETag needs it, not the image). */
export async function findLogoHash(db: Executor, accountId: string): Promise<string | undefined> {
  return (await db.selectFrom('account_logos').select('sha256').where('account_id', '=', accountId).executeTakeFirst())
    ?.sha256;
}

export async function replaceLogo(db: Executor, row: AccountLogoRow): Promise<void> {
  await db.deleteFrom('account_logos').where('account_id', '=', row.account_id).execute();
  await db.insertInto('account_logos').values(row).execute();
}

export async function deleteLogo(db: Executor, accountId: string): Promise<boolean> {
  const result = await db.deleteFrom('account_logos').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * A change of the account's zone moves its recurring invoices' run moments (never their dates): the worker looks at
 * each one not ended at once and stores its next run in the new zone. `recurring_invoices` belongs to the module
 * above; this reach writes its `next_run_at` alone (docs/architecture.md, "Who owns which table").
 */
export async function rescheduleRecurringInvoices(db: Executor, accountId: string, now: string): Promise<void> {
  await db
    .updateTable('recurring_invoices')
    .set({ next_run_at: now })
    .where('account_id', '=', accountId)
    .where('status', '<>', 'ended')
    .execute();
}
