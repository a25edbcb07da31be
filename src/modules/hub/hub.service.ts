// What the hub shows for a token: the sent quote or invoice it names (in whichever account), printed from
// the same snapshot as its e-mail and PDF. A draft, a void invoice, a deleted document or a replaced
// token names nothing.
import type { Executor } from '../../db/database.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import { findLogo, hasLogo } from '../accounts/accounts.repository.js';
import { getClientRow } from '../clients/clients.service.js';
import { documentSnapshot, type PrintableDocument, type SentKind } from '../documents/sending.js';
import { todayUtc } from '../documents/priced.js';
import { findInvoiceByToken } from '../invoices/invoices.repository.js';
import { getInvoiceRecord, presentInvoice } from '../invoices/invoices.presenter.js';
import { findQuoteByToken } from '../quotes/quotes.repository.js';
import { presentQuote } from '../quotes/quotes.service.js';
import type { Quote } from '../quotes/quotes.schemas.js';
import { isHostedToken } from './hosted-links.js';

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

/** The document the token names, or undefined (unknown, replaced, draft, void or deleted). */
export async function findHostedDocument(db: Executor, token: string, now: Date): Promise<HostedDocument | undefined> {
  if (!isHostedToken(token)) return undefined;
  const quoteRow = await findQuoteByToken(db, token);
  if (quoteRow && quoteRow.status !== 'draft') {
    const quote = presentQuote(quoteRow);
    const expired = quote.status === 'sent' && quote.valid_until !== null && quote.valid_until < todayUtc(now);
    return { ...(await printed(db, quoteRow.account_id, 'quote', quote)), quote, expired };
  }
  const invoiceRow = await findInvoiceByToken(db, token);
  if (!invoiceRow || invoiceRow.status === 'draft' || invoiceRow.status === 'void') return undefined;
  const invoice = presentInvoice(await getInvoiceRecord(db, invoiceRow.account_id, invoiceRow.id), now);
  return { ...(await printed(db, invoiceRow.account_id, 'invoice', invoice)), expired: false };
}

async function printed(db: Executor, accountId: string, kind: SentKind, document: PrintableDocument & { client_id: string }) {
  const client = await getClientRow(db, accountId, document.client_id);
  return { kind, accountId, id: document.id, snapshot: await documentSnapshot(db, accountId, kind, document, client, null), hasLogo: await hasLogo(db, accountId) };
}

/** The account's logo, for the page's header. */
export async function hostedLogo(db: Executor, document: HostedDocument) {
  return document.hasLogo ? findLogo(db, document.accountId) : undefined;
}
