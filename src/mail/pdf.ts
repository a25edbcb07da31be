// The quote or invoice as a PDF attachment (pdfkit). DejaVu Sans is embedded (subset) so names and lines
// in Polish, Greek, Cyrillic, … print correctly; pdfkit's built-in Helvetica knows only Latin-1.
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { dateRows, documentLabel, formatMoney, formatQuantity, summaryRows, type MailSnapshot } from './document-mail.js';

const require = createRequire(import.meta.url);
const REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');
const MARGIN = 50;
const COLUMNS = [
  { label: 'Description', x: MARGIN, width: 220, align: 'left' as const },
  { label: 'Qty', x: 275, width: 50, align: 'right' as const },
  { label: 'Unit', x: 330, width: 80, align: 'right' as const },
  { label: 'Tax', x: 415, width: 45, align: 'right' as const },
  { label: 'Amount', x: 465, width: 85, align: 'right' as const },
];

export function renderDocumentPdf(snapshot: MailSnapshot, createdAt: Date): Promise<Buffer> {
  const { document } = snapshot;
  const money = (amount: number) => formatMoney(amount, document.currency);
  // A fixed creation date keeps the bytes the same for the same snapshot.
  const pdf = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: documentLabel(snapshot), Author: snapshot.business.name, CreationDate: createdAt } });
  pdf.registerFont('Regular', REGULAR);
  pdf.registerFont('Bold', BOLD);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  pdf.font('Bold').fontSize(20).text(snapshot.business.name);
  pdf.moveDown(0.5).fontSize(14).text(documentLabel(snapshot) + (document.title ? ` - ${document.title}` : ''));
  pdf.font('Regular').fontSize(10).moveDown(0.5);
  for (const [label, value] of dateRows(snapshot)) pdf.text(`${label}: ${value}`);
  pdf.moveDown().font('Bold').text('Bill to').font('Regular').text(snapshot.client.name);
  if (snapshot.client.company_name) pdf.text(snapshot.client.company_name);
  pdf.text(snapshot.client.email).moveDown();

  const row = (values: string[], bold = false) => {
    const y = pdf.y;
    pdf.font(bold ? 'Bold' : 'Regular');
    const heights = COLUMNS.map((column, index) => pdf.heightOfString(values[index] ?? '', { width: column.width }));
    if (y + Math.max(...heights) > pdf.page.height - MARGIN) pdf.addPage();
    const top = pdf.y;
    COLUMNS.forEach((column, index) => pdf.text(values[index] ?? '', column.x, top, { width: column.width, align: column.align }));
    pdf.x = MARGIN;
    pdf.y = top + Math.max(...heights) + 4;
  };
  row(COLUMNS.map((column) => column.label), true);
  for (const item of document.line_items) row([item.description, formatQuantity(item.quantity), money(item.unit_amount), `${item.tax_rate}%`, money(item.amount)]);
  pdf.moveDown();
  for (const [label, value] of summaryRows(snapshot)) row(['', '', label, '', value], label === 'Total' || label === 'Amount due');
  if (document.notes) pdf.moveDown().font('Regular').text(document.notes, MARGIN, pdf.y, { width: 500 });
  pdf.end();
  return finished;
}
