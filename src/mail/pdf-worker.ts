// The PDF pool's worker thread (mail/pdf-pool.ts): renders a document, checks and prepares a logo, validates an
// e-invoice file against its XSD and Schematron (writing it from its model first, when given one), or says whether
// a drawn signature is blank. It runs `PDF_THREAD_NICE` below the API's priority,
// so that on a busy machine the event loop serving requests is given the CPU first.
import { workerData } from 'node:worker_threads';
import { lowerThreadPriority } from './thread-priority.js';
import type { EinvoiceModel } from './einvoice-model.js';
import {
  type EinvoiceSyntax,
  validateEinvoiceXml,
  type ValidationFinding,
  type WrittenEinvoice,
  writeAndValidateEinvoice,
} from './einvoice-validation.js';
import { prepareLogo, type PreparedLogo } from './logo-image.js';
import { renderDocumentPdf, type PdfInput } from './pdf.js';
import { isBlankPng } from './signature-image.js';

export type PdfTask =
  | { kind: 'document'; input: PdfInput }
  | { kind: 'logo'; data: Uint8Array }
  | { kind: 'einvoice'; xml: string; syntax: EinvoiceSyntax }
  | { kind: 'einvoice-model'; model: EinvoiceModel; syntax: EinvoiceSyntax }
  | { kind: 'signature'; data: Uint8Array };

lowerThreadPriority(Number((workerData as { nice?: number } | undefined)?.nice ?? 0));

export default async function run(
  task: PdfTask,
): Promise<Uint8Array | PreparedLogo | ValidationFinding[] | WrittenEinvoice | boolean> {
  if (task.kind === 'logo') return prepareLogo(task.data);
  if (task.kind === 'signature') return isBlankPng(task.data);
  if (task.kind === 'einvoice') return validateEinvoiceXml(task.xml, task.syntax);
  if (task.kind === 'einvoice-model') return writeAndValidateEinvoice(task.model, task.syntax);
  return renderDocumentPdf(task.input);
}
