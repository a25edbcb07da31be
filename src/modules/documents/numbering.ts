// Document numbers (Q-000001, J-000001, INV-000001): per account, sequential, never reused. The kind's
// counter (bumpCounter) is bumped inside the caller's transaction, so a rolled-back send leaves no gap and
// concurrent sends never share a number.
import type { Executor } from '../../db/index.js';
import { bumpCounter } from './counters.repository.js';

export type NumberedKind = 'quote' | 'job' | 'invoice' | 'credit_note';

const PREFIXES: Record<NumberedKind, string> = { quote: 'Q', job: 'J', invoice: 'INV', credit_note: 'CN' };

export async function nextNumber(
  db: Executor,
  accountId: string,
  kind: NumberedKind,
): Promise<{ number: string; number_seq: number }> {
  const sequence = await bumpCounter(db, accountId, kind);
  return { number: `${PREFIXES[kind]}-${String(sequence).padStart(6, '0')}`, number_seq: sequence };
}

/** A document keeps its number once it has one; it gets the next one when first sent. */
export async function numberOnSend(
  db: Executor,
  accountId: string,
  kind: 'quote' | 'invoice' | 'credit_note',
  document: { number: string | null; number_seq: number | null },
) {
  return document.number === null
    ? nextNumber(db, accountId, kind)
    : { number: document.number, number_seq: document.number_seq };
}
