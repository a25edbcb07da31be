// Invoice shapes: a bill for work, numbered when first sent, then paid or voided.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { INVOICE_LIFECYCLE, INVOICE_STATUSES, type InvoiceStatus } from './invoices.lifecycle.js';
import { describeTransitions, PropertyReferenceInput } from '../documents/index.js';
import {
  CustomFieldValuesInputSchema,
  externalIdFilter,
  ExternalIdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';
import {
  CurrencySchema,
  DateSchema,
  documentFields,
  nullableDate,
  nullableTimestamp,
  ReferenceSchema,
  totalsFields,
  deliveryStatusField,
  hostedUrlField,
} from '../documents/index.js';
import {
  InvoiceLineItemsInputSchema,
  LineItemSchema,
  LineItemsInputSchema,
  pricingInputFields,
} from '../documents/index.js';
import { idFilter, statusFilter } from '../documents/index.js';
import { InvoiceApplicationSchema, InvoicePaymentSchema } from './payments.schemas.js';

const notes = Nullable(
  Type.String({
    maxLength: 5000,
    description: 'Notes shown to the client on the invoice.',
    example: 'Thank you for your business.',
  }),
);
const issueDate = nullableDate('Date of issue; set to the send date on first send when empty.');
const dueDate = nullableDate(
  'Payment due date; defaults to issue_date + the account’s payment_terms_days (30 unless changed).',
);

const buyerReference = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'BT-10, the buyer’s reference for the invoice; default the client’s buyer_reference.',
    example: 'PO-LEITWEG-991',
  }),
);
const purchaseOrder = Nullable(
  Type.String({ minLength: 1, maxLength: 200, description: 'BT-13, the buyer’s purchase order.', example: 'PO-4711' }),
);
const deliveryDate = nullableDate('BT-72, the day the goods or services were delivered.');
const ServicePeriodSchema = Type.Object(
  {
    start_date: { ...DateSchema, description: 'The first day of the period.' },
    end_date: { ...DateSchema, description: 'The last day of the period, not before start_date.' },
  },
  {
    additionalProperties: false,
    description: 'BG-14, the period the invoice bills.',
    example: { start_date: '2026-11-01', end_date: '2026-11-30' },
  },
);
export const InvoiceEinvoiceSchema = Type.Object(
  {
    sha256: Type.Object({
      ubl: Type.String({ description: 'SHA-256 of the UBL file, hex.' }),
      cii: Type.String({ description: 'SHA-256 of the CII file, hex.' }),
      facturx: Nullable(
        Type.String({
          description:
            'SHA-256 of the Factur-X PDF frozen with the XML, hex; null for an invoice frozen before its PDF was kept.',
        }),
      ),
    }),
    frozen_at: { ...TimestampSchema, description: 'When the files were made and frozen (the first send).' },
    artefacts: Type.Array(
      Type.Object({
        name: Type.String({ example: 'EN16931-UBL-validation' }),
        version: Type.String({ example: '1.3.15' }),
      }),
      { description: 'What the files were validated with.' },
    ),
  },
  {
    description: 'The e-invoice frozen when the invoice was first sent (docs/guide/einvoices.md).',
    example: {
      sha256: {
        ubl: '9b2f6c0d8e4a1f3b5c7d9e0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c',
        cii: '1a3c5e7f9b2d4f6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a',
        facturx: '5c1e9a7b3d2f4e6a8b0c2d4e6f8a0b2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a',
      },
      frozen_at: '2026-11-29T10:15:00.000Z',
      artefacts: [{ name: 'EN16931-UBL-validation', version: '1.3.15' }],
    },
  },
);

const remindersEnabled = Type.Boolean({
  description:
    'Whether payment reminders go out for it while it is sent and unpaid (the account’s schedule); default true.',
  example: true,
});

export const InvoiceReminderSchema = Type.Object({
  step: Type.Integer({ minimum: 1, description: 'The step of the account’s schedule, from 1.', example: 1 }),
  sent_at: { ...TimestampSchema, description: 'When the step was sent (queued for e-mail).' },
  delivery_id: ReferenceSchema('The reminder’s e-mail delivery.'),
  late_fee_amount: Nullable(
    Type.Integer({ description: 'The late fee the step charged, in minor units; null: none.', example: 185 }),
  ),
  late_fee_invoice_id: Nullable(
    ReferenceSchema(
      'The invoice of its own that bills the step’s late fee (e-invoicing on, docs/api-contract.md §32); null: the fee, if any, is a line of this invoice.',
    ),
  ),
});

export const InvoiceSchema = Type.Object(
  {
    ...documentFields('invoice', INVOICE_STATUSES),
    tags: TagsSchema,
    external_id: Nullable(ExternalIdSchema),
    number: Nullable(
      Type.String({
        description: 'INV-000001 upward, assigned when first sent; null before. Never reused.',
        example: 'INV-000123',
      }),
    ),
    job_id: Nullable(ReferenceSchema('The job being billed.')),
    quote_id: Nullable(ReferenceSchema('The quote being billed.')),
    line_items: Type.Array(LineItemSchema),
    ...totalsFields,
    amount_paid: Type.Integer({
      description:
        'The money applied to it from payments, in minor units (kept as when voided on a void invoice). Read-only.',
      example: 0,
    }),
    amount_credited: Type.Integer({
      description:
        'The money applied to it from credit notes, in minor units (kept as when voided on a void invoice). Read-only.',
      example: 0,
    }),
    amount_due: Type.Integer({
      description: 'total_amount − amount_paid − amount_credited, in minor units; 0 once paid or void. Read-only.',
      example: 19598,
    }),
    applications: Type.Array(InvoiceApplicationSchema, {
      description:
        'The 20 most recent live applications of money to the invoice (payments and credit notes), oldest first among them. Read-only.',
      example: [
        {
          id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f07',
          source: { type: 'payment', id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' },
          amount: 5000,
          applied_on: '2026-11-21',
        },
      ],
    }),
    applications_count: Type.Integer({
      minimum: 0,
      description: 'How many live applications the invoice has, whether or not applications lists them all. Read-only.',
      example: 1,
    }),
    payments: Type.Array(InvoicePaymentSchema, {
      description:
        'The 20 most recent payments recorded against the invoice, oldest first among them (payments_count says how many there are; GET /v1/payments?invoice_id= lists them all). Read-only: record them with POST /v1/payments.',
      example: [
        {
          id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
          amount: 5000,
          amount_refunded: 0,
          method: 'card',
          paid_at: '2026-11-21T10:04:05.123Z',
        },
      ],
    }),
    payments_count: Type.Integer({
      minimum: 0,
      description: 'How many payments the invoice has, whether or not payments lists them all. Read-only.',
      example: 1,
    }),
    notes,
    issue_date: issueDate,
    due_date: dueDate,
    is_overdue: Type.Boolean({
      description: 'True when sent and due_date is before today (UTC). Read-only.',
      example: false,
    }),
    sent_at: nullableTimestamp('When the invoice was last sent or marked sent.'),
    delivery_status: deliveryStatusField,
    hosted_url: hostedUrlField,
    paid_at: nullableTimestamp('When the invoice became paid (its amount_due reached 0).'),
    voided_at: nullableTimestamp('When the invoice was voided.'),
    recurring_invoice_id: Nullable(
      ReferenceSchema('The recurring invoice that made it; null for an invoice made otherwise. Read-only.'),
    ),
    occurrence_date: nullableDate(
      'The date of the recurring invoice’s rule it stands for (its issue_date is the day it was made). Read-only.',
    ),
    late_fee_for_invoice_id: Nullable(
      ReferenceSchema(
        'The invoice whose payment reminder charged the late fee this invoice bills: with e-invoicing on, a reminder step’s fee is an invoice of its own, never a line added to a sent invoice (docs/api-contract.md §32). Null for every other invoice. Read-only.',
      ),
    ),
    buyer_reference: buyerReference,
    purchase_order: purchaseOrder,
    delivery_date: deliveryDate,
    service_period: Nullable(ServicePeriodSchema),
    einvoice: Nullable(InvoiceEinvoiceSchema),
    reminders_enabled: remindersEnabled,
    reminders: Type.Array(InvoiceReminderSchema, {
      description: 'The payment reminder steps sent for it, in step order (docs/api-contract.md §23). Read-only.',
      example: [
        {
          step: 1,
          sent_at: '2026-12-20T16:00:00.000Z',
          delivery_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f07',
          late_fee_amount: 185,
          late_fee_invoice_id: null,
        },
      ],
    }),
    next_reminder_at: nullableTimestamp(
      'When the next payment reminder would go, as the account’s schedule stands; null: none will. Read-only.',
    ),
  },
  { $id: 'Invoice', description: 'A bill sent to a client.' },
);

const writable = {
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  line_items: Type.Optional(LineItemsInputSchema),
  ...pricingInputFields,
  currency: Type.Optional(CurrencySchema),
  notes: Type.Optional(notes),
  issue_date: Type.Optional(issueDate),
  due_date: Type.Optional(dueDate),
  reminders_enabled: Type.Optional(remindersEnabled),
  buyer_reference: Type.Optional(buyerReference),
  purchase_order: Type.Optional(purchaseOrder),
  delivery_date: Type.Optional(deliveryDate),
  service_period: Type.Optional(Nullable(ServicePeriodSchema)),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  tags: Type.Optional(TagsInputSchema),
};

export const CreateInvoiceBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client; required unless job_id or quote_id is given.')),
    property_id: PropertyReferenceInput,
    job_id: Type.Optional(ReferenceSchema('A job of the same client; its lines are copied when none are given.')),
    quote_id: Type.Optional(
      ReferenceSchema(
        'An approved quote of the same client; it becomes converted and its lines are copied when none are given.',
      ),
    ),
    ...writable,
  },
  { additionalProperties: false, 'x-required-one-of': ['client_id', 'job_id', 'quote_id'] },
);

export const UpdateInvoiceBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client.')),
    property_id: PropertyReferenceInput,
    ...writable,
    line_items: Type.Optional(InvoiceLineItemsInputSchema),
    status: Type.Optional(
      Type.Unsafe<InvoiceStatus>({
        type: 'string',
        enum: [...INVOICE_STATUSES],
        description: `${describeTransitions(INVOICE_LIFECYCLE.moves)}. draft -> sent marks it sent without e-mail; paid and void are final.`,
        example: 'paid',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListInvoicesQuery = Type.Object(
  {
    ...tagFilterProperties,
    ...listQueryProperties(['created_at', 'updated_at', 'number', 'due_date'] as const),
    external_id: externalIdFilter,
    client_id: idFilter('Only invoices of this client.'),
    status: statusFilter(INVOICE_STATUSES),
    overdue: Type.Optional(
      Type.Boolean({
        description: 'true: only overdue invoices (sent, due before today); false: none of them.',
        example: true,
      }),
    ),
    due_before: Type.Optional({ ...DateSchema, description: 'Only invoices due before this date.' }),
    due_after: Type.Optional({ ...DateSchema, description: 'Only invoices due on or after this date.' }),
    quote_id: idFilter('Only invoices made from this quote.'),
    job_id: idFilter('Only invoices for this job.'),
    recurring_invoice_id: idFilter('Only invoices made by this recurring invoice.'),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Invoice = Static<typeof InvoiceSchema>;
export type InvoiceEinvoice = Static<typeof InvoiceEinvoiceSchema>;
export type ServicePeriod = Static<typeof ServicePeriodSchema>;
export type CreateInvoiceInput = Static<typeof CreateInvoiceBody>;
export type UpdateInvoiceInput = Static<typeof UpdateInvoiceBody>;
export type ListInvoicesInput = Static<typeof ListInvoicesQuery>;
