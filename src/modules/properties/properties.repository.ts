// Property queries. Every query is scoped by account: another account's rows do not exist here.
import { sql, type SqlBool } from 'kysely';
import {
  applyPage,
  type Condition,
  type Executor,
  fenced,
  keysOf,
  type Listed,
  listPlan,
  lockRows,
  type PageRequest,
  runList,
  textSearch,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
  unindexed,
} from '../../db/index.js';
import { tagNamesColumn } from '../tags/index.js';
import type { PropertyPatch, PropertyRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'client_id',
  'name',
  'address',
  'postal_code_key',
  'search_text',
  'timezone',
  'location',
  'access_notes',
  'default_tax_rate_ids',
  'archived',
  'external_id',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface PropertyFilters extends TimeBounds {
  client_id?: string | undefined;
  /** Already folded (postalCodeKey). */
  postal_code_key?: string | undefined;
  archived?: boolean | undefined;
  external_id?: string | undefined;
  q?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

export const PROPERTY_SORTS: SortFields<PropertyRow> = timestampSorts<PropertyRow>();

/** Tables whose rows may name a property, and what to call them in the 409 message. */
const PROPERTY_REFERENCES = [
  { table: 'service_requests', label: 'service request' },
  { table: 'quotes', label: 'quote' },
  { table: 'jobs', label: 'job' },
  { table: 'invoices', label: 'invoice' },
  { table: 'visits', label: 'visit' },
  { table: 'recurring_invoices', label: 'recurring invoice' },
  { table: 'credit_notes', label: 'credit note' },
] as const;

/** A new property's row; its tags are its links (modules/tags), written apart. */
export async function insertProperty(db: Executor, row: PropertyRow): Promise<void> {
  const { tags: _tags, ...columns } = row;
  await db.insertInto('properties').values(columns).execute();
}

export async function findProperty(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<PropertyRow | undefined> {
  const query = db
    .selectFrom('properties')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'properties'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (lock) await lockRows(db, 'properties', { account_id: accountId, id });
  return query.executeTakeFirst();
}

export async function updateProperty(
  db: Executor,
  accountId: string,
  id: string,
  patch: PropertyPatch,
): Promise<PropertyRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('properties')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .returning(tagNamesColumn(db, 'properties'))
    .executeTakeFirst();
}

/** A property's time zone (a visit's default zone when its job names the property). */
export async function findPropertyTimezone(
  db: Executor,
  accountId: string,
  propertyId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('properties')
    .select('timezone')
    .where('account_id', '=', accountId)
    .where('id', '=', propertyId)
    .executeTakeFirst();
  return row?.timezone;
}

export async function deleteProperty(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('properties').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The client's properties, oldest first (from properties_client_idx), locked until the transaction ends. */
export async function findPropertiesOfClient(
  db: Executor,
  accountId: string,
  clientId: string,
): Promise<PropertyRow[]> {
  const query = db
    .selectFrom('properties')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'properties'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .orderBy('id');
  await lockRows(db, 'properties', { account_id: accountId, client_id: clientId });
  return query.execute();
}

/** Counts of documents that name the property, only those above zero. */
export async function countPropertyReferences(
  db: Executor,
  accountId: string,
  propertyId: string,
): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, label } of PROPERTY_REFERENCES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .where('property_id', '=', propertyId)
      .executeTakeFirstOrThrow();
    if (Number(row.count) > 0) found.push({ label, count: Number(row.count) });
  }
  return found;
}

export async function listProperties(
  db: Executor,
  accountId: string,
  filters: PropertyFilters,
  page: PageRequest<PropertyRow>,
): Promise<Listed<PropertyRow>> {
  if (filters.q !== undefined) return { rows: await searchPropertiesQuery(db, accountId, filters, page).execute() };
  return runList(listPropertiesPlan(db, accountId, filters, page));
}

/** The conditions every list applies besides its driving index: the time bounds. */
function conditionsOf(filters: PropertyFilters): Condition[] {
  return [...timeBoundConditions(filters), ...(filters.custom ?? [])];
}

/** A list without `q`, unexecuted: the query-plan test explains each query it may run. */
export function listPropertiesPlan(
  db: Executor,
  accountId: string,
  filters: PropertyFilters,
  page: PageRequest<PropertyRow>,
) {
  const keys = keysOf({
    client_id: filters.client_id,
    postal_code_key: filters.postal_code_key,
    external_id: filters.external_id,
  });
  const among =
    filters.archived === undefined ? undefined : { column: 'archived', values: [filters.archived ? '1' : '0'] };
  return listPlan(
    db,
    {
      table: 'properties',
      columns: COLUMNS,
      scope: { account_id: accountId },
      computed: (from) => tagNamesColumn(db, from, accountId),
    },
    { keys, among, conditions: conditionsOf(filters) },
    page,
  );
}

/**
 * `q` (3 characters or more): the trigram index finds the matches (SQLite: the FTS5 table, joined to
 * properties by primary key; PostgreSQL: pg_trgm's GIN index on search_text), the other filters are checked
 * on them, and the few matches are sorted outside a fence. The account's condition is written so that no
 * index can serve it, or the planner would walk the account's rows testing each.
 */
export function searchPropertiesQuery(
  db: Executor,
  accountId: string,
  filters: PropertyFilters,
  page: PageRequest<PropertyRow>,
) {
  const q = (filters.q ?? '').toLowerCase();
  const search = textSearch(db);
  let query = search.from(db, 'properties', q).select(COLUMNS.map((column) => `properties.${column}` as const));
  for (const condition of search.scope('properties', accountId, q)) query = query.where(condition);
  const equal = keysOf({
    client_id: filters.client_id,
    postal_code_key: filters.postal_code_key,
    external_id: filters.external_id,
  });
  for (const { column, value } of equal) query = query.where(unindexed(sql<SqlBool>`${sql.ref(column)} = ${value}`));
  if (filters.archived !== undefined)
    query = query.where(unindexed(sql<SqlBool>`archived = ${filters.archived ? 1 : 0}`));
  for (const condition of conditionsOf(filters)) query = query.where(unindexed(condition.expression));
  return applyPage(
    db
      .selectFrom(fenced(db, query).as('matched'))
      .selectAll()
      .select(tagNamesColumn(db, 'matched', accountId)),
    page,
  );
}

/** Where each of the account's properties among `ids` is: its zone and location (null without one), for travel. */
export async function findPropertyPlaces(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, { timezone: string; location: { lat: number; lng: number } | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('properties')
    .select(['id', 'timezone', 'location'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        timezone: row.timezone,
        location: row.location === null ? null : (JSON.parse(row.location) as { lat: number; lng: number }),
      },
    ]),
  );
}
