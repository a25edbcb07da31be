// The PDF pool's worker thread (mail/pdf-pool.ts): renders a document, checks and prepares a logo, or
// validates an e-invoice file against its XSD and Schematron.
import { type EinvoiceSyntax, validateEinvoiceXml, type ValidationFinding } from './einvoice-validation.js';
import { prepareLogo, type PreparedLogo } from './logo-image.js';
import { renderDocumentPdf, type PdfInput } from './pdf.js';

export type PdfTask =
  | { kind: 'document'; input: PdfInput }
  | { kind: 'logo'; data: Uint8Array }
  | { kind: 'einvoice'; xml: string; syntax: EinvoiceSyntax };

export default async function run(task: PdfTask): Promise<Uint8Array | PreparedLogo | ValidationFinding[]> {
  if (task.kind === 'logo') return prepareLogo(task.data);
  if (task.kind === 'einvoice') return validateEinvoiceXml(task.xml, task.syntax);
  return renderDocumentPdf(task.input);
}
