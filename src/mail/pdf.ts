// The quote or invoice as a PDF (pdfkit): the document e-mailed and the one GET …/pdf answers. DejaVu Sans
// is embedded (subset) so names and lines in Polish, Greek, Cyrillic, … print correctly; pdfkit's built-in
// Helvetica knows only Latin-1. Deterministic: the same input gives the same bytes (the creation date is
// the document's revision, and pdfkit derives its file id and font tags from the content).
// Runs in a worker thread (mail/pdf-pool.ts), never on the event loop of the API.
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { drawableLogo, LOGO_BOX, type PreparedLogo } from './logo-image.js';
import {
  addressLines,
  dateRows,
  documentLabel,
  formatMoney,
  formatQuantity,
  serviceAddressLines,
  lineTaxLabel,
  summaryRows,
  type MailSnapshot,
} from './document-mail.js';

const require = createRequire(import.meta.url);
const REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

const PAGE = { width: 595.28, height: 841.89 }; // A4 in points
const MARGIN = 50;
const FOOTER_HEIGHT = 40;
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
const BOTTOM = PAGE.height - MARGIN - FOOTER_HEIGHT;
const INK = '#1f2328';
const MUTED = '#59636e';
const RULE = '#d0d7de';
const HEADER_FILL = '#f0f3f6';
const COLUMNS = [
  { label: '#', width: 24, align: 'right' as const },
  // The description takes what the other columns leave of the width.
  { label: 'Description', width: CONTENT_WIDTH - 24 - 45 - 70 - 46 - 80, align: 'left' as const },
  { label: 'Qty', width: 45, align: 'right' as const },
  { label: 'Unit price', width: 70, align: 'right' as const },
  { label: 'Tax', width: 46, align: 'right' as const },
  { label: 'Amount', width: 80, align: 'right' as const },
];
const CELL_PADDING = 4;
const STAMPS: Record<string, { text: string; color: string }> = {
  paid: { text: 'PAID', color: '#1a7f37' },
  void: { text: 'VOID', color: '#cf222e' },
};

export interface PdfInput {
  snapshot: MailSnapshot;
  /** The business's logo as `prepareLogo` made it (decoded and scaled once per logo, not per render), or null. */
  logo: PreparedLogo | null;
  /** The creation date when the snapshot has no revision of its own (snapshots queued before version 2). */
  fallbackDate: string;
}

export function renderDocumentPdf({ snapshot, logo, fallbackDate }: PdfInput): Promise<Buffer> {
  const { document, business, client } = snapshot;
  const money = (amount: number) => formatMoney(amount, document.currency);
  const pdf = new PDFDocument({
    size: 'A4',
    // The bottom margin keeps the footer's band free: text that runs on breaks above it.
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_HEIGHT },
    bufferPages: true,
    info: {
      Title: documentLabel(snapshot),
      Author: business.name,
      Creator: 'BMS',
      Producer: 'BMS',
      CreationDate: new Date(document.updated_at ?? fallbackDate),
    },
  });
  pdf.registerFont('Regular', REGULAR);
  pdf.registerFont('Bold', BOLD);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  pdf.fillColor(INK);

  // Header: the logo (or the business name) on the left; the document's name, number and dates on the right.
  const top = MARGIN;
  let leftBottom = top;
  if (logo) {
    pdf.image(drawableLogo(logo) as unknown as Buffer, MARGIN, top, { fit: [LOGO_BOX.width, LOGO_BOX.height] });
    leftBottom = top + 66;
  } else {
    pdf.font('Bold').fontSize(18).text(business.name, MARGIN, top, { width: 280 });
    leftBottom = pdf.y + 4;
  }
  const right = { x: MARGIN + CONTENT_WIDTH - 220, width: 220 };
  pdf
    .font('Bold')
    .fontSize(22)
    .text(snapshot.kind === 'invoice' ? 'INVOICE' : 'QUOTE', right.x, top, { width: right.width, align: 'right' });
  pdf
    .font('Regular')
    .fontSize(10)
    .fillColor(MUTED)
    .text(document.number ?? 'Draft', right.x, pdf.y, { width: right.width, align: 'right' });
  pdf.moveDown(0.4);
  for (const [label, value] of dateRows(snapshot)) {
    const y = pdf.y;
    pdf.fillColor(MUTED).text(label, right.x, y, { width: right.width - 90, align: 'right' });
    pdf.fillColor(INK).text(value, right.x + right.width - 80, y, { width: 80, align: 'right' });
  }
  const rightBottom = pdf.y;

  // The business block and the client block, side by side.
  const blocksTop = Math.max(leftBottom, rightBottom) + 16;
  const businessLines = [
    ...(business.legal_name && business.legal_name !== business.name ? [business.legal_name] : []),
    ...addressLines(business.address),
    ...[business.email, business.phone, business.website].filter((line): line is string => Boolean(line)),
    ...(business.tax_id ? [`Tax ID: ${business.tax_id}`] : []),
  ];
  const clientLines = [
    ...(client.company_name ? [client.company_name] : []),
    ...addressLines(client.address),
    ...(client.email ? [client.email] : []),
  ];
  const block = (heading: string, name: string, lines: string[], x: number) => {
    pdf
      .font('Bold')
      .fontSize(8)
      .fillColor(MUTED)
      .text(heading.toUpperCase(), x, blocksTop, { width: 230, characterSpacing: 0.5 });
    pdf.moveDown(0.2).font('Bold').fontSize(10).fillColor(INK).text(name, x, pdf.y, { width: 230 });
    pdf.font('Regular').fontSize(9);
    for (const line of lines) pdf.text(line, x, pdf.y, { width: 230 });
    return pdf.y;
  };
  const fromBottom = block('From', business.name, businessLines, MARGIN);
  const toBottom = block(
    snapshot.kind === 'invoice' ? 'Bill to' : 'Prepared for',
    client.name,
    clientLines,
    MARGIN + CONTENT_WIDTH / 2 + 10,
  );
  // The property the work is at, under the client: its name (or the first address line) and address.
  let serviceBottom = toBottom;
  const [serviceName, ...serviceLines] = serviceAddressLines(snapshot);
  if (serviceName !== undefined) {
    const x = MARGIN + CONTENT_WIDTH / 2 + 10;
    pdf
      .font('Bold')
      .fontSize(8)
      .fillColor(MUTED)
      .text('SERVICE ADDRESS', x, toBottom + 10, { width: 230, characterSpacing: 0.5 });
    pdf.moveDown(0.2).font('Bold').fontSize(10).fillColor(INK).text(serviceName, x, pdf.y, { width: 230 });
    pdf.font('Regular').fontSize(9);
    for (const line of serviceLines) pdf.text(line, x, pdf.y, { width: 230 });
    serviceBottom = pdf.y;
  }
  pdf.y = Math.max(fromBottom, serviceBottom) + 18;
  if (document.title)
    pdf
      .font('Bold')
      .fontSize(12)
      .fillColor(INK)
      .text(document.title, MARGIN, pdf.y, { width: CONTENT_WIDTH })
      .moveDown(0.5);

  // The lines: a table whose header repeats on every page it continues on.
  const cellHeights = (values: string[]) =>
    COLUMNS.map((column, index) => pdf.heightOfString(values[index] ?? '', { width: column.width - 2 * CELL_PADDING }));
  const drawRow = (values: string[], options: { header?: boolean } = {}) => {
    pdf.font(options.header ? 'Bold' : 'Regular').fontSize(options.header ? 8.5 : 9);
    const height = Math.max(...cellHeights(values)) + 2 * CELL_PADDING;
    const y = pdf.y;
    if (options.header) pdf.rect(MARGIN, y, CONTENT_WIDTH, height).fill(HEADER_FILL);
    let x = MARGIN;
    pdf.fillColor(options.header ? MUTED : INK);
    COLUMNS.forEach((column, index) => {
      pdf.text(values[index] ?? '', x + CELL_PADDING, y + CELL_PADDING, {
        width: column.width - 2 * CELL_PADDING,
        align: column.align,
      });
      x += column.width;
    });
    pdf
      .moveTo(MARGIN, y + height)
      .lineTo(MARGIN + CONTENT_WIDTH, y + height)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    pdf.fillColor(INK);
    pdf.x = MARGIN;
    pdf.y = y + height;
  };
  const header = COLUMNS.map((column) => column.label);
  const fits = (values: string[]) => {
    pdf.font('Regular').fontSize(9);
    return pdf.y + Math.max(...cellHeights(values)) + 2 * CELL_PADDING <= BOTTOM;
  };
  const newPage = () => {
    pdf.addPage();
    pdf.y = MARGIN;
  };
  if (!fits(header)) newPage();
  drawRow(header, { header: true });
  document.line_items.forEach((item, index) => {
    const values = [
      String(index + 1),
      item.description,
      formatQuantity(item.quantity),
      money(item.unit_amount),
      lineTaxLabel(item),
      money(item.amount),
    ];
    if (!fits(values)) {
      newPage();
      drawRow(header, { header: true });
    }
    drawRow(values);
  });

  // Totals, right-aligned under the table; then payment instructions and notes.
  const summary = summaryRows(snapshot);
  if (pdf.y + 10 + summary.length * 16 > BOTTOM) newPage();
  pdf.y += 10;
  const labelX = MARGIN + CONTENT_WIDTH - 350;
  for (const [label, value] of summary) {
    const strong = label === 'Total' || label === 'Amount due';
    pdf.font(strong ? 'Bold' : 'Regular').fontSize(strong ? 10.5 : 9.5);
    const y = pdf.y;
    pdf.fillColor(strong ? INK : MUTED).text(label, labelX, y, { width: 240, align: 'right' });
    pdf.fillColor(INK).text(value, labelX + 250, y, { width: 100 - CELL_PADDING, align: 'right' });
    pdf.y = Math.max(pdf.y, y + 14) + 2;
  }
  const paragraph = (heading: string, body: string) => {
    pdf.font('Regular').fontSize(9);
    const height = pdf.heightOfString(body, { width: CONTENT_WIDTH }) + 18;
    if (pdf.y + 16 + Math.min(height, 120) > BOTTOM) newPage();
    else pdf.y += 16;
    pdf
      .font('Bold')
      .fontSize(9)
      .fillColor(MUTED)
      .text(heading.toUpperCase(), MARGIN, pdf.y, { width: CONTENT_WIDTH, characterSpacing: 0.5 });
    pdf.moveDown(0.2).font('Regular').fontSize(9).fillColor(INK);
    // Text longer than the page continues on the next one (pdfkit breaks it at the bottom margin).
    pdf.text(body, MARGIN, pdf.y, { width: CONTENT_WIDTH });
  };
  if (snapshot.kind === 'invoice' && business.payment_instructions)
    paragraph('How to pay', business.payment_instructions);
  if (document.notes) paragraph('Notes', document.notes);

  // On every page: the footer and "Page n of m"; on the first, a PAID or VOID stamp where it applies.
  const pages = pdf.bufferedPageRange();
  for (let index = 0; index < pages.count; index += 1) {
    pdf.switchToPage(pages.start + index);
    pdf.page.margins.bottom = 0; // writing inside the bottom margin must not add a page
    const footerTop = PAGE.height - MARGIN - FOOTER_HEIGHT + 14;
    pdf
      .moveTo(MARGIN, footerTop - 6)
      .lineTo(MARGIN + CONTENT_WIDTH, footerTop - 6)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    pdf.font('Regular').fontSize(8).fillColor(MUTED);
    const footer = business.footer ?? `${documentLabel(snapshot)} · ${business.name}`;
    pdf.text(footer, MARGIN, footerTop, {
      width: CONTENT_WIDTH - 90,
      height: FOOTER_HEIGHT + MARGIN - 20,
      ellipsis: true,
    });
    pdf.text(`Page ${index + 1} of ${pages.count}`, MARGIN + CONTENT_WIDTH - 80, footerTop, {
      width: 80,
      align: 'right',
    });
  }
  const stamp = snapshot.kind === 'invoice' ? STAMPS[document.status ?? ''] : undefined;
  if (stamp) {
    pdf.switchToPage(pages.start);
    pdf
      .save()
      .rotate(-18, { origin: [PAGE.width / 2, 330] })
      .opacity(0.22);
    pdf
      .font('Bold')
      .fontSize(96)
      .fillColor(stamp.color)
      .text(stamp.text, 0, 280, { width: PAGE.width, align: 'center', lineBreak: false });
    pdf.restore();
  }
  pdf.end();
  return finished;
}
