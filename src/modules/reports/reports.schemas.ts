// Report shapes (docs/api-contract.md §24): the query of each report and its answer, `{object: "report", type,
// currency, timezone, ledger_sequence, computed_at, parameters, other_currencies, totals, rows}`.
import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { IdSchema, Nullable, TimestampSchema, TimeZoneSchema } from '../../kernel/fields.js';
import { CurrencySchema, DateSchema } from '../documents/index.js';

export const REPORT_PAGE_SIZE = 100;
/** Contract §32: a CSV holds at most this many rows. */
export const MAX_CSV_ROWS = 100_000;

const money = (description: string, example = 10000) => Type.Integer({ description, example });
const date = (description: string) => ({ ...DateSchema, description });

const pageProperties = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: REPORT_PAGE_SIZE,
      default: REPORT_PAGE_SIZE,
      description: 'Rows a JSON page holds, 1 to 100 (a CSV holds every row).',
      example: 100,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'The `next_cursor` of the previous page; it pins the page’s `ledger_sequence`.',
    }),
  ),
  ledger_sequence: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'Answer as the books stood at this sequence (default the latest): the same answer every time.',
      example: 42,
    }),
  ),
  currency: Type.Optional({ ...CurrencySchema, description: 'The one currency counted (default the account’s).' }),
};

const basis = Type.Optional(
  Type.Unsafe<'accrual' | 'cash'>({
    type: 'string',
    enum: ['accrual', 'cash'],
    default: 'accrual',
    description: 'accrual: documents when issued; cash: money when applied to invoices, less refunds.',
  }),
);

export const AgedReceivablesQuery = Type.Object(
  {
    ...pageProperties,
    as_of: Type.Optional(date('The day the receivables are aged at (default today in the account’s zone).')),
    buckets: Type.Optional(
      Type.String({
        maxLength: 60,
        default: '30,60,90',
        description: 'Up to 6 increasing bucket boundaries in days, 1–3,650, comma-separated.',
        example: '30,60,90',
      }),
    ),
    group_by: Type.Optional(
      Type.Unsafe<'client' | 'invoice'>({
        type: 'string',
        enum: ['client', 'invoice'],
        default: 'client',
        description: 'A row per client (default) or per invoice.',
      }),
    ),
    client_id: Type.Optional({ ...IdSchema, description: 'Only this client.' }),
  },
  { additionalProperties: false },
);

export const ClientStatementQuery = Type.Object(
  {
    ...pageProperties,
    client_id: { ...IdSchema, description: 'The client.' },
    from: date('The first day of the statement.'),
    to: date('The last day of the statement (inclusive).'),
  },
  { additionalProperties: false },
);

export const RevenueQuery = Type.Object(
  {
    ...pageProperties,
    from: date('The first day counted.'),
    to: date('The last day counted (inclusive).'),
    interval: Type.Optional(
      Type.Unsafe<'day' | 'week' | 'month' | 'quarter'>({
        type: 'string',
        enum: ['day', 'week', 'month', 'quarter'],
        default: 'month',
        description: 'The length of a period; weeks start on Monday (ISO 8601). The first and last are cut at from/to.',
      }),
    ),
    basis,
  },
  { additionalProperties: false },
);

export const TaxSummaryQuery = Type.Object(
  {
    ...pageProperties,
    from: date('The first day counted.'),
    to: date('The last day counted (inclusive).'),
    basis,
  },
  { additionalProperties: false },
);

export const JobProfitabilityQuery = Type.Object(
  {
    ...pageProperties,
    from: date('The first issue date counted.'),
    to: date('The last issue date counted (inclusive).'),
    client_id: Type.Optional({ ...IdSchema, description: 'Only invoices of this client.' }),
    job_id: Type.Optional({ ...IdSchema, description: 'Only this job.' }),
  },
  { additionalProperties: false },
);

export type AgedReceivablesInput = Static<typeof AgedReceivablesQuery>;
export type JobProfitabilityInput = Static<typeof JobProfitabilityQuery>;
export type ClientStatementInput = Static<typeof ClientStatementQuery>;
export type RevenueInput = Static<typeof RevenueQuery>;
export type TaxSummaryInput = Static<typeof TaxSummaryQuery>;

const BucketSchema = Type.Object({
  label: Type.String({ description: '"current", then "1-30", … and the last "91+".', example: '1-30' }),
  amount: money('What is open in the bucket, in minor units.'),
});

const agingFigures = {
  buckets: Type.Array(BucketSchema, { description: 'One per bucket, in order, zeros included.' }),
  open_amount: money('What its invoices had open at as_of: their document entries less their applications.'),
  credit_amount: money('Payment and credit-note money not applied to an invoice at as_of.', 0),
  balance_amount: money('open_amount − credit_amount: the sum of its entries dated on or before as_of.'),
};

const clientLabel = {
  client_id: IdSchema,
  client_name: Type.String({ description: 'The client’s name now.', example: 'Acme Plumbing' }),
};

const AgingRowSchema = Type.Object({
  ...clientLabel,
  invoice_id: Type.Optional({ ...IdSchema, description: 'With group_by=invoice: the invoice.' }),
  number: Type.Optional(
    Nullable(Type.String({ description: 'With group_by=invoice: its number.', example: 'INV-000042' })),
  ),
  due_date: Type.Optional(Nullable(date('With group_by=invoice: the due date it had at as_of.'))),
  days_past_due: Type.Optional(
    Type.Integer({ description: 'With group_by=invoice: as_of − due_date, in days.', example: 12 }),
  ),
  ...agingFigures,
});

const StatementLineSchema = Type.Object({
  effective_date: date('The day the entry counts on.'),
  sequence: Type.Integer({ minimum: 1, description: 'The entry’s ledger sequence.', example: 42 }),
  type: Type.String({ description: 'The ledger entry’s type.', example: 'invoice_issued' }),
  number: Nullable(Type.String({ description: 'The document’s number, if it has one.', example: 'INV-000042' })),
  description: Type.String({ description: 'What happened, in words.', example: 'Invoice INV-000042' }),
  amount: money('How the line changes what the client owes.'),
  balance_amount: money('The statement’s running balance after this line.'),
});

const PeriodSchema = Type.Object({
  period_start: date('The period’s first day (from, for the first).'),
  period_end: date('The period’s last day (to, for the last).'),
  net_amount: money('Net revenue.'),
  tax_amount: money('Tax.', 500),
  gross_amount: money('net_amount + tax_amount.', 10500),
});

const TaxRowSchema = Type.Object({
  tax_rate_id: Nullable({ ...IdSchema, description: 'The rate; null for a version-1 tax rate.' }),
  name: Nullable(Type.String({ description: 'The rate’s printed name.', example: 'GST' })),
  percentage: Nullable(Type.Number({ description: 'The rate, in percent.', example: 5 })),
  compound: Type.Boolean({ description: 'Whether the rate applies on top of the others.' }),
  registration_number: Nullable(
    Type.String({ description: 'The business’s number for this tax.', example: '123456789RT0001' }),
  ),
  taxable_amount: money('What the rate was applied to.'),
  tax_amount: money('The tax.', 500),
  invoices_tax_amount: money('The part from invoices.', 600),
  credit_notes_tax_amount: money('The part from credit notes (below 0).', -100),
});

const jobFigures = {
  revenue_amount: money('The nets of its invoices issued in the period and not void, less their credit notes’ nets.'),
  cost_amount: money('Their internal cost: Σ round(quantity × unit_cost_amount) of their product lines.', 4000),
  margin_amount: money('revenue_amount − cost_amount.', 6000),
  margin_basis_points: Nullable(
    Type.Integer({
      description: 'margin_amount × 10,000 ÷ revenue_amount, halves away from zero (6000 is 60%); null at revenue 0.',
      example: 6000,
    }),
  ),
  lines_without_cost: Type.Integer({
    minimum: 0,
    description: 'Their product lines with no unit cost (so counted at 0).',
    example: 1,
  }),
};

const JobRowSchema = Type.Object({
  job_id: IdSchema,
  number: Nullable(Type.String({ description: 'The job’s number.', example: 'JOB-000042' })),
  title: Nullable(Type.String({ description: 'The job’s title now.', example: 'Boiler replacement' })),
  client_id: Nullable({ ...IdSchema, description: 'The job’s client.' }),
  ...jobFigures,
});

const OtherCurrencySchema = Type.Object({
  currency: CurrencySchema,
  count: Type.Integer({ minimum: 1, description: 'Entries in that currency the report left out.', example: 3 }),
});

function reportSchema(id: string, type: string, parameters: TProperties, totals: TProperties, row: TObject) {
  return Type.Object(
    {
      object: Type.Literal('report', { description: 'Always "report".' }),
      type: Type.Literal(type, { description: `Always "${type}".` }),
      currency: CurrencySchema,
      timezone: { ...TimeZoneSchema, description: 'The account’s zone: the dates are local to it.' },
      ledger_sequence: Type.Integer({
        minimum: 0,
        description: 'Every ledger entry up to this sequence counts, none after: ask with ?ledger_sequence= to repeat.',
        example: 42,
      }),
      computed_at: TimestampSchema,
      parameters: Type.Object(parameters, { description: 'The parameters the answer used, defaults filled in.' }),
      other_currencies: Type.Array(OtherCurrencySchema, { description: 'Entries in other currencies, only counted.' }),
      totals: Type.Object(totals, { description: 'Over every row, on every page.' }),
      rows: Type.Array(row, { description: 'This page’s rows.' }),
    },
    { $id: id, description: `The ${type.replace('_', ' ')} report.` },
  );
}

const paramCurrency = { currency: CurrencySchema };
const paramBasis = { basis: Type.String({ enum: ['accrual', 'cash'], example: 'accrual' }) };

export const AgedReceivablesReportSchema = reportSchema(
  'AgedReceivablesReport',
  'aged_receivables',
  {
    ...paramCurrency,
    as_of: DateSchema,
    buckets: Type.Array(Type.Integer(), { example: [30, 60, 90] }),
    group_by: Type.String({ enum: ['client', 'invoice'], example: 'client' }),
    client_id: Nullable(IdSchema),
  },
  agingFigures,
  AgingRowSchema,
);

export const ClientStatementReportSchema = reportSchema(
  'ClientStatementReport',
  'client_statement',
  { ...paramCurrency, client_id: IdSchema, from: DateSchema, to: DateSchema },
  {
    opening_balance_amount: money('The sum of the client’s entries dated before from.'),
    closing_balance_amount: money('Opening + the lines: the balance at the end of to.'),
  },
  StatementLineSchema,
);

export const RevenueReportSchema = reportSchema(
  'RevenueReport',
  'revenue',
  {
    ...paramCurrency,
    from: DateSchema,
    to: DateSchema,
    interval: Type.String({ enum: ['day', 'week', 'month', 'quarter'], example: 'month' }),
    ...paramBasis,
  },
  {
    net_amount: money('Net revenue over the whole range.'),
    tax_amount: money('Tax over the whole range.', 500),
    gross_amount: money('net_amount + tax_amount.', 10500),
    unapplied_received_amount: Type.Optional(
      money(
        'Cash basis: payment money received in the range and not applied to an invoice (deposits, overpayments).',
        0,
      ),
    ),
  },
  PeriodSchema,
);

export const TaxSummaryReportSchema = reportSchema(
  'TaxSummaryReport',
  'tax_summary',
  { ...paramCurrency, from: DateSchema, to: DateSchema, ...paramBasis },
  {
    taxable_amount: money('The rows’ taxable amounts added up (a line under two rates counts twice).'),
    tax_amount: money('The rows’ tax: equal to the revenue report’s tax_amount for the same range and basis.', 500),
    no_tax_amount: money('Net revenue no rate applied to.', 0),
  },
  TaxRowSchema,
);

export const JobProfitabilityReportSchema = reportSchema(
  'JobProfitabilityReport',
  'job_profitability',
  { ...paramCurrency, from: DateSchema, to: DateSchema, client_id: Nullable(IdSchema), job_id: Nullable(IdSchema) },
  jobFigures,
  JobRowSchema,
);

export type AgingFigures = {
  buckets: { label: string; amount: number }[];
  open_amount: number;
  credit_amount: number;
  balance_amount: number;
};
export type AgingRow = Static<typeof AgingRowSchema>;
export type StatementLine = Static<typeof StatementLineSchema>;
export type PeriodRow = Static<typeof PeriodSchema>;
export type TaxRow = Static<typeof TaxRowSchema>;
export type JobRow = Static<typeof JobRowSchema>;
export type OtherCurrency = Static<typeof OtherCurrencySchema>;

/** What every report answers around its own parameters, totals and rows. */
export interface Report<P, T, R> {
  object: 'report';
  type: 'aged_receivables' | 'client_statement' | 'revenue' | 'tax_summary' | 'job_profitability';
  currency: string;
  timezone: string;
  ledger_sequence: number;
  computed_at: string;
  parameters: P;
  other_currencies: OtherCurrency[];
  totals: T;
  rows: R[];
}
