// The curated tools of the MCP server (docs/api-contract.md §20): a business's daily work, not one tool per
// endpoint. Each names the scope it needs (a key sees only the tools its scopes allow), how it acts (read;
// write, with dry_run and replay of a retried call; confirm: a send or money, which takes a confirmation
// token), its input schema (the REST body's, so validation is the same) and the module operation it calls.
// The tools of clients, quotes, invoices and payments are here; visit-tools.ts and field-tools.ts hold the
// calendar's and the field work's. TOOLS lists them all, in the order a client sees them.
import { getAccount } from '../modules/accounts/index.js';
import { listProducts, presentProduct } from '../modules/catalog/index.js';
import { createClient, CreateClientBody, getClient, listClients, presentClient } from '../modules/clients/index.js';
import {
  createInvoice,
  CreateInvoiceBody,
  CreatePaymentBody,
  createPayment,
  getInvoice,
  getPayment,
  listInvoices,
  presentInvoice,
  refundPayment,
  SENDABLE_INVOICE,
} from '../modules/invoices/index.js';
import { createQuote, CreateQuoteBody, getQuote, SENDABLE_QUOTE } from '../modules/quotes/index.js';
import { sendDocument } from '../modules/sent-documents/index.js';
import type { Context } from '../kernel/context.js';
import { TIME_TOOLS } from './time-tools.js';
import { AVAILABILITY_TOOLS } from './availability-tools.js';
import { CHANGE_SET_TOOLS } from './change-set-tools.js';
import { CREDIT_TOOLS } from './credit-tools.js';
import { CUSTOM_FIELD_TOOLS } from './custom-field-tools.js';
import { EINVOICE_TOOLS } from './einvoice-tools.js';
import { REPORT_TOOLS } from './report-tools.js';
import { FIELD_TOOLS } from './field-tools.js';
import { VISIT_TOOLS } from './visit-tools.js';
import { formatMoney } from './present.js';
import {
  clientLine,
  describedOf,
  documentReads,
  id,
  num,
  objectSchema,
  page,
  pageFields,
  refOf,
  str,
  type Tool,
} from './tool-kit.js';

export type { JsonSchema, Tool } from './tool-kit.js';

const message = {
  type: 'string',
  maxLength: 2000,
  description: 'A short personal note put at the top of the e-mail (optional).',
};

interface SentDocument {
  id: string;
  number?: string | null;
  sent_at?: string | null;
  client_id: string;
  total_amount: number;
  currency: string;
  amount_due?: number;
}
interface ClientShape {
  id: string;
  name: string;
  email: string | null;
}
interface InvoiceShape extends SentDocument {
  amount_due: number;
}

/** A re-send says so, so that a person never takes it for the first. */
const again = (document: SentDocument): string =>
  document.sent_at ? ` again (it was last sent at ${document.sent_at})` : '';

/** A sent document and its client, as a send's summary describes them. */
async function describeSend(
  ctx: Context,
  kind: 'quote' | 'invoice',
  documentId: string,
): Promise<Array<{ kind: 'quote' | 'invoice' | 'client'; id: string; object: unknown }>> {
  const document = (
    kind === 'quote' ? await getQuote(ctx, documentId) : await getInvoice(ctx, documentId, ctx.clock.now())
  ) as SentDocument;
  const client = await getClient(ctx, document.client_id);
  return [
    { kind, id: document.id, object: document },
    { kind: 'client', id: client.id, object: client },
  ];
}

export const TOOLS: Tool[] = [
  {
    name: 'find_clients',
    title: 'Find clients',
    description:
      'Finds clients by a word of their name, e-mail, phone or company (case-insensitive), newest first. Use it to get a client_id before making a quote or invoice.',
    scope: 'clients:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'Part of a name, e-mail, phone or company.',
        },
        ...pageFields,
      },
      additionalProperties: false,
    },
    run: async (ctx, args) =>
      page(
        await listClients(ctx, {
          q: str(args.query),
          limit: num(args.limit) ?? 10,
          cursor: str(args.cursor),
        }),
        presentClient,
      ),
  },
  {
    name: 'get_client',
    title: 'Get a client',
    description: 'One client by id, with contact details, address and notes.',
    scope: 'clients:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: { client_id: id('The client’s id.') },
      required: ['client_id'],
      additionalProperties: false,
    },
    run: (ctx, args) => getClient(ctx, String(args.client_id)),
  },
  {
    name: 'create_client',
    title: 'Create a client',
    description:
      'Adds a client (a customer). Only name is required. Check with find_clients first that the client does not exist yet.',
    scope: 'clients:write',
    customFields: 'client',
    kind: 'write',
    input: objectSchema(CreateClientBody),
    run: (ctx, args) => createClient(ctx, args as never),
    touches: (_args, result) => refOf('client', result),
  },
  {
    name: 'find_products',
    title: 'Find products',
    description:
      'Finds active products of the price list (services, materials, fees) by a word of their name or code. Use a product_id on a quote or invoice line: the line takes its description, price, quantity and taxes. Amounts are integers in minor units (cents).',
    scope: 'catalog:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 200, description: 'Part of a name or code.' },
        ...pageFields,
      },
      additionalProperties: false,
    },
    run: async (ctx, args) =>
      page(
        await listProducts(ctx, {
          q: str(args.query),
          active: true,
          sort: 'name',
          limit: num(args.limit) ?? 10,
          cursor: str(args.cursor),
        }),
        presentProduct,
      ),
  },
  {
    name: 'preview_quote',
    title: 'Preview a quote',
    description:
      'Computes a quote exactly as create_quote would make it (line totals, tax, total) without saving anything. Amounts are integers in minor units (cents).',
    scope: 'quotes:read',
    customFields: 'quote',
    kind: 'preview',
    input: objectSchema(CreateQuoteBody, { omit: ['request_id'] }),
    run: (ctx, args) => createQuote(ctx, args as never),
  },
  {
    name: 'create_quote',
    title: 'Create a quote',
    description:
      'Saves a draft quote for a client. Amounts are integers in minor units (cents): 12500 is 125.00. It is not sent: use send_quote for that.',
    scope: 'quotes:write',
    customFields: 'quote',
    kind: 'write',
    input: objectSchema(CreateQuoteBody, { omit: ['request_id'] }),
    run: (ctx, args) => createQuote(ctx, args as never),
    touches: (args, result) => [...documentReads(args), ...refOf('quote', result)],
  },
  {
    name: 'send_quote',
    title: 'Send a quote',
    description:
      'E-mails a quote to its client (a draft gets its number; a sent quote is sent again). Contacts the customer, so it takes two calls: the first answers a summary and a confirmation_token; show the summary to the user and, once they agree, call again with the same arguments and the token.',
    scope: 'quotes:send',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: { quote_id: id('The quote to send.'), message },
      required: ['quote_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      sendDocument(ctx, SENDABLE_QUOTE, String(args.quote_id), { message: str(args.message) } as never),
    describes: (ctx, args) => describeSend(ctx, 'quote', String(args.quote_id)),
    summary(_args, result, described) {
      const quote = describedOf<SentDocument>(described, 'quote');
      const number = (result as SentDocument).number ?? quote.number ?? '';
      return `E-mail quote ${number}${again(quote)} for ${formatMoney(quote.total_amount, quote.currency)} to ${clientLine(describedOf<ClientShape>(described, 'client'))}.`;
    },
  },
  {
    name: 'preview_invoice',
    title: 'Preview an invoice',
    description:
      'Computes an invoice exactly as create_invoice would make it (totals, tax, due date) without saving anything. Amounts are integers in minor units (cents).',
    scope: 'invoices:read',
    customFields: 'invoice',
    kind: 'preview',
    input: objectSchema(CreateInvoiceBody, { omit: ['job_id', 'quote_id'], require: ['client_id'] }),
    run: (ctx, args) => createInvoice(ctx, args as never),
  },
  {
    name: 'create_invoice',
    title: 'Create an invoice',
    description:
      'Saves a draft invoice for a client. Amounts are integers in minor units (cents). It is not sent: use send_invoice for that.',
    scope: 'invoices:write',
    customFields: 'invoice',
    kind: 'write',
    input: objectSchema(CreateInvoiceBody, { omit: ['job_id', 'quote_id'], require: ['client_id'] }),
    run: (ctx, args) => createInvoice(ctx, args as never),
    touches: (args, result) => [...documentReads(args), ...refOf('invoice', result)],
  },
  {
    name: 'send_invoice',
    title: 'Send an invoice',
    description:
      'E-mails an invoice to its client (a draft gets its number and due date). Contacts the customer, so it takes two calls: the first answers a summary and a confirmation_token; show the summary to the user and, once they agree, call again with the same arguments and the token.',
    scope: 'invoices:send',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: { invoice_id: id('The invoice to send.'), message },
      required: ['invoice_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      sendDocument(ctx, SENDABLE_INVOICE, String(args.invoice_id), { message: str(args.message) } as never),
    describes: (ctx, args) => describeSend(ctx, 'invoice', String(args.invoice_id)),
    summary(_args, result, described) {
      const invoice = describedOf<InvoiceShape>(described, 'invoice');
      const number = (result as SentDocument).number ?? invoice.number ?? '';
      return `E-mail invoice ${number}${again(invoice)} for ${formatMoney(invoice.total_amount, invoice.currency)} (due ${formatMoney(invoice.amount_due, invoice.currency)}) to ${clientLine(describedOf<ClientShape>(described, 'client'))}.`;
    },
  },
  {
    name: 'list_overdue_invoices',
    title: 'List overdue invoices',
    description: 'Sent invoices whose due date has passed and that still have money due, newest first.',
    scope: 'invoices:read',
    kind: 'read',
    input: { type: 'object', properties: { ...pageFields }, additionalProperties: false },
    run: async (ctx, args) => {
      const now = ctx.clock.now();
      const result = await listInvoices(
        ctx,
        { overdue: true, limit: num(args.limit) ?? 10, cursor: str(args.cursor) } as never,
        now,
      );
      return page(result, (record) => presentInvoice(record, now));
    },
  },
  {
    name: 'record_payment',
    title: 'Record a payment',
    description:
      'Records money received against a sent invoice (amount in minor units, at most what is due). Moves money on the books, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'payments:write',
    kind: 'confirm',
    input: objectSchema(CreatePaymentBody),
    run: (ctx, args) => createPayment(ctx, args as never),
    touches: (_args, result) => refOf('payment', result),
    describes: (ctx, args) => describeSend(ctx, 'invoice', String(args.invoice_id)),
    summary(_args, result, described) {
      const payment = result as { amount: number; method: string };
      const invoice = describedOf<InvoiceShape>(described, 'invoice');
      const after = invoice.amount_due - payment.amount;
      return `Record a ${payment.method} payment of ${formatMoney(payment.amount, invoice.currency)} on invoice ${invoice.number ?? invoice.id} for ${clientLine(describedOf<ClientShape>(described, 'client'))}; the amount due goes from ${formatMoney(invoice.amount_due, invoice.currency)} to ${formatMoney(after, invoice.currency)}.`;
    },
  },
  {
    name: 'refund_payment',
    title: 'Refund a payment',
    description:
      'Records a refund of a payment (amount in minor units; all that is not yet refunded when omitted). Moves money, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'payments:write',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: {
        payment_id: id('The payment to refund.'),
        amount: { type: 'integer', minimum: 1, description: 'Amount to refund, in minor units.' },
        reason: { type: ['string', 'null'], maxLength: 500, description: 'Why the money is returned.' },
      },
      required: ['payment_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      refundPayment(ctx, String(args.payment_id), {
        ...(args.amount !== undefined ? { amount: args.amount } : {}),
        ...(args.reason !== undefined ? { reason: args.reason } : {}),
      } as never),
    async describes(ctx, args) {
      const payment = await getPayment(ctx, String(args.payment_id));
      return [
        { kind: 'payment', id: payment.id, object: payment },
        // A deposit (contract §23) names its quote instead of an invoice.
        ...(payment.invoice_id !== null
          ? await describeSend(ctx, 'invoice', payment.invoice_id)
          : await describeSend(ctx, 'quote', payment.quote_id!)),
      ];
    },
    summary(_args, result, described) {
      const before = describedOf<{ amount: number; amount_refunded: number; method: string }>(described, 'payment');
      const after = result as { amount_refunded: number };
      const deposit = !described.some((item) => item.kind === 'invoice');
      const invoice = describedOf<InvoiceShape>(described, deposit ? 'quote' : 'invoice');
      return `Refund ${formatMoney(after.amount_refunded - before.amount_refunded, invoice.currency)} of the ${formatMoney(before.amount, invoice.currency)} ${before.method} ${deposit ? 'deposit on quote' : 'payment on invoice'} ${invoice.number ?? invoice.id} for ${clientLine(describedOf<ClientShape>(described, 'client'))}.`;
    },
  },
  ...CREDIT_TOOLS,
  ...EINVOICE_TOOLS,
  ...REPORT_TOOLS,
  ...VISIT_TOOLS,
  {
    name: 'get_account',
    title: 'Get the business profile',
    description: 'The business as its documents show it: name, contact details, currency, payment terms.',
    scope: 'account:read',
    kind: 'read',
    input: { type: 'object', properties: {}, additionalProperties: false },
    run: (ctx) => getAccount(ctx.db, ctx.accountId),
  },
  ...FIELD_TOOLS,
  ...CUSTOM_FIELD_TOOLS,
  ...AVAILABILITY_TOOLS,
  ...TIME_TOOLS,
  ...CHANGE_SET_TOOLS,
];
