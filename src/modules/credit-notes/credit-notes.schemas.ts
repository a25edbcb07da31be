// Credit note shapes (docs/api-contract.md §22): a document that lowers what a client owes, made of lines or of
// an amount, numbered when issued; its money is applied to invoices, refunded or kept as credit.
import { Type, type Static } from '@sinclair/typebox';
import {
  ExternalIdSchema,
  externalIdFilter,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';
import {
  CurrencySchema,
  DateSchema,
  deliveryStatusField,
  describeTransitions,
  hostedUrlField,
  idFilter,
  LineItemSchema,
  LineItemsInputSchema,
  MAX_AMOUNT,
  nullableDate,
  nullableTimestamp,
  pricingInputFields,
  PropertyReferenceInput,
  ReferenceSchema,
  statusFilter,
  totalsFields,
} from '../documents/index.js';
import { ApplyBody, PAYMENT_METHODS, type PaymentMethod } from '../invoices/index.js';
import { CREDIT_NOTE_LIFECYCLE, CREDIT_NOTE_STATUSES, type CreditNoteStatus } from './credit-notes.lifecycle.js';

const method = Type.Unsafe<PaymentMethod>({
  type: 'string',
  enum: [...PAYMENT_METHODS],
  description: `How the money went back: ${PAYMENT_METHODS.join(', ')}.`,
  example: 'bank_transfer',
});
const money = (description: string, example: number) => Type.Integer({ description, example });
const reason = Nullable(
  Type.String({ maxLength: 500, description: 'Why the credit is given; printed.', example: 'Damaged tiles' }),
);
const notes = Nullable(Type.String({ maxLength: 5000, description: 'Notes printed on the credit note.' }));
const taxRateIds = Nullable(
  Type.Array(Type.String({ format: 'uuid', description: 'A tax rate id.' }), {
    maxItems: 5,
    description: 'The rates of an amount made without an invoice (its one line); with lines or an invoice: 422.',
  }),
);

export const CreditNoteApplicationSchema = Type.Object({
  id: IdSchema,
  invoice_id: IdSchema,
  amount: money('The credit applied, in minor units.', 688),
  applied_on: { ...DateSchema, description: 'The local date it counts from.' },
  created_at: TimestampSchema,
});

export const CreditNoteRefundSchema = Type.Object({
  id: IdSchema,
  amount: money('Money paid back, in minor units.', 500),
  method,
  reference: Nullable(Type.String({ description: 'Your reference for the refund.', example: 'TXN-9001' })),
  reason: Nullable(Type.String({ description: 'Why the money was paid back.', example: 'Client closed the account' })),
  refunded_at: { ...TimestampSchema, description: 'When the money was paid back.' },
  created_at: TimestampSchema,
});

export const CreditNoteSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('credit_note', { description: 'Always "credit_note".' }),
    external_id: Nullable(ExternalIdSchema),
    number: Nullable(
      Type.String({ description: 'CN-000001 upward, assigned when issued; null while draft.', example: 'CN-000004' }),
    ),
    client_id: IdSchema,
    invoice_id: Nullable({ ...IdSchema, description: 'The invoice it credits, if any.' }),
    property_id: Nullable({ ...IdSchema, description: 'The property concerned, if any.' }),
    reason,
    amount: Nullable(money('The amount it was made from; null when made of lines.', 1000)),
    tax_rate_ids: taxRateIds,
    line_items: Type.Array(LineItemSchema),
    ...totalsFields,
    issue_date: nullableDate('Date of issue; set at issue when empty, never before the invoice’s.'),
    apply_on_issue: Type.Boolean({
      description: 'With an invoice that is sent, issuing applies min(total, its amount_due) to it.',
      example: true,
    }),
    amount_applied: money('What invoices hold of it now.', 688),
    amount_refunded: money('What was paid back from it.', 0),
    amount_remaining: money('total_amount − amount_applied − amount_refunded: the client’s credit from it.', 312),
    applications: Type.Array(CreditNoteApplicationSchema, {
      description: 'Its 20 most recent live applications, oldest first among them.',
    }),
    applications_count: Type.Integer({ minimum: 0, description: 'How many live applications it has.', example: 1 }),
    refunds: Type.Array(CreditNoteRefundSchema, {
      description: 'Its 20 most recent refunds, oldest first among them.',
    }),
    refunds_count: Type.Integer({ minimum: 0, description: 'How many refunds it has.', example: 0 }),
    notes,
    status: Type.Unsafe<CreditNoteStatus>({
      type: 'string',
      enum: [...CREDIT_NOTE_STATUSES],
      description: 'draft → issued → void.',
      example: 'issued',
    }),
    issued_at: nullableTimestamp('When it was issued.'),
    voided_at: nullableTimestamp('When it was voided.'),
    hosted_url: hostedUrlField,
    delivery_status: deliveryStatusField,
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'CreditNote', description: 'A document that lowers what a client owes.' },
);

const writable = {
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  reason: Type.Optional(reason),
  line_items: Type.Optional(LineItemsInputSchema),
  amount: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number(MAX_AMOUNT),
      description:
        'Instead of lines: an amount, tax included. Against an invoice it is shared over the invoice’s lines in proportion to their gross amounts; without one it is one line.',
      example: 1000,
    }),
  ),
  tax_rate_ids: Type.Optional(taxRateIds),
  ...pricingInputFields,
  currency: Type.Optional(CurrencySchema),
  issue_date: Type.Optional(nullableDate('Date of issue; not before the invoice’s.')),
  apply_on_issue: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  notes: Type.Optional(notes),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateCreditNoteBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client; required without invoice_id, else the invoice’s.')),
    invoice_id: Type.Optional(ReferenceSchema('A sent or paid invoice it credits (needs invoices:read too).')),
    property_id: PropertyReferenceInput,
    ...writable,
  },
  { additionalProperties: false },
);

export const UpdateCreditNoteBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client.')),
    property_id: PropertyReferenceInput,
    ...writable,
    status: Type.Optional(
      Type.Unsafe<CreditNoteStatus>({
        type: 'string',
        enum: [...CREDIT_NOTE_STATUSES],
        description: `${describeTransitions(CREDIT_NOTE_LIFECYCLE.moves)}. draft -> issued issues it without e-mail; void releases its applications.`,
        example: 'issued',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundCreditNoteBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Number(MAX_AMOUNT), description: 'Default: the amount remaining.' }),
    ),
    method,
    reference: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    refunded_at: Type.Optional({ ...TimestampSchema, description: 'Default now; not in the future.' }),
  },
  { additionalProperties: false },
);

export const ApplyCreditNoteBody = ApplyBody;

export const UnapplyCreditNoteBody = Type.Object(
  { application_id: { ...IdSchema, description: 'The application to reverse.' } },
  { additionalProperties: false },
);

export const ListCreditNotesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'number', 'issue_date'] as const),
    external_id: externalIdFilter,
    client_id: idFilter('Only credit notes of this client.'),
    invoice_id: idFilter('Only credit notes of this invoice.'),
    status: statusFilter(CREDIT_NOTE_STATUSES),
  },
  { additionalProperties: false },
);

export type CreditNote = Static<typeof CreditNoteSchema>;
export type CreateCreditNoteInput = Static<typeof CreateCreditNoteBody>;
export type UpdateCreditNoteInput = Static<typeof UpdateCreditNoteBody>;
export type RefundCreditNoteInput = Static<typeof RefundCreditNoteBody>;
export type ApplyCreditNoteInput = Static<typeof ApplyCreditNoteBody>;
export type UnapplyCreditNoteInput = Static<typeof UnapplyCreditNoteBody>;
export type ListCreditNotesInput = Static<typeof ListCreditNotesQuery>;
