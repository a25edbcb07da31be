// Job profitability (docs/api-contract.md §24): a row per job with invoices issued in the period and not void, as
// the ledger stood at the standing's sequence. An invoice's net, cost and product lines without a cost are the sums
// of its document entries (each carries the change, §22); its credit notes' entries lower its net, never its cost.
// Its issue date, client and currency are those of its issued entry or latest restatement. The ledger keeps these
// figures per invoice as entries post; the database sums them per job for the invoices no later entry moved.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { AppError } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import { checkRange, type KeyKind, paged, positionOf, reportOf, type RowKey, type Standing } from './reports.common.js';
import {
  figureHistoriesOf,
  findInvoiceFiguresMovedAfter,
  invoiceFiguresOf,
  type JobSums,
  jobSumPieces,
  proRata,
  REPORT_PIECES,
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
  const add = (sums: JobSums) => {
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
  // The invoices no entry after the sequence moved: their kept figures, summed per job by the database, a piece of
  // jobs at a time with a turn of the event loop between (docs/decisions.md, "Reports without long holds").
  const bounds = {
    from: input.from,
    to: input.to,
    through: standing.sequence,
    clientId: input.client_id,
    jobId: input.job_id,
  };
  for await (const piece of jobSumPieces(ctx.db, ctx.accountId, bounds)) {
    for (const sums of piece) add(sums);
    await yieldTurn();
  }
  // The others: their figures at the sequence, from their entries up to it.
  const moved = (await findInvoiceFiguresMovedAfter(ctx.db, ctx.accountId, standing.sequence)).filter(
    (invoice) => input.job_id === undefined || invoice.job_id === input.job_id,
  );
  for (let start = 0; start < moved.length; start += 500) {
    const batch = moved.slice(start, start + 500);
    const histories = await figureHistoriesOf(
      ctx.db,
      ctx.accountId,
      batch.map((invoice) => invoice.invoice_id),
      standing.sequence,
    );
    for (const { invoice_id: invoiceId, job_id: jobId } of batch) {
      const invoice = invoiceFiguresOf(histories.get(invoiceId) ?? []);
      if (!invoice || invoice.voided || invoice.issueDate === null) continue;
      if (invoice.issueDate < input.from || invoice.issueDate > input.to) continue;
      if (input.client_id !== undefined && invoice.clientId !== input.client_id) continue;
      add({
        job_id: jobId,
        currency: invoice.currency,
        revenue_amount: invoice.net + invoice.credited,
        cost_amount: invoice.cost,
        lines_without_cost: invoice.withoutCost,
        entry_count: invoice.entries,
      });
    }
    await yieldTurn();
  }

  const totals: Totals = {
    revenue_amount: 0,
    cost_amount: 0,
    margin_amount: 0,
    margin_basis_points: null,
    lines_without_cost: 0,
  };
  for (const figures of byJob.values()) {
    totals.revenue_amount += figures.revenue_amount;
    totals.cost_amount += figures.cost_amount;
    totals.lines_without_cost += figures.lines_without_cost;
  }
  totals.margin_amount = totals.revenue_amount - totals.cost_amount;
  totals.margin_basis_points = basisPointsOf(totals.margin_amount, totals.revenue_amount);
  const page = await jobPage(ctx, standing, byJob, input.job_id);
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

/** Rows by job number, then id: the same order at the same sequence. */
const JOB_ROW_KEY: readonly KeyKind[] = ['integer', 'text'];

/**
 * The page of rows: the account's jobs in the order of their numbers from the cursor's on, a batch at a time from
 * the jobs' number index (the database orders them, never this process), those with figures in the period kept,
 * until the page is full and one more is found. Only the page's jobs' labels are read.
 */
async function jobPage(
  ctx: Context,
  standing: Standing,
  byJob: ReadonlyMap<string, Totals>,
  jobId: string | undefined,
): Promise<{ rows: JobRow[]; next: RowKey | null }> {
  const found: { id: string; number_seq: number; figures: Totals }[] = [];
  let after = positionOf(standing, JOB_ROW_KEY)?.[0] as number | undefined;
  let more = false;
  while (byJob.size > 0 && !more) {
    const jobs = await repository.findJobsInNumberOrder(ctx.db, ctx.accountId, after, jobId);
    for (const job of jobs) {
      const figures = byJob.get(job.id);
      if (!figures) continue;
      if (found.length === standing.limit) {
        more = true;
        break;
      }
      found.push({ ...job, figures });
    }
    if (jobs.length < REPORT_PIECES.jobs) break;
    after = jobs[jobs.length - 1]!.number_seq;
    await yieldTurn();
  }
  const labels = await repository.findJobLabels(
    ctx.db,
    ctx.accountId,
    found.map((job) => job.id),
  );
  const rows = found.map(({ id, figures }): JobRow => {
    const label = labels.get(id);
    const margin = figures.revenue_amount - figures.cost_amount;
    return {
      job_id: id,
      number: label?.number ?? null,
      title: label?.title ?? null,
      client_id: label?.client_id ?? null,
      ...figures,
      margin_amount: margin,
      margin_basis_points: basisPointsOf(margin, figures.revenue_amount),
    };
  });
  const last = found[found.length - 1];
  return { rows, next: more && last ? [last.number_seq, last.id] : null };
}
