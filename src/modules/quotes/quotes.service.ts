// Quote rules: made for a client (optionally from a service request, converting it), editable while
// draft or sent, numbered on first send, answered on the hub, and converted when a job or invoice is made
// from it. What each move does is the lifecycle's (quotes.lifecycle.ts); sending is sent-documents'.
import { createHash } from 'node:crypto';
import { newId } from '../../core/deps.js';
import { conflict, fieldError, type Precondition } from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { QuoteRow } from '../../db/types.js';
import { HUB_ACTOR, inTransaction, type Context, type Runtime } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { requireClientReference } from '../clients/index.js';
import {
  accountCurrency,
  assertClientKept,
  assertCurrencyKept,
  assertDeletable,
  assertEditable,
  assertHolds,
  assertMove,
  enter,
  parseStatusFilter,
  presentHostedUrl,
  presentPriced,
  pricingForNew,
  pricingForUpdate,
  propertyAfter,
  type DeliveryStatus,
  type SendableKind,
  withoutStoring,
  hostedLinkOnClientChange,
} from '../documents/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, storedTags, tagConditions, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf, type StagedSignature, storeSignatureImage } from '../attachments/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { propertyForNewDocument, propertyOnUpdate } from '../properties/index.js';
import { convertServiceRequest } from '../service-requests/index.js';
import { guardExternalId, requireReference, requireRow } from '../shared/index.js';
import {
  assertQuoteConvertible,
  isQuoteExpired,
  QUOTE_LIFECYCLE,
  QUOTE_STATUSES,
  quoteSentColumns,
  type QuoteStatus,
} from './quotes.lifecycle.js';
import {
  assertDepositWithinTotal,
  changeDepositPaid,
  depositColumns,
  depositFigures,
  depositOf,
  lockQuoteForDeposit,
} from './quotes.deposits.js';
import { deleteSignatures, insertSignature, invalidateSignatures, signedDocument } from './signatures.js';
import * as repository from './quotes.repository.js';
import type { CreateQuoteInput, ListQuotesInput, Quote, Signature, UpdateQuoteInput } from './quotes.schemas.js';

export function presentQuote(row: QuoteRow): Quote {
  const priced = presentPriced(row);
  // Field by field, not `...presentPriced(row)`: each field after a spread is a slow definition on Node 20
  // (invoices.presenter.ts, invoiceRecord).
  return {
    id: row.id,
    object: 'quote',
    external_id: row.external_id,
    number: row.number,
    client_id: row.client_id,
    property_id: row.property_id,
    request_id: row.request_id,
    title: row.title,
    currency: priced.currency,
    line_items: priced.line_items,
    prices_include_tax: priced.prices_include_tax,
    rounding: priced.rounding,
    discount: priced.discount,
    discount_amount: priced.discount_amount,
    subtotal_amount: priced.subtotal_amount,
    tax_amount: priced.tax_amount,
    total_amount: priced.total_amount,
    tax_breakdown: priced.tax_breakdown,
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
    signature: row.signature ? fromJson<Signature>(row.signature) : null,
    deposit: depositOf(row),
    ...depositFigures(row),
    metadata: fromJson(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    tags: storedTags(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<QuoteRow> {
  return requireRow('quote', id, (found) => repository.findQuote(ctx.db, ctx.accountId, found, lock));
}

export async function createQuote(ctx: Context, input: CreateQuoteInput): Promise<Quote> {
  return guardExternalId(ctx, 'quotes', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      await requireClientReference(tx, input.client_id);
      const request =
        input.request_id === undefined ? undefined : await convertServiceRequest(tx, input.request_id, input.client_id);
      const propertyId = await propertyForNewDocument(tx, input.client_id, input.property_id, request?.property_id);
      const currency = input.currency ?? (await accountCurrency(tx.db, tx.accountId));
      const priced = await pricingForNew(tx, input, { currency, propertyId });
      const now = tx.clock.now().toISOString();
      const row: QuoteRow = {
        id: newId(),
        external_id: input.external_id ?? null,
        account_id: tx.accountId,
        client_id: input.client_id,
        property_id: propertyId,
        request_id: input.request_id ?? null,
        ...(depositColumns(input.deposit) ?? { deposit_type: null, deposit_value: null }),
        deposit_paid_amount: 0,
        number: null,
        number_seq: null,
        title: input.title ?? null,
        currency,
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
        signature: null,
        delivery_id: null,
        delivery_status: null,
        hosted_token: null,
        hosted_url: null,
        hosted_recipient: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        custom_fields: '{}',
        tags: '[]',
        created_at: now,
        updated_at: now,
      };
      assertDepositWithinTotal(row);
      row.custom_fields = await createdCustomFields(tx, 'quote', row, input.custom_fields);
      row.tags = (await writeTags(tx, 'quote', row, input.tags, undefined)) ?? '[]';
      await repository.insertQuote(tx.db, row);
      const quote = presentQuote(row);
      await recordEvent(tx, 'quote.created', quote);
      return quote;
    }),
  );
}

/** The quote a create with this body would store; nothing is stored (docs/api-contract.md §19). */
export function previewQuote(ctx: Context, input: CreateQuoteInput): Promise<Quote> {
  return withoutStoring(ctx, (tx) => createQuote(tx, input));
}

export async function getQuote(ctx: Context, id: string): Promise<Quote> {
  return presentQuote(await getRow(ctx, id));
}

export async function updateQuote(
  ctx: Context,
  id: string,
  input: UpdateQuoteInput,
  precondition?: Precondition,
): Promise<Quote> {
  return guardExternalId(
    ctx,
    'quotes',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentQuote(current));
        const from = current.status as QuoteStatus;
        const {
          status,
          metadata,
          custom_fields: _customFields,
          tags: _tags,
          line_items: _lines,
          prices_include_tax: _inclusive,
          rounding: _rounding,
          discount: _discount,
          property_id: _property,
          deposit,
          ...fields
        } = input;
        if (Object.keys(input).some((key) => key !== 'status')) assertEditable(QUOTE_LIFECYCLE, from);
        if (status !== undefined) assertMove(QUOTE_LIFECYCLE, from, status);
        assertClientKept(
          current.client_id,
          fields.client_id,
          current.request_id === null ? undefined : 'the quote was made from a service request',
        );
        assertCurrencyKept(current, fields.currency);
        if (fields.client_id !== undefined) await requireClientReference(tx, fields.client_id);
        const property = await propertyOnUpdate(tx, current, input);
        if (Object.keys(input).length === 0) return presentQuote(current);
        const values = await updatedCustomFields(tx, 'quote', current, input.custom_fields, current.custom_fields);
        const tags = await writeTags(tx, 'quote', current, input.tags, current.tags);
        // Custom fields and tags named with the values they hold change nothing: no write, updated_at kept.
        if (
          values === undefined &&
          tags === undefined &&
          Object.keys(input).every((key) => key === 'custom_fields' || key === 'tags')
        )
          return presentQuote(current);

        const now = tx.clock.now().toISOString();
        const patch: Partial<QuoteRow> = {
          ...fields,
          ...property,
          ...hostedLinkOnClientChange(current, fields.client_id, tx.links),
          updated_at: now,
        };
        if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
        if (values !== undefined) patch.custom_fields = values;
        if (tags !== undefined) patch.tags = tags;
        Object.assign(patch, depositColumns(deposit) ?? {});
        Object.assign(patch, await pricingForUpdate(tx, current, input, propertyAfter(current, property)));
        assertDepositWithinTotal({ ...current, ...patch });
        assertHolds(QUOTE_LIFECYCLE, status ?? from, patch, from);
        if (status === 'sent' && from !== 'sent')
          Object.assign(patch, await quoteSentColumns(tx, { ...current, ...patch }));
        else if (status !== undefined) Object.assign(patch, enter(QUOTE_LIFECYCLE, from, status, now));
        // Revised after approval (docs/api-contract.md §30): the signature no longer binds; sent and signed again,
        // the next one binds the new content.
        if (from === 'approved' && status === 'draft') {
          await invalidateSignatures(tx.db, tx.accountId, current.id, now);
          const signature = current.signature ? fromJson<Signature>(current.signature) : null;
          if (signature && signature.invalidated_at === null)
            patch.signature = JSON.stringify({ ...signature, invalidated_at: now, invalidated_reason: 'revised' });
        }
        const quote = presentQuote((await repository.updateQuote(tx.db, tx.accountId, current.id, patch)) ?? current);
        await recordChange(tx, {
          resource: 'quote',
          before: presentQuote(current),
          after: quote,
          statusEvents: QUOTE_LIFECYCLE.events,
        });
        return quote;
      }),
    id,
  );
}

/** What sent-documents needs to send a quote, or replace its hosted link. */
export const SENDABLE_QUOTE: SendableKind<QuoteRow, Quote> = {
  kind: 'quote',
  lock: (tx, id) => getRow(tx, id, true),
  sentColumns: quoteSentColumns,
  update: async (tx, row, patch) => (await repository.updateQuote(tx.db, tx.accountId, row.id, patch)) ?? row,
  present: presentQuote,
};

/** The quote a deposit payment names, locked and checked (approved or converted, else `409`). */
export const lockDepositQuote = lockQuoteForDeposit;

/** Adds a deposit payment (or minus its refund) to the locked quote's deposit_paid_amount, with its events. */
export function changeQuoteDepositPaid(tx: Context, quote: QuoteRow, change: number): Promise<void> {
  return changeDepositPaid(tx, quote, change, presentQuote);
}

/**
 * The client's answer on the hub: approve with their typed name (and, from the page, the hash of the signed
 * content it showed, with where it came from), or decline with an optional reason.
 */
export type QuoteAnswer = (
  | {
      decision: 'approve';
      name: string;
      /** The SHA-256 the page showed; absent, the version (which covers the same fields) binds alone. */
      documentSha256?: string | undefined;
      signer?: { ipAddress: string | null; userAgent: string | null };
      /** A drawn signature, checked and staged (the account's `quote_signature: drawn`): stored with the approval. */
      image?: StagedSignature | undefined;
    }
  | { decision: 'decline'; reason: string | null }
) & {
  /** The version of the quote the page showed (quoteVersion); another version is not what the client answers. */
  version: string | undefined;
};

/** The fields of a quote its client reads and answers: a change to any of them is a new version. */
const ANSWERED_FIELDS = [
  'number',
  'client_id',
  'property_id',
  'title',
  'currency',
  'line_items',
  'subtotal_amount',
  'discount_amount',
  'tax_amount',
  'total_amount',
  'notes',
  'valid_until',
] as const;

/**
 * The version of a quote as its client sees it: a digest of what the hub page shows and an
 * answer accepts, so an approval binds to the amounts on the page, not to whatever the quote says later.
 */
export function quoteVersion(quote: Quote): string {
  const shown = quote as unknown as Record<string, unknown>;
  const fields = ANSWERED_FIELDS.map((field) => [field, shown[field] ?? null]);
  // The deposit the page asks is answered too; a quote without one keeps the version it had before deposits.
  if (quote.deposit !== null) fields.push(['deposit', quote.deposit], ['deposit_amount', quote.deposit_amount]);
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22);
}

/**
 * Records the client's answer to the quote a hub token names, by the lifecycle's rules (sent -> approved |
 * declined) and with its events (`data.source: "hub"`), once: the row is locked, so of two answers at
 * the same moment the second finds the quote answered ('closed'). An approval after valid_until is
 * refused ('expired'). Undefined when the token names no quote the client may see.
 */
export async function answerQuote(
  runtime: Runtime,
  token: string,
  answer: QuoteAnswer,
): Promise<'answered' | 'closed' | 'expired' | 'changed' | undefined> {
  return inTransaction(runtime, async (reach) => {
    const current = await repository.findQuoteByToken(reach.db, token, true);
    if (!current || current.status === 'draft') return undefined;
    if (current.status !== 'sent') return 'closed';
    if (answer.version !== quoteVersion(presentQuote(current))) return 'changed';
    const now = reach.clock.now();
    if (
      answer.decision === 'approve' &&
      isQuoteExpired(current, now, await findAccountTimezone(reach.db, current.account_id))
    )
      return 'expired';
    const to: QuoteStatus = answer.decision === 'approve' ? 'approved' : 'declined';
    assertMove(QUOTE_LIFECYCLE, 'sent', to);
    const answered: Partial<QuoteRow> =
      answer.decision === 'approve' ? { approved_by: answer.name } : { decline_reason: answer.reason };
    const tx: Context = { ...reach, accountId: current.account_id, actor: HUB_ACTOR };
    if (answer.decision === 'approve') {
      // The signature binds what the page showed: a hash that differs from the quote's now signs nothing.
      const document = signedDocument(presentQuote(current));
      if (answer.documentSha256 !== undefined && answer.documentSha256 !== document.sha256) return 'changed';
      // A drawn signature's image is the quote's attachment from the same transaction as the signature naming it.
      const image = answer.image ? await storeSignatureImage(tx, answer.image, current.id) : undefined;
      const signature = await insertSignature(tx.db, tx.accountId, {
        imageAttachmentId: image?.id,
        quoteId: current.id,
        signerName: answer.name,
        signedAt: now.toISOString(),
        ipAddress: answer.signer?.ipAddress ?? null,
        userAgent: answer.signer?.userAgent ?? null,
        document,
      });
      answered.signature = JSON.stringify(signature);
    }
    const patch = {
      ...enter(QUOTE_LIFECYCLE, 'sent', to, now.toISOString()),
      ...answered,
      updated_at: now.toISOString(),
    };
    const updated = (await repository.updateQuote(tx.db, tx.accountId, current.id, patch)) ?? current;
    await recordChange(tx, {
      resource: 'quote',
      before: presentQuote(current),
      after: presentQuote(updated),
      statusEvents: QUOTE_LIFECYCLE.events,
      source: 'hub',
    });
    return 'answered';
  });
}

export async function deleteQuote(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    precondition?.(presentQuote(current));
    assertDeletable(QUOTE_LIFECYCLE, current.status as QuoteStatus);
    const deposits = await repository.countQuoteDeposits(tx.db, tx.accountId, current.id);
    if (deposits > 0)
      throw conflict(`The quote has ${deposits} deposit payment(s); a quote a payment names is never deleted.`);
    await deleteCustomFieldValues(tx.db, tx.accountId, 'quote', current.id);
    await deleteObjectTags(tx, 'quote', current.id);
    await deleteAttachmentsOf(tx, 'quote', current.id);
    await deleteSignatures(tx.db, tx.accountId, current.id);
    await repository.deleteQuote(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'quote.deleted', presentQuote(current));
    return { id: current.id, deleted: true as const };
  });
}

/**
 * Converts an approved quote when a job or invoice is made from it (inside the caller's transaction)
 * and returns it, so its client and lines can be copied. `clientId`, when given, must be the quote's.
 */
export async function convertQuote(tx: Context, quoteId: string, clientId: string | undefined): Promise<QuoteRow> {
  const quote = await requireReference('quote_id', 'quote', quoteId, (id) =>
    repository.findQuote(tx.db, tx.accountId, id, true),
  );
  if (clientId !== undefined && quote.client_id !== clientId) throw fieldError('quote_id', 'belongs to another client');
  assertQuoteConvertible(quote.status as QuoteStatus);
  const now = tx.clock.now().toISOString();
  const converted = await repository.updateQuote(tx.db, tx.accountId, quote.id, {
    ...enter(QUOTE_LIFECYCLE, 'approved', 'converted', now),
    updated_at: now,
  });
  if (converted)
    await recordChange(tx, {
      resource: 'quote',
      before: presentQuote(quote),
      after: presentQuote(converted),
      statusEvents: QUOTE_LIFECYCLE.events,
    });
  return quote;
}

export async function listQuotes(ctx: Context, query: ListQuotesInput): Promise<Page<QuoteRow>> {
  const page = pageRequest(query, repository.QUOTE_SORTS);
  const custom = [
    ...(await customFieldConditions(ctx.db, ctx.accountId, 'quote', 'quotes', query)),
    ...(await tagConditions(ctx.db, ctx.accountId, 'quote', 'quotes', query)),
  ];
  const { rows, resumeAfter } = await repository.listQuotes(
    ctx.db,
    ctx.accountId,
    { ...query, statuses: parseStatusFilter(query.status, QUOTE_STATUSES), custom },
    page,
  );
  return toPage(rows, page, resumeAfter);
}
