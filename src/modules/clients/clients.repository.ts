// Client queries. Every query is scoped by account: another account's rows do not exist here.
import { sql, type SqlBool } from 'kysely';
import { lockedIf, timeBoundConditions, type TimeBounds } from '../../db/account-rows.js';
import type { Executor } from '../../db/database.js';
import { applyPage, timestampSorts, type PageRequest, type SortFields } from '../../db/keyset.js';
import type { ClientPatch, ClientRow } from '../../db/types.js';

const COLUMNS = ['id', 'account_id', 'name', 'email', 'phone', 'company_name', 'address', 'notes', 'metadata', 'created_at', 'updated_at'] as const;

export interface ClientFilters extends TimeBounds {
  q?: string | undefined;
  email?: string | undefined;
}

export const CLIENT_SORTS: SortFields<ClientRow> = { ...timestampSorts<ClientRow>(), name: { kind: 'text', value: (row) => row.name } };

/** Tables whose rows refer to a client, and what to call them in the 409 message. */
const CLIENT_REFERENCES = [
  { table: 'service_requests', label: 'service request' },
  { table: 'quotes', label: 'quote' },
  { table: 'jobs', label: 'job' },
  { table: 'invoices', label: 'invoice' },
] as const;

export async function insertClient(db: Executor, row: ClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function findClient(db: Executor, accountId: string, id: string, lock = false): Promise<ClientRow | undefined> {
  const query = db.selectFrom('clients').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateClient(db: Executor, accountId: string, id: string, patch: ClientPatch): Promise<ClientRow | undefined> {
  return db.updateTable('clients').set(patch).where('account_id', '=', accountId).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
}

export async function deleteClient(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('clients').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Counts of rows in other tables that refer to the client, only those above zero. */
export async function countClientReferences(db: Executor, accountId: string, clientId: string): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, label } of CLIENT_REFERENCES) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('count')).where('account_id', '=', accountId).where('client_id', '=', clientId).executeTakeFirstOrThrow();
    if (Number(row.count) > 0) found.push({ label, count: Number(row.count) });
  }
  return found;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export async function listClients(db: Executor, accountId: string, filters: ClientFilters, page: PageRequest<ClientRow>): Promise<ClientRow[]> {
  let query = db.selectFrom('clients').select(COLUMNS).where('account_id', '=', accountId).where((eb) => eb.and(timeBoundConditions(filters)));
  if (filters.q !== undefined) {
    const pattern = `%${escapeLike(filters.q.toLowerCase())}%`;
    const contains = (column: 'name' | 'email' | 'phone' | 'company_name') => sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
    query = query.where((eb) => eb.or([contains('name'), contains('email'), contains('phone'), contains('company_name')]));
  }
  if (filters.email !== undefined) query = query.where(sql<SqlBool>`lower(email) = ${filters.email.toLowerCase()}`);
  return applyPage(query, page).execute();
}
