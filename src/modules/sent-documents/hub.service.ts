// What the hub shows for a token: the sent quote, invoice or issued credit note it names (in whichever account), printed from
// the same snapshot as its e-mail and PDF. A draft, a void invoice, a deleted document or a replaced
// token names nothing.
import type { Executor } from '../../db/index.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import { findAccountTimezone, findQuoteSignatureMode, hasLogo, type QuoteSignatureMode } from '../accounts/index.js';
import type { CreditNoteRow, InvoiceRow, QuoteRow } from '../../db/types.js';
import { findCreditNoteByToken, getCreditNote, printableCreditNote } from '../credit-notes/index.js';
import { getClientRow } from '../clients/index.js';
import { documentSnapshot, type PrintableDocument, type SentKind } from '../documents/index.js';
import { findInvoiceByToken } from '../invoices/index.js';
import { depositReceivedOn, getInvoiceRecord, presentInvoice } from '../invoices/index.js';
import { findQuoteByToken } from '../quotes/index.js';
import { isQuoteExpired, presentQuote } from '../quotes/index.js';
import { HUB_ACTOR, type Context, type Runtime } from '../../kernel/context.js';
import type { Quote } from '../quotes/index.js';
import { isHostedToken } from '../documents/index.js';

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
  /** How an approval of the quote is signed: the account's `quote_signature` (quotes only). */
  signatureMode?: QuoteSignatureMode;
  /** An invoice's job (`job_id`): its files and its visits' are listed on the page (docs/api-contract.md §30). */
  jobId?: string | null;
}

/** Which document a token names, without printing it: enough for its PDF, its logo or an answer. */
export type HostedTarget =
  | { kind: 'quote'; accountId: string; id: string; row: QuoteRow }
  | { kind: 'invoice'; accountId: string; id: string; row: InvoiceRow }
  | { kind: 'credit_note'; accountId: string; id: string; row: CreditNoteRow };

/** The document the token names, or undefined (unknown, replaced, draft, void or deleted). */
export async function locateHostedDocument(db: Executor, token: string): Promise<HostedTarget | undefined> {
  if (!isHostedToken(token)) return undefined;
  const quoteRow = await findQuoteByToken(db, token);
  if (quoteRow && quoteRow.status !== 'draft')
    return { kind: 'quote', accountId: quoteRow.account_id, id: quoteRow.id, row: quoteRow };
  const invoiceRow = await findInvoiceByToken(db, token);
  if (invoiceRow && invoiceRow.status !== 'draft' && invoiceRow.status !== 'void')
    return { kind: 'invoice', accountId: invoiceRow.account_id, id: invoiceRow.id, row: invoiceRow };
  // A credit note's page lives from issue to void (§22).
  const noteRow = await findCreditNoteByToken(db, token);
  if (!noteRow || noteRow.status !== 'issued') return undefined;
  return { kind: 'credit_note', accountId: noteRow.account_id, id: noteRow.id, row: noteRow };
}

/** The located document as its page prints it. */
export async function printHostedDocument(runtime: Runtime, target: HostedTarget, now: Date): Promise<HostedDocument> {
  const ctx: Context = { ...runtime, accountId: target.accountId, actor: HUB_ACTOR };
  if (target.kind === 'quote') {
    const quote = presentQuote(target.row);
    const timezone = await findAccountTimezone(ctx.db, ctx.accountId);
    return {
      ...(await printed(ctx, 'quote', quote)),
      quote,
      expired: isQuoteExpired(quote, now, timezone),
      signatureMode: await findQuoteSignatureMode(ctx.db, ctx.accountId),
    };
  }
  if (target.kind === 'credit_note') {
    const note = await printableCreditNote(ctx, await getCreditNote(ctx, target.id));
    return { ...(await printed(ctx, 'credit_note', note)), expired: false };
  }
  const invoice = presentInvoice(await getInvoiceRecord(ctx.db, ctx.accountId, target.id), now);
  const deposit_received = await depositReceivedOn(ctx.db, ctx.accountId, invoice.id);
  return {
    ...(await printed(ctx, 'invoice', { ...invoice, deposit_received })),
    expired: false,
    jobId: invoice.job_id ?? null,
  };
}

async function printed(ctx: Context, kind: SentKind, document: PrintableDocument & { client_id: string }) {
  const client = await getClientRow(ctx, document.client_id);
  return {
    kind,
    accountId: ctx.accountId,
    id: document.id,
    snapshot: await documentSnapshot(ctx.db, ctx.accountId, kind, document, client, null),
    hasLogo: await hasLogo(ctx.db, ctx.accountId),
  };
}
