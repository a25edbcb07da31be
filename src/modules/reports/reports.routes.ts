// Report endpoints (reports:read): JSON pages of rows with the totals of all, or every row as CSV when the
// request's Accept names text/csv (docs/api-contract.md §24).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fieldError } from '../../core/errors.js';
import { contextOf } from '../../http/auth.js';
import { meta } from '../../http/envelope.js';
import { errorResponses, MetaSchema, PaginationSchema, schemaRef } from '../../http/schemas.js';
import type { Context } from '../../kernel/context.js';
import { type CommonInput, onOneSnapshot, pageOf, type Standing, standingOf } from './reports.common.js';
import { reportCsv } from './reports.csv.js';
import { jobProfitability } from './reports.jobs.js';
import { agedReceivables, clientStatement } from './reports.receivables.js';
import { revenue, taxSummary } from './reports.revenue.js';
import {
  AgedReceivablesQuery,
  AgedReceivablesReportSchema,
  ClientStatementQuery,
  ClientStatementReportSchema,
  JobProfitabilityQuery,
  JobProfitabilityReportSchema,
  MAX_CSV_ROWS,
  type Report,
  RevenueQuery,
  RevenueReportSchema,
  TaxSummaryQuery,
  TaxSummaryReportSchema,
} from './reports.schemas.js';

const tags = ['Reports'];

/** Whether the caller asked for CSV: an Accept naming text/csv (any other, or none, gets JSON). */
function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    return type === 'text/csv' && (quality === undefined || Number(quality.slice(2)) > 0);
  });
}

function reportEnvelope(report: TSchema) {
  return Type.Object({
    data: report,
    meta: Type.Object({
      request_id: MetaSchema.properties.request_id,
      timestamp: MetaSchema.properties.timestamp,
      pagination: PaginationSchema,
    }),
  });
}

type Compute = (ctx: Context, standing: Standing, query: never) => Promise<Report<unknown, unknown, unknown>>;

/** Computes the report and answers it: a JSON page, or every row as CSV. */
async function answer(request: FastifyRequest, reply: FastifyReply, compute: Compute) {
  const query = request.query as CommonInput;
  const csv = wantsCsv(request);
  const { standing, report } = await onOneSnapshot(contextOf(request), async (ctx) => {
    const standing = await standingOf(ctx, query);
    if (csv) {
      // Every row from the first; one more than a CSV holds tells that it would hold too many.
      standing.after = null;
      standing.limit = MAX_CSV_ROWS + 1;
    }
    return { standing, report: await compute(ctx, standing, query as never) };
  });
  if (csv) {
    if (report.rows.length > MAX_CSV_ROWS)
      throw fieldError(
        'Accept',
        `the report has more than ${MAX_CSV_ROWS} rows; a CSV holds at most ${MAX_CSV_ROWS}: narrow it`,
      );
    const parameters = report.parameters as { as_of?: string; to?: string };
    const date = parameters.as_of ?? parameters.to ?? standing.today;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${report.type}-${date}.csv"`)
      .header('bms-ledger-sequence', String(report.ledger_sequence))
      .send(Buffer.from(reportCsv(report), 'utf8'));
  }
  const page = pageOf(report, standing);
  reply.header('bms-ledger-sequence', String(report.ledger_sequence));
  return {
    data: page.report,
    meta: {
      ...meta(request),
      pagination: { limit: page.limit, has_more: page.nextCursor !== null, next_cursor: page.nextCursor },
    },
  };
}

const REPORTS = [
  {
    path: '/v1/reports/aged-receivables',
    operationId: 'getReportsAgedReceivables',
    summary: 'Get aged receivables',
    description:
      'What each client owes at `as_of`, by how long past due: a row per client (or per invoice), the buckets, the credit it holds and its balance. A back-dated payment changes a past answer; `ledger_sequence` says which books answered.',
    querystring: AgedReceivablesQuery,
    schema: AgedReceivablesReportSchema,
    compute: agedReceivables as Compute,
    errors: [] as const,
  },
  {
    path: '/v1/reports/client-statement',
    operationId: 'getReportsClientStatement',
    summary: 'Get a client statement',
    description:
      'A client’s opening balance at `from`, every move of its money to `to` with the running balance, and the closing balance: opening + Σ lines = closing.',
    querystring: ClientStatementQuery,
    schema: ClientStatementReportSchema,
    compute: clientStatement as Compute,
    errors: ['NOT_FOUND'] as const,
  },
  {
    path: '/v1/reports/revenue',
    operationId: 'getReportsRevenue',
    summary: 'Get revenue by period',
    description:
      'Net, tax and gross revenue per day, ISO week, month or quarter, the first and last periods cut at `from`/`to`: accrual (documents as issued, adjusted, voided, credited) or cash (money applied to invoices, split exactly over their net and taxes).',
    querystring: RevenueQuery,
    schema: RevenueReportSchema,
    compute: revenue as Compute,
    errors: [] as const,
  },
  {
    path: '/v1/reports/tax-summary',
    operationId: 'getReportsTaxSummary',
    summary: 'Get the tax summary',
    description:
      'Per tax rate and percentage, the taxable amount and the tax of invoices less credit notes, accrual or cash; its tax equals the revenue report’s for the same range and basis.',
    querystring: TaxSummaryQuery,
    schema: TaxSummaryReportSchema,
    compute: taxSummary as Compute,
    errors: [] as const,
  },
  {
    path: '/v1/reports/job-profitability',
    operationId: 'getReportsJobProfitability',
    summary: 'Get job profitability',
    description:
      'Per job, its invoices issued in the period and not void: revenue (their nets less their credit notes’), internal cost (Σ round(quantity × unit_cost_amount) of their product lines; credit notes lower no cost), margin and margin in basis points, and how many product lines had no cost.',
    querystring: JobProfitabilityQuery,
    schema: JobProfitabilityReportSchema,
    compute: jobProfitability as Compute,
    errors: ['NOT_FOUND'] as const,
  },
];

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const report of REPORTS)
    app.get(
      report.path,
      {
        config: { scope: 'reports:read' },
        schema: {
          tags,
          operationId: report.operationId,
          summary: report.summary,
          description: `${report.description} Send \`Accept: text/csv\` for every row as CSV.`,
          querystring: report.querystring,
          response: {
            200: {
              description: 'The report: a JSON page of its rows with the totals of all, or every row as CSV.',
              content: {
                'application/json': { schema: reportEnvelope(schemaRef(report.schema)) },
                'text/csv': { schema: { type: 'string', description: 'RFC 4180; totals last, as TOTAL.' } },
              },
            },
            ...errorResponses('VALIDATION_ERROR', ...report.errors),
          },
        },
      },
      async (request, reply) => answer(request, reply, report.compute),
    );
};
