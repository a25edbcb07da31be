// Quote shapes: a priced proposal sent to a client, approved or declined, then turned into a job or invoice.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { QUOTE_LIFECYCLE, QUOTE_STATUSES, type QuoteStatus } from './quotes.lifecycle.js';
import { describeTransitions, PropertyReferenceInput } from '../documents/index.js';
import {
  CustomFieldValuesInputSchema,
  externalIdFilter,
  ExternalIdSchema,
  IdSchema,
  TimestampSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
} from '../../kernel/fields.js';
import {
  CurrencySchema,
  documentFields,
  nullableDate,
  nullableTimestamp,
  ReferenceSchema,
  totalsFields,
  deliveryStatusField,
  hostedUrlField,
} from '../documents/index.js';
import { LineItemSchema, LineItemsInputSchema, pricingInputFields } from '../documents/index.js';
import { idFilter, statusFilter } from '../documents/index.js';

const title = Nullable(
  Type.String({
    maxLength: 200,
    description: 'Short title shown to the client.',
    example: 'Kitchen faucet replacement',
  }),
);
const notes = Nullable(
  Type.String({
    maxLength: 5000,
    description: 'Notes shown to the client on the quote.',
    example: 'Price includes parts and labour.',
  }),
);
const validUntil = nullableDate('Last day the client may accept the quote.');

export const DepositSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('amount'), Type.Literal('percent')], {
      description:
        'amount: value is in minor units (1 … total_amount); percent: value is a percentage of total_amount.',
      example: 'percent',
    }),
    value: Type.Number({
      description:
        'Minor units for amount (an integer, at most total_amount); for percent, above 0, at most 100, at most 4 decimals.',
      example: 30,
    }),
  },
  {
    additionalProperties: false,
    description: 'The deposit asked before the work (contract §23); editable while the quote is. null: none.',
    example: { type: 'percent', value: 30 },
  },
);

const depositFigure = (description: string, example: number) =>
  Type.Integer({ description: `Read-only, minor units: ${description}`, example });

export const SignatureSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('signature', { description: 'Always "signature".' }),
    quote_id: { ...IdSchema, description: 'The quote signed.' },
    signer_name: Type.String({ description: 'The name the client typed.', example: 'Jane Doe' }),
    signed_at: TimestampSchema,
    ip_address: Nullable(
      Type.String({ description: 'Where the approval came from (never printed).', example: '203.0.113.7' }),
    ),
    user_agent: Nullable(Type.String({ description: 'The browser that sent it (at most 500 characters).' })),
    image_attachment_id: Nullable({
      ...IdSchema,
      description: 'A drawn signature’s image (an attachment of kind signature); null for a typed one.',
    }),
    document_sha256: Type.String({
      description: 'SHA-256 (hex) of the signed content: the RFC 8785 canonical JSON that …/document answers.',
      example: '3f1c0b8e2d4a6f7091b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718',
    }),
    invalidated_at: Nullable({ ...TimestampSchema, description: 'When the quote went back to draft.' }),
    invalidated_reason: Nullable(
      Type.Unsafe<'revised'>(
        Type.String({
          description: 'Why it no longer binds: "revised" (the quote moved back to draft).',
          example: 'revised',
        }),
      ),
    ),
  },
  { description: 'A client’s approval of a quote on the hub, bound to the hash of what they saw.' },
);

export const QuoteSchema = Type.Object(
  {
    ...documentFields('quote', QUOTE_STATUSES),
    tags: TagsSchema,
    external_id: Nullable(ExternalIdSchema),
    number: Nullable(
      Type.String({
        description: 'Q-000001 upward, assigned when first sent; null before. Never reused.',
        example: 'Q-000042',
      }),
    ),
    request_id: Nullable(ReferenceSchema('The service request this quote answers.')),
    title,
    line_items: Type.Array(LineItemSchema),
    ...totalsFields,
    notes,
    valid_until: validUntil,
    sent_at: nullableTimestamp('When the quote was last sent or marked sent.'),
    delivery_status: deliveryStatusField,
    hosted_url: hostedUrlField,
    approved_at: nullableTimestamp('When the quote was approved.'),
    approved_by: Nullable(
      Type.String({
        description: 'The name the client typed when approving on the client hub; null when approved through the API.',
        example: 'Ada Lovelace',
      }),
    ),
    declined_at: nullableTimestamp('When the quote was declined.'),
    decline_reason: Nullable(
      Type.String({
        description: 'The reason the client gave when declining on the client hub (optional there); null otherwise.',
        example: 'We went with a cheaper offer.',
      }),
    ),
    converted_at: nullableTimestamp('When a job or invoice was made from the quote.'),
    signature: Nullable({
      ...SignatureSchema,
      description:
        'Read-only: the latest signature of a hub approval (its invalidated_at set once revised); null before any.',
      example: {
        id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f70',
        object: 'signature',
        quote_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f71',
        signer_name: 'Jane Doe',
        signed_at: '2026-11-29T10:15:00.000Z',
        ip_address: '203.0.113.7',
        user_agent: 'Mozilla/5.0',
        image_attachment_id: null,
        document_sha256: '3f1c0b8e2d4a6f7091b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718',
        invalidated_at: null,
        invalidated_reason: null,
      },
    }),
    deposit: Nullable(DepositSchema),
    deposit_amount: depositFigure(
      'the deposit asked; a percent of total_amount rounds halves away from zero; 0 without a deposit.',
      3704,
    ),
    deposit_paid_amount: depositFigure("what the quote's deposit payments hold, less their refunds.", 3704),
    deposit_due_amount: depositFigure('max(0, deposit_amount − deposit_paid_amount).', 0),
  },
  { $id: 'Quote', description: 'A priced proposal for a client.' },
);

const writable = {
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  title: Type.Optional(title),
  line_items: Type.Optional(LineItemsInputSchema),
  ...pricingInputFields,
  currency: Type.Optional(CurrencySchema),
  notes: Type.Optional(notes),
  valid_until: Type.Optional(validUntil),
  deposit: Type.Optional(Nullable(DepositSchema)),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  tags: Type.Optional(TagsInputSchema),
};

export const CreateQuoteBody = Type.Object(
  {
    client_id: ReferenceSchema('The client the quote is for.'),
    property_id: PropertyReferenceInput,
    request_id: Type.Optional(ReferenceSchema('A service request of the same client; it becomes converted.')),
    ...writable,
  },
  { additionalProperties: false },
);

export const UpdateQuoteBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client the quote is for.')),
    property_id: PropertyReferenceInput,
    ...writable,
    status: Type.Optional(
      Type.Unsafe<QuoteStatus>({
        type: 'string',
        enum: [...QUOTE_STATUSES],
        description: `${describeTransitions(QUOTE_LIFECYCLE.moves)}. draft -> sent marks it sent without e-mail; converted is set automatically.`,
        example: 'approved',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListQuotesQuery = Type.Object(
  {
    ...tagFilterProperties,
    ...listQueryProperties(['created_at', 'updated_at', 'number'] as const),
    external_id: externalIdFilter,
    client_id: idFilter('Only quotes of this client.'),
    status: statusFilter(QUOTE_STATUSES),
    request_id: idFilter('Only quotes made from this service request.'),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Quote = Static<typeof QuoteSchema>;
export type Signature = Static<typeof SignatureSchema>;
export type Deposit = Static<typeof DepositSchema>;
export type CreateQuoteInput = Static<typeof CreateQuoteBody>;
export type UpdateQuoteInput = Static<typeof UpdateQuoteBody>;
export type ListQuotesInput = Static<typeof ListQuotesQuery>;
