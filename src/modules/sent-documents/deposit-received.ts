// What an invoice's PDF, e-mail and hub page print of deposits (docs/api-contract.md §23, "Deposit received"):
// the money of deposits its applications hold, read through the invoices face; no field of the invoice says it.
import type { Context } from '../../kernel/context.js';
import { depositReceivedOn } from '../invoices/index.js';

export async function withDepositReceived<Item extends { id: string }>(
  ctx: Context,
  invoice: Item,
): Promise<Item & { deposit_received: number }> {
  return { ...invoice, deposit_received: await depositReceivedOn(ctx.db, ctx.accountId, invoice.id) };
}
