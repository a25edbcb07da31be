// The quote or invoice as a PDF (pdfkit): the document e-mailed and the one GET …/pdf answers. DejaVu Sans
// is embedded (subset) so names and lines in Polish, Greek, Cyrillic, … print correctly; pdfkit's built-in
// Helvetica knows only Latin-1. Deterministic: the same input gives the same bytes (the creation date is
// the document's revision, and pdfkit derives its file id and font tags from the content).
// Runs in a worker thread (mail/pdf-pool.ts), never on the event loop of the API.
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { drawableLogo, LOGO_BOX, type PreparedLogo } from './logo-image.js';
import { embedFacturX, FACTURX_PDF_OPTIONS } from './facturx.js';
import { SIGNATURE_BOX } from './signature-image.js';
import {
  addressLines,
  amountHeading,
  dateRows,
  documentLabel,
  fieldRows,
  formatMoney,
  formatQuantity,
  lineHeading,
  lineTotal,
  localeOf,
  serviceAddressLines,
  lineTaxLabel,
  summaryRows,
  exemptionLines,
  KIND_LABELS,
  type MailSnapshot,
} from './document-mail.js';

const require = createRequire(import.meta.url);
const REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** The sheets in points: US Letter (8.5 × 11 in) and A4 (210 × 297 mm). */
export const PAPER = {
  letter: { width: 612, height: 792 },
  a4: { width: 595.28, height: 841.89 },
} as const;
const MARGIN = 50;
const FOOTER_HEIGHT = 40;
const INK = '#1f2328';
const MUTED = '#59636e';
const RULE = '#d0d7de';
const HEADER_FILL = '#f0f3f6';
/** The table's columns on a page `contentWidth` wide: the description takes what the others leave. */
function columnsFor(contentWidth: number, amountLabel: string) {
  return [
    { label: '#', width: 24, align: 'right' as const },
    { label: 'Description', width: contentWidth - 24 - 45 - 70 - 46 - 80, align: 'left' as const },
    { label: 'Qty', width: 45, align: 'right' as const },
    { label: 'Unit price', width: 70, align: 'right' as const },
    { label: 'Tax', width: 46, align: 'right' as const },
    { label: amountLabel, width: 80, align: 'right' as const },
  ];
}
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
  /** A Factur-X (docs/api-contract.md §31): the PDF is made PDF/A-3b with this CII embedded. */
  facturx?: { cii: Uint8Array } | undefined;
  /** An approved quote's drawn signature (its PNG as stored), drawn under the signature's text. */
  signatureImage?: Uint8Array | undefined;
}

export function renderDocumentPdf({
  snapshot,
  logo,
  fallbackDate,
  facturx,
  signatureImage,
}: PdfInput): Promise<Buffer> {
  const { document, business, client } = snapshot;
  const locale = localeOf(snapshot);
  const money = (amount: number) => formatMoney(amount, document.currency, locale);
  // Snapshots from before the paper followed the account were A4.
  const PAGE = PAPER[snapshot.paper_size ?? 'a4'];
  const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
  const BOTTOM = PAGE.height - MARGIN - FOOTER_HEIGHT;
  const COLUMNS = columnsFor(CONTENT_WIDTH, amountHeading(snapshot));
  const pdf = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    // The bottom margin keeps the footer's band free: text that runs on breaks above it.
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_HEIGHT },
    bufferPages: true,
    ...(facturx ? FACTURX_PDF_OPTIONS : {}),
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
    .text(KIND_LABELS[snapshot.kind].toUpperCase(), right.x, top, { width: right.width, align: 'right' });
  pdf
    .font('Regular')
    .fontSize(10)
    .fillColor(MUTED)
    .text(document.number ?? 'Draft', right.x, pdf.y, { width: right.width, align: 'right' });
  pdf.moveDown(0.4);
  for (const [label, value] of dateRows(snapshot)) {
    const y = pdf.y;
    // Wide enough for a long date ("September 30, 2026") on one line.
    pdf.fillColor(MUTED).text(label, right.x, y, { width: right.width - 125, align: 'right' });
    pdf.fillColor(INK).text(value, right.x + right.width - 115, y, { width: 115, align: 'right' });
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
    snapshot.kind === 'invoice' ? 'Bill to' : snapshot.kind === 'quote' ? 'Prepared for' : 'Credit to',
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

  // The lines: a table whose header repeats on every page it continues on. A line's first cell is its name
  // (bold) with its description beneath, or its description alone.
  interface Row {
    values: string[];
    /** The description under the name in the second cell. */
    detail?: string | null;
    header?: boolean;
  }
  const textWidth = (index: number) => (COLUMNS[index]?.width ?? 0) - 2 * CELL_PADDING;
  const rowHeight = (row: Row) => {
    pdf.font(row.header ? 'Bold' : 'Regular').fontSize(row.header ? 8.5 : 9);
    const heights = COLUMNS.map((_, index) => pdf.heightOfString(row.values[index] ?? '', { width: textWidth(index) }));
    if (!row.header && row.detail) {
      pdf.font('Bold');
      const name = pdf.heightOfString(row.values[1] ?? '', { width: textWidth(1) });
      pdf.font('Regular').fontSize(8.5);
      heights[1] = name + 1 + pdf.heightOfString(row.detail, { width: textWidth(1) });
      pdf.fontSize(9);
    }
    return Math.max(...heights) + 2 * CELL_PADDING;
  };
  const drawRow = (row: Row) => {
    const height = rowHeight(row);
    const y = pdf.y;
    pdf.font(row.header ? 'Bold' : 'Regular').fontSize(row.header ? 8.5 : 9);
    if (row.header) pdf.rect(MARGIN, y, CONTENT_WIDTH, height).fill(HEADER_FILL);
    let x = MARGIN;
    pdf.fillColor(row.header ? MUTED : INK);
    COLUMNS.forEach((column, index) => {
      const options = { width: textWidth(index), align: column.align };
      if (index === 1 && !row.header && row.detail) {
        pdf.font('Bold').text(row.values[index] ?? '', x + CELL_PADDING, y + CELL_PADDING, options);
        pdf
          .font('Regular')
          .fontSize(8.5)
          .fillColor(MUTED)
          .text(row.detail, x + CELL_PADDING, pdf.y + 1, options);
        pdf.fontSize(9).fillColor(INK);
      } else pdf.text(row.values[index] ?? '', x + CELL_PADDING, y + CELL_PADDING, options);
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
  const header: Row = { values: COLUMNS.map((column) => column.label), header: true };
  const fits = (row: Row) => pdf.y + rowHeight(row) <= BOTTOM;
  const newPage = () => {
    pdf.addPage();
    pdf.y = MARGIN;
  };
  if (!fits(header)) newPage();
  drawRow(header);
  document.line_items.forEach((item, index) => {
    const { name, description } = lineHeading(item);
    const row: Row = {
      values: [
        String(index + 1),
        name,
        formatQuantity(item.quantity, locale),
        money(item.unit_amount),
        lineTaxLabel(item),
        money(lineTotal(item, snapshot)),
      ],
      detail: description,
    };
    if (!fits(row)) {
      newPage();
      drawRow(header);
    }
    drawRow(row);
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
  // The account's printable custom fields, under their labels (docs/api-contract.md §27).
  const fields = fieldRows(snapshot);
  if (fields.length > 0) paragraph('Details', fields.map(([label, value]) => `${label}: ${value}`).join('\n'));
  const exemptions = exemptionLines(snapshot);
  if (exemptions.length > 0) paragraph('Tax exemption', exemptions.join('\n'));
  if (snapshot.kind === 'invoice' && business.payment_instructions)
    paragraph('How to pay', business.payment_instructions);
  if (document.notes) paragraph('Notes', document.notes);
  // An approved quote's signature (docs/api-contract.md §30): who, when, and the hash of what they signed; a drawn
  // one's image under it, fitted to its box above a rule, on the same page.
  if (document.signature) {
    paragraph(
      'Signature',
      `Approved and signed by ${document.signature.signer_name} on ${document.signature.signed_at.slice(0, 10)} at ${document.signature.signed_at.slice(11, 16)} UTC. Signed content SHA-256 ${document.signature.document_sha256.slice(0, 16)}.`,
    );
    if (signatureImage) {
      if (pdf.y + 6 + SIGNATURE_BOX.height + 4 > BOTTOM) newPage();
      const top = pdf.y + 6;
      pdf.image(Buffer.from(signatureImage), MARGIN, top, {
        fit: [SIGNATURE_BOX.width, SIGNATURE_BOX.height],
        valign: 'bottom',
      });
      const rule = top + SIGNATURE_BOX.height + 2;
      pdf
        .moveTo(MARGIN, rule)
        .lineTo(MARGIN + SIGNATURE_BOX.width, rule)
        .lineWidth(0.5)
        .strokeColor(RULE)
        .stroke();
      pdf.y = rule + 4;
    }
  }

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
  if (facturx) embedFacturX(pdf, facturx.cii, new Date(document.updated_at ?? fallbackDate));
  pdf.end();
  return finished;
}
