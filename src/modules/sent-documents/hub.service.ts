// What the hub shows for a token: the sent quote or invoice it names (in whichever account), printed from
// the same snapshot as its e-mail and PDF. A draft, a void invoice, a deleted document or a replaced
// token names nothing.
import type { Executor } from '../../db/database.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import { hasLogo } from '../accounts/accounts.repository.js';
import type { InvoiceRow, QuoteRow } from '../../db/types.js';
import { getClientRow } from '../clients/clients.service.js';
import { documentSnapshot, type PrintableDocument, type SentKind } from '../documents/sending.js';
import { todayUtc } from '../documents/priced.js';
import { findInvoiceByToken } from '../invoices/invoices.repository.js';
import { getInvoiceRecord, presentInvoice } from '../invoices/invoices.presenter.js';
import { findQuoteByToken } from '../quotes/quotes.repository.js';
import { presentQuote } from '../quotes/quotes.service.js';
import type { Quote } from '../quotes/quotes.schemas.js';
import { isHostedToken } from '../documents/hosted-links.js';

export interface HostedDocument {
  kind: SentKind;
  accountId: string;
  id: string;
  snapshot: MailSnapshot;
  hasLogo: boolean;
  /** The quote as the API shows it (quotes only): its answer fields. */
  quote?: Quote;
  /** A quote awaiting an answer whose valid_until has passed. */
  expired: boolean;
}

/** Which document a token names, without printing it: enough for its PDF, its logo or an answer. */
export type HostedTarget = { kind: 'quote'; accountId: string; id: string; row: QuoteRow } | { kind: 'invoice'; accountId: string; id: string; row: InvoiceRow };

/** The document the token names, or undefined (unknown, replaced, draft, void or deleted). */
export async function locateHostedDocument(db: Executor, token: string): Promise<HostedTarget | undefined> {
  if (!isHostedToken(token)) return undefined;
  const quoteRow = await findQuoteByToken(db, token);
  if (quoteRow && quoteRow.status !== 'draft') return { kind: 'quote', accountId: quoteRow.account_id, id: quoteRow.id, row: quoteRow };
  const invoiceRow = await findInvoiceByToken(db, token);
  if (!invoiceRow || invoiceRow.status === 'draft' || invoiceRow.status === 'void') return undefined;
  return { kind: 'invoice', accountId: invoiceRow.account_id, id: invoiceRow.id, row: invoiceRow };
}

/** The located document as its page prints it. */
export async function printHostedDocument(db: Executor, target: HostedTarget, now: Date): Promise<HostedDocument> {
  if (target.kind === 'quote') {
    const quote = presentQuote(target.row);
    const expired = quote.status === 'sent' && quote.valid_until !== null && quote.valid_until < todayUtc(now);
    return { ...(await printed(db, target.accountId, 'quote', quote)), quote, expired };
  }
  const invoice = presentInvoice(await getInvoiceRecord(db, target.accountId, target.id), now);
  return { ...(await printed(db, target.accountId, 'invoice', invoice)), expired: false };
}

async function printed(db: Executor, accountId: string, kind: SentKind, document: PrintableDocument & { client_id: string }) {
  const client = await getClientRow(db, accountId, document.client_id);
  return { kind, accountId, id: document.id, snapshot: await documentSnapshot(db, accountId, kind, document, client, null), hasLogo: await hasLogo(db, accountId) };
}
