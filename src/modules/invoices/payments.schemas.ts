// Payment shapes: money received against a sent invoice, never edited or deleted, only refunded.
import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateSchema, ReferenceSchema } from '../documents/index.js';
import { MAX_AMOUNT } from '../documents/index.js';
import { idFilter } from '../documents/index.js';
import { IdSchema, listQueryProperties, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';

export const PAYMENT_METHODS = ['cash', 'check', 'card', 'bank_transfer', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

const method = Type.Unsafe<PaymentMethod>({
  type: 'string',
  enum: [...PAYMENT_METHODS],
  description: `How the money came in: ${PAYMENT_METHODS.join(', ')}.`,
  example: 'bank_transfer',
});
const positiveAmount = (description: string) =>
  Type.Integer({ minimum: 1, maximum: Number(MAX_AMOUNT), description, example: 5000 });
const reference = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      'Your reference for the payment (a cheque number, a bank or card transaction id). Unique per account: a second payment with it is 409, so a sync can retry safely.',
    example: 'TXN-88412',
  }),
);
const overpayment = Type.Unsafe<'reject' | 'credit'>({
  type: 'string',
  enum: ['reject', 'credit'],
  description:
    'reject (default): an amount above the invoice’s amount_due is 422; credit: the invoice takes its amount_due, the rest stays as the client’s credit.',
  example: 'reject',
});
const notes = Nullable(Type.String({ maxLength: 5000, description: 'Internal notes.', example: 'Paid at the door.' }));

/** An application as an invoice lists it: where the money comes from. */
export const InvoiceApplicationSchema = Type.Object({
  id: IdSchema,
  source: Type.Object({
    type: Type.Unsafe<'payment' | 'credit_note'>({
      type: 'string',
      enum: ['payment', 'credit_note'],
      description: 'What the money is: a payment or a credit note.',
      example: 'payment',
    }),
    id: IdSchema,
  }),
  amount: Type.Integer({ description: 'The money applied, in minor units.', example: 5000 }),
  applied_on: { ...DateSchema, description: 'The local date it counts from.' },
});

/** An application as its source lists it. */
export const SourceApplicationSchema = Type.Object({
  id: IdSchema,
  invoice_id: IdSchema,
  amount: Type.Integer({ description: 'The money applied, in minor units.', example: 5000 }),
  applied_on: { ...DateSchema, description: 'The local date it counts from.' },
  created_at: TimestampSchema,
});

export const ApplyBody = Type.Object(
  {
    applications: Type.Array(
      Type.Object(
        {
          invoice_id: ReferenceSchema('A sent invoice of the same client and currency.'),
          amount: positiveAmount('The money to apply, in minor units: 1 … the invoice’s amount_due.'),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50, description: 'Up to 50 invoices, each named once: all are applied, or none.' },
    ),
    applied_on: Type.Optional({
      ...DateSchema,
      description:
        'The local date it counts from; default today. Not in the future, nor before the source or an invoice.',
    }),
  },
  { additionalProperties: false },
);

export const UnapplyBody = Type.Object(
  { application_id: { ...IdSchema, description: 'The application to reverse.' } },
  { additionalProperties: false },
);

export const RefundSchema = Type.Object({
  id: IdSchema,
  amount: Type.Integer({ description: 'Amount refunded, in minor units.', example: 2000 }),
  reason: Nullable(Type.String({ description: 'Why the money was returned.', example: 'Overcharged for parts' })),
  created_at: TimestampSchema,
});

export const PaymentSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('payment', { description: 'Always "payment".' }),
    invoice_id: Nullable(ReferenceSchema('The invoice paid; null for a deposit.')),
    quote_id: Nullable(
      ReferenceSchema('The quote a deposit is paid on (contract §23); null for a payment on an invoice.'),
    ),
    client_id: ReferenceSchema("The invoice's or the quote's client."),
    amount: Type.Integer({
      description: 'Amount received, in minor units of the invoice currency. Never changes.',
      example: 5000,
    }),
    amount_refunded: Type.Integer({ description: 'The sum of the refunds, in minor units.', example: 0 }),
    amount_applied: Type.Integer({ description: 'What invoices hold of it now, in minor units.', example: 5000 }),
    amount_unapplied: Type.Integer({
      description: 'amount − amount_refunded − amount_applied: the client’s credit from this payment.',
      example: 0,
    }),
    overpayment,
    applications: Type.Array(SourceApplicationSchema, {
      description: 'The 20 most recent live applications of this payment, oldest first among them.',
      example: [
        {
          id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f07',
          invoice_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02',
          amount: 5000,
          applied_on: '2026-11-21',
          created_at: '2026-11-21T10:04:05.123Z',
        },
      ],
    }),
    applications_count: Type.Integer({ minimum: 0, description: 'How many live applications it has.', example: 1 }),
    currency: CurrencySchema,
    method,
    reference,
    paid_at: { ...TimestampSchema, description: 'When the money was received.' },
    notes,
    refunds: Type.Array(RefundSchema, {
      description:
        'The 20 most recent refunds of this payment, oldest first among them (refunds_count says how many there are).',
      example: [
        {
          id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02',
          amount: 2000,
          reason: 'Overcharged for parts',
          created_at: '2026-11-22T09:00:00.000Z',
        },
      ],
    }),
    refunds_count: Type.Integer({
      minimum: 0,
      description: 'How many refunds the payment has, whether or not refunds lists them all. Read-only.',
      example: 1,
    }),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  {
    $id: 'Payment',
    description: 'Money received against an invoice, or a deposit on a quote. Corrections are refunds, never edits.',
  },
);

/** A payment as an invoice lists it. */
export const InvoicePaymentSchema = Type.Object({
  id: IdSchema,
  amount: Type.Integer({ description: 'Amount received, in minor units.', example: 5000 }),
  amount_refunded: Type.Integer({ description: 'The sum of its refunds, in minor units.', example: 0 }),
  method,
  paid_at: TimestampSchema,
});

export const CreatePaymentBody = Type.Object(
  {
    invoice_id: Type.Optional(ReferenceSchema('A sent invoice of this account. Exactly one of invoice_id, quote_id.')),
    quote_id: Type.Optional(
      ReferenceSchema(
        'A deposit (contract §23): an approved or converted quote. Exactly one of invoice_id, quote_id. Its money is credit earmarked for the quote, deducted from its first sent invoice.',
      ),
    ),
    amount: positiveAmount(
      'Amount received, in minor units; at most the invoice’s amount_due unless overpayment is credit; on a quote, at most total_amount − deposit_paid_amount.',
    ),
    method,
    overpayment: Type.Optional(overpayment),
    reference: Type.Optional(reference),
    paid_at: Type.Optional({
      ...TimestampSchema,
      description: 'When the money was received; defaults to now; not in the future.',
    }),
    notes: Type.Optional(notes),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const UpdatePaymentBody = Type.Object(
  { notes: Type.Optional(notes), metadata: Type.Optional(MetadataSchema) },
  { additionalProperties: false, description: 'Only notes and metadata change; amounts are corrected by refunds.' },
);

export const RefundPaymentBody = Type.Union(
  [
    Type.Object(
      {
        amount: Type.Optional(
          positiveAmount('Amount to refund, in minor units; defaults to all that is not yet refunded.'),
        ),
        reason: Type.Optional(
          Nullable(
            Type.String({
              maxLength: 500,
              description: 'Why the money is returned.',
              example: 'Overcharged for parts',
            }),
          ),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Optional: without a body the whole unrefunded amount is refunded.' },
);

export const ListPaymentsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'paid_at'] as const),
    invoice_id: idFilter('Only payments of this invoice.'),
    quote_id: idFilter('Only deposits paid on this quote.'),
    client_id: idFilter('Only payments of this client.'),
    method: Type.Optional(method),
    paid_after: Type.Optional({ ...TimestampSchema, description: 'Only payments received at or after this instant.' }),
    paid_before: Type.Optional({ ...TimestampSchema, description: 'Only payments received before this instant.' }),
    unapplied: Type.Optional(
      Type.Boolean({
        description: 'true: only payments with money not applied to any invoice (client credit); false: the others.',
        example: true,
      }),
    ),
  },
  { additionalProperties: false },
);

export type Payment = Static<typeof PaymentSchema>;
export type InvoicePayment = Static<typeof InvoicePaymentSchema>;
export type InvoiceApplication = Static<typeof InvoiceApplicationSchema>;
export type ApplyInput = Static<typeof ApplyBody>;
export type UnapplyInput = Static<typeof UnapplyBody>;
export type CreatePaymentInput = Static<typeof CreatePaymentBody>;
export type UpdatePaymentInput = Static<typeof UpdatePaymentBody>;
export type RefundPaymentInput = Static<typeof RefundPaymentBody> | undefined;
export type ListPaymentsInput = Static<typeof ListPaymentsQuery>;
