// Sending a quote or invoice: in one transaction, check it may be sent, assign its number and dates,
// move it to `sent`, and queue the e-mail in the outbox. The HTTP response never waits for SMTP; a crash
// can never leave a document marked sent without its message queued, or the reverse.
import type { Db, Executor } from '../../db/database.js';
import { accountTable } from '../../db/account-table.js';
import type { ClientRow } from '../../db/types.js';
import type { Clock } from '../../deps.js';
import { newId } from '../../deps.js';
import { invalidState, validationError, type ErrorDetail } from '../../http/errors.js';
import type { MailSnapshot } from '../../mail/document-mail.js';
import { enqueueMessage } from '../../mail/outbox.repository.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { lineItemsOf } from '../documents/priced.js';
import { requireRow } from '../documents/references.js';
import * as invoices from '../invoices/invoices.service.js';
import type { Invoice } from '../invoices/invoices.schemas.js';
import * as quotes from '../quotes/quotes.service.js';
import type { Quote } from '../quotes/quotes.schemas.js';
import type { SendInput } from './sending.schemas.js';

const SENDABLE = ['draft', 'sent'];

/** The checks of the contract, reported together: the client's e-mail and at least one line. */
function assertSendable(kind: string, document: { status: string; line_items: string }, client: ClientRow): void {
  if (!SENDABLE.includes(document.status)) throw invalidState(`This ${kind} is '${document.status}'; only draft or sent ${kind}s can be sent.`);
  const details: ErrorDetail[] = [];
  if (!client.email) details.push({ field: 'client.email', message: 'the client has no e-mail address to send to' });
  if (lineItemsOf(document).length === 0) details.push({ field: 'line_items', message: `the ${kind} has no line items` });
  if (details.length > 0) throw validationError(details, `This ${kind} cannot be sent yet.`);
}

async function queueMail(trx: Executor, clock: Clock, accountId: string, kind: 'invoice' | 'quote', documentId: string, client: ClientRow, snapshot: Omit<MailSnapshot, 'business' | 'client' | 'kind'>): Promise<void> {
  const account = await findAccount(trx, accountId);
  const now = clock.now().toISOString();
  const id = newId();
  await enqueueMessage(trx, {
    id,
    account_id: accountId,
    document_type: kind,
    document_id: documentId,
    recipient: String(client.email),
    message_id: `<${id}@bms.outbox>`,
    snapshot: JSON.stringify({ ...snapshot, kind, business: { name: account?.name ?? 'BMS' }, client: { name: client.name, email: String(client.email), company_name: client.company_name } } satisfies MailSnapshot),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_by: null,
    locked_until: null,
    last_error: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  });
}

export async function sendInvoice(db: Db, clock: Clock, accountId: string, id: string, input: SendInput): Promise<Invoice> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'invoices', accountId, id, true);
    const client = await requireRow(trx, 'clients', accountId, current.client_id);
    assertSendable('invoice', current, client);
    const columns = await invoices.sentColumns(trx, clock, accountId, current);
    const updated = await accountTable('invoices').update(trx, accountId, current.id, { ...columns, updated_at: clock.now().toISOString() });
    const invoice = invoices.presentInvoice(updated ?? current, clock.now());
    await queueMail(trx, clock, accountId, 'invoice', invoice.id, client, {
      message: input?.message ?? null,
      document: { ...invoice, number: invoice.number as string, title: null, valid_until: null },
    });
    return invoice;
  });
}

export async function sendQuote(db: Db, clock: Clock, accountId: string, id: string, input: SendInput): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'quotes', accountId, id, true);
    const client = await requireRow(trx, 'clients', accountId, current.client_id);
    assertSendable('quote', current, client);
    const columns = await quotes.sentColumns(trx, clock, accountId, current);
    const updated = await accountTable('quotes').update(trx, accountId, current.id, { ...columns, updated_at: clock.now().toISOString() });
    const quote = quotes.presentQuote(updated ?? current);
    await queueMail(trx, clock, accountId, 'quote', quote.id, client, {
      message: input?.message ?? null,
      document: { ...quote, number: quote.number as string, amount_due: null, issue_date: null, due_date: null },
    });
    return quote;
  });
}
