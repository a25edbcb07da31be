// The hook through which an invoice's e-invoice is frozen when it is sent (docs/api-contract.md §31 "Frozen when
// sent"): the einvoices module, which stands above this one, listens; every path that marks an invoice sent (the
// send, a re-send, `PUT {status: "sent"}`) calls it in its own transaction, so the files and the invoice's
// `einvoice` are stored with the send or not at all (a refusal rolls the send back).
import { invalidState } from '../../core/errors.js';
import type { InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { updateInvoice } from './invoices.repository.js';

/** What the listener makes of a sent invoice: its `einvoice` column to store, or undefined for none. */
export type InvoiceSentListener = (tx: Context, invoice: InvoiceRow) => Promise<string | undefined>;
let listener: InvoiceSentListener | undefined;

/** Sets the listener; answers the function that removes it again (when its app closes). */
export function onInvoiceSent(next: InvoiceSentListener): () => void {
  listener = next;
  return () => {
    if (listener === next) listener = undefined;
  };
}

/** Runs the listener on an invoice just marked sent; answers the row with its `einvoice` when one was frozen. */
export async function invoiceSent(tx: Context, invoice: InvoiceRow): Promise<InvoiceRow> {
  if (listener === undefined || (invoice.einvoice ?? null) !== null) return invoice;
  const einvoice = await listener(tx, invoice);
  if (einvoice === undefined) return invoice;
  return (await updateInvoice(tx.db, tx.accountId, invoice.id, { einvoice })) ?? invoice;
}

/** What a PUT may still change once the e-invoice is frozen: nothing the files state. */
const UNSTATED = new Set(['metadata', 'status', 'reminders_enabled', 'external_id']);

export function assertNotFrozen(invoice: InvoiceRow, input: object): void {
  if ((invoice.einvoice ?? null) === null) return;
  const stated = Object.keys(input).filter((key) => !UNSTATED.has(key));
  if (stated.length > 0)
    throw invalidState(
      `This invoice's e-invoice is frozen: ${stated.join(', ')} cannot change. Void it and issue a new one, or credit it.`,
    );
}
