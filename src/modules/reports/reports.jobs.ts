// Job profitability (docs/api-contract.md §24): a row per job with invoices issued in the period and not void, as
// the ledger stood at the standing's sequence. An invoice's net, cost and product lines without a cost are the sums
// of its document entries (each carries the change, §22); its credit notes' entries lower its net, never its cost.
// Its issue date, client and currency are those of its issued entry or latest restatement. The ledger keeps these
// figures per invoice as entries post; the database sums them per job for the invoices no later entry moved.
import { AppError } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import { checkRange, paged, pageRows, reportOf, type Standing } from './reports.common.js';
import {
  figureHistoriesOf,
  findInvoiceFiguresMovedAfter,
  findJobSums,
  invoiceFiguresOf,
  proRata,
} from '../ledger/index.js';
import * as repository from './reports.repository.js';
import type { JobProfitabilityInput, JobRow, OtherCurrency, Report } from './reports.schemas.js';

/** margin × 10,000 ÷ revenue, halves away from zero; null at revenue 0. */
function basisPointsOf(margin: number, revenue: number): number | null {
  return revenue === 0 ? null : proRata(margin, 10_000, revenue);
}

type Parameters = {
  currency: string;
  from: string;
  to: string;
  client_id: string | null;
  job_id: string | null;
};
type Totals = Omit<JobRow, 'job_id' | 'number' | 'title' | 'client_id'>;

export async function jobProfitability(
  ctx: Context,
  standing: Standing,
  input: JobProfitabilityInput,
): Promise<Report<Parameters, Totals, JobRow>> {
  checkRange(input.from, input.to);
  if (input.job_id !== undefined) {
    const found = await repository.findJobLabels(ctx.db, ctx.accountId, [input.job_id]);
    if (!found.has(input.job_id)) throw new AppError('NOT_FOUND', `No job with id '${input.job_id}' exists.`);
  }
  const byJob = new Map<string, Totals>();
  const others = new Map<string, number>();
  const add = (sums: {
    job_id: string;
    currency: string;
    revenue_amount: number;
    cost_amount: number;
    lines_without_cost: number;
    entry_count: number;
  }) => {
    if (sums.currency !== standing.currency) {
      others.set(sums.currency, (others.get(sums.currency) ?? 0) + sums.entry_count);
      return;
    }
    const row = byJob.get(sums.job_id) ?? {
      revenue_amount: 0,
      cost_amount: 0,
      margin_amount: 0,
      margin_basis_points: null,
      lines_without_cost: 0,
    };
    row.revenue_amount += sums.revenue_amount;
    row.cost_amount += sums.cost_amount;
    row.lines_without_cost += sums.lines_without_cost;
    byJob.set(sums.job_id, row);
  };
  // The invoices no entry after the sequence moved: their kept figures, summed per job by the database.
  const bounds = {
    from: input.from,
    to: input.to,
    through: standing.sequence,
    clientId: input.client_id,
    jobId: input.job_id,
  };
  for (const sums of await findJobSums(ctx.db, ctx.accountId, bounds)) add(sums);
  // The others: their figures at the sequence, from their entries up to it.
  const moved = (await findInvoiceFiguresMovedAfter(ctx.db, ctx.accountId, standing.sequence)).filter(
    (invoice) => invoice.job_id !== null && (input.job_id === undefined || invoice.job_id === input.job_id),
  );
  const histories = await figureHistoriesOf(
    ctx.db,
    ctx.accountId,
    moved.map((invoice) => invoice.invoice_id),
    standing.sequence,
  );
  for (const { invoice_id: invoiceId, job_id: jobId } of moved) {
    const invoice = invoiceFiguresOf(histories.get(invoiceId) ?? []);
    if (!invoice || invoice.voided || invoice.issueDate === null) continue;
    if (invoice.issueDate < input.from || invoice.issueDate > input.to) continue;
    if (input.client_id !== undefined && invoice.clientId !== input.client_id) continue;
    add({
      job_id: jobId!,
      currency: invoice.currency,
      revenue_amount: invoice.net + invoice.credited,
      cost_amount: invoice.cost,
      lines_without_cost: invoice.withoutCost,
      entry_count: invoice.entries,
    });
  }

  const labels = await repository.findJobLabels(ctx.db, ctx.accountId, [...byJob.keys()]);
  const totals: Totals = {
    revenue_amount: 0,
    cost_amount: 0,
    margin_amount: 0,
    margin_basis_points: null,
    lines_without_cost: 0,
  };
  const rows: JobRow[] = [];
  for (const [jobId, figures] of byJob) {
    const margin = figures.revenue_amount - figures.cost_amount;
    const label = labels.get(jobId);
    rows.push({
      job_id: jobId,
      number: label?.number ?? null,
      title: label?.title ?? null,
      client_id: label?.client_id ?? null,
      ...figures,
      margin_amount: margin,
      margin_basis_points: basisPointsOf(margin, figures.revenue_amount),
    });
    totals.revenue_amount += figures.revenue_amount;
    totals.cost_amount += figures.cost_amount;
    totals.lines_without_cost += figures.lines_without_cost;
  }
  totals.margin_amount = totals.revenue_amount - totals.cost_amount;
  totals.margin_basis_points = basisPointsOf(totals.margin_amount, totals.revenue_amount);
  // By number (jobs without one last), then id: the same order at the same sequence.
  const page = pageRows(standing, rows, (row) => [row.number ?? '\uffff', row.job_id], ['text', 'text']);
  const otherCurrencies: OtherCurrency[] = [...others]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, count]) => ({ currency, count }));
  const parameters = {
    currency: standing.currency,
    from: input.from,
    to: input.to,
    client_id: input.client_id ?? null,
    job_id: input.job_id ?? null,
  };
  return paged(reportOf('job_profitability', standing, parameters, otherCurrencies, totals, page.rows), page.next);
}
