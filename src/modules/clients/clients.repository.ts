// Client queries. Every query is scoped by account: another account's rows do not exist here.
import { sql, type InferResult, type Kysely, type SqlBool } from 'kysely';
import {
  type Among,
  applyPage,
  type Condition,
  conditionsOf,
  type Executor,
  fenced,
  keepsDerivedColumns,
  keysOf,
  listByShape,
  type Listed,
  listPlan,
  type ListPlan,
  lockRows,
  normalizeInstant,
  type PageRequest,
  plannedEachTime,
  prepared,
  preparedInsert,
  preparedInsertRows,
  type ShapedCondition,
  type SortFields,
  type SortKey,
  sortKeyOf,
  StatementShapes,
  type StatementValue,
  statementsAreRoundTrips,
  timeBoundConditions,
  type TextSearch,
  textSearch,
  type TimeBounds,
  timestampSorts,
  WALK_LIMIT,
} from '../../db/index.js';
import type { ClientPatch, ClientRow } from '../../db/types.js';
import { tagNamesColumn } from '../tags/index.js';

const COLUMNS = [
  'id',
  'account_id',
  'name',
  'sort_name',
  'email',
  'phone',
  'company_name',
  'address',
  'notes',
  'einvoicing',
  'external_id',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

/**
 * The columns a list without `q` or `email` reads: not the account's (every row is the account's, and the
 * presented client does not show it), and sort_name only when the list sorts by name (its cursor's value).
 * Two fewer values per row made into strings, parsed (PostgreSQL) and collected.
 */
const LISTED_COLUMNS = COLUMNS.filter((column) => column !== 'account_id' && column !== 'sort_name');
const LISTED_BY_NAME = [...LISTED_COLUMNS, 'sort_name'] as const;

/** A client as a list reads it: ListedClient's columns, sort_name only when sorted by name, and its property ids. */
export type ListedClient = Omit<ClientRow, 'account_id' | 'sort_name'> & {
  sort_name?: string | undefined;
  property_ids: string[];
};

export interface ClientFilters extends TimeBounds {
  external_id?: string | undefined;
  q?: string | undefined;
  email?: string | undefined;
  /**
   * Custom field and tag filters (modules/custom-fields/filters.ts, modules/tags), each answered by its value
   * rows' index, as conditions made from their values (a list without `q` or `email` is compiled once per shape).
   */
  shaped?: readonly ShapedCondition[] | undefined;
}

/** `sort=name` is case-insensitive: it orders by sort_name, the name in lower case, which has its own index. */
export const CLIENT_SORTS: SortFields<ClientRow> = {
  ...timestampSorts<ClientRow>(),
  name: { kind: 'text', expression: 'sort_name', value: (row) => row.sort_name },
};

/** The sort key of a name: lower case as JavaScript folds it, the same on both engines. */
export function sortName(name: string): string {
  return name.toLowerCase();
}

/** Queries this long or longer use the trigram index; shorter ones match the start of a field. */
const TRIGRAM = 3;

/**
 * How many rows of the sort order a search reads per page of a walk (its first try is NEAR_WINDOW). A common term
 * (`Cooper` in a million names) fills a page from them; a rarer one reaches its index (searchClients).
 */
const SEARCH_WINDOW = 1000;

/**
 * A search's first try, before the index (searchClients, searchDecidedQuery): a common term fills a page from
 * these nearest rows (the window stops at its page's last match), a rare one reaches its index without testing a
 * thousand rows first.
 */
const NEAR_WINDOW = 200;

/** Tables whose rows refer to a client, and what to call them in the 409 message. */
const CLIENT_REFERENCES = [
  { table: 'service_requests', label: 'service request' },
  { table: 'quotes', label: 'quote' },
  { table: 'jobs', label: 'job' },
  { table: 'invoices', label: 'invoice' },
  { table: 'visits', label: 'visit' },
  { table: 'recurring_invoices', label: 'recurring invoice' },
  { table: 'credit_notes', label: 'credit note' },
] as const;

const insertClientRow: (db: Executor, row: ClientRow) => Promise<void> = preparedInsert<'clients', ClientRow>(
  'clients',
  COLUMNS,
);

/** Several new clients' rows, every column (db/prepared-insert.ts). */
export const insertClients: (db: Executor, rows: readonly ClientRow[]) => Promise<void> = preparedInsertRows<
  'clients',
  ClientRow
>('clients', COLUMNS);

/**
 * Every column of a new client, compiled once (db/prepared-insert.ts); custom_fields `{}` unless given. Its tags
 * are its links (modules/tags), written apart.
 */
export function insertClient(
  db: Executor,
  row: Omit<ClientRow, 'custom_fields' | 'tags'> & { custom_fields?: string; tags?: string },
): Promise<void> {
  row.custom_fields ??= '{}';
  return insertClientRow(db, row as ClientRow);
}

const clientById = (db: Executor, accountId: string, id: string) =>
  db
    .selectFrom('clients')
    .select(COLUMNS)
    .select(tagNamesColumn(db, 'clients'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
/** A client by id, compiled once. */
const findClientPrepared = prepared(clientById);

/**
 * The ids of the client's properties, oldest first, as a column of the client's own row (one query for GET
 * and for a page, not two): on SQLite the row's own `property_ids` column, a JSON array that triggers on
 * properties keep (migration 20261128080100_clients_property_ids); on PostgreSQL an array subquery.
 * `from`: the client row's table.
 */
const propertyIdsColumn = (db: Executor, from = 'clients', accountId?: string) => {
  if (keepsDerivedColumns(db)) return sql<string>`${sql.ref(`${from}.property_ids`)}`.as('property_ids');
  // The account: the row's own column, or (a list, whose rows do not carry it) the account's id as a value.
  const account = accountId === undefined ? sql.ref(`${from}.account_id`) : sql`${accountId}`;
  return sql<
    string[]
  >`array(select p.id from properties p where p.account_id = ${account} and p.client_id = ${sql.ref(`${from}.id`)} order by p.created_at, p.id)`.as(
    'property_ids',
  );
};

/** A row read with propertyIdsColumn, its ids made an array in place (no copy of the row). */
function withPropertyIdArray<Row extends { property_ids?: unknown }>(row: Row): Row & { property_ids: string[] } {
  const ids = row.property_ids;
  row.property_ids = typeof ids === 'string' ? (ids === '[]' ? [] : (JSON.parse(ids) as string[])) : ids;
  return row as Row & { property_ids: string[] };
}

/**
 * SQLite: a row of a page as a list first reads it (migration 20261128110000), and on a filtered page its sort
 * column too. The client's kept copies (client-cache.ts) are looked up by these.
 */
export interface VersionedClient {
  id: string;
  version: number;
}
/** What a kept copy of a client is read from: every column, its property ids, its version. */
const RECORD_COLUMNS = [...COLUMNS, 'property_ids', 'version'];

/** SQLite: the records of these clients with their rows' versions, property ids made arrays (client-cache.ts). */
export async function findVersionedRecords(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Array<ClientRecord & { version: number }>> {
  const rows = (await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
    .selectFrom('clients')
    .select(RECORD_COLUMNS)
    .select(tagNamesColumn(db, 'clients'))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute()) as unknown as Array<ClientRecord & { version: number }>;
  for (const row of rows) withPropertyIdArray(row);
  return rows;
}

/** SQLite: GET /v1/clients/:id's row as its id and version (client-cache.ts), compiled once. */
export const findClientVersion = prepared((db: Executor, accountId: string, id: string) =>
  db
    .selectFrom('clients')
    .select(['id', sql<number>`version`.as('version')])
    .where('account_id', '=', accountId)
    .where('id', '=', id),
);

/** GET /v1/clients/:id, the hottest route: the row and its property ids, compiled once. */
const findClientRecordPrepared = prepared((db: Executor, accountId: string, id: string) =>
  clientById(db, accountId, id).select(propertyIdsColumn(db)),
);

/** The client with the ids of its properties, oldest first. */
export async function findClientRecord(db: Executor, accountId: string, id: string): Promise<ClientRecord | undefined> {
  const row = (await findClientRecordPrepared(db, accountId, id))[0];
  return row && withPropertyIdArray(row as ClientRow & { property_ids: unknown });
}

export async function findClient(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<ClientRow | undefined> {
  if (lock) {
    await lockRows(db, 'clients', { account_id: accountId, id });
    return clientById(db, accountId, id).executeTakeFirst();
  }
  return (await findClientPrepared(db, accountId, id))[0];
}

export async function updateClient(
  db: Executor,
  accountId: string,
  id: string,
  patch: ClientPatch,
): Promise<ClientRow | undefined> {
  const { tags: _tags, ...columns } = patch;
  return db
    .updateTable('clients')
    .set(columns)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .returning(tagNamesColumn(db, 'clients'))
    .executeTakeFirst();
}

export async function deleteClient(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('clients').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Counts of rows in other tables that refer to the client, only those above zero. */
export async function countClientReferences(
  db: Executor,
  accountId: string,
  clientId: string,
): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, label } of CLIENT_REFERENCES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    if (Number(row.count) > 0) found.push({ label, count: Number(row.count) });
  }
  return found;
}

/** The ids of each client's properties, oldest first (from properties_client_idx). */
export async function propertyIdsOfClients(
  db: Executor,
  accountId: string,
  clientIds: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(clientIds.map((id) => [id, []]));
  if (clientIds.length === 0) return found;
  const rows = await db
    .selectFrom('properties')
    .select(['id', 'client_id'])
    .where('account_id', '=', accountId)
    .where('client_id', 'in', clientIds)
    .orderBy('client_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) found.get(row.client_id)?.push(row.id);
  return found;
}

/**
 * A shorter `q`: the start of name, e-mail, company or phone, as one index range each (a trigram needs
 * three characters). Each branch carries the account, so each is a range of its own index.
 */
function startsWith(accountId: string, prefix: string) {
  const end = `${prefix}\uffff`;
  const range = (column: string) =>
    sql<SqlBool>`(account_id = ${accountId} and ${sql.raw(column)} >= ${prefix} and ${sql.raw(column)} < ${end})`;
  return sql<SqlBool>`(${range('sort_name')} or ${range('lower(email)')} or ${range('lower(company_name)')} or ${range('phone')})`;
}

/**
 * SQLite: a page of a list without `q` or `email` as its rows' ids and versions (migration
 * 20261128110000), compiled once per shape; listClients finds each row's record by them.
 */
const listClientVersionsByShape = listByShape<VersionedClient>(
  (db, values, page, custom) =>
    clientListPlan(
      db,
      values.account_id!,
      { ...values, custom },
      page as unknown as PageRequest<ClientRow>,
      'versions',
    ) as unknown as ListPlan<VersionedClient>,
);

/** A list without `q` or `email`, compiled once per shape (db/list-shapes.ts). */
const listClientsByShape = listByShape<ListedClient>(
  // Its rows carry property_ids as read (JSON text on SQLite), made an array by listClients.
  (db, values, page, custom) =>
    clientListPlan(
      db,
      values.account_id!,
      { ...values, custom },
      page as unknown as PageRequest<ClientRow>,
    ) as unknown as ListPlan<ListedClient>,
);

/** The clients with the ids of their properties, oldest first. */
export type ClientRecord = ClientRow & { property_ids: string[] };

/** A compiled shape binds each value as given: the time bounds go in as the instants the plan makes of them. */
const listValues = (accountId: string, filters: ClientFilters) => ({
  account_id: accountId,
  created_after: normalizeInstant(filters.created_after),
  created_before: normalizeInstant(filters.created_before),
  updated_after: normalizeInstant(filters.updated_after),
  external_id: filters.external_id,
});

/**
 * SQLite: a page of a list without `q` or `email` as its rows' ids and versions (client-cache.ts), custom field
 * and tag filters among them: the same plan as the rows' (the same indexes), reading three columns a row.
 */
export function listClientVersions(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
): Promise<Listed<VersionedClient>> {
  return listClientVersionsByShape(
    db,
    listValues(accountId, filters),
    page as unknown as PageRequest<VersionedClient>,
    filters.shaped,
  );
}

/** A page of clients read whole (client-cache.ts reads through its kept copies first where it keeps them). */
export async function listClients(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
): Promise<Listed<ListedClient>> {
  if (filters.q === undefined && filters.email === undefined) {
    const values = listValues(accountId, filters);
    const listed = await listClientsByShape(db, values, page as unknown as PageRequest<ListedClient>, filters.shaped);
    for (const row of listed.rows) withPropertyIdArray(row);
    return listed;
  }
  const searched = await searchClients(db, accountId, filters, page);
  return { rows: searched.rows.map(withPropertyIdArray), resumeAfter: searched.resumeAfter };
}

/**
 * A search's rows with their property ids, read in the same statement (not a second one for the page's ids):
 * SQLite's kept column read with the row's others, PostgreSQL's subquery added for the page's rows alone.
 */
const keptPropertyIds = (db: Executor) =>
  keepsDerivedColumns(db) ? [sql<string>`clients.property_ids`.as('property_ids')] : [];
const searchedComputed = (db: Executor, from: string, accountId: string) =>
  keepsDerivedColumns(db)
    ? [tagNamesColumn(db, from, accountId)]
    : [tagNamesColumn(db, from, accountId), propertyIdsColumn(db, from, accountId)];

/** A list with `q` or `email`: the window of the nearest rows first, else the search's own index. */
async function searchClients(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
): Promise<Listed<ClientRow & { property_ids: string | string[] }>> {
  // A search of the usual form has its statements compiled once (searchShape); any other is built here.
  const shape = searchShape(db, accountId, filters, page);
  // PostgreSQL: the window, the count and what the count decides in one statement (one round trip).
  const found = statementsAreRoundTrips(db)
    ? shape
      ? await shape.decided()
      : (await searchDecidedQuery(db, accountId, filters, page)?.execute(db))?.rows
    : undefined;
  if (found) {
    const { count, bound_value, bound_id } = found[0]!;
    const rows = found.flatMap(({ count: _, bound_value: __, bound_id: ___, ...row }) =>
      row.id === null ? [] : [row as typeof row & { id: string }],
    );
    if (count !== null && count > WALK_LIMIT && bound_id !== null)
      return { rows, resumeAfter: { value: bound_value!, id: bound_id } };
    return { rows };
  }
  // SQLite, and a search with no trigram (shorter than three characters): its statements one by one. First the
  // matches among the NEAR_WINDOW nearest rows: a full page from them is the page.
  const near = shape ? undefined : searchWindowQuery(db, accountId, filters, page, true, NEAR_WINDOW);
  if (!shape && !near) return { rows: await listClientsQuery(db, accountId, filters, page).execute() };
  const nearRows = shape ? await shape.near() : await near!.matches.execute();
  if (nearRows.length > page.limit) return { rows: nearRows };
  // Not a page from the nearest rows. The index's matches (SQLite: the term's, read once), to WALK_LIMIT + 1: a
  // few are read by primary key and sorted at once; more are walked as the other lists do, a window of
  // SEARCH_WINDOW rows per page, the page resuming after the window.
  const hits = shape ? undefined : searchRowsQuery(db, filters);
  if (!shape && !hits) return { rows: await listClientsQuery(db, accountId, filters, page).execute() };
  const { ids } = shape ? await shape.ids() : (await hits!.execute())[0]!;
  if (ids?.length === 0) return { rows: [] };
  if (ids && ids.length <= WALK_LIMIT)
    return {
      rows: shape ? await shape.byKey(ids) : await listClientsQuery(db, accountId, filters, page, true, ids).execute(),
    };
  const window = searchWindowQuery(db, accountId, filters, page)!;
  return { rows: await window.matches.execute(), resumeAfter: await window.bound.executeTakeFirst() };
}

/** A search's statements, each compiled once per shape (searchShape). */
const searchStatements = new StatementShapes();
const TIME_BOUNDS = ['created_after', 'created_before', 'updated_after'] as const;
const SEARCH_STAND_INS = StatementShapes.standIns(['account', 'q', ...TIME_BOUNDS, 'afterValue', 'afterId', 'id']);
/** Each engine's stand-ins, with what its text search makes of the stand-in `q` (searchShape). */
const searchStandIns = new Map<TextSearch, { key: string; values: Record<string, StatementValue> }>();

/**
 * A search's statements, each compiled once per shape (db/list-shapes.ts, StatementShapes) instead of built by
 * Kysely for every request (about 0.6 ms of a search's JavaScript at a million clients, bench/README.md): on
 * PostgreSQL its one statement (searchDecidedQuery); on SQLite its first try, its ids' read and its rows by key
 * (searchClients). The shape: the sort, its direction, the cursor or none, the page size, the time bounds set, and
 * what the text search makes of `q` (its key, the same as the stand-in's). Undefined for any other search (an
 * e-mail, an external id, custom field or tag filters, a short or, on SQLite, non-ASCII `q`), built per request.
 */
function searchShape(db: Executor, accountId: string, filters: ClientFilters, page: PageRequest<ClientRow>) {
  const { q } = filters;
  if (
    q === undefined ||
    [...q].length < TRIGRAM ||
    filters.email !== undefined ||
    filters.external_id !== undefined ||
    filters.shaped !== undefined
  )
    return undefined;
  if (page.after !== undefined && typeof page.after.value !== 'string') return undefined;
  const search = textSearch(db);
  const made = search.valuesOf(q);
  let standIn = searchStandIns.get(search);
  if (!standIn) {
    const { key, values } = search.valuesOf(SEARCH_STAND_INS.q);
    standIn = { key, values: { ...SEARCH_STAND_INS, ...values } };
    searchStandIns.set(search, standIn);
  }
  if (made.key !== standIn.key) return undefined;
  const standIns = standIn.values;
  const bounds = TIME_BOUNDS.filter((name) => filters[name] !== undefined);
  const key = `${page.column} ${page.descending} ${page.after !== undefined} ${page.limit} ${bounds.join(',')} ${made.key}`;
  const values: Record<string, StatementValue> = { account: accountId, q, afterValue: '', afterId: '', id: '' };
  for (const name of bounds) values[name] = normalizeInstant(filters[name]!);
  if (page.after) Object.assign(values, { afterValue: page.after.value, afterId: page.after.id });
  Object.assign(values, made.values);
  // The request's account, filters and page, made of a set of values (the stand-ins, or the request's own).
  const of = (from: Record<string, StatementValue>) => ({
    account: from.account as string,
    filters: { q: from.q, ...Object.fromEntries(bounds.map((name) => [name, from[name]])) } as ClientFilters,
    page: page.after ? { ...page, after: { value: from.afterValue as string, id: from.afterId as string } } : page,
  });
  return {
    decided: () =>
      searchStatements.rows(db, `decided ${key}`, standIns, values, (from) => {
        const at = of(from);
        const statement = searchDecidedQuery(db, at.account, at.filters, at.page)!;
        return { compile: () => statement.compile(db) };
      }),
    near: () =>
      searchStatements.rows(db, `near ${key}`, standIns, values, (from) => {
        const at = of(from);
        return searchWindowQuery(db, at.account, at.filters, at.page, true, NEAR_WINDOW)!.matches;
      }),
    ids: async () => {
      const [row] = await searchStatements.rows(
        db,
        `ids ${key}`,
        standIns,
        values,
        (from) => searchRowsQuery(db, of(from).filters)!,
      );
      // SQLite answers the ids as their JSON text (textSearch's rowsAtMost, compiled).
      const ids = row!.ids as unknown as string;
      return { ids: JSON.parse(ids) as string[] };
    },
    byKey: (ids: readonly string[]) => {
      const keyed = { ...standIns, id: JSON.stringify([standIns.id]) };
      return searchStatements.rows(db, `by key ${key}`, keyed, { ...values, id: JSON.stringify(ids) }, (from) => {
        const at = of(from);
        return listClientsQuery(db, at.account, at.filters, at.page, true, JSON.parse(from.id as string) as string[]);
      });
    },
  };
}

/**
 * Where each statement is a round trip (PostgreSQL), a search's whole decision in one statement: the matches
 * among the NEAR_WINDOW nearest rows (searchWindowQuery); when they are not a full page, the candidates' ids
 * (searchRowsQuery: the rows of a word of `q` estimated rare, to WALK_LIMIT + 1; null when every word is estimated
 * common) and their count (WALK_LIMIT + 1 for null); then what the count decides: WALK_LIMIT or fewer, the
 * search's rows read whole and sorted (listClientsQuery, those ids' rows by primary key); more, the matches of the
 * whole window (SEARCH_WINDOW rows, as on SQLite) with its bound, where the walk resumes. Each part is read only
 * when what comes before it asks for it (a `case`, and one-time filters on the count), so a full first try never
 * reads the ids. Every row carries the count (null when the first try was a full page) and the bound; the
 * search's columns are null on the one row of a search that found none. Undefined where the search reads no ids
 * (short `q`, an e-mail), or on SQLite, whose statements run in the process.
 */
export function searchDecidedQuery(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
) {
  if (!statementsAreRoundTrips(db)) return undefined;
  const hits = searchRowsQuery(db, filters);
  const window = searchWindowQuery(db, accountId, filters, page, false);
  const near = searchWindowQuery(db, accountId, filters, page, false, NEAR_WINDOW);
  if (!hits || !window || !near) return undefined;
  // The search reads the rows of the ids read (never fewer than its matches) by primary key.
  const search = listClientsQuery(db, accountId, filters, page, false, sql<string[]>`(select ids from hits)::uuid[]`);
  const limit = sql.lit(page.limit);
  const walked = sql`(select count from decided) > ${sql.lit(WALK_LIMIT)}`;
  // The page's order, written out for the rows kept (each part is in it already; nothing else promises it).
  // Every client sort is a column of the row (CLIENT_SORTS: sort=name is `sort_name`), so `found` has it.
  const direction = sql.raw(page.descending ? 'desc' : 'asc');
  const ordered = sql`order by ${sql.ref(`found.${page.field.expression ?? page.column}`)} ${direction}, found.id ${direction}`;
  // A search row's columns, null (the id too) on the one row of a search that found none.
  type Row = Omit<InferResult<ReturnType<typeof listClientsQuery>>[number], 'id'> & { id: string | null };
  // Kept prepared: its count's words are a parameter, each word's read planned for that word inside
  // `bms_search_rows` (searchRowsQuery), so one plan serves every phrase (planning the whole statement took
  // 0.6–1.6 ms a search at a million clients). The first try's rows, the window's and the search's have the same
  // columns, each part in the page's order: one of the three is read. Their tags and property ids are read once,
  // for the rows kept (in each part, their subqueries doubled the statement's planning: 0.45 → 0.87 ms).
  // With a time bound (created_after, …), planned for its values each time: a generic plan cannot tell a narrow
  // range (read it and sort) from a wide one (walk the sort's index), and walking for a narrow one tests the
  // whole account.
  const statement = sql<
    Row & { count: number | null; bound_value: SortKey['value'] | null; bound_id: string | null }
  >`with near as materialized (${near.matches}), win as materialized (${window.matches}), hits as materialized (${hits}), decided as materialized (select case when (select count(*) from near) > ${limit} then null else coalesce((select cardinality(ids) from hits), ${sql.lit(WALK_LIMIT + 1)}) end as count) select decided.count, bound.value as bound_value, bound.id as bound_id, found.*, ${sql.join(searchedComputed(db, 'found', accountId))} from decided left join (select * from (${window.bound}) bound where ${walked}) bound on true left join (select * from near where (select count from decided) is null union all select * from win where ${walked} union all select * from (${search}) matched where not ${walked}) found on true ${ordered}`;
  return timeBoundConditions(filters).length > 0 ? plannedEachTime(statement) : statement;
}

/** The plan of a list without `q` or `email`: the time bounds, as every other list has them, and `external_id`. */
export function clientListPlan(
  db: Executor,
  accountId: string,
  filters: TimeBounds & { external_id?: string | undefined; custom?: Condition[] | undefined },
  page: PageRequest<ClientRow>,
  read: 'rows' | 'versions' = 'rows',
) {
  const columns = page.column === 'name' ? LISTED_BY_NAME : LISTED_COLUMNS;
  // SQLite: the property ids are a column of the row, read with the others; PostgreSQL: a subquery per row.
  const kept = keepsDerivedColumns(db);
  const scope = { account_id: accountId };
  const conditions = [...timeBoundConditions(filters), ...(filters.custom ?? [])];
  // A filtered page sorts the rows it matched by the sort column, so it reads that too (an unfiltered one
  // sorts the table's own rows: 26 fewer strings).
  const filtered = filters.external_id !== undefined || conditions.length > 0;
  const sortColumn = page.column === 'name' ? 'sort_name' : page.column;
  return listPlan(
    db,
    read === 'versions'
      ? { table: 'clients', columns: filtered ? ['id', 'version', sortColumn] : ['id', 'version'], scope }
      : {
          table: 'clients',
          columns: kept ? [...columns, 'property_ids'] : columns,
          scope,
          computed: kept
            ? (from) => tagNamesColumn(db, from, accountId)
            : (from) => [propertyIdsColumn(db, from, accountId), tagNamesColumn(db, from, accountId)],
        },
    { keys: keysOf({ external_id: filters.external_id }), conditions },
    page,
  );
}

/**
 * The ids of the clients (of any account) a search of `q` reads from the trigram index (textSearch's rowsAtMost),
 * to WALK_LIMIT + 1 at most: a rare term's few matches are read by primary key and sorted; a commoner one is
 * walked. Undefined when the list does not search the trigram index (short or no `q`, an e-mail).
 */
export function searchRowsQuery(db: Executor, filters: ClientFilters) {
  const { q, email } = filters;
  if (q === undefined || email !== undefined || [...q].length < TRIGRAM) return undefined;
  return textSearch(db).rowsAtMost(db, 'clients', q, WALK_LIMIT + 1);
}

/**
 * A search's first try: the matches among the next SEARCH_WINDOW (or `size`) rows in sort order, and the last
 * of those rows (`bound`; none when fewer remain). A full page from it is the right page (the window is the start of
 * the order). Undefined when the search has no such try: with an e-mail (its index is exact), or a non-ASCII
 * term on SQLite, whose LIKE folds only ASCII case while the FTS5 index folds all of Unicode, so the two
 * could disagree. `computed: false`: the rows without their tags (and, on PostgreSQL, property ids), for a
 * statement that reads those once for the rows it keeps (searchDecidedQuery).
 */
export function searchWindowQuery(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
  computed = true,
  size = SEARCH_WINDOW,
) {
  const { q, email } = filters;
  if (q === undefined || email !== undefined || filters.external_id !== undefined || filters.shaped !== undefined)
    return undefined;
  const trigram = [...q].length >= TRIGRAM;
  const holds = trigram ? textSearch(db).holds('nearest', q) : undefined;
  if (trigram && holds === undefined) return undefined;
  const base = db
    .selectFrom('clients')
    .select(COLUMNS)
    .select(keptPropertyIds(db))
    .where('account_id', '=', accountId)
    .where((eb) => eb.and(timeBoundConditions(filters).map((condition) => condition.expression)));
  const nearest = applyPage(base, { ...page, limit: size - 1 });
  const matches = holds ?? startsWith(accountId, q.toLowerCase());
  // The offset written into the statement, as its limits are (applyPage): with a parameter there, PostgreSQL's
  // generic plan expects a tenth of the table past it and costs more than any plan for the values, so it planned
  // the search statement (searchDecidedQuery) for each search's values: 1.2–1.6 ms a search at a million clients.
  const bound = applyPage(
    base.clearSelect().select([sql<string | number>`${sortKeyOf(page)}`.as('value'), sql.ref<string>('id').as('id')]),
    { ...page, limit: 0 },
  ).offset(sql.lit(size - 1));
  const found = db
    .selectFrom(nearest.as('nearest'))
    .selectAll()
    .select(computed ? searchedComputed(db, 'nearest', accountId) : [])
    .where(matches);
  return { matches: applyPage(found, page), bound };
}

/**
 * A search's or an e-mail's query, unexecuted: the query-plan test explains exactly what the list runs.
 * `computed: false` as searchWindowQuery's. `among`: the search reads only these rows, by primary key (the ids
 * searchRowsQuery read, which hold every match: searchClients, searchDecidedQuery), not the trigram index.
 */
export function listClientsQuery(
  db: Executor,
  accountId: string,
  filters: ClientFilters,
  page: PageRequest<ClientRow>,
  computed = true,
  among?: Among,
) {
  const { q, email } = filters;
  const trigram = q !== undefined && [...q].length >= TRIGRAM;
  const search = trigram ? textSearch(db) : undefined;
  let query = (search ? search.from(db, 'clients', q!, among) : db.selectFrom('clients'))
    .select(COLUMNS)
    .select(keptPropertyIds(db))
    .where((eb) => eb.and(timeBoundConditions(filters).map((condition) => condition.expression)));
  if (search) {
    // The trigram index drives (or `among`'s ids): the account's condition is written so that no index can serve
    // it (SQLite's unary +, PostgreSQL's IS TRUE), or the planner walks the account's rows testing each.
    for (const condition of search.scope('clients', accountId, q!)) query = query.where(condition);
  } else if (q !== undefined) {
    query = query.where(startsWith(accountId, q.toLowerCase()));
  } else {
    query = query.where('account_id', '=', accountId);
  }
  if (email !== undefined) query = query.where(sql<SqlBool>`lower(email) = ${email.toLowerCase()}`);
  if (filters.external_id !== undefined) query = query.where('external_id', '=', filters.external_id);
  for (const condition of conditionsOf(db, filters.shaped ?? [])) query = query.where(condition.expression);
  // A search or an e-mail: its rows come from its own index first, then are sorted. Left to itself the
  // planner may walk the sort's index through the whole account instead, testing each row (330 ms at a
  // million clients); the fence keeps the two apart.
  return applyPage(
    db
      .selectFrom(fenced(db, query).as('matched'))
      .selectAll()
      .select(computed ? searchedComputed(db, 'matched', accountId) : []),
    page,
  );
}
