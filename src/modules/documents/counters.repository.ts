// Per-account counters (`account_counters`): one named sequence per account, bumped by one upsert.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';

/**
 * Adds one to the account's counter `name` (a missing counter starts at 1) and returns the new value. Run it
 * inside the caller's transaction: a rollback takes the bump back, and the upsert's row lock (PostgreSQL) or
 * the single writer (SQLite) keeps two concurrent callers from reading the same value.
 */
export async function bumpCounter(db: Executor, accountId: string, name: string): Promise<number> {
  const result = await sql<{ value: number | string }>`
    insert into account_counters (account_id, name, value) values (${accountId}, ${name}, 1)
    on conflict (account_id, name) do update set value = account_counters.value + 1
    returning value`.execute(db);
  return Number(result.rows[0]?.value);
}
