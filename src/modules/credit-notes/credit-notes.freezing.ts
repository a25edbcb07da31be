// The hook through which a credit note's e-invoice is frozen at its issue (docs/api-contract.md §31): the
// einvoices module, which stands above this one, listens; issuing (by send or by `PUT {status: "issued"}`) calls
// it in its own transaction.
import type { CreditNoteRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';

export type CreditNoteIssuedListener = (tx: Context, note: CreditNoteRow) => Promise<void>;
let listener: CreditNoteIssuedListener | undefined;

/** Sets the listener; answers the function that removes it again (when its app closes). */
export function onCreditNoteIssued(next: CreditNoteIssuedListener): () => void {
  listener = next;
  return () => {
    if (listener === next) listener = undefined;
  };
}

export async function creditNoteIssued(tx: Context, note: CreditNoteRow): Promise<void> {
  await listener?.(tx, note);
}
