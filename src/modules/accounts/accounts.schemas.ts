// The business profile (docs/api-contract.md §10): the single source of its validation, serialization and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import {
  AddressResponseSchema,
  AddressSchema,
  ElectronicAddressSchema,
  PaymentAccountResponseSchema,
  PaymentAccountSchema,
  RegistrationSchemeSchema,
  registrationIdSchema,
  VatIdSchema,
  WorkingHoursSchema,
} from '../shared/index.js';
import { BookingSettingsInput, BookingSettingsSchema } from './booking.js';
import { ReminderSettingsInput, ReminderSettingsSchema } from './reminders.js';
import { TaxRateIdsSchema } from '../catalog/index.js';
import { IdSchema, Nullable, TimeZoneInputSchema, TimeZoneSchema, TimestampSchema } from '../../kernel/fields.js';
import { DEFAULT_LOCALE, PAPER_SIZES, type PaperSize } from './locale.js';

export const DEFAULT_PAYMENT_TERMS_DAYS = 30;

/** How a hub approval is signed (docs/api-contract.md §30): the name typed, or the name and a drawing. */
export const QUOTE_SIGNATURE_MODES = ['typed', 'drawn'] as const;
export type QuoteSignatureMode = (typeof QUOTE_SIGNATURE_MODES)[number];

const text = (maxLength: number, description: string, example: string) =>
  Type.String({ maxLength, description, example });

/** The seller's e-invoicing identity (docs/api-contract.md §31). */
const einvoicingFields = {
  vat_id: Nullable({ ...VatIdSchema, description: `BT-31, the seller’s VAT identifier. ${VatIdSchema.description}` }),
  registration_id: Nullable(
    registrationIdSchema('BT-30, the seller’s legal registration (trade register, GLN, SIRENE, …).'),
  ),
  registration_scheme: Nullable(RegistrationSchemeSchema),
  electronic_address: Nullable({ ...ElectronicAddressSchema, description: 'BT-34, the seller’s electronic address.' }),
  payment_account: Nullable(PaymentAccountSchema),
  einvoicing_enabled: Type.Boolean({
    description:
      'true: the first send (or mark-sent) of an invoice that can be an e-invoice freezes its e-invoice files (docs/guide/einvoices.md). Default false.',
    example: false,
  }),
};

const writableFields = {
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    description: 'The business’s name, as its documents and e-mails show it.',
    example: 'Cooper Plumbing',
  }),
  legal_name: Nullable(
    text(200, 'The registered name, printed under the name when it differs.', 'Cooper Plumbing LLC'),
  ),
  email: Nullable(
    Type.String({
      format: 'email',
      maxLength: 254,
      description: 'The business’s e-mail address, printed on documents.',
      example: 'office@cooperplumbing.example',
    }),
  ),
  phone: Nullable(text(50, 'Telephone number, free text.', '+1 555 0100')),
  website: Nullable(
    Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2000,
      description: 'An http or https URL.',
      example: 'https://cooperplumbing.example',
    }),
  ),
  address: Nullable(AddressSchema),
  tax_id: Nullable(
    text(
      50,
      'VAT number, EIN, ABN or the like; printed on every document. BT-32 (the seller’s tax registration) on e-invoices.',
      'US-12-3456789',
    ),
  ),
  ...einvoicingFields,
  currency: Type.String({
    pattern: '^[A-Z]{3}$',
    format: 'currency',
    description: 'ISO 4217 code: the default currency of new documents.',
    example: 'USD',
  }),
  payment_terms_days: Type.Integer({
    minimum: 0,
    maximum: 365,
    description: `Days from issue to due date: an invoice without a due date gets issue date + this (default ${DEFAULT_PAYMENT_TERMS_DAYS}).`,
    example: 30,
  }),
  payment_instructions: Nullable(
    text(
      2000,
      'How to pay, printed on invoices (bank details, payment link, …).',
      'Bank transfer to IBAN DE89 3704 0044 0532 0130 00, with the invoice number as reference.',
    ),
  ),
  invoice_footer: Nullable(
    text(1000, 'The footer line of every invoice page.', 'Cooper Plumbing LLC · Registered in Illinois'),
  ),
  quote_footer: Nullable(
    text(1000, 'The footer line of every quote page.', 'Quotes are valid for 30 days unless stated.'),
  ),
  default_tax_rate_ids: TaxRateIdsSchema(
    'The taxes of a document line that names none of its own and whose product and property name none (docs/api-contract.md §19); at most 5. Default [].',
  ),
  prices_include_tax: Type.Boolean({
    description: 'The default of new quotes, jobs and invoices: whether unit amounts include tax. Default false.',
    example: false,
  }),
  rounding: Type.Unsafe<'per_line' | 'per_document'>({
    type: 'string',
    enum: ['per_line', 'per_document'],
    description:
      'The default of new documents: per_line rounds each line’s tax per rate; per_document rounds each rate’s total once and shares it over the lines. Default per_line.',
    example: 'per_line',
  }),
  locale: Type.String({
    minLength: 2,
    maxLength: 35,
    description: `A BCP 47 language tag (en-US, en-GB, de-DE, fr-CA) the server can format in: how documents, e-mails and the hub print dates and amounts. Answered in canonical form. Default ${DEFAULT_LOCALE}.`,
    example: 'en-US',
  }),
  // The enum names null too: a JSON Schema enum is checked on its own, whatever `type` allows.
  paper_size: Nullable(
    Type.Unsafe<PaperSize>({
      type: 'string',
      enum: [...PAPER_SIZES, null],
      description:
        'The PDFs’ paper: letter (8.5 × 11 in) or a4 (210 × 297 mm). null: follow the country (Letter in the US, Canada, Mexico, the Philippines, Chile, Colombia, Venezuela, Guatemala, Costa Rica, Panama, Nicaragua, El Salvador, Belize and Puerto Rico; A4 elsewhere).',
      example: 'letter',
    }),
  ),
  working_hours: {
    ...WorkingHoursSchema,
    description: `${WorkingHoursSchema.description} The hours of every member whose own are null, on that member’s clock. Default [].`,
  },
  booking: BookingSettingsInput,
  reminders: ReminderSettingsInput,
  time_billing_increment_minutes: Type.Unsafe<3 | 6 | 12 | 15 | 30 | 60>({
    type: 'integer',
    enum: [3, 6, 12, 15, 30, 60],
    description:
      'Time entries’ billed_hours round (halves up) to this many minutes (docs/api-contract.md §29). Default 3.',
    example: 15,
  }),
  quote_signature: Type.Unsafe<QuoteSignatureMode>({
    type: 'string',
    enum: [...QUOTE_SIGNATURE_MODES],
    description:
      'How a client signs a quote they approve on the hub (docs/api-contract.md §30): typed, their typed name; drawn, their typed name and a signature drawn on the page’s pad (a PNG, stored as an attachment of kind signature; drawing needs JavaScript). Default typed.',
    example: 'drawn',
  }),
  timezone: {
    ...TimeZoneInputSchema,
    description: `The business's time zone: its local day decides is_overdue, the overdue filter, an invoice's default issue_date and when a quote's valid_until has passed. ${TimeZoneInputSchema.description}`,
  },
};

export const AccountSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('account', { description: 'Always "account".' }),
    name: writableFields.name,
    legal_name: Nullable(Type.String({ example: 'Cooper Plumbing LLC' })),
    email: Nullable(Type.String({ example: 'office@cooperplumbing.example' })),
    phone: Nullable(Type.String({ example: '+1 555 0100' })),
    website: Nullable(Type.String({ example: 'https://cooperplumbing.example' })),
    address: Nullable(AddressResponseSchema),
    tax_id: Nullable(Type.String({ example: 'US-12-3456789' })),
    vat_id: Nullable(Type.String({ description: 'BT-31, the seller’s VAT identifier.', example: 'DE123456789' })),
    registration_id: Nullable(
      Type.String({ description: 'BT-30, the seller’s legal registration.', example: '4000001123452' }),
    ),
    registration_scheme: Nullable(
      Type.String({ description: 'The ISO 6523 ICD of registration_id.', example: '0088' }),
    ),
    electronic_address: Nullable({
      ...ElectronicAddressSchema,
      description: 'BT-34, the seller’s electronic address.',
    }),
    payment_account: Nullable({ ...PaymentAccountResponseSchema, description: 'BG-17, the account payments go to.' }),
    einvoicing_enabled: einvoicingFields.einvoicing_enabled,
    currency: writableFields.currency,
    payment_terms_days: writableFields.payment_terms_days,
    payment_instructions: Nullable(Type.String({ example: 'Bank transfer to IBAN DE89 3704 0044 0532 0130 00.' })),
    invoice_footer: Nullable(Type.String({ example: 'Cooper Plumbing LLC · Registered in Illinois' })),
    quote_footer: Nullable(Type.String({ example: 'Quotes are valid for 30 days unless stated.' })),
    timezone: {
      ...TimeZoneSchema,
      description:
        'The business’s time zone (IANA primary name; UTC until set): its local day decides is_overdue and date defaults.',
    },
    locale: {
      ...writableFields.locale,
      description: `How documents, e-mails and the hub print dates and amounts: a BCP 47 tag in canonical form (default ${DEFAULT_LOCALE}).`,
    },
    paper_size: Type.Unsafe<PaperSize>({
      type: 'string',
      enum: [...PAPER_SIZES],
      description:
        'The paper the PDFs print on now: the one set, else the country’s (the address’s country, else the locale’s region): letter in the Letter countries (US, CA, MX, PH, CL, CO, VE, GT, CR, PA, NI, SV, BZ, PR), a4 elsewhere. Never null.',
      example: 'letter',
    }),
    paper_size_source: Type.Unsafe<'account' | 'country'>({
      type: 'string',
      enum: ['account', 'country'],
      description: 'account: paper_size was set on the account; country: it follows the country (PUT paper_size null).',
      example: 'country',
    }),
    default_tax_rate_ids: Type.Array(IdSchema, { description: 'The last of a line’s tax sources (§19).' }),
    prices_include_tax: writableFields.prices_include_tax,
    rounding: writableFields.rounding,
    working_hours: {
      ...WorkingHoursSchema,
      description: 'The weekly hours of members whose own are null (docs/api-contract.md §28). Default [].',
    },
    booking: BookingSettingsSchema,
    reminders: ReminderSettingsSchema,
    time_billing_increment_minutes: writableFields.time_billing_increment_minutes,
    quote_signature: writableFields.quote_signature,
    time_locked_through: Nullable(
      Type.String({
        format: 'date',
        description:
          'Read-only: the last local date of the locked pay periods (POST /v1/time-entries/lock); null: none locked.',
        example: '2026-11-15',
      }),
    ),
    has_logo: Type.Boolean({ description: 'Whether a logo is uploaded (PUT /v1/account/logo).', example: true }),
    attachment_storage: Type.Object(
      {
        used_bytes: Type.Integer({
          description: 'Bytes of the account’s attachments, each at its own size.',
          example: 482133,
        }),
        quota_bytes: Type.Integer({
          description: 'The most they may take (5 GiB unless the operator set another: bms accounts set-limits).',
          example: 5368709120,
        }),
      },
      { description: 'Read-only: what the account’s attachments take of its quota (docs/api-contract.md §30).' },
    ),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Account', description: 'The business: how its invoices and quotes present it.' },
);

export const UpdateAccountBody = Type.Partial(Type.Object(writableFields), { additionalProperties: false });

export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export const MAX_LOGO_BYTES = 512 * 1024;

export const LogoBody = Type.Object(
  {
    content_type: Type.Unsafe<(typeof LOGO_TYPES)[number]>({
      type: 'string',
      enum: [...LOGO_TYPES],
      description: 'The image’s type; the data must really be one.',
      example: 'image/png',
    }),
    // 512 KB decoded is 699,052 base64 characters.
    data: Type.String({
      minLength: 1,
      maxLength: 4 * Math.ceil(MAX_LOGO_BYTES / 3),
      description: 'The image, base64-encoded; at most 512 KB decoded.',
      example: 'iVBORw0KGgoAAAANSUhEUgAA…',
    }),
  },
  { additionalProperties: false },
);

export type Account = Static<typeof AccountSchema>;
export type UpdateAccountInput = Static<typeof UpdateAccountBody>;
export type LogoInput = Static<typeof LogoBody>;
