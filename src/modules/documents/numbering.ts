// Document numbers (Q-000001, J-000001, INV-000001): per account, sequential, never reused. The counter
// is bumped inside the caller's transaction, so a rolled-back send leaves no gap, and the upsert's row
// lock (PostgreSQL) or the single writer (SQLite) keeps concurrent sends from sharing a number.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';

export type NumberedKind = 'quote' | 'job' | 'invoice';

const PREFIXES: Record<NumberedKind, string> = { quote: 'Q', job: 'J', invoice: 'INV' };

export async function nextNumber(db: Executor, accountId: string, kind: NumberedKind): Promise<{ number: string; number_seq: number }> {
  const result = await sql<{ value: number | string }>`
    insert into account_counters (account_id, name, value) values (${accountId}, ${kind}, 1)
    on conflict (account_id, name) do update set value = account_counters.value + 1
    returning value`.execute(db);
  const sequence = Number(result.rows[0]?.value);
  return { number: `${PREFIXES[kind]}-${String(sequence).padStart(6, '0')}`, number_seq: sequence };
}

/** A document keeps its number once it has one; it gets the next one when first sent. */
export async function numberOnSend(db: Executor, accountId: string, kind: 'quote' | 'invoice', document: { number: string | null; number_seq: number | null }) {
  return document.number === null ? nextNumber(db, accountId, kind) : { number: document.number, number_seq: document.number_seq };
}
