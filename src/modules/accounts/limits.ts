// Per-account limits (docs/api-contract.md §21): a default for every account, raised for one account by the
// operator (`bms accounts set-limits`), never through the API.
import type { Executor } from '../../db/index.js';
import type { AccountRow } from '../../db/types.js';
import * as repository from './accounts.repository.js';

import { DEFAULT_MAX_WEBHOOK_ENDPOINTS } from '../events/index.js';

export { DEFAULT_MAX_WEBHOOK_ENDPOINTS };

export interface AccountLimits {
  webhook_endpoints: number;
}

export function accountLimits(row: Pick<AccountRow, 'max_webhook_endpoints'>): AccountLimits {
  return { webhook_endpoints: row.max_webhook_endpoints ?? DEFAULT_MAX_WEBHOOK_ENDPOINTS };
}

/** Sets an account's limits (`null`: back to the default); undefined when there is no such account. */
export async function setAccountLimits(
  db: Executor,
  accountId: string,
  limits: { webhookEndpoints?: number | null },
): Promise<AccountLimits | undefined> {
  if (limits.webhookEndpoints === undefined) {
    const row = await repository.findAccount(db, accountId);
    return row && accountLimits(row);
  }
  const row = await repository.updateAccount(db, accountId, { max_webhook_endpoints: limits.webhookEndpoints });
  return row && accountLimits(row);
}
