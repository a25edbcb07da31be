// The MCP tools of e-invoices (docs/api-contract.md §31), read-only: an invoice's EN 16931 e-invoice as UBL or
// CII text, and its validation against BMS's rules, the XSD and the EN 16931 Schematron. Both answer the files
// frozen when the invoice was sent, when it was (`frozen_at`), else the invoice as it stands.
import { hash } from 'node:crypto';
import type { Context } from '../kernel/context.js';
import { einvoiceFile, validateEinvoice, type EinvoiceFormat, type XmlFormat } from '../modules/einvoices/index.js';
import { getInvoice } from '../modules/invoices/index.js';
import { id, type Tool } from './tool-kit.js';

const input = (formats: EinvoiceFormat[], description: string) => ({
  type: 'object' as const,
  properties: {
    invoice_id: id('The invoice (sent; validate_einvoice takes a draft too).'),
    format: { type: 'string', enum: formats, description },
  },
  required: ['invoice_id', 'format'],
  additionalProperties: false,
});

/** When the invoice's files were frozen, or null while they are built from it as it stands. */
async function frozenAt(ctx: Context, invoiceId: string): Promise<string | null> {
  return (await getInvoice(ctx, invoiceId, ctx.clock.now())).einvoice?.frozen_at ?? null;
}

export const EINVOICE_TOOLS: Tool[] = [
  {
    name: 'get_einvoice',
    title: 'Get an invoice’s e-invoice',
    description:
      'A sent invoice as an EN 16931 e-invoice, as XML text: ubl (UBL 2.1) or cii (UN/CEFACT CII, the XML inside a Factur-X). Answers the file frozen when the invoice was sent (frozen_at) or, without, built from the invoice as it stands; sha256 identifies the bytes. An invoice that cannot be an e-invoice is refused with one detail per reason and its rule (use validate_einvoice to see them on a draft).',
    scope: 'invoices:read',
    kind: 'read',
    input: input(['ubl', 'cii'], 'ubl: a UBL 2.1 Invoice; cii: a CII D16B CrossIndustryInvoice.'),
    async run(ctx, args) {
      const invoiceId = String(args.invoice_id);
      const format = args.format as XmlFormat;
      const file = await einvoiceFile(ctx, 'invoice', invoiceId, format, ctx.clock.now());
      return {
        invoice_id: invoiceId,
        format,
        filename: file.filename,
        content_type: file.contentType,
        sha256: hash('sha256', file.bytes, 'hex'),
        frozen_at: await frozenAt(ctx, invoiceId),
        content: file.bytes.toString('utf8'),
      };
    },
  },
  {
    name: 'validate_einvoice',
    title: 'Validate an invoice’s e-invoice',
    description:
      'Checks whether an invoice (a draft too) is a valid EN 16931 e-invoice: BMS’s rules (which name the field to fix), then the XSD, then the EN 16931 Schematron. valid is true when no error is fatal; each error has its rule, severity, location and message. A sent invoice whose files were frozen (frozen_at) is checked as it was sent; any other as it stands. facturx also checks the PDF’s embedded CII and its Factur-X markings.',
    scope: 'invoices:read',
    kind: 'read',
    input: input(['ubl', 'cii', 'facturx'], 'ubl, cii, or facturx (the PDF/A-3 with the CII inside).'),
    async run(ctx, args, call) {
      const invoiceId = String(args.invoice_id);
      const now = ctx.clock.now();
      const result = await validateEinvoice(ctx, call.pdf, 'invoice', invoiceId, args.format as EinvoiceFormat, now);
      return { invoice_id: invoiceId, frozen_at: await frozenAt(ctx, invoiceId), ...result };
    },
  },
];
