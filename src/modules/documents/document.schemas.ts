// Schema pieces shared by service requests, quotes, jobs and invoices.
import { Type, type Static } from '@sinclair/typebox';
import { CustomFieldValuesSchema, IdSchema, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';
import { DiscountSchema, TaxBreakdownSchema } from './line-items.js';

export const DateSchema = Type.String({
  format: 'date',
  description: 'Calendar date, YYYY-MM-DD.',
  example: '2026-12-01',
});

export const CurrencySchema = Type.String({
  pattern: '^[A-Z]{3}$',
  format: 'currency',
  description: "ISO 4217 currency code, upper case. Defaults to the account's currency.",
  example: 'USD',
});

export const ReferenceSchema = (description: string) =>
  Type.String({ format: 'uuid', description, example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' });

export const nullableDate = (description: string) => Nullable({ ...DateSchema, description });
export const nullableTimestamp = (description: string) => Nullable({ ...TimestampSchema, description });

/**
 * `property_id` in a body (docs/api-contract.md §16): one of the document's client's properties, not archived
 * unless the document already has it; null for none.
 */
export const PropertyReferenceInput = Type.Optional(
  Nullable(
    ReferenceSchema(
      'A property of the same client, printed as the service address; null for none. An archived property takes no new documents.',
    ),
  ),
);

/** Fields every document response has. */
export function documentFields<K extends string>(object: K, statuses: readonly string[]) {
  return {
    id: IdSchema,
    object: Type.Literal(object, { description: `Always "${object}".` }),
    client_id: ReferenceSchema('The client this belongs to.'),
    property_id: Nullable(
      ReferenceSchema('The property where the work is (one of the client’s): printed as the service address.'),
    ),
    status: Type.Unsafe<string>({
      type: 'string',
      enum: [...statuses],
      description: `Current status: ${statuses.join(', ')}. Changes only through the allowed transitions.`,
      example: statuses[0],
    }),
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  };
}

export const totalsFields = {
  currency: CurrencySchema,
  prices_include_tax: Type.Boolean({
    description: 'Whether unit amounts include tax (line amounts are then the nets). Default: the account’s.',
    example: false,
  }),
  rounding: Type.Unsafe<'per_line' | 'per_document'>({
    type: 'string',
    enum: ['per_line', 'per_document'],
    description:
      'per_line: each line’s tax rounded per rate; per_document: each rate’s total rounded once, shared over the lines. Default: the account’s.',
    example: 'per_line',
  }),
  discount: Nullable({
    ...DiscountSchema,
    description:
      'The document’s own discount before tax (percent per line; an amount shared over the lines above zero), or null.',
  }),
  discount_amount: Type.Integer({
    description: 'All discounts (the lines’ and the document’s), in minor units; 0 without any. Read-only.',
    example: 0,
  }),
  tax_breakdown: TaxBreakdownSchema,
  subtotal_amount: Type.Integer({
    description:
      'Sum of line amounts after discounts, before tax (the nets with prices including tax), in minor units. Read-only.',
    example: 18000,
  }),
  tax_amount: Type.Integer({
    description: 'Sum of the tax_breakdown (= the lines’ taxes), in minor units. Read-only.',
    example: 1598,
  }),
  total_amount: Type.Integer({
    description: 'subtotal_amount + tax_amount, in minor units. Read-only.',
    example: 19598,
  }),
};

/** What a create or update body may say about a document's figures (docs/api-contract.md §19). */
export const pricingInputFields = {
  prices_include_tax: Type.Optional(
    Type.Boolean({ description: 'Unit amounts include tax. Default: the account’s (or the source document’s).' }),
  ),
  rounding: Type.Optional(
    Type.Unsafe<'per_line' | 'per_document'>({
      type: 'string',
      enum: ['per_line', 'per_document'],
      description: 'per_line or per_document. Default: the account’s (or the source document’s).',
    }),
  ),
  discount: Type.Optional(
    Nullable({
      ...DiscountSchema,
      description:
        'A discount on the whole document before tax: percent per line; an amount shared over the lines above zero in proportion to their amounts (largest remainder, ties to the lower index). null for none.',
    }),
  ),
};

export const DELIVERY_STATUSES = ['queued', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A sent document's read-only `delivery_status`: its last send's (docs/api-contract.md §10). */
export const deliveryStatusField = Nullable(
  Type.Unsafe<DeliveryStatus>({
    type: 'string',
    // null too: JSON Schema's enum is checked apart from type, so a nullable enum must list null itself.
    enum: [...DELIVERY_STATUSES, null],
    description:
      'The last send’s delivery: queued, sending, delivered (accepted by the SMTP server) or failed after every attempt; null before any send. Read-only; GET …/deliveries lists every send.',
    example: 'delivered',
  }),
);

/** The body of an action that takes none: absent, or an empty object. */
export const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], {
  description: 'No body is needed.',
});

/** A sent document's read-only `hosted_url` (docs/api-contract.md §12). */
export const hostedUrlField = Nullable(
  Type.String({
    format: 'uri',
    description:
      'The client hub page where the client sees the document (and answers a quote): PUBLIC_BASE_URL/hub/<secret token>. Set when first sent, null while a draft; a rotation replaces it; a void invoice has none. Read-only.',
    example: 'https://billing.example.com/hub/6Vq0Ck3mJ9yCw1pQ3tq3Ssd8hY2i1FqkP4mZ8xY0aBc',
  }),
);

/** The body of POST /v1/invoices/:id/send and /v1/quotes/:id/send (optional). */
export const SendBody = Type.Union(
  [
    Type.Object(
      {
        message: Type.Optional(
          Type.String({
            maxLength: 2000,
            description: 'A personal note put at the top of the e-mail.',
            example: 'Thanks for choosing us! Payment details are on the invoice.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Optional. The e-mail goes only to the client’s stored address.' },
);

export type SendInput = Static<typeof SendBody> | undefined;
