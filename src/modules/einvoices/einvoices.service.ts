// An invoice's or credit note's e-invoice (docs/api-contract.md §31): its source gathered (the document, the
// business profile, the client, the property, the rates' VAT terms), the model built or refused with the
// reasons, and the file written in the format asked for.
import { hash } from 'node:crypto';
import { type AppError, invalidState, validationError } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import { findAccountTimezone, getAccount } from '../accounts/index.js';
import { findTaxRates } from '../catalog/index.js';
import { getClientRow } from '../clients/index.js';
import { getCreditNote } from '../credit-notes/index.js';
import { addDays, localToday } from '../documents/index.js';
import { getInvoice } from '../invoices/index.js';
import { serviceAddressOf } from '../properties/index.js';
import { presentAddress, readEinvoicing } from '../shared/index.js';
import { buildEinvoice, type EinvoiceSource, type SourceDocument, type SourceRate } from './einvoice.build.js';
import type { EinvoiceKind, EinvoiceModel, EinvoiceProblem } from './einvoice.model.js';
import { writeEinvoice } from '../../mail/einvoice-validation.js';
import { findEinvoiceFile } from './einvoices.repository.js';
import { documentFile } from '../sent-documents/index.js';
import type { PdfPool } from '../../mail/pdf-pool.js';

export type XmlFormat = 'ubl' | 'cii';
/** A format of the files: the two XML syntaxes and the Factur-X PDF. */
export type EinvoiceFormat = XmlFormat | 'facturx';

export interface EinvoiceFile {
  bytes: Buffer;
  filename: string;
  etag: string;
  contentType: string;
}

/** What a document gives its e-invoice, and whether it is a draft (numbered DRAFT when validated). */
interface Gathered {
  source: EinvoiceSource;
  draft: boolean;
  number: string | null;
}

async function gather(ctx: Context, kind: EinvoiceKind, id: string, now: Date): Promise<Gathered> {
  const account = await getAccount(ctx.db, ctx.accountId);
  let document: SourceDocument;
  let clientId: string;
  let propertyId: string | null;
  let status: string;
  let preceding: EinvoiceSource['preceding'] = null;
  let number: string | null;
  if (kind === 'invoice') {
    const invoice = await getInvoice(ctx, id, now);
    ({ client_id: clientId, property_id: propertyId, status, number } = invoice);
    document = {
      ...invoice,
      prepaid_amount: invoice.amount_paid + invoice.amount_credited,
    };
  } else {
    const note = await getCreditNote(ctx, id);
    ({ client_id: clientId, property_id: propertyId, status, number } = note);
    const notes = [note.reason, note.notes].filter((text): text is string => text !== null && text !== '');
    document = {
      ...note,
      notes: notes.length > 0 ? notes.join('\n') : null,
      due_date: null,
      buyer_reference: null,
      purchase_order: null,
      delivery_date: null,
      service_period: null,
      prepaid_amount: 0,
    };
    if (note.invoice_id !== null) {
      const invoice = await getInvoice(ctx, note.invoice_id, now);
      if (invoice.number !== null) preceding = { number: invoice.number, issue_date: invoice.issue_date };
    }
  }
  const draft = status === 'draft';
  const today = localToday(now, await findAccountTimezone(ctx.db, ctx.accountId));
  if (draft && kind === 'invoice' && document.due_date === null)
    document.due_date = addDays(today, account.payment_terms_days);
  const client = await getClientRow(ctx, clientId);
  const buyer = readEinvoicing(client.einvoicing);
  const rateIds = [
    ...new Set(document.line_items.flatMap((line) => line.taxes.flatMap((tax) => tax.tax_rate_id ?? []))),
  ];
  const rates = new Map<string, SourceRate>(
    (await findTaxRates(ctx.db, ctx.accountId, rateIds)).map((row) => [
      row.id,
      {
        tax_category: row.tax_category ?? null,
        exemption_reason: row.exemption_reason ?? null,
        exemption_reason_code: row.exemption_reason_code ?? null,
      },
    ]),
  );
  const property = await serviceAddressOf(ctx.db, ctx.accountId, propertyId);
  return {
    draft,
    number,
    source: {
      kind,
      document,
      preceding,
      seller: account,
      buyer: {
        name: client.name,
        company_name: client.company_name,
        email: client.email,
        phone: client.phone,
        address: presentAddress(client.address),
        vat_id: buyer.vat_id,
        registration_id: buyer.registration_id,
        registration_scheme: buyer.registration_scheme,
        electronic_address: buyer.electronic_address,
      },
      deliver_to: property?.address ?? null,
      rates,
      draft: draft ? { number: 'DRAFT', issue_date: today } : null,
    },
  };
}

const NOUNS: Record<EinvoiceKind, string> = { invoice: 'invoice', credit_note: 'credit note' };

/** The refusal of a document that cannot be an e-invoice: 422 with a detail and rule per reason. */
export function refusal(kind: EinvoiceKind, problems: EinvoiceProblem[]): AppError {
  return validationError(
    problems,
    `This ${NOUNS[kind]} cannot be an EN 16931 e-invoice: ${problems.map((problem) => problem.rule).join(', ')}.`,
  );
}

/** The model's file, written here (GET of a file not frozen); a validation writes it in the pool instead. */
export function writeModel(model: EinvoiceModel, format: XmlFormat): Buffer {
  return writeEinvoice(model, format);
}

/** The model of the document, or its problems; a draft is numbered DRAFT and dated today. */
export async function einvoiceModel(
  ctx: Context,
  kind: EinvoiceKind,
  id: string,
  now: Date,
): Promise<{ model: EinvoiceModel | null; problems: EinvoiceProblem[]; draft: boolean; number: string | null }> {
  const gathered = await gather(ctx, kind, id, now);
  const built = buildEinvoice(gathered.source);
  return { ...built, draft: gathered.draft, number: gathered.number };
}

/**
 * The document's file in that format as frozen when it was sent (an invoice) or issued (a credit note), or
 * undefined when none is stored: the document is not frozen, or (Factur-X) it was frozen before its PDF was kept.
 */
export async function frozenFile(
  ctx: Context,
  kind: EinvoiceKind,
  id: string,
  format: EinvoiceFormat,
  now: Date,
): Promise<EinvoiceFile | undefined> {
  if (kind === 'invoice') {
    const invoice = await getInvoice(ctx, id, now);
    if (invoice.einvoice === null) return undefined;
    const stored = await findEinvoiceFile(ctx.db, ctx.accountId, id, format);
    return stored && fileOf(Buffer.from(stored.content), invoice.number as string, format);
  }
  const stored = await findEinvoiceFile(ctx.db, ctx.accountId, id, format);
  return stored && fileOf(Buffer.from(stored.content), (await getCreditNote(ctx, id)).number as string, format);
}

/** A void invoice answers only the files frozen when it was sent. */
async function assertAnswerable(ctx: Context, kind: EinvoiceKind, id: string, now: Date): Promise<void> {
  if (kind !== 'invoice') return;
  const invoice = await getInvoice(ctx, id, now);
  if (invoice.einvoice === null && invoice.status === 'void')
    throw invalidState('A void invoice answers only the e-invoice frozen when it was sent, and this one has none.');
}

/** GET …/einvoice?format=ubl|cii: the frozen file, else built from the document as it stands (drafts: 409). */
export async function einvoiceFile(
  ctx: Context,
  kind: EinvoiceKind,
  id: string,
  format: XmlFormat,
  now: Date,
): Promise<EinvoiceFile> {
  const frozen = await frozenFile(ctx, kind, id, format, now);
  if (frozen) return frozen;
  await assertAnswerable(ctx, kind, id, now);
  const { model, problems, draft, number } = await einvoiceModel(ctx, kind, id, now);
  if (draft)
    throw invalidState(
      `A draft ${NOUNS[kind]} has no e-invoice: ${kind === 'invoice' ? 'send it' : 'issue it'} first (POST …/einvoice/validate checks a draft).`,
    );
  if (model === null) throw refusal(kind, problems);
  return fileOf(writeModel(model, format), number as string, format);
}

function fileOf(bytes: Buffer, number: string, format: EinvoiceFormat): EinvoiceFile {
  const pdf = format === 'facturx';
  return {
    bytes,
    filename: `${number}.${pdf ? 'pdf' : 'xml'}`,
    etag: `"${hash('sha256', bytes, 'base64url')}"`,
    contentType: pdf ? 'application/pdf' : 'application/xml',
  };
}

/** The document's PDF (§10's pages) made a PDF/A-3b embedding this CII, rendered now in the pool. */
export async function renderFacturx(
  ctx: Context,
  pdf: Pick<PdfPool, 'render' | 'logo'>,
  kind: EinvoiceKind,
  id: string,
  now: Date,
  cii: Buffer,
): Promise<EinvoiceFile> {
  // documentFile's render answers a timeout as 503 SERVICE_UNAVAILABLE.
  const file = await documentFile(ctx, pdf, kind, id, now, { facturx: cii });
  return { bytes: await file.render(), filename: file.filename, etag: file.etag, contentType: 'application/pdf' };
}

/**
 * GET …/einvoice?format=facturx: the PDF stored when the document was frozen; else the document's PDF made
 * PDF/A-3b with its CII embedded, byte for byte the file GET …/einvoice?format=cii answers.
 */
export async function facturxFile(
  ctx: Context,
  pdf: Pick<PdfPool, 'render' | 'logo'>,
  kind: EinvoiceKind,
  id: string,
  now: Date,
): Promise<EinvoiceFile> {
  const frozen = await frozenFile(ctx, kind, id, 'facturx', now);
  if (frozen) return frozen;
  const cii = await einvoiceFile(ctx, kind, id, 'cii', now);
  return renderFacturx(ctx, pdf, kind, id, now, cii.bytes);
}
