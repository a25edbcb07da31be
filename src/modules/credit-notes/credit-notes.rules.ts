// What a credit note's invoice must be and how much of it may be credited (docs/api-contract.md §22, §32).
import { fieldError, invalidState } from '../../core/errors.js';
import type { CreditNoteRow, InvoiceRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { findInvoice } from '../invoices/index.js';
import { requireReference } from '../shared/index.js';
import * as repository from './credit-notes.repository.js';

/** The invoice a note credits: sent or paid, else 409 (docs/api-contract.md §22, §32). */
export async function requireCreditableInvoice(tx: Context, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await requireReference('invoice_id', 'invoice', invoiceId, (id) =>
    findInvoice(tx.db, tx.accountId, id),
  );
  if (invoice.status !== 'sent' && invoice.status !== 'paid')
    throw invalidState(`This invoice is '${invoice.status}'; a credit note cites a sent or paid invoice only.`);
  return invoice;
}

/**
 * The cap (§22): an invoice's credit notes that are not void total at most its total_amount. `field` names
 * what the note was made from.
 */
export async function assertWithinCap(tx: Context, note: CreditNoteRow, invoice: InvoiceRow): Promise<void> {
  const others = await repository.creditedTotalOfInvoice(tx.db, tx.accountId, invoice.id, note.id);
  const cap = Number(invoice.total_amount) - others;
  if (Number(note.total_amount) > cap)
    throw fieldError(
      note.amount === null ? 'line_items' : 'amount',
      `the invoice's credit notes would total more than its total_amount: at most ${cap} is left to credit`,
    );
}
