// What every payment checks, on an invoice or a quote (docs/api-contract.md §11): its date and its reference.
import { conflict, fieldError } from '../../core/errors.js';
import { normalizeInstant } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import * as repository from './payments.repository.js';
import type { CreatePaymentInput } from './payments.schemas.js';

/** A payment's `paid_at` (default now, never future) and its `reference`, unique per account (`409`). */
export async function checkPaidAtAndReference(
  tx: Context,
  input: Partial<Pick<CreatePaymentInput, 'reference' | 'paid_at'>>,
): Promise<{ paidAt: string; reference: string | null }> {
  const now = tx.clock.now().toISOString();
  const paidAt = input.paid_at === undefined ? now : normalizeInstant(input.paid_at);
  if (paidAt > now) throw fieldError('paid_at', 'must not be in the future');
  const reference = input.reference ?? null;
  if (reference !== null && (await repository.findPaymentByReference(tx.db, tx.accountId, reference))) {
    throw conflict(`A payment with reference '${reference}' is already recorded in this account.`);
  }
  return { paidAt, reference };
}
