// The ledger's entry days (docs/architecture.md, "Kept copies"): per account and local day, the last sequence of an
// entry dated that day, kept by the only poster of entries in the posting's transaction (its sequences are the
// account's latest, so the posting's last of a day is the day's last). An older aging or statement finds from it
// the days by `as_of` that an entry after its sequence is dated on (docs/decisions.md, "Reports without long holds").
import type { Executor } from '../../db/index.js';

/** Raises each day's last sequence to the posted entries' last of that day. Called by `postEntries` alone. */
export async function keepEntryDays(
  db: Executor,
  accountId: string,
  posted: readonly { sequence: number; effective_date: string }[],
): Promise<void> {
  const days = new Map<string, number>();
  for (const entry of posted)
    days.set(entry.effective_date, Math.max(days.get(entry.effective_date) ?? 0, entry.sequence));
  if (days.size === 0) return;
  await db
    .insertInto('ledger_entry_days')
    .values(
      [...days].map(([day, sequence]) => ({ account_id: accountId, effective_date: day, last_sequence: sequence })),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['account_id', 'effective_date'])
        .doUpdateSet((eb) => ({ last_sequence: eb.ref('excluded.last_sequence') })),
    )
    .execute();
}

/** The days up to `day` with an entry after sequence `after`: a range of the (account, day) key, one row a day. */
export function entryDaysAfterQuery(db: Executor, accountId: string, after: number, day: string) {
  return db
    .selectFrom('ledger_entry_days')
    .select('effective_date')
    .where('account_id', '=', accountId)
    .where('effective_date', '<=', day)
    .where('last_sequence', '>', after);
}

export async function findEntryDaysAfter(db: Executor, accountId: string, after: number, day: string) {
  const rows = await entryDaysAfterQuery(db, accountId, after, day).execute();
  return rows.map((row) => row.effective_date);
}
