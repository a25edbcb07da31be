// POST …/einvoice/validate (docs/api-contract.md §31 "Validation"): BMS's own checks, then the XSD, then the
// EN 16931 Schematron, the last two in the rendering pool. `valid` when no finding is fatal.
import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../core/errors.js';
import { ARTEFACTS, type ValidationFinding } from '../../mail/einvoice-validation.js';
import { type PdfPool, PdfRenderTimeout } from '../../mail/pdf-pool.js';
import type { Context } from '../../kernel/context.js';
import { Nullable } from '../../kernel/fields.js';
import type { EinvoiceKind, EinvoiceModel } from './einvoice.model.js';
import { type EinvoiceFormat, einvoiceModel, frozenFile, renderFacturx, type XmlFormat } from './einvoices.service.js';

export const EinvoiceValidationSchema = Type.Object(
  {
    object: Type.Literal('einvoice_validation', { description: 'Always "einvoice_validation".' }),
    format: Type.Unsafe<EinvoiceFormat>({ type: 'string', enum: ['ubl', 'cii', 'facturx'], example: 'ubl' }),
    valid: Type.Boolean({ description: 'true when no error is fatal.', example: true }),
    artefacts: Type.Array(
      Type.Object({
        name: Type.String({ example: 'EN16931-UBL-validation' }),
        version: Type.String({ example: '1.3.15' }),
      }),
      { description: 'What the file was checked with, besides BMS’s own rules.' },
    ),
    errors: Type.Array(
      Type.Object({
        rule: Type.String({ description: 'EN 16931’s rule id, BMS-EI-01…07, or XSD.', example: 'BR-CO-26' }),
        severity: Type.Unsafe<'fatal' | 'warning'>({ type: 'string', enum: ['fatal', 'warning'], example: 'fatal' }),
        location: Type.String({ description: 'Where: an XPath (Schematron), a line (XSD) or /.', example: '/' }),
        message: Type.String({
          description: 'The rule’s own text, or BMS’s.',
          example: 'The seller must be identified.',
        }),
        field: Type.Optional(
          Nullable(Type.String({ description: 'BMS’s checks: the field at fault.', example: 'account.vat_id' })),
        ),
      }),
    ),
  },
  { $id: 'EinvoiceValidation', description: 'What validating an e-invoice found.' },
);

export type EinvoiceValidation = Static<typeof EinvoiceValidationSchema>;

/** What checks a file against the XSD and the Schematron, and renders a Factur-X: the rendering pool. */
export interface EinvoiceValidator extends Pick<PdfPool, 'render' | 'logo' | 'writeEinvoice'> {
  validateEinvoice(xml: string, syntax: XmlFormat, accountId?: string): Promise<ValidationFinding[]>;
}

/** What makes the PDF a Factur-X, each looked for in its bytes (the XMP and the file spec are not compressed). */
const EMBEDDING: Array<{ text: string; message: string }> = [
  { text: '/AFRelationship /Alternative', message: 'The embedded file has no AFRelationship /Alternative.' },
  { text: '/AF [', message: 'The catalogue has no /AF array.' },
  { text: '(factur-x.xml)', message: 'No file named factur-x.xml is embedded.' },
  { text: '<pdfaid:part>3</pdfaid:part>', message: 'The XMP does not declare PDF/A-3.' },
  {
    text: '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
    message: 'The XMP has no Factur-X EN 16931 conformance level.',
  },
];

export function embeddingFindings(pdf: Buffer): ValidationFinding[] {
  const text = pdf.toString('latin1');
  return EMBEDDING.filter((check) => !text.includes(check.text)).map((check) => ({
    rule: 'FACTURX',
    severity: 'fatal' as const,
    location: '/',
    message: check.message,
  }));
}

/** The pool's answer; past PDF_RENDER_TIMEOUT_MS a 503 to retry. */
async function inPool<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof PdfRenderTimeout)
      throw new AppError('SERVICE_UNAVAILABLE', 'Validating the e-invoice took too long. Try again shortly.');
    throw error;
  }
}

/** The XSD's and the Schematron's findings on a stored file, in the pool. */
export function poolFindings(
  validator: EinvoiceValidator,
  xml: Buffer,
  syntax: XmlFormat,
  accountId: string,
): Promise<ValidationFinding[]> {
  return inPool(validator.validateEinvoice(xml.toString('utf8'), syntax, accountId));
}

/** The model written in `syntax` and the file's findings, both in the pool (off the event loop). */
export function writtenFindings(
  validator: EinvoiceValidator,
  model: EinvoiceModel,
  syntax: XmlFormat,
  accountId: string,
): Promise<{ xml: Buffer; findings: ValidationFinding[] }> {
  return inPool(validator.writeEinvoice(model, syntax, accountId));
}

/**
 * What validating finds. A frozen document's stored files are checked (what was sent, whatever has changed
 * since); any other's are built from the document as it stands (a draft numbered DRAFT, dated today).
 */
export async function validateEinvoice(
  ctx: Context,
  validator: EinvoiceValidator,
  kind: EinvoiceKind,
  id: string,
  format: EinvoiceFormat,
  now: Date,
): Promise<EinvoiceValidation> {
  const syntax: XmlFormat = format === 'facturx' ? 'cii' : format;
  let xml = (await frozenFile(ctx, kind, id, syntax, now))?.bytes;
  let errors: EinvoiceValidation['errors'] = [];
  if (xml !== undefined) errors = await poolFindings(validator, xml, syntax, ctx.accountId);
  else {
    const { model, problems } = await einvoiceModel(ctx, kind, id, now);
    if (model === null)
      errors = problems.map((problem) => ({
        rule: problem.rule,
        severity: 'fatal' as const,
        location: '/',
        message: problem.message,
        field: problem.field,
      }));
    // Written and validated in the pool: the event loop hands over the model and takes back the file.
    else ({ xml, findings: errors } = await writtenFindings(validator, model, syntax, ctx.accountId));
  }
  if (xml !== undefined) {
    // Factur-X: the CII it embeds (above), then the embedding itself, in the stored PDF or one rendered now.
    if (format === 'facturx') {
      const pdf =
        (await frozenFile(ctx, kind, id, 'facturx', now))?.bytes ??
        (await renderFacturx(ctx, validator, kind, id, now, xml)).bytes;
      errors.push(...embeddingFindings(pdf));
    }
  }
  return {
    object: 'einvoice_validation',
    format,
    valid: errors.every((error) => error.severity !== 'fatal'),
    artefacts: ARTEFACTS[syntax],
    errors,
  };
}
