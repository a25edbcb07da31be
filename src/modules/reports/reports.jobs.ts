// Job profitability (docs/api-contract.md §24): a row per job with invoices issued in the period and not void, as
// the ledger stood at the standing's sequence. An invoice's net, cost and product lines without a cost are the sums
// of its document entries (each carries the change, §22); its credit notes' entries lower its net, never its cost.
// Its issue date, client and currency are those of its issued entry or latest restatement.
import { AppError } from '../../core/errors.js';
import type { Context } from '../../kernel/context.js';
import { checkRange, reportOf, type Standing } from './reports.common.js';
import { proRata } from '../ledger/index.js';
import * as repository from './reports.repository.js';
import type { ReportEntry } from './reports.repository.js';
import type { JobProfitabilityInput, JobRow, OtherCurrency, Report } from './reports.schemas.js';

/** An invoice as its entries up to the sequence give it. */
interface InvoiceFigures {
  issueDate: string | null;
  clientId: string;
  currency: string;
  voided: boolean;
  net: number;
  credited: number;
  cost: number;
  withoutCost: number;
  entries: number;
}

const INVOICE_DOCUMENT = new Set(['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided']);

/**
 * One invoice's figures from its entries in sequence order. A restatement (a new issue date, client or currency,
 * §22) is two adjustments posted together: the first takes the invoice's figures back to zero, the next restates
 * it under its new date, client and currency.
 */
function figuresOf(history: readonly ReportEntry[]): InvoiceFigures | null {
  let figures: InvoiceFigures | null = null;
  let amount = 0;
  for (const [index, entry] of history.entries()) {
    if (entry.credit_note_id !== null) {
      if (figures && (entry.type === 'credit_note_issued' || entry.type === 'credit_note_voided'))
        figures.credited += entry.net_amount ?? 0;
      continue;
    }
    if (!INVOICE_DOCUMENT.has(entry.type)) continue;
    const previous = history[index - 1];
    const restated =
      entry.type === 'invoice_adjusted' &&
      previous?.type === 'invoice_adjusted' &&
      previous.credit_note_id === null &&
      previous.sequence === entry.sequence - 1 &&
      amount === 0;
    if (entry.type === 'invoice_issued' || restated || !figures) {
      figures ??= {
        issueDate: null,
        clientId: entry.client_id,
        currency: entry.currency,
        voided: false,
        net: 0,
        credited: 0,
        cost: 0,
        withoutCost: 0,
        entries: 0,
      };
      figures.issueDate = entry.effective_date;
      figures.clientId = entry.client_id;
      figures.currency = entry.currency;
    }
    if (entry.type === 'invoice_voided') figures.voided = true;
    amount += entry.amount;
    figures.net += entry.net_amount ?? entry.amount - (entry.tax_amount ?? 0);
    figures.cost += entry.cost_amount ?? 0;
    figures.withoutCost += entry.lines_without_cost ?? 0;
    figures.entries += 1;
  }
  return figures;
}

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
  let candidates: string[];
  if (input.job_id !== undefined) {
    const found = await repository.findJobLabels(ctx.db, ctx.accountId, [input.job_id]);
    if (!found.has(input.job_id)) throw new AppError('NOT_FOUND', `No job with id '${input.job_id}' exists.`);
    candidates = await repository.findInvoiceIdsOfJob(ctx.db, ctx.accountId, input.job_id);
  } else {
    // An invoice issued in the period has its issued entry, or its restatement, dated in it.
    const dated = await repository.findEntries(ctx.db, ctx.accountId, {
      through: standing.sequence,
      clientId: input.client_id,
      effectiveFrom: input.from,
      effectiveTo: input.to,
      types: ['invoice_issued', 'invoice_adjusted'],
    });
    candidates = [...new Set(dated.flatMap((entry) => (entry.invoice_id ? [entry.invoice_id] : [])))];
  }
  const jobOf =
    input.job_id !== undefined
      ? new Map(candidates.map((id) => [id, input.job_id as string]))
      : await repository.findJobsOfInvoices(ctx.db, ctx.accountId, candidates);
  const withJob = candidates.filter((id) => jobOf.get(id));
  const entries = await repository.findEntriesOfDocuments(
    ctx.db,
    ctx.accountId,
    'invoice_id',
    withJob,
    standing.sequence,
  );
  const histories = new Map<string, ReportEntry[]>();
  for (const entry of entries) {
    const history = histories.get(entry.invoice_id!) ?? [];
    history.push(entry);
    histories.set(entry.invoice_id!, history);
  }

  const byJob = new Map<string, Totals>();
  const others = new Map<string, number>();
  for (const [invoiceId, history] of histories) {
    const invoice = figuresOf(history);
    if (!invoice || invoice.voided || invoice.issueDate === null) continue;
    if (invoice.issueDate < input.from || invoice.issueDate > input.to) continue;
    if (input.client_id !== undefined && invoice.clientId !== input.client_id) continue;
    if (invoice.currency !== standing.currency) {
      others.set(invoice.currency, (others.get(invoice.currency) ?? 0) + invoice.entries);
      continue;
    }
    const jobId = jobOf.get(invoiceId)!;
    const row = byJob.get(jobId) ?? {
      revenue_amount: 0,
      cost_amount: 0,
      margin_amount: 0,
      margin_basis_points: null,
      lines_without_cost: 0,
    };
    row.revenue_amount += invoice.net + invoice.credited;
    row.cost_amount += invoice.cost;
    row.lines_without_cost += invoice.withoutCost;
    byJob.set(jobId, row);
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
  rows.sort((a, b) => {
    const left = a.number ?? '\uffff';
    const right = b.number ?? '\uffff';
    return left < right ? -1 : left > right ? 1 : a.job_id < b.job_id ? -1 : 1;
  });
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
  return reportOf('job_profitability', standing, parameters, otherCurrencies, totals, rows);
}
