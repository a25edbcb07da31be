// What the two kept day totals share (docs/architecture.md, "Kept copies"): rows per account, currency, local day and
// rate key ('' for the day's own), amounts summed from entries and the last sequence summed in. The accrual totals
// (ledger.day-totals.ts) and the cash totals (ledger.cash-totals.ts) differ only in which shares an entry gives and
// in their amount columns; gathering the shares into rows, adding them to the table and reading a range are these.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';

export type DayRowsTable = 'ledger_day_totals' | 'ledger_cash_day_totals';

/** One row's share of an entry: which rate it counts under and what it adds (`entry_count` and amount columns). */
export interface DayShare {
  rate_key: string;
  tax_rate_id: string | null;
  name: string | null;
  percentage: string | null;
  entry_count: number;
}

/** What places an entry in the rows: its currency and day; its sequence is the row's last summed in. */
interface DatedEntry {
  sequence: number;
  currency: string;
  effective_date: string;
}

/** Amounts of 0 in each of the columns. */
export function zeroAmounts<C extends string>(columns: readonly C[]): Record<C, number> & { entry_count: number } {
  const zero = { entry_count: 0 } as Record<C, number> & { entry_count: number };
  for (const column of columns) (zero as Record<string, number>)[column] = 0;
  return zero;
}

/**
 * Adds the entries' shares to their rows in one statement: the shares are first summed into one row per (currency,
 * day, rate key), as PostgreSQL updates a row at most once per statement. Called in the posting's transaction.
 */
export async function keepDayRows<E extends DatedEntry>(
  db: Executor,
  table: DayRowsTable,
  accountId: string,
  entries: readonly E[],
  sharesOf: (entry: E) => readonly DayShare[],
  columns: readonly string[],
): Promise<void> {
  const rows = new Map<string, Record<string, unknown> & { entry_count: number; last_sequence: number }>();
  for (const entry of entries)
    for (const share of sharesOf(entry)) {
      const key = `${entry.currency} ${entry.effective_date} ${share.rate_key}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          account_id: accountId,
          currency: entry.currency,
          effective_date: entry.effective_date,
          rate_key: share.rate_key,
          tax_rate_id: share.tax_rate_id,
          name: share.name,
          percentage: share.percentage,
          entry_count: 0,
          last_sequence: 0,
        };
        for (const column of columns) row[column] = 0;
        rows.set(key, row);
      }
      row.entry_count += share.entry_count;
      const amounts = share as unknown as Record<string, number>;
      for (const column of columns) row[column] = (row[column] as number) + amounts[column]!;
      row.last_sequence = Math.max(row.last_sequence, entry.sequence);
    }
  if (rows.size === 0) return;
  const added = (column: string) => sql<number>`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  const updates: Record<string, unknown> = { entry_count: added('entry_count') };
  for (const column of columns) updates[column] = added(column);
  updates.last_sequence = sql<number>`${sql.ref('excluded.last_sequence')}`;
  await db
    .insertInto(table)
    .values([...rows.values()] as never)
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'currency', 'effective_date', 'rate_key']).doUpdateSet(updates as never),
    )
    .execute();
}

/** One currency's rows from `from` to `to`: a range of the primary key (account, currency, day, rate key). */
export function dayRowsQuery(
  db: Executor,
  table: DayRowsTable,
  accountId: string,
  currency: string,
  from: string,
  to: string,
) {
  return db
    .selectFrom(table)
    .selectAll()
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('effective_date', '>=', from)
    .where('effective_date', '<=', to);
}

/** The account's first currency after `after` in the table: a seek of the primary key. */
export function nextCurrencyQuery(db: Executor, table: DayRowsTable, accountId: string, after: string) {
  return db
    .selectFrom(table)
    .select('currency')
    .where('account_id', '=', accountId)
    .where('currency', '>', after)
    .orderBy('currency')
    .limit(1);
}

/**
 * The rows of every currency from `from` to `to`: each currency found by a seek past the one before, then its range
 * of days, so that no read walks the account's other days.
 */
export async function findDayRows<Row>(
  db: Executor,
  table: DayRowsTable,
  accountId: string,
  from: string,
  to: string,
  columns: readonly string[],
): Promise<Row[]> {
  const found: Row[] = [];
  for (let after = ''; ; ) {
    const next = await nextCurrencyQuery(db, table, accountId, after).executeTakeFirst();
    if (!next) return found;
    after = next.currency;
    const rows = (await dayRowsQuery(db, table, accountId, after, from, to).execute()) as Record<string, unknown>[];
    for (const row of rows) {
      const numbers: Record<string, number> = {
        entry_count: Number(row.entry_count),
        last_sequence: Number(row.last_sequence),
      };
      for (const column of columns) numbers[column] = Number(row[column]);
      found.push({ ...row, ...numbers } as Row);
    }
  }
}
