// Client queries. Every query is scoped by account: another account's rows do not exist here.
import { sql, type SqlBool } from 'kysely';
import { lockedIf, timeBoundConditions, type TimeBounds } from '../../db/account-rows.js';
import { dialectOf, type Executor } from '../../db/database.js';
import { POSTGRES_SEARCH_TEXT } from '../../db/migrations/20261122050000_client_search.js';
import { applyPage, timestampSorts, type PageRequest, type SortFields } from '../../db/keyset.js';
import type { ClientPatch, ClientRow } from '../../db/types.js';

const COLUMNS = ['id', 'account_id', 'name', 'sort_name', 'email', 'phone', 'company_name', 'address', 'notes', 'metadata', 'created_at', 'updated_at'] as const;

export interface ClientFilters extends TimeBounds {
  q?: string | undefined;
  email?: string | undefined;
}

/** `sort=name` is case-insensitive: it orders by sort_name, the name in lower case, which has its own index. */
export const CLIENT_SORTS: SortFields<ClientRow> = { ...timestampSorts<ClientRow>(), name: { kind: 'text', expression: 'sort_name', value: (row) => row.sort_name } };

/** The sort key of a name: lower case as JavaScript folds it, the same on both engines. */
export function sortName(name: string): string {
  return name.toLowerCase();
}

/** Queries this long or longer use the trigram index; shorter ones match the start of a field. */
const TRIGRAM = 3;

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

/**
 * `q` of three characters or more, case-insensitively anywhere in name, e-mail, phone or company, from
 * the trigram index: FTS5 on SQLite (a phrase query: every character literal), pg_trgm on PostgreSQL.
 */
function containsText(db: Executor, q: string) {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${sql.raw(POSTGRES_SEARCH_TEXT)} like ${`%${escapeLike(q.toLowerCase())}%`} escape '\\'`;
  const phrase = `"${q.replace(/"/g, '""')}"`;
  return sql<SqlBool>`id in (select k.client_id from clients_fts f join client_search_keys k on k.search_id = f.rowid where clients_fts match ${phrase})`;
}

/** A shorter `q`: the start of name, e-mail, company or phone, as index ranges (a trigram needs three characters). */
function startsWith(prefix: string) {
  const end = `${prefix}\uffff`;
  const range = (column: string) => sql<SqlBool>`(${sql.raw(column)} >= ${prefix} and ${sql.raw(column)} < ${end})`;
  return sql<SqlBool>`(${range('sort_name')} or ${range('lower(email)')} or ${range('lower(company_name)')} or ${range('phone')})`;
}

export async function listClients(db: Executor, accountId: string, filters: ClientFilters, page: PageRequest<ClientRow>): Promise<ClientRow[]> {
  let query = db.selectFrom('clients').select(COLUMNS).where('account_id', '=', accountId).where((eb) => eb.and(timeBoundConditions(filters)));
  if (filters.q !== undefined) query = query.where([...filters.q].length >= TRIGRAM ? containsText(db, filters.q) : startsWith(filters.q.toLowerCase()));
  if (filters.email !== undefined) query = query.where(sql<SqlBool>`lower(email) = ${filters.email.toLowerCase()}`);
  return applyPage(query, page).execute();
}
