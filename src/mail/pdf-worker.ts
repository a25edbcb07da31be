// The PDF pool's worker thread (mail/pdf-pool.ts): renders a document, or checks and prepares a logo.
import { prepareLogo, type PreparedLogo } from './logo-image.js';
import { renderDocumentPdf, type PdfInput } from './pdf.js';

export type PdfTask = { kind: 'document'; input: PdfInput } | { kind: 'logo'; data: Uint8Array };

export default async function run(task: PdfTask): Promise<Uint8Array | PreparedLogo> {
  if (task.kind === 'logo') return prepareLogo(task.data);
  return renderDocumentPdf(task.input);
}
