// A job's costing (docs/api-contract.md §29): labour from its stopped entries, price and materials from one set of
// documents — the job's own lines until it has a sent or paid invoice, then those invoices (another currency's
// listed, not converted). Exact: integers, §6's rounding; margin_percent to 2 decimals, halves away from zero.
import type { Context } from '../../kernel/context.js';
import { documentCostOf, type LineItem, lineItemsOf, multiplyDivideRounded } from '../documents/index.js';
import { findIssuedInvoicesOfJob } from '../invoices/index.js';
import { getJob } from '../jobs/index.js';
import type { JobCosting } from './billing.schemas.js';
import * as repository from './time-entries.repository.js';
import { timeSettings } from './time-entries.service.js';

type Materials = JobCosting['materials'];

/** Materials: a document's product lines (lines of billed time are labour), Σ round(quantity × unit_cost_amount). */
function addMaterials(materials: Materials, lines: readonly LineItem[]): void {
  const cost = documentCostOf(lines);
  materials.lines += cost.lines;
  materials.cost_amount += cost.cost_amount;
  materials.lines_without_cost += cost.lines_without_cost;
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
  // Running entries counted apart; the others' figures summed exactly by the database.
  const labour = await repository.sumLabour(ctx.db, ctx.accountId, job.id, settings.incrementMinutes);
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
