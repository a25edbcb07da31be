// Document numbers (Q-000001, J-000001, INV-000001): per account, sequential, never reused. The counter
// is bumped inside the caller's transaction, so a rolled-back send leaves no gap, and the upsert's row
// lock (PostgreSQL) or the single writer (SQLite) keeps concurrent sends from sharing a number.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { fromJson } from '../../db/values.js';
import { fieldError } from '../../http/errors.js';

export type NumberedKind = 'quote' | 'job' | 'invoice';

const PREFIXES: Record<NumberedKind, string> = { quote: 'Q', job: 'J', invoice: 'INV' };

export async function nextNumber(db: Executor, accountId: string, kind: NumberedKind): Promise<{ number: string; sequence: number }> {
  const result = await sql<{ value: number | string }>`
    insert into account_counters (account_id, name, value) values (${accountId}, ${kind}, 1)
    on conflict (account_id, name) do update set value = account_counters.value + 1
    returning value`.execute(db);
  const sequence = Number(result.rows[0]?.value);
  return { number: `${PREFIXES[kind]}-${String(sequence).padStart(6, '0')}`, sequence };
}

/**
 * The number and status columns of a document being sent: its existing number, or the next one on the
 * first send. A document is sent only with at least one line (422 on `line_items`).
 */
export async function sendingColumns(db: Executor, accountId: string, kind: 'quote' | 'invoice', document: { number: string | null; number_seq: number | null; line_items: string }) {
  if (fromJson<unknown[]>(document.line_items).length === 0) throw fieldError('line_items', `${kind === 'invoice' ? 'an' : 'a'} ${kind} needs at least one line item before it is sent`);
  const { number, sequence } = document.number === null ? await nextNumber(db, accountId, kind) : { number: document.number, sequence: document.number_seq };
  return { status: 'sent', number, number_seq: sequence };
}
