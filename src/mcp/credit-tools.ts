// The MCP tools of credit and balance (docs/api-contract.md §32, "MCP"): a client's balance; a credit note's
// preview and create; and, as they move money, its issue, apply and refund behind a confirmation.
import type { Context } from '../kernel/context.js';
import {
  applyCreditNote,
  CreateCreditNoteBody,
  createCreditNote,
  getCreditNote,
  refundCreditNote,
  sendCreditNote,
  updateCreditNote,
} from '../modules/credit-notes/index.js';
import { getClient } from '../modules/clients/index.js';
import { getClientBalance } from '../modules/ledger/index.js';
import { formatMoney } from './present.js';
import { clientLine, describedOf, type Described, id, objectSchema, refOf, refsOf, type Tool } from './tool-kit.js';

interface NoteShape {
  id: string;
  number: string | null;
  client_id: string;
  invoice_id: string | null;
  total_amount: number;
  currency: string;
  amount_remaining: number;
}
interface ClientShape {
  name: string;
  email: string | null;
}

/** The credit note and its client, as a confirmation's summary describes them. */
async function describeNote(ctx: Context, noteId: string): Promise<Described[]> {
  const note = await getCreditNote(ctx, noteId);
  return [
    { kind: 'credit_note', id: note.id, object: note },
    { kind: 'client', id: note.client_id, object: await getClient(ctx, note.client_id) },
  ];
}

const noteLine = (note: NoteShape) =>
  `credit note ${note.number ?? '(draft)'} of ${formatMoney(note.total_amount, note.currency)}`;

const applications = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  description: 'The invoices (sent, of the same client and currency) and the amount, in minor units, for each.',
  items: {
    type: 'object',
    properties: {
      invoice_id: id('A sent invoice of the same client.'),
      amount: { type: 'integer', minimum: 1, description: 'In minor units; at most the invoice’s amount_due.' },
    },
    required: ['invoice_id', 'amount'],
    additionalProperties: false,
  },
};

export const CREDIT_TOOLS: Tool[] = [
  {
    name: 'get_client_balance',
    title: 'Get a client’s balance',
    description:
      'What a client owes on sent invoices, the credit it holds (unapplied payments, credit notes) and the difference, per currency, in minor units. Below 0 the business owes the client.',
    scope: 'reports:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: { client_id: id('The client.') },
      required: ['client_id'],
      additionalProperties: false,
    },
    run: (ctx, args) => getClientBalance(ctx, String(args.client_id)),
  },
  {
    name: 'preview_credit_note',
    title: 'Preview a credit note',
    description:
      'Computes a credit note exactly as create_credit_note would make it (its lines, taxes and total), without saving anything. Give line_items or an amount (minor units, tax included).',
    scope: 'credit_notes:read',
    alsoNeeds: ['invoices:read'],
    kind: 'preview',
    input: objectSchema(CreateCreditNoteBody),
    run: (ctx, args) => createCreditNote(ctx, args as never),
  },
  {
    name: 'create_credit_note',
    title: 'Create a credit note',
    description:
      'Saves a draft credit note for a client, or against a sent or paid invoice (line_items or an amount in minor units, tax included). It lowers nothing until issued: use issue_credit_note.',
    scope: 'credit_notes:write',
    alsoNeeds: ['invoices:read'],
    kind: 'write',
    input: objectSchema(CreateCreditNoteBody),
    run: (ctx, args) => createCreditNote(ctx, args as never),
    touches: (args, result) => [
      ...refsOf('client', args.client_id),
      ...refsOf('invoice', args.invoice_id),
      ...refOf('credit_note', result),
    ],
  },
  {
    name: 'issue_credit_note',
    title: 'Issue a credit note',
    description:
      'Issues a draft credit note: it gets its number, lowers what the client owes and, against a sent invoice, is applied to it. Moves money, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'credit_notes:write',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: { credit_note_id: id('The draft credit note to issue.') },
      required: ['credit_note_id'],
      additionalProperties: false,
    },
    run: (ctx, args) => updateCreditNote(ctx, String(args.credit_note_id), { status: 'issued' }),
    describes: (ctx, args) => describeNote(ctx, String(args.credit_note_id)),
    summary(_args, result, described) {
      const issued = result as NoteShape & { amount_applied: number };
      return `Issue ${noteLine(issued)} to ${clientLine(describedOf<ClientShape>(described, 'client'))}${issued.amount_applied > 0 ? `, applying ${formatMoney(issued.amount_applied, issued.currency)} to its invoice` : ''}.`;
    },
  },
  {
    name: 'send_credit_note',
    title: 'Send a credit note',
    description:
      'E-mails a credit note with its PDF to its client (a draft is issued first). Contacts the customer, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'credit_notes:send',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: {
        credit_note_id: id('The credit note to send.'),
        message: { type: 'string', maxLength: 2000, description: 'A short personal note put in the e-mail.' },
      },
      required: ['credit_note_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      sendCreditNote(ctx, String(args.credit_note_id), {
        ...(typeof args.message === 'string' ? { message: args.message } : {}),
      } as never),
    describes: (ctx, args) => describeNote(ctx, String(args.credit_note_id)),
    summary(_args, result, described) {
      const note = result as NoteShape;
      return `E-mail ${noteLine(note)} to ${clientLine(describedOf<ClientShape>(described, 'client'))}${describedOf<NoteShape & { status: string }>(described, 'credit_note').status === 'draft' ? ', issuing it' : ''}.`;
    },
  },
  {
    name: 'apply_credit_note',
    title: 'Apply a credit note to invoices',
    description:
      'Applies what remains of an issued credit note to sent invoices of its client, all or nothing. Moves money, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'credit_notes:write',
    kind: 'confirm',
    input: {
      type: 'object',
      properties: { credit_note_id: id('An issued credit note.'), applications },
      required: ['credit_note_id', 'applications'],
      additionalProperties: false,
    },
    run: (ctx, args) => applyCreditNote(ctx, String(args.credit_note_id), { applications: args.applications } as never),
    describes: (ctx, args) => describeNote(ctx, String(args.credit_note_id)),
    summary(args, _result, described) {
      const note = describedOf<NoteShape>(described, 'credit_note');
      const total = (args.applications as { amount: number }[]).reduce((sum, one) => sum + one.amount, 0);
      return `Apply ${formatMoney(total, note.currency)} of ${noteLine(note)} (${formatMoney(note.amount_remaining, note.currency)} remaining) to ${(args.applications as unknown[]).length} invoice(s) of ${clientLine(describedOf<ClientShape>(described, 'client'))}.`;
    },
  },
  {
    name: 'refund_credit_note',
    title: 'Refund a credit note',
    description:
      'Records money paid back to the client from what remains of an issued credit note (all of it when amount is omitted). Moves money, so it takes two calls: the first answers a summary and a confirmation_token; call again with the same arguments and the token once the user agrees.',
    scope: 'credit_notes:write',
    alsoNeeds: ['payments:write'],
    kind: 'confirm',
    input: {
      type: 'object',
      properties: {
        credit_note_id: id('An issued credit note.'),
        amount: { type: 'integer', minimum: 1, description: 'In minor units; default all that remains.' },
        method: { type: 'string', enum: ['cash', 'check', 'card', 'bank_transfer', 'other'] },
        reference: { type: ['string', 'null'], maxLength: 200 },
        reason: { type: ['string', 'null'], maxLength: 500 },
      },
      required: ['credit_note_id', 'method'],
      additionalProperties: false,
    },
    run: (ctx, args) => {
      const { credit_note_id: noteId, ...body } = args;
      return refundCreditNote(ctx, String(noteId), body as never);
    },
    describes: (ctx, args) => describeNote(ctx, String(args.credit_note_id)),
    summary(_args, result, described) {
      const before = describedOf<NoteShape & { amount_refunded: number }>(described, 'credit_note');
      const after = result as { amount_refunded: number };
      return `Pay back ${formatMoney(after.amount_refunded - before.amount_refunded, before.currency)} from ${noteLine(before)} to ${clientLine(describedOf<ClientShape>(described, 'client'))}.`;
    },
  },
];
