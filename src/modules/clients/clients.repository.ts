// Client queries. Every query is scoped by account: another account's rows do not exist here.
import { sql } from 'kysely';
import { accountTable } from '../../db/account-table.js';
import type { Executor } from '../../db/database.js';
import type { ClientRow } from '../../db/types.js';
import type { PageRequest } from '../../http/pagination.js';
import { applyCommonFilters, type CommonFilters } from '../documents/list-filters.js';

export interface ClientFilters extends CommonFilters {
  q?: string | undefined;
  email?: string | undefined;
}

/** Tables whose rows refer to a client, and what to call them in the 409 message. */
export const CLIENT_REFERENCES: ReadonlyArray<{ table: 'service_requests' | 'quotes' | 'jobs' | 'invoices'; label: string }> = [
  { table: 'service_requests', label: 'service request' },
  { table: 'quotes', label: 'quote' },
  { table: 'jobs', label: 'job' },
  { table: 'invoices', label: 'invoice' },
];

const clients = accountTable('clients');
export const insertClient = clients.insert;
export const findClient = clients.find;
export const updateClient = clients.update;
export const deleteClient = clients.delete;

/** Counts of rows in other tables that refer to the client, only those above zero. */
export async function countClientReferences(db: Executor, accountId: string, clientId: string): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, label } of CLIENT_REFERENCES) {
    const count = await accountTable(table).count(db, accountId, 'client_id', clientId);
    if (count > 0) found.push({ label, count });
  }
  return found;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export async function listClients(db: Executor, accountId: string, filters: ClientFilters, page: PageRequest<ClientRow>): Promise<ClientRow[]> {
  return clients.list(db, accountId, page, (query) => {
    let filtered = applyCommonFilters(query, filters);
    if (filters.q !== undefined) {
      const pattern = `%${escapeLike(filters.q.toLowerCase())}%`;
      filtered = filtered.where((eb) =>
        eb.or((['name', 'email', 'phone', 'company_name'] as const).map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`)),
      );
    }
    if (filters.email !== undefined) filtered = filtered.where(sql<boolean>`lower(email) = ${filters.email.toLowerCase()}`);
    return filtered;
  });
}
