// Quote rules: editable while draft or sent, the status table, numbering on first send, deletion
// refused once converted, and conversion when a job or invoice is made from an approved quote.
import { sql } from 'kysely';
import { accountTable } from '../../db/account-table.js';
import type { Db, Executor } from '../../db/database.js';
import type { QuoteRow } from '../../db/types.js';
import { fromJson, toIso } from '../../db/values.js';
import type { Clock } from '../../deps.js';
import { newId } from '../../deps.js';
import type { Precondition } from '../../http/etag.js';
import { fieldError, invalidState } from '../../http/errors.js';
import { pageRequest, timestampSorts, toPage, type Page, type SortFields } from '../../http/pagination.js';
import { applyDocumentFilters } from '../documents/list-filters.js';
import { sendingColumns } from '../documents/numbering.js';
import { accountCurrency, presentPriced, pricedColumns } from '../documents/priced.js';
import { requireReference, requireRow } from '../documents/references.js';
import { assertTransition, type TransitionTable } from '../documents/state-machine.js';
import { convertServiceRequest } from '../service-requests/service-requests.service.js';
import { QUOTE_STATUSES, type CreateQuoteInput, type ListQuotesInput, type Quote, type QuoteStatus, type UpdateQuoteInput } from './quotes.schemas.js';

/** Moves a client may make with PUT; `approved -> converted` happens only by making a job or invoice. */
export const QUOTE_TRANSITIONS: TransitionTable<QuoteStatus> = {
  draft: ['sent'],
  sent: ['approved', 'declined', 'draft'],
  declined: ['draft'],
  approved: [],
  converted: [],
};

/** Statuses in which the quote's fields (not only its status) may change. */
export const QUOTE_EDITABLE: readonly QuoteStatus[] = ['draft', 'sent'];

const quotes = accountTable('quotes');

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
    sent_at: toIso(row.sent_at),
    approved_at: toIso(row.approved_at),
    declined_at: toIso(row.declined_at),
    converted_at: toIso(row.converted_at),
    metadata: fromJson(row.metadata),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

export async function createQuote(db: Db, clock: Clock, accountId: string, input: CreateQuoteInput): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    await requireReference(trx, 'clients', accountId, input.client_id, 'client_id');
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
      declined_at: null,
      converted_at: null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await quotes.insert(trx, row);
    return presentQuote(row);
  });
}

export async function getQuote(db: Executor, accountId: string, id: string): Promise<Quote> {
  return presentQuote(await requireRow(db, 'quotes', accountId, id));
}

/**
 * The columns that mark a quote sent: a number on first send (never changed after), sent_at now.
 * Shared by `PUT {status: "sent"}` and the send operation. Needs at least one line.
 */
export async function sentColumns(trx: Executor, clock: Clock, accountId: string, quote: Pick<QuoteRow, 'number' | 'number_seq' | 'line_items'>) {
  return { ...(await sendingColumns(trx, accountId, 'quote', quote)), sent_at: clock.now().toISOString() };
}

export async function updateQuote(db: Db, clock: Clock, accountId: string, id: string, input: UpdateQuoteInput, precondition?: Precondition): Promise<Quote> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'quotes', accountId, id, true);
    precondition?.(presentQuote(current));
    const from = current.status as QuoteStatus;
    const { status, metadata, line_items: lineItems, ...fields } = input;
    const changesFields = Object.keys(input).some((key) => key !== 'status');
    if (changesFields && !QUOTE_EDITABLE.includes(from)) {
      throw invalidState(`This quote is '${from}': only its status can change (fields are editable while draft or sent).`);
    }
    if (status !== undefined) assertTransition('quote', QUOTE_TRANSITIONS, from, status);
    if (fields.client_id !== undefined) await requireReference(trx, 'clients', accountId, fields.client_id, 'client_id');
    if (Object.keys(input).length === 0) return presentQuote(current);

    const now = clock.now().toISOString();
    const patch: Partial<QuoteRow> = { ...fields, updated_at: now };
    if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
    if (lineItems !== undefined) Object.assign(patch, pricedColumns(lineItems));
    if (status !== undefined && status !== from) {
      if (status === 'sent') Object.assign(patch, await sentColumns(trx, clock, accountId, { ...current, ...patch }));
      else patch.status = status;
      if (status === 'approved') patch.approved_at = now;
      if (status === 'declined') patch.declined_at = now;
    }
    return presentQuote((await quotes.update(trx, accountId, current.id, patch)) ?? current);
  });
}

export async function deleteQuote(db: Db, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const current = await requireRow(trx, 'quotes', accountId, id, true);
    precondition?.(presentQuote(current));
    if (current.status === 'converted') throw invalidState("This quote is 'converted': a job or invoice was made from it, so it cannot be deleted.");
    await quotes.delete(trx, accountId, current.id);
    return { id: current.id, deleted: true as const };
  });
}

/**
 * Converts an approved quote when a job or invoice is made from it (inside the caller's transaction)
 * and returns it, so its client and lines can be copied. `clientId`, when given, must be the quote's.
 */
export async function convertQuote(trx: Executor, clock: Clock, accountId: string, quoteId: string, clientId: string | undefined): Promise<QuoteRow> {
  const quote = await requireReference(trx, 'quotes', accountId, quoteId, 'quote_id');
  if (clientId !== undefined && quote.client_id !== clientId) throw fieldError('quote_id', 'belongs to another client');
  if (quote.status !== 'approved') throw invalidState(`This quote is '${quote.status}'; only an approved quote can become a job or invoice.`);
  const now = clock.now().toISOString();
  await quotes.update(trx, accountId, quote.id, { status: 'converted', converted_at: now, updated_at: now });
  return quote;
}

const SORTS: SortFields<QuoteRow> = {
  ...timestampSorts<QuoteRow>(),
  number: { expression: 'coalesce(number_seq, 0)', value: (row) => Number(row.number_seq ?? 0) },
};

export async function listQuotes(db: Executor, accountId: string, query: ListQuotesInput): Promise<Page<QuoteRow>> {
  const page = pageRequest(query, SORTS);
  const rows = await quotes.list(db, accountId, page, (select) => {
    const filtered = applyDocumentFilters(select, query, QUOTE_STATUSES);
    return query.request_id === undefined ? filtered : filtered.where(sql.ref('request_id'), '=', query.request_id);
  });
  return toPage(rows, page);
}
