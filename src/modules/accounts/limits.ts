// Per-account limits (docs/api-contract.md §21): a default for every account, raised for one account by the
// operator (`bms accounts set-limits`), never through the API.
import type { Executor } from '../../db/index.js';
import type { AccountRow } from '../../db/types.js';
import * as repository from './accounts.repository.js';

import { DEFAULT_MAX_WEBHOOK_ENDPOINTS } from '../events/index.js';

export { DEFAULT_MAX_WEBHOOK_ENDPOINTS };

/** Recurring invoices not ended per account (docs/api-contract.md §32). */
export const DEFAULT_MAX_RECURRING_INVOICES = 1000;

/** Attachment bytes per account (docs/api-contract.md §30): 5 GiB. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024 * 1024;

export interface AccountLimits {
  webhook_endpoints: number;
  recurring_invoices: number;
  attachment_bytes: number;
}

export function accountLimits(
  row: Pick<AccountRow, 'max_webhook_endpoints' | 'max_recurring_invoices' | 'max_attachment_bytes'>,
): AccountLimits {
  return {
    webhook_endpoints: row.max_webhook_endpoints ?? DEFAULT_MAX_WEBHOOK_ENDPOINTS,
    recurring_invoices: row.max_recurring_invoices ?? DEFAULT_MAX_RECURRING_INVOICES,
    attachment_bytes:
      row.max_attachment_bytes === null || row.max_attachment_bytes === undefined
        ? DEFAULT_MAX_ATTACHMENT_BYTES
        : Number(row.max_attachment_bytes),
  };
}

/** Sets an account's limits (`null`: back to the default); undefined when there is no such account. */
export async function setAccountLimits(
  db: Executor,
  accountId: string,
  limits: { webhookEndpoints?: number | null; recurringInvoices?: number | null; attachmentBytes?: number | null },
): Promise<AccountLimits | undefined> {
  const patch: {
    max_webhook_endpoints?: number | null;
    max_recurring_invoices?: number | null;
    max_attachment_bytes?: number | null;
  } = {};
  if (limits.attachmentBytes !== undefined) patch.max_attachment_bytes = limits.attachmentBytes;
  if (limits.webhookEndpoints !== undefined) patch.max_webhook_endpoints = limits.webhookEndpoints;
  if (limits.recurringInvoices !== undefined) patch.max_recurring_invoices = limits.recurringInvoices;
  if (Object.keys(patch).length === 0) {
    const row = await repository.findAccount(db, accountId);
    return row && accountLimits(row);
  }
  const row = await repository.updateAccount(db, accountId, patch);
  return row && accountLimits(row);
}
