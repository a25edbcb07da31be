// The curated tools of the MCP server (docs/api-contract.md §20): a business's daily work, not one tool per
// endpoint. Each names the scope it needs (a key sees only the tools its scopes allow), how it acts (read;
// write, with dry_run and replay of a retried call; confirm: a send or money, which takes a confirmation
// token), its input schema (the REST body's, so validation is the same) and the module operation it calls.
// find_products waits for the catalogue, which does not exist yet.
import type { TSchema } from '@sinclair/typebox';
import { getAccount } from '../modules/accounts/index.js';
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
import { createQuote, CreateQuoteBody, SENDABLE_QUOTE } from '../modules/quotes/index.js';
import { sendDocument } from '../modules/sent-documents/index.js';
import {
  addVisitAssignee,
  createVisit,
  CreateVisitBody,
  listVisits,
  updateVisit,
  UpdateVisitBody,
  VISIT_STATUSES,
} from '../modules/visits/index.js';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { formatMoney } from './present.js';

export type ToolKind = 'read' | 'preview' | 'write' | 'confirm';

// Tool inputs are plain JSON; each operation's own schema has validated them before `run` sees them.
type Args = Record<string, unknown>;

export interface Tool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  kind: ToolKind;
  /** The arguments' JSON schema, without dry_run and confirmation_token (added by the server). */
  input: JsonSchema;
  /** Whether acting twice with the same arguments leaves the same state (a read, or nothing new). */
  idempotent?: boolean;
  run(ctx: Context, args: Args): Promise<unknown>;
  /** For `confirm` tools: what the call will do, in one sentence, from its dry run's result. */
  summary?(ctx: Context, args: Args, result: unknown): Promise<string>;
}

export interface JsonSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

/** A TypeBox object schema as plain JSON, less the fields a tool does not offer, with more fields required. */
function objectSchema(schema: TSchema, options: { omit?: string[]; require?: string[] } = {}): JsonSchema {
  const plain = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  for (const field of options.omit ?? []) delete plain.properties[field];
  delete plain['x-required-one-of'];
  const required = [...new Set([...(plain.required ?? []), ...(options.require ?? [])])].filter(
    (field) => field in plain.properties,
  );
  return { ...plain, ...(required.length > 0 ? { required } : {}) };
}

const id = (description: string) => ({ type: 'string', format: 'uuid', description });
const pageFields = {
  limit: { type: 'integer', minimum: 1, maximum: 25, default: 10, description: 'How many to answer, 1 to 25.' },
  cursor: { type: 'string', maxLength: 1000, description: 'The next_cursor of the previous answer, for more.' },
};
const message = {
  type: 'string',
  maxLength: 2000,
  description: 'A short personal note put at the top of the e-mail (optional).',
};

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function page<T, R>(result: { items: T[]; hasMore: boolean; nextCursor: string | null }, present: (item: T) => R) {
  return { items: result.items.map(present), has_more: result.hasMore, next_cursor: result.nextCursor };
}

async function clientLine(ctx: Context, clientId: string): Promise<string> {
  const client = await getClient(ctx, clientId);
  return `${client.name}${client.email ? ` <${client.email}>` : ' (no e-mail address on file)'}`;
}

interface SentDocument {
  number?: string | null;
  client_id: string;
  total_amount: number;
  currency: string;
  amount_due?: number;
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
    kind: 'write',
    input: objectSchema(CreateClientBody),
    run: (ctx, args) => createClient(ctx, args as never),
  },
  {
    name: 'preview_quote',
    title: 'Preview a quote',
    description:
      'Computes a quote exactly as create_quote would make it (line totals, tax, total) without saving anything. Amounts are integers in minor units (cents).',
    scope: 'quotes:read',
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
    kind: 'write',
    input: objectSchema(CreateQuoteBody, { omit: ['request_id'] }),
    run: (ctx, args) => createQuote(ctx, args as never),
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
    async summary(ctx, _args, result) {
      const quote = result as SentDocument;
      return `E-mail quote ${quote.number ?? ''} for ${formatMoney(quote.total_amount, quote.currency)} to ${await clientLine(ctx, quote.client_id)}.`;
    },
  },
  {
    name: 'preview_invoice',
    title: 'Preview an invoice',
    description:
      'Computes an invoice exactly as create_invoice would make it (totals, tax, due date) without saving anything. Amounts are integers in minor units (cents).',
    scope: 'invoices:read',
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
    kind: 'write',
    input: objectSchema(CreateInvoiceBody, { omit: ['job_id', 'quote_id'], require: ['client_id'] }),
    run: (ctx, args) => createInvoice(ctx, args as never),
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
    async summary(ctx, _args, result) {
      const invoice = result as SentDocument;
      return `E-mail invoice ${invoice.number ?? ''} for ${formatMoney(invoice.total_amount, invoice.currency)} (due ${formatMoney(invoice.amount_due ?? 0, invoice.currency)}) to ${await clientLine(ctx, invoice.client_id)}.`;
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
    async summary(ctx, args, result) {
      const payment = result as { amount: number; method: string };
      const invoice = await getInvoice(ctx, String(args.invoice_id), ctx.clock.now());
      const after = invoice.amount_due - payment.amount;
      return `Record a ${payment.method} payment of ${formatMoney(payment.amount, invoice.currency)} on invoice ${invoice.number ?? invoice.id} for ${await clientLine(ctx, invoice.client_id)}; the amount due goes from ${formatMoney(invoice.amount_due, invoice.currency)} to ${formatMoney(after, invoice.currency)}.`;
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
    async summary(ctx, args, result) {
      const before = await getPayment(ctx, String(args.payment_id));
      const after = result as { amount_refunded: number };
      const invoice = await getInvoice(ctx, before.invoice_id, ctx.clock.now());
      return `Refund ${formatMoney(after.amount_refunded - before.amount_refunded, invoice.currency)} of the ${formatMoney(before.amount, invoice.currency)} ${before.method} payment on invoice ${invoice.number ?? invoice.id} for ${await clientLine(ctx, invoice.client_id)}.`;
    },
  },
  // Contract section 17: the calendar and the day's dispatch.
  {
    name: 'visit_calendar',
    title: 'Show the calendar',
    description:
      'The visits that overlap a window, in start order: whole local days (from_date to to_date, inclusive, in timezone; default the account’s zone) or instants (from, to). Filter by team member (assignee_id, comma-separated), unassigned, job, client, status or late. At most 62 days unless a member, job or client is given.',
    scope: 'visits:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: {
        from_date: { type: 'string', format: 'date', description: 'First local day, YYYY-MM-DD.' },
        to_date: { type: 'string', format: 'date', description: 'Last local day, inclusive.' },
        timezone: { type: 'string', maxLength: 64, description: 'IANA zone of the days, e.g. America/Denver.' },
        from: { type: 'string', format: 'date-time', description: 'Window start, an instant (instead of days).' },
        to: { type: 'string', format: 'date-time', description: 'Window end, an instant, exclusive.' },
        assignee_id: { type: 'string', maxLength: 1850, description: 'Team member ids, comma-separated: any.' },
        unassigned: { type: 'boolean', description: 'true: only visits with nobody assigned.' },
        job_id: id('Only this job’s visits.'),
        client_id: id('Only this client’s visits.'),
        status: { type: 'string', maxLength: 200, description: `Comma-separated: ${VISIT_STATUSES.join(', ')}.` },
        late: { type: 'boolean', description: 'true: only visits still scheduled or en route after their end.' },
        ...pageFields,
      },
      additionalProperties: false,
    },
    run: async (ctx, args) => {
      const result = await listVisits(ctx, { ...args, limit: num(args.limit) ?? 10 } as never);
      return page(result, (visit) => visit);
    },
  },
  {
    name: 'schedule_visit',
    title: 'Schedule a visit',
    description:
      'Adds a visit to a job: at local_start (with duration_minutes or local_end, in timezone), at start_at, or all_day with start_date; without a time it is unscheduled. assignee_ids are active team members. The answer lists conflicts: other visits of the same people at that time.',
    scope: 'visits:write',
    kind: 'write',
    input: objectSchema(CreateVisitBody),
    run: (ctx, args) => createVisit(ctx, args as never),
  },
  {
    name: 'reschedule_visit',
    title: 'Reschedule a visit',
    description:
      'Moves a visit to a new time, in one form: local_start with duration_minutes or local_end (and timezone); start_at with end_at or duration_minutes; or all_day with start_date and end_date. The answer lists conflicts.',
    scope: 'visits:write',
    kind: 'write',
    input: (() => {
      const update = objectSchema(UpdateVisitBody);
      const fields = [
        'timezone',
        'start_at',
        'end_at',
        'local_start',
        'local_end',
        'duration_minutes',
        'all_day',
        'start_date',
        'end_date',
      ];
      return {
        type: 'object' as const,
        properties: {
          visit_id: id('The visit to move.'),
          ...Object.fromEntries(fields.map((field) => [field, update.properties[field]])),
        },
        required: ['visit_id'],
        additionalProperties: false,
      };
    })(),
    run: (ctx, args) => {
      const { visit_id: visitId, ...time } = args;
      return updateVisit(ctx, String(visitId), time as never);
    },
  },
  {
    name: 'assign_visit',
    title: 'Assign someone to a visit',
    description:
      'Adds one active team member to a visit, keeping the others (nothing changes when already there). The answer lists conflicts.',
    scope: 'visits:write',
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: { visit_id: id('The visit.'), team_member_id: id('The team member to add.') },
      required: ['visit_id', 'team_member_id'],
      additionalProperties: false,
    },
    run: async (ctx, args) => (await addVisitAssignee(ctx, String(args.visit_id), String(args.team_member_id))).visit,
  },
  {
    name: 'complete_visit',
    title: 'Complete a visit',
    description:
      'Marks a scheduled or in-progress visit completed, now or at completed_at (never in the future), with optional completion_notes.',
    scope: 'visits:write',
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: {
        visit_id: id('The visit.'),
        completed_at: { type: 'string', format: 'date-time', description: 'When it was done; default now.' },
        completion_notes: { type: 'string', maxLength: 5000, description: 'What was done.' },
      },
      required: ['visit_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      updateVisit(ctx, String(args.visit_id), {
        status: 'completed',
        ...(args.completed_at !== undefined ? { completed_at: args.completed_at } : {}),
        ...(args.completion_notes !== undefined ? { completion_notes: args.completion_notes } : {}),
      } as never),
  },
  {
    name: 'get_account',
    title: 'Get the business profile',
    description: 'The business as its documents show it: name, contact details, currency, payment terms.',
    scope: 'account:read',
    kind: 'read',
    input: { type: 'object', properties: {}, additionalProperties: false },
    run: (ctx) => getAccount(ctx.db, ctx.accountId),
  },
];
