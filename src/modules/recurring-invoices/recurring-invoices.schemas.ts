// Recurring invoice shapes (docs/api-contract.md §23, §32): a template that makes an invoice on each date of its
// rule, in the account's zone, at `send_time`. The rule's shapes are the visit schedules' (§18) without `time` and
// `timezone`: the time is `send_time`, the zone the account's.
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
  LineItemSchema,
  LineItemsInputSchema,
  pricingInputFields,
  ReferenceSchema,
} from '../documents/index.js';
import { RecurrenceInputSchema, RecurrenceSchema } from '../visit-schedules/index.js';

export const RECURRING_STATUSES = ['active', 'paused', 'ended'] as const;
export type RecurringStatus = (typeof RECURRING_STATUSES)[number];
export const OCCURRENCE_STATUSES = ['upcoming', 'due', 'made', 'skipped', 'paused', 'missed'] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

const date = (description: string, example = '2027-01-31') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, example });

const sendTime = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description:
    'The local time HH:MM, in the account’s zone, at which each occurrence is made (and sent, with auto_send); default 09:00.',
  example: '09:00',
});
const catchUpDays = Type.Integer({
  minimum: 0,
  maximum: 90,
  description:
    'An occurrence not made at its time (the server was down, the template paused) is still made while its date is at most this many days before today (0–90, default 30); older ones are missed.',
  example: 30,
});
const paymentTermsDays = Type.Integer({
  minimum: 0,
  maximum: 365,
  description: 'due_date = the day the invoice is made + this (0–365; default the account’s payment_terms_days).',
  example: 30,
});
const notes = Nullable(Type.String({ maxLength: 5000, description: 'Notes shown to the client on each invoice.' }));

const invoiceFields = {
  line_items: Type.Array(LineItemSchema),
  currency: CurrencySchema,
  notes,
  discount: pricingInputFields.discount,
  prices_include_tax: Type.Boolean({ description: 'Unit amounts include tax.' }),
  rounding: Type.Unsafe<'per_line' | 'per_document'>({ type: 'string', enum: ['per_line', 'per_document'] }),
  payment_terms_days: paymentTermsDays,
  reminders_enabled: Type.Boolean({ description: 'Whether the invoices it makes get payment reminders.' }),
  metadata: MetadataSchema,
};

/** The invoice a template makes, as answered: its lines as written (priced when each invoice is made). */
const InvoiceTemplateSchema = Type.Object(
  {
    line_items: Type.Array(
      Type.Object({}, { additionalProperties: true, description: 'A line as written (see Invoice.line_items).' }),
      { description: 'The lines each invoice gets, as written: priced with the rates of the day it is made.' },
    ),
    currency: invoiceFields.currency,
    notes,
    discount: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'The discount each invoice gets, or null.',
    }),
    prices_include_tax: Nullable(invoiceFields.prices_include_tax),
    rounding: Type.Unsafe<'per_line' | 'per_document' | null>({
      type: ['string', 'null'],
      enum: ['per_line', 'per_document', null],
      description: 'per_line or per_document; null: the account’s when each invoice is made.',
    }),
    payment_terms_days: paymentTermsDays,
    reminders_enabled: invoiceFields.reminders_enabled,
    metadata: MetadataSchema,
  },
  { description: 'The invoice each occurrence makes: what POST /v1/invoices with these fields would make then.' },
);

const InvoiceTemplateInput = Type.Object(
  {
    line_items: Type.Optional({ ...LineItemsInputSchema, minItems: 1 }),
    currency: Type.Optional(CurrencySchema),
    notes: Type.Optional(notes),
    discount: pricingInputFields.discount,
    prices_include_tax: pricingInputFields.prices_include_tax,
    rounding: pricingInputFields.rounding,
    payment_terms_days: Type.Optional(paymentTermsDays),
    reminders_enabled: Type.Optional(invoiceFields.reminders_enabled),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false, description: 'The invoice each occurrence makes (line_items: 1–200, required).' },
);

const { time: _time, timezone: _timezone, ...recurrenceInputProperties } = RecurrenceInputSchema.properties;
const RecurringRecurrenceInput = Type.Object(recurrenceInputProperties, {
  additionalProperties: false,
  description:
    'The rule (§18’s rrule or structured form, with start_date), without time or timezone: dates in the account’s zone, made at send_time.',
});
const { time: _answerTime, timezone: _answerZone, ...recurrenceProperties } = RecurrenceSchema.properties;
const RecurringRecurrenceSchema = Type.Object(recurrenceProperties, {
  description: 'The rule in both forms (exdates are skipped dates), and its summary.',
});

const LastErrorSchema = Nullable(
  Type.Object(
    {
      occurrence_date: date('The occurrence that could not be made, or whose invoice could not be sent.'),
      message: Type.String({ description: 'Why.' }),
    },
    { description: 'The last occurrence that could not be made or sent, or null.' },
  ),
);

export const RecurringInvoiceSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('recurring_invoice', { description: 'Always "recurring_invoice".' }),
    external_id: Nullable(ExternalIdSchema),
    client_id: IdSchema,
    property_id: Nullable(IdSchema),
    job_id: Nullable(IdSchema),
    name: Nullable(Type.String({ maxLength: 200, description: 'An internal name; never printed.' })),
    invoice: InvoiceTemplateSchema,
    recurrence: RecurringRecurrenceSchema,
    send_time: sendTime,
    auto_send: Type.Boolean({ description: 'Each invoice is e-mailed to the client when made (§7).' }),
    catch_up_days: catchUpDays,
    status: Type.Unsafe<RecurringStatus>({ type: 'string', enum: [...RECURRING_STATUSES] }),
    paused_from: Nullable(date('First local date of the pause (inclusive).')),
    paused_until: Nullable(date('Last local date of the pause (inclusive); null: until resumed.')),
    next_occurrence_date: Nullable(date('The next date an invoice will be made for.')),
    next_run_at: Nullable({ ...TimestampSchema, description: 'When the next invoice will be made.' }),
    occurrences_made: Type.Integer({ minimum: 0, description: 'How many invoices it has made.' }),
    last_invoice_id: Nullable({ ...IdSchema, description: 'The last invoice it made.' }),
    last_error: LastErrorSchema,
    ended_at: Nullable(TimestampSchema),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'RecurringInvoice', description: 'A template that makes an invoice on each date of its rule.' },
);

const writable = {
  property_id: Type.Optional(Nullable(ReferenceSchema('A property of the client, printed as the service address.'))),
  job_id: Type.Optional(Nullable(ReferenceSchema('A job of the client the invoices bill.'))),
  name: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'An internal name; never printed.' }))),
  send_time: Type.Optional(sendTime),
  auto_send: Type.Optional(
    Type.Boolean({ description: 'E-mail each invoice when made (needs invoices:send); default false.' }),
  ),
  catch_up_days: Type.Optional(catchUpDays),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateRecurringInvoiceBody = Type.Object(
  {
    client_id: ReferenceSchema('The client billed.'),
    invoice: InvoiceTemplateInput,
    recurrence: RecurringRecurrenceInput,
    ...writable,
  },
  { additionalProperties: false },
);

export const UpdateRecurringInvoiceBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client billed.')),
    invoice: Type.Optional(InvoiceTemplateInput),
    recurrence: Type.Optional(RecurringRecurrenceInput),
    ...writable,
  },
  { additionalProperties: false },
);

export const ListRecurringInvoicesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    external_id: externalIdFilter,
    client_id: Type.Optional({ ...IdSchema, description: 'Only the recurring invoices of this client.' }),
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Comma-separated statuses: active, paused, ended.',
        'x-comma-list': { type: 'string', enum: RECURRING_STATUSES },
      }),
    ),
  },
  { additionalProperties: false },
);

export const OccurrenceDateBody = Type.Object(
  { occurrence_date: date('A date the rule gives.') },
  { additionalProperties: false },
);
export const PauseBody = Type.Object(
  {
    from: Type.Optional(date('First local date of the pause (inclusive); default today.')),
    until: Type.Optional(Nullable(date('Last local date of the pause (inclusive); absent or null: until resumed.'))),
  },
  { additionalProperties: false },
);
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const OccurrencesQuery = Type.Object(
  {
    from: date('First date of the window (inclusive).'),
    to: date('Last date of the window (inclusive); at most 366 days after from.'),
  },
  { additionalProperties: false },
);
export const OccurrenceSchema = Type.Object(
  {
    occurrence_date: date('The date of the rule.'),
    run_at: TimestampSchema,
    status: Type.Unsafe<OccurrenceStatus>({
      type: 'string',
      enum: [...OCCURRENCE_STATUSES],
      description:
        'upcoming (ahead), due (to be made now), made, skipped, paused, or missed (passed and older than catch_up_days, or before a resume).',
    }),
    invoice_id: Nullable({ ...IdSchema, description: 'The invoice made for it.' }),
  },
  { description: 'One occurrence of a recurring invoice.' },
);

export type RecurringInvoice = Static<typeof RecurringInvoiceSchema>;
export type InvoiceTemplate = Static<typeof InvoiceTemplateSchema>;
export type InvoiceTemplateInputType = Static<typeof InvoiceTemplateInput>;
export type CreateRecurringInvoiceInput = Static<typeof CreateRecurringInvoiceBody>;
export type UpdateRecurringInvoiceInput = Static<typeof UpdateRecurringInvoiceBody>;
export type ListRecurringInvoicesInput = Static<typeof ListRecurringInvoicesQuery>;
export type Occurrence = Static<typeof OccurrenceSchema>;
