// A document's internal cost (docs/api-contract.md §24, §29): Σ round(quantity × unit_cost_amount) over its product
// lines (lines of billed time are labour, not materials), how many product lines there are and how many lack a cost.
// Exact: BigInt.
import type { LineItem } from './line-items.js';
import { multiplyDivideRounded } from './money.js';

export interface DocumentCost {
  /** Product lines, billed time left out. */
  lines: number;
  cost_amount: number;
  lines_without_cost: number;
}

export function documentCostOf(lines: readonly LineItem[]): DocumentCost {
  let cost = 0n;
  let products = 0;
  let withoutCost = 0;
  for (const line of lines) {
    if (line.product_id === null || line.time_entry_ids.length > 0) continue;
    products += 1;
    if (line.unit_cost_amount === null) {
      withoutCost += 1;
      continue;
    }
    // quantity has at most 3 decimals: thousandths × cost ÷ 1000, rounded halves away from zero.
    const thousandths = BigInt(Math.round(line.quantity * 1000));
    cost += multiplyDivideRounded(thousandths, BigInt(line.unit_cost_amount), 1000n);
  }
  return { lines: products, cost_amount: Number(cost), lines_without_cost: withoutCost };
}
