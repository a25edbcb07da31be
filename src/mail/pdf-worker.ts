// The PDF pool's worker thread (mail/pdf-pool.ts): renders a document, checks and prepares a logo, validates an
// e-invoice file against its XSD and Schematron, or says whether a drawn signature is blank.
import { type EinvoiceSyntax, validateEinvoiceXml, type ValidationFinding } from './einvoice-validation.js';
import { prepareLogo, type PreparedLogo } from './logo-image.js';
import { renderDocumentPdf, type PdfInput } from './pdf.js';
import { isBlankPng } from './signature-image.js';

export type PdfTask =
  | { kind: 'document'; input: PdfInput }
  | { kind: 'logo'; data: Uint8Array }
  | { kind: 'einvoice'; xml: string; syntax: EinvoiceSyntax }
  | { kind: 'signature'; data: Uint8Array };

export default async function run(task: PdfTask): Promise<Uint8Array | PreparedLogo | ValidationFinding[] | boolean> {
  if (task.kind === 'logo') return prepareLogo(task.data);
  if (task.kind === 'signature') return isBlankPng(task.data);
  if (task.kind === 'einvoice') return validateEinvoiceXml(task.xml, task.syntax);
  return renderDocumentPdf(task.input);
}
