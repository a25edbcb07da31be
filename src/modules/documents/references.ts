// Looking up the objects a body refers to (client_id, quote_id, job_id, request_id) in the caller's
// account. One that does not exist there is a 422 on the referring field, as the contract says.
import type { Selectable } from 'kysely';
import { accountTable, type AccountTable } from '../../db/account-table.js';
import type { Executor } from '../../db/database.js';
import type { Tables } from '../../db/types.js';
import { isUuid } from '../../deps.js';
import { fieldError, notFound } from '../../http/errors.js';

const LABELS: Record<AccountTable, string> = { clients: 'client', service_requests: 'service request', quotes: 'quote', jobs: 'job', invoices: 'invoice' };

/**
 * The referenced row, or 422 VALIDATION_ERROR on `field`. It is locked until the transaction ends, so a
 * quote or request being converted cannot be converted twice by concurrent requests.
 */
export async function requireReference<T extends AccountTable>(db: Executor, table: T, accountId: string, id: string, field: string): Promise<Selectable<Tables[T]>> {
  const row = isUuid(id) ? await accountTable(table).find(db, accountId, id, true) : undefined;
  if (!row) throw fieldError(field, `no ${LABELS[table]} with id '${id}' exists in this account`);
  return row;
}

/** The addressed row (the :id of the path), or 404 NOT_FOUND; locked when read inside a transaction that changes it. */
export async function requireRow<T extends AccountTable>(db: Executor, table: T, accountId: string, id: string, lock = false): Promise<Selectable<Tables[T]>> {
  const row = isUuid(id) ? await accountTable(table).find(db, accountId, id, lock) : undefined;
  if (!row) throw notFound(LABELS[table], id);
  return row;
}
