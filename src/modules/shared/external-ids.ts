// The integrator's own ids (docs/api-contract.md §14): `external_id` is unique per account and kind, by a
// unique index of each table. A second object with the same one is a 409 CONFLICT naming the holder, also
// when two requests race (the index refuses the later insert; its id is then looked up and named).
import { AppError } from '../../core/errors.js';
import { type Executor, rowsHoldingAny, survivingFailure } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';

/** The tables whose rows carry an external_id, and what to call their rows. */
const KINDS = {
  clients: 'client',
  quotes: 'quote',
  jobs: 'job',
  invoices: 'invoice',
  team_members: 'team member',
  properties: 'property',
  visits: 'visit',
  products: 'product',
  tax_rates: 'tax rate',
  recurring_invoices: 'recurring invoice',
  availability_exceptions: 'availability exception',
  credit_notes: 'credit note',
  time_entries: 'time entry',
} as const;
export type ExternalIdTable = keyof typeof KINDS;

/** A unique index refused the write: PostgreSQL's 23505, SQLite's UNIQUE constraint. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** The account's rows of `table`, read as the clients table's (every such table has `id` and `external_id`). */
const rowsOf = (db: Executor, table: ExternalIdTable, accountId: string) =>
  (db as unknown as Executor & { selectFrom(table: string): ReturnType<Executor['selectFrom']> })
    .selectFrom(table as 'clients')
    .where('account_id', '=', accountId);

/** The id of the account's row of `table` that holds `externalId`, if any. */
export async function findExternalIdHolder(
  db: Executor,
  table: ExternalIdTable,
  accountId: string,
  externalId: string,
): Promise<string | undefined> {
  const row = await rowsOf(db, table, accountId).select('id').where('external_id', '=', externalId).executeTakeFirst();
  return row?.id;
}

/** The ids of the account's rows of `table` holding any of `externalIds`, by external_id, in one query. */
export async function findExternalIdHolders(
  db: Executor,
  table: ExternalIdTable,
  accountId: string,
  externalIds: readonly string[],
): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  if (externalIds.length === 0) return holders;
  const rows = await rowsHoldingAny(db, table, accountId, 'external_id', [...new Set(externalIds)]);
  for (const row of rows) holders.set(row.value, row.id);
  return holders;
}

/**
 * A read made after a racing write lost on a unique index, where it must see the winner: in a transaction of
 * its own, which on SQLite reads the open group-commit batch the winner may still be in (docs/decisions.md
 * "Writes: group commit"; a read outside a transaction sees committed data only), and on PostgreSQL begins
 * after the winner committed (the loser's insert waited for it).
 */
export function readAfterRace<T>(ctx: Context, read: (tx: Context) => Promise<T>): Promise<T> {
  return ctx.db.transaction().execute((trx) => read({ ...ctx, db: trx }));
}

/** The 409 of another row of the account that holds `externalId`, if any (`self` may keep its own). */
export async function externalIdConflict(
  ctx: Context,
  table: ExternalIdTable,
  externalId: string,
  self?: string,
): Promise<AppError | undefined> {
  const holder = await findExternalIdHolder(ctx.db, table, ctx.accountId, externalId);
  if (holder === undefined || holder === self) return undefined;
  const message = `is already the external_id of ${KINDS[table]} ${holder}; external ids are unique per account and kind`;
  return new AppError('CONFLICT', `external_id '${externalId}' ${message}.`, [{ field: 'external_id', message }]);
}

/**
 * Runs `write` after `conflict` found no other row holding what the write claims as unique (an external_id,
 * a member's e-mail, a product's code). When a racing request got past the check too, a unique index refuses
 * the later write and the conflict is looked up again, now seeing the winner.
 */
export async function guardUnique<T>(
  ctx: Context,
  conflict: (ctx: Context) => Promise<AppError | undefined>,
  write: () => Promise<T>,
): Promise<T> {
  const before = await conflict(ctx);
  if (before) throw before;
  if (ctx.db.isTransaction) return writeInTransaction(ctx, conflict, write);
  try {
    return await write();
  } catch (error) {
    // The write's own transaction is over (a failed statement ends PostgreSQL's): the lookup runs after it.
    if (!isUniqueViolation(error)) throw error;
    throw (await readAfterRace(ctx, conflict)) ?? error;
  }
}

/**
 * The same inside a transaction the caller holds (a request with an Idempotency-Key, http/idempotency.ts):
 * the winner is named in that transaction. The write may fail without ending that transaction
 * (`survivingFailure`: a savepoint on PostgreSQL, which ends a transaction at a failed statement).
 */
async function writeInTransaction<T>(
  ctx: Context,
  conflict: (ctx: Context) => Promise<AppError | undefined>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await survivingFailure(ctx.db, 'guard_unique', write);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw (await conflict(ctx)) ?? error;
  }
}

/** guardUnique for a row's external_id (`self`: the row being updated, which may keep its own id). */
export function guardExternalId<T>(
  ctx: Context,
  table: ExternalIdTable,
  externalId: string | null | undefined,
  write: () => Promise<T>,
  self?: string,
): Promise<T> {
  if (externalId === null || externalId === undefined) return write();
  return guardUnique(ctx, (tx) => externalIdConflict(tx, table, externalId, self), write);
}
