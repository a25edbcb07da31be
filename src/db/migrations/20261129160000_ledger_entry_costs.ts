// docs/api-contract.md §24, job profitability: an invoice's document entries carry the change of its internal cost
// (`cost_amount`, §22) and, internal, of its count of product lines without a cost (`lines_without_cost`), so that
// the report reads both from the ledger at any sequence. Existing entries are filled once from the invoices' lines
// as they are now (the lines' costs before now are not known): issued and restated +, reversed and voided −.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

const INVOICE_DOCUMENT_TYPES = ['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided'];

interface StoredLine {
  product_id?: string | null;
  quantity: number;
  unit_cost_amount?: number | null;
  time_entry_ids?: string[];
}

/** Σ round(quantity × unit_cost_amount) over product lines (not billed time), halves away; lines lacking a cost. */
function costOf(lineItems: unknown): { cost: number; withoutCost: number } {
  const lines = (typeof lineItems === 'string' ? JSON.parse(lineItems) : (lineItems ?? [])) as StoredLine[];
  let cost = 0n;
  let withoutCost = 0;
  for (const line of lines) {
    if (!line.product_id || (line.time_entry_ids ?? []).length > 0) continue;
    if (line.unit_cost_amount === null || line.unit_cost_amount === undefined) {
      withoutCost += 1;
      continue;
    }
    const product = BigInt(Math.round(line.quantity * 1000)) * BigInt(line.unit_cost_amount);
    const magnitude = product < 0n ? -product : product;
    const rounded = (magnitude + 500n) / 1000n;
    cost += product < 0n ? -rounded : rounded;
  }
  return { cost: Number(cost), withoutCost };
}

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ledger_entries').addColumn('lines_without_cost', 'bigint').execute();
  const entries = await db
    .selectFrom('ledger_entries')
    .select(['id', 'account_id', 'sequence', 'type', 'invoice_id'])
    .where('type', 'in', INVOICE_DOCUMENT_TYPES)
    .where('invoice_id', 'is not', null)
    .orderBy('account_id')
    .orderBy('sequence')
    .execute();
  const byInvoice = new Map<string, { id: string; sequence: number; type: string }[]>();
  for (const entry of entries) {
    const key = `${entry.account_id} ${entry.invoice_id}`;
    byInvoice.set(key, [
      ...(byInvoice.get(key) ?? []),
      { id: entry.id, sequence: Number(entry.sequence), type: entry.type },
    ]);
  }
  for (const [key, history] of byInvoice) {
    const [accountId, invoiceId] = key.split(' ') as [string, string];
    const invoice = await db
      .selectFrom('invoices')
      .select('line_items')
      .where('account_id', '=', accountId)
      .where('id', '=', invoiceId)
      .executeTakeFirst();
    if (!invoice) continue;
    const now = costOf(invoice.line_items);
    if (now.cost === 0 && now.withoutCost === 0) continue;
    let held = false;
    for (const [index, entry] of history.entries()) {
      const next = history[index + 1];
      const previous = history[index - 1];
      let sign = 0;
      if (entry.type === 'invoice_issued') sign = 1;
      else if (entry.type === 'invoice_voided') sign = held ? -1 : 0;
      else if (entry.type === 'invoice_adjusted') {
        // A restatement posts two adjustments at once: the reversal, then the same invoice under its new date.
        const reversal = next?.type === 'invoice_adjusted' && next.sequence === entry.sequence + 1;
        const restated = previous?.type === 'invoice_adjusted' && previous.sequence === entry.sequence - 1 && !held;
        sign = reversal && held ? -1 : restated ? 1 : 0;
      }
      if (sign === 0) continue;
      held = sign === 1;
      await db
        .updateTable('ledger_entries')
        .set({ cost_amount: sign * now.cost, lines_without_cost: sign * now.withoutCost })
        .where('id', '=', entry.id)
        .execute();
    }
  }
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ledger_entries').dropColumn('lines_without_cost').execute();
}
