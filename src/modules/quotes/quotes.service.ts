// Quote rules: made for a client (optionally from a service request, converting it), editable while
// draft or sent, numbered on first send, sent by e-mail, and converted when a job or invoice is made from it.
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import type { Db, Executor } from '../../db/database.js';
import { pageRequest, toPage, type Page } from '../../db/keyset.js';
import type { QuoteRow } from '../../db/types.js';
import { fromJson } from '../../db/values.js';
import { getClientRow, requireClientReference } from '../clients/clients.service.js';
import { assertClientKept } from '../documents/client-link.js';
import { parseStatusFilter } from '../documents/list-filters.js';
import type { DeliveryStatus, SendInput } from '../documents/document.schemas.js';
import { accountCurrency, presentPriced, pricedColumns, todayUtc } from '../documents/priced.js';
import { assertHasHostedLink, queueDocumentMail } from '../documents/sending.js';
import { assertTransition } from '../documents/state-machine.js';
import { convertServiceRequest } from '../service-requests/service-requests.service.js';
import { previousAttributes, recordChange, recordEvent } from '../events/events.service.js';
import { newHostedLink, presentHostedUrl, type HostedLinks } from '../documents/hosted-links.js';
import { requireReference, requireRow } from '../shared/lookup.js';
import {
  assertQuoteConvertible,
  assertQuoteDeletable,
  assertQuoteEditable,
  QUOTE_STATUS_EVENTS,
  QUOTE_STATUSES,
  QUOTE_TRANSITIONS,
  quoteSentColumns,
  type QuoteStatus,
} from './quotes.lifecycle.js';
import * as repository from './quotes.repository.js';
import type { CreateQuoteInput, ListQuotesInput, Quote, UpdateQuoteInput } from './quotes.schemas.js';

export function presentQuote(row: QuoteRow): Quote {
  return {
    id: row.id,
    object: 'quote',
    number: row.number,
    client_id: row.client_id,
    request_id: row.request_id,
    title: row.title,
    ...presentPriced(row),
    notes: row.notes,
    valid_until: row.valid_until,
    status: row.status,
    sent_at: row.sent_at,
    delivery_status: row.delivery_status as DeliveryStatus | null,
    hosted_url: presentHostedUrl(row),
    approved_at: row.approved_at,
    approved_by: row.approved_by,
    declined_at: row.declined_at,
    decline_reason: row.decline_reason,
    converted_at: row.converted_at,
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(db: Executor, accountId: string, id: string, lock = false): Promise<QuoteRow> {
  return requireRow('quote', id, (found) => repository.findQuote(db, accountId, found, lock));
}

export async function createQuote(db: Db, clock: Clock, accountId: string, input: CreateQuoteInput): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    await requireClientReference(trx, accountId, input.client_id);
    const priced = pricedColumns(input.line_items ?? []);
    if (input.request_id !== undefined) await convertServiceRequest(trx, clock, accountId, input.request_id, input.client_id);
    const now = clock.now().toISOString();
    const row: QuoteRow = {
      id: newId(),
      account_id: accountId,
      client_id: input.client_id,
      request_id: input.request_id ?? null,
      number: null,
      number_seq: null,
      title: input.title ?? null,
      currency: input.currency ?? (await accountCurrency(trx, accountId)),
      ...priced,
      notes: input.notes ?? null,
      valid_until: input.valid_until ?? null,
      status: 'draft',
      sent_at: null,
      approved_at: null,
      approved_by: null,
      declined_at: null,
      decline_reason: null,
      converted_at: null,
      delivery_id: null,
      delivery_status: null,
      hosted_token: null,
      hosted_url: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await repository.insertQuote(trx, row);
    const quote = presentQuote(row);
    await recordEvent(trx, clock, accountId, 'quote.created', quote);
    return quote;
  });
}

export async function getQuote(db: Executor, accountId: string, id: string): Promise<Quote> {
  return presentQuote(await getRow(db, accountId, id));
}

export async function updateQuote(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string, input: UpdateQuoteInput, precondition?: Precondition): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    precondition?.(presentQuote(current));
    const from = current.status as QuoteStatus;
    const { status, metadata, line_items: lineItems, ...fields } = input;
    if (Object.keys(input).some((key) => key !== 'status')) assertQuoteEditable(from);
    if (status !== undefined) assertTransition('quote', QUOTE_TRANSITIONS, from, status);
    assertClientKept(current.client_id, fields.client_id, current.request_id === null ? undefined : 'the quote was made from a service request');
    if (fields.client_id !== undefined) await requireClientReference(trx, accountId, fields.client_id);
    if (Object.keys(input).length === 0) return presentQuote(current);
    if ((status ?? from) === 'sent' && lineItems !== undefined && lineItems.length === 0) throw fieldError('line_items', 'a sent quote keeps at least one line item; move it back to draft first');

    const now = clock.now().toISOString();
    const patch: Partial<QuoteRow> = { ...fields, updated_at: now };
    if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
    if (lineItems !== undefined) Object.assign(patch, pricedColumns(lineItems));
    if (status !== undefined && status !== from) {
      if (status === 'sent') Object.assign(patch, await quoteSentColumns(trx, clock, links, accountId, { ...current, ...patch }));
      else patch.status = status;
      if (status === 'approved') patch.approved_at = now;
      if (status === 'declined') patch.declined_at = now;
    }
    const quote = presentQuote((await repository.updateQuote(trx, accountId, current.id, patch)) ?? current);
    await recordChange(trx, clock, accountId, 'quote', presentQuote(current), quote, QUOTE_STATUS_EVENTS);
    return quote;
  });
}

/**
 * Sends the quote: in one transaction, assign its number on first send, move it to `sent`, and queue the
 * e-mail to the client's stored address. The response never waits for SMTP.
 */
export async function sendQuote(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string, input: SendInput): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    const client = await getClientRow(trx, accountId, current.client_id);
    const columns = await quoteSentColumns(trx, clock, links, accountId, current, client);
    const deliveryId = newId();
    const patch = { ...columns, delivery_id: deliveryId, delivery_status: 'queued', updated_at: clock.now().toISOString() };
    const quote = presentQuote((await repository.updateQuote(trx, accountId, current.id, patch)) ?? current);
    // Every send is a quote.sent, a re-send too (its sent_at moves).
    await recordEvent(trx, clock, accountId, 'quote.sent', quote, { previous_attributes: previousAttributes(presentQuote(current), quote) });
    await queueDocumentMail(trx, clock, accountId, client, { kind: 'quote', deliveryId, message: input?.message ?? null, document: quote });
    return quote;
  });
}

/**
 * Replaces the quote's hosted link: the old URL stops working at once (a link forwarded by mistake). A
 * draft has no link to replace.
 */
export async function rotateQuoteLink(db: Db, clock: Clock, links: HostedLinks, accountId: string, id: string): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    assertHasHostedLink('quote', current);
    const quote = presentQuote((await repository.updateQuote(trx, accountId, current.id, { ...newHostedLink(links), updated_at: clock.now().toISOString() })) ?? current);
    await recordChange(trx, clock, accountId, 'quote', presentQuote(current), quote);
    return quote;
  });
}

/** The client's answer on the hub: approve with their typed name, or decline with an optional reason. */
export type QuoteAnswer = { decision: 'approve'; name: string } | { decision: 'decline'; reason: string | null };

/**
 * Records the client's answer to the quote a hub token names, by the API's rules (sent -> approved |
 * declined) and with its events (`data.source: "hub"`), once: the row is locked, so of two answers at
 * the same moment the second finds the quote answered ('closed'). An approval after valid_until is
 * refused ('expired'). Undefined when the token names no quote the client may see.
 */
export async function answerQuote(db: Db, clock: Clock, token: string, answer: QuoteAnswer): Promise<'answered' | 'closed' | 'expired' | undefined> {
  return db.transaction().execute(async (trx) => {
    const current = await repository.findQuoteByToken(trx, token, true);
    if (!current || current.status === 'draft') return undefined;
    if (current.status !== 'sent') return 'closed';
    const now = clock.now();
    if (answer.decision === 'approve' && current.valid_until !== null && current.valid_until < todayUtc(now)) return 'expired';
    const to: QuoteStatus = answer.decision === 'approve' ? 'approved' : 'declined';
    assertTransition('quote', QUOTE_TRANSITIONS, 'sent', to);
    const patch: Partial<QuoteRow> =
      answer.decision === 'approve'
        ? { status: to, approved_at: now.toISOString(), approved_by: answer.name }
        : { status: to, declined_at: now.toISOString(), decline_reason: answer.reason };
    const updated = (await repository.updateQuote(trx, current.account_id, current.id, { ...patch, updated_at: now.toISOString() })) ?? current;
    await recordChange(trx, clock, current.account_id, 'quote', presentQuote(current), presentQuote(updated), QUOTE_STATUS_EVENTS, 'hub');
    return 'answered';
  });
}

export async function deleteQuote(db: Db, clock: Clock, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, id, true);
    precondition?.(presentQuote(current));
    assertQuoteDeletable(current.status as QuoteStatus);
    await repository.deleteQuote(trx, accountId, current.id);
    await recordEvent(trx, clock, accountId, 'quote.deleted', presentQuote(current));
    return { id: current.id, deleted: true as const };
  });
}

/**
 * Converts an approved quote when a job or invoice is made from it (inside the caller's transaction)
 * and returns it, so its client and lines can be copied. `clientId`, when given, must be the quote's.
 */
export async function convertQuote(trx: Executor, clock: Clock, accountId: string, quoteId: string, clientId: string | undefined): Promise<QuoteRow> {
  const quote = await requireReference('quote_id', 'quote', quoteId, (id) => repository.findQuote(trx, accountId, id, true));
  if (clientId !== undefined && quote.client_id !== clientId) throw fieldError('quote_id', 'belongs to another client');
  assertQuoteConvertible(quote.status as QuoteStatus);
  const now = clock.now().toISOString();
  const converted = await repository.updateQuote(trx, accountId, quote.id, { status: 'converted', converted_at: now, updated_at: now });
  if (converted) await recordChange(trx, clock, accountId, 'quote', presentQuote(quote), presentQuote(converted), QUOTE_STATUS_EVENTS);
  return quote;
}

export async function listQuotes(db: Executor, accountId: string, query: ListQuotesInput): Promise<Page<QuoteRow>> {
  const page = pageRequest(query, repository.QUOTE_SORTS);
  const { rows, resumeAfter } = await repository.listQuotes(db, accountId, { ...query, statuses: parseStatusFilter(query.status, QUOTE_STATUSES) }, page);
  return toPage(rows, page, resumeAfter);
}
