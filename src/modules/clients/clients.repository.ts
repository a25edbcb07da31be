// Client queries. Every query is scoped by account: another account's rows do not exist here.
import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ClientPatch, ClientRow, NewClientRow } from '../../db/types.js';
import { applyPage, type PageRequest } from '../../http/pagination.js';

export interface ClientFilters {
  q?: string | undefined;
  email?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
}

/**
 * Tables whose rows refer to a client, and what to call them in the 409 message. Each resource that
 * gains a `client_id` adds itself here, and deleting a referenced client is refused.
 */
export const CLIENT_REFERENCES: ReadonlyArray<{ table: string; label: string }> = [];

export async function insertClient(db: Executor, row: NewClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function findClient(db: Executor, accountId: string, id: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function updateClient(db: Executor, accountId: string, id: string, patch: ClientPatch): Promise<ClientRow | undefined> {
  return db.updateTable('clients').set(patch).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteClient(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('clients').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Counts of rows in other tables that refer to the client, only those above zero. */
export async function countClientReferences(db: Executor, accountId: string, clientId: string): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, label } of CLIENT_REFERENCES) {
    const result = await sql<{ count: number }>`select count(*) as count from ${sql.table(table)} where account_id = ${accountId} and client_id = ${clientId}`.execute(db);
    const count = Number(result.rows[0]?.count ?? 0);
    if (count > 0) found.push({ label, count });
  }
  return found;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export async function listClients(db: Executor, accountId: string, filters: ClientFilters, page: PageRequest): Promise<ClientRow[]> {
  let query = db.selectFrom('clients').selectAll().where('account_id', '=', accountId);
  if (filters.q !== undefined) {
    const pattern = `%${escapeLike(filters.q.toLowerCase())}%`;
    query = query.where((eb) =>
      eb.or(
        (['name', 'email', 'phone', 'company_name'] as const).map((column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`),
      ),
    );
  }
  if (filters.email !== undefined) query = query.where(sql<boolean>`lower(email) = ${filters.email.toLowerCase()}`);
  if (filters.createdAfter !== undefined) query = query.where('created_at', '>=', filters.createdAfter);
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<', filters.createdBefore);
  if (filters.updatedAfter !== undefined) query = query.where('updated_at', '>=', filters.updatedAfter);
  return applyPage(query, page).execute();
}
