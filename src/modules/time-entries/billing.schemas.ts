// The shapes of billing time onto an invoice and of a job's costing (docs/api-contract.md §29).
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, Nullable } from '../../kernel/fields.js';

/** Entries billed per call at most (§32), and the lines an invoice holds at most (§6). */
export const MAX_BILLED_PER_CALL = 200;

export const BILLING_GROUPS = ['entry', 'day', 'team_member'] as const;
export type BillingGroup = (typeof BILLING_GROUPS)[number];

export const BillTimeBody = Type.Object(
  {
    time_entry_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid', description: 'A time entry id.' }), {
        minItems: 1,
        maxItems: MAX_BILLED_PER_CALL,
        uniqueItems: true,
        description:
          'The entries to bill (1–200): each billable, stopped, unbilled, on a job of the invoice’s client, in its currency, approved unless include_unapproved. Not together with job_id.',
        example: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f10'],
      }),
    ),
    job_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'A job of the invoice’s client: bills its qualifying entries (the 200 oldest a call). Not together with time_entry_ids.',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11',
      }),
    ),
    group_by: Type.Optional(
      Type.Unsafe<BillingGroup>({
        type: 'string',
        enum: [...BILLING_GROUPS],
        description:
          'A line per entry (default), per member, rate and local date (day), or per member and rate (team_member).',
        example: 'day',
      }),
    ),
    product_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'A product whose taxes the lines take (its price and cost are not used: the rate is the entries’).',
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03',
      }),
    ),
    include_unapproved: Type.Optional(
      Type.Boolean({ description: 'Bill entries not yet approved too. Default false.', example: false }),
    ),
  },
  { additionalProperties: false, 'x-required-one-of': ['time_entry_ids', 'job_id'] },
);
export type BillTimeInput = Static<typeof BillTimeBody>;

const money = (description: string, example: number) => Type.Integer({ description, example });

export const JobCostingSchema = Type.Object(
  {
    object: Type.Literal('job_costing', { description: 'Always "job_costing".' }),
    job_id: IdSchema,
    currency: Type.String({ description: 'The job’s currency: every amount below is in it.', example: 'USD' }),
    price_basis: Type.Unsafe<'job' | 'invoices'>({
      type: 'string',
      enum: ['job', 'invoices'],
      description:
        'job: the price and materials are the job’s own lines; invoices: once the job has a sent or paid invoice, those invoices’ (no drafts, no voids).',
      example: 'invoices',
    }),
    price_amount: money('The subtotal (before tax) of the job’s lines, or of its sent and paid invoices.', 50000),
    labour: Type.Object(
      {
        entries: Type.Integer({ description: 'The job’s stopped entries.', example: 3 }),
        seconds: Type.Integer({ description: 'Their duration_seconds, summed.', example: 24300 }),
        cost_amount: money('Their cost_amount, summed.', 30375),
        billable_amount: money('Their billable_amount, summed.', 60750),
        unbilled_billable_amount: money('The billable_amount of those not billed on an invoice.', 0),
        unapproved_entries: Type.Integer({ description: 'Stopped entries not approved (counted above).', example: 0 }),
        running_entries: Type.Integer({ description: 'Running entries (not counted above).', example: 0 }),
      },
      { description: 'The job’s time: its stopped entries.' },
    ),
    materials: Type.Object(
      {
        lines: Type.Integer({
          description: 'Lines with a product (lines of billed time are labour, not counted).',
          example: 2,
        }),
        cost_amount: money('Σ round(quantity × unit_cost_amount) over those lines.', 12000),
        lines_without_cost: Type.Integer({
          description: 'Of those lines, the ones without a unit_cost_amount.',
          example: 0,
        }),
      },
      { description: 'The lines’ internal costs.' },
    ),
    cost_amount: money('Labour plus materials.', 42375),
    profit_amount: money('price_amount − cost_amount.', 7625),
    margin_percent: Nullable(
      Type.Number({
        description: 'profit × 100 ÷ price, 2 decimals (halves away from zero); null at price 0.',
        example: 15.25,
      }),
    ),
    excluded_invoice_ids: Type.Array(IdSchema, {
      description: 'Sent or paid invoices of the job in another currency: listed, not converted, not counted.',
    }),
  },
  {
    $id: 'JobCosting',
    description: 'What a job cost and what it brought in, from its entries and one set of documents.',
  },
);
export type JobCosting = Static<typeof JobCostingSchema>;
