// The PDF pool's worker thread (mail/pdf-pool.ts): renders a document, or checks that an image can be drawn.
import { assertDrawableImage, renderDocumentPdf, type PdfInput } from './pdf.js';

export type PdfTask = { kind: 'document'; input: PdfInput } | { kind: 'image'; data: Uint8Array };

export default async function run(task: PdfTask): Promise<Uint8Array | null> {
  if (task.kind === 'image') {
    await assertDrawableImage(task.data);
    return null;
  }
  return renderDocumentPdf(task.input);
}
