// A job's costing (docs/api-contract.md §29): labour from its stopped entries, price and materials from one set of
// documents — the job's own lines until it has a sent or paid invoice, then those invoices (another currency's
// listed, not converted). Exact: integers, §6's rounding; margin_percent to 2 decimals, halves away from zero.
import type { Context } from '../../kernel/context.js';
import { type LineItem, lineItemsOf, multiplyDivideRounded } from '../documents/index.js';
import { findIssuedInvoicesOfJob } from '../invoices/index.js';
import { getJob } from '../jobs/index.js';
import type { JobCosting } from './billing.schemas.js';
import * as repository from './time-entries.repository.js';
import { timeSettings } from './time-entries.service.js';

type Labour = JobCosting['labour'];
type Materials = JobCosting['materials'];

/** The labour of a job's entries: running ones counted apart, the others' figures summed exactly by the database. */
function labourOf(ctx: Context, jobId: string, incrementMinutes: number): Promise<Labour> {
  return repository.sumLabour(ctx.db, ctx.accountId, jobId, incrementMinutes);
}

/** Materials: lines with a product (lines of billed time are labour), Σ round(quantity × unit_cost_amount). */
function addMaterials(materials: Materials, lines: readonly LineItem[]): void {
  for (const line of lines) {
    if (line.product_id === null || line.time_entry_ids.length > 0) continue;
    materials.lines += 1;
    if (line.unit_cost_amount === null) {
      materials.lines_without_cost += 1;
      continue;
    }
    // quantity has at most 3 decimals: thousandths × cost ÷ 1000, rounded halves away from zero.
    const thousandths = BigInt(Math.round(line.quantity * 1000));
    materials.cost_amount += Number(multiplyDivideRounded(thousandths, BigInt(line.unit_cost_amount), 1000n));
  }
}

/** margin = profit × 100 ÷ price to 2 decimals (halves away from zero), null at price 0. */
function marginOf(profit: number, price: number): number | null {
  if (price === 0) return null;
  return Number(multiplyDivideRounded(BigInt(profit) * 10_000n, 1n, BigInt(price))) / 100;
}

/** GET /v1/jobs/:id/costing; reports' job profitability may reuse it. */
export async function jobCosting(ctx: Context, jobId: string): Promise<JobCosting> {
  const job = await getJob(ctx, jobId);
  // Sent together (one round trip on PostgreSQL's pipelined connection).
  const [settings, invoices] = await Promise.all([
    timeSettings(ctx),
    findIssuedInvoicesOfJob(ctx.db, ctx.accountId, job.id),
  ]);
  const labour = await labourOf(ctx, job.id, settings.incrementMinutes);
  const materials: Materials = { lines: 0, cost_amount: 0, lines_without_cost: 0 };
  const excluded: string[] = [];
  let price = 0;
  if (invoices.length === 0) {
    price = job.subtotal_amount;
    addMaterials(materials, job.line_items);
  } else
    for (const invoice of invoices) {
      if (invoice.currency !== job.currency) {
        excluded.push(invoice.id);
        continue;
      }
      price += Number(invoice.subtotal_amount);
      addMaterials(materials, lineItemsOf(invoice));
    }
  const cost = labour.cost_amount + materials.cost_amount;
  return {
    object: 'job_costing',
    job_id: job.id,
    currency: job.currency,
    price_basis: invoices.length === 0 ? 'job' : 'invoices',
    price_amount: price,
    labour,
    materials,
    cost_amount: cost,
    profit_amount: price - cost,
    margin_percent: marginOf(price - cost, price),
    excluded_invoice_ids: excluded,
  };
}
