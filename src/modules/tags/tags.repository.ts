// Tag queries: the tags, their links to objects, and the objects' `tags` JSON; every one scoped by account.
import { sql } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { TagRow } from '../../db/types.js';
import type { TaggedKind } from './tags.schemas.js';

export const COLUMNS = [
  'id',
  'account_id',
  'name',
  'name_key',
  'client_count',
  'property_count',
  'quote_count',
  'job_count',
  'invoice_count',
  'visit_count',
  'created_at',
  'updated_at',
] as const;

/** The table of each tagged kind. */
export const TAGGED_TABLES = {
  client: 'clients',
  property: 'properties',
  quote: 'quotes',
  job: 'jobs',
  invoice: 'invoices',
  visit: 'visits',
} as const satisfies Record<TaggedKind, string>;

/** The count column of each kind. */
const COUNT_OF = {
  client: 'client_count',
  property: 'property_count',
  quote: 'quote_count',
  job: 'job_count',
  invoice: 'invoice_count',
  visit: 'visit_count',
} as const satisfies Record<TaggedKind, string>;

export const TAG_SORTS: SortFields<TagRow> = timestampSorts<TagRow>();

/** The account's tags of these lower-case names (tags_name_key_idx). */
export async function findTagsByKeys(db: Executor, accountId: string, keys: readonly string[]): Promise<TagRow[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('tags')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('name_key', 'in', [...keys])
    .execute();
}

/** Inserts the tags a concurrent writer did not insert first (the unique key decides). */
export async function insertTags(db: Executor, rows: readonly TagRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('tags')
    .values([...rows])
    .onConflict((conflict) => conflict.columns(['account_id', 'name_key']).doNothing())
    .execute();
}

export async function countTags(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findTag(db: Executor, accountId: string, id: string, lock = false): Promise<TagRow | undefined> {
  const query = db.selectFrom('tags').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateTag(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<TagRow>,
): Promise<TagRow | undefined> {
  return db
    .updateTable('tags')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function deleteTagRow(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('tags').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Moves the count of `kind` on these tags by `delta` (one row each: a count is read from its tag's row). */
export async function moveCounts(
  db: Executor,
  accountId: string,
  tagIds: readonly string[],
  kind: TaggedKind,
  delta: number,
): Promise<void> {
  if (tagIds.length === 0) return;
  const column = sql.ref(COUNT_OF[kind]);
  await sql`update tags set ${column} = ${column} + ${delta}
    where account_id = ${accountId} and id in (${sql.join([...tagIds])})`.execute(db);
}

export async function insertLinks(
  db: Executor,
  accountId: string,
  kind: TaggedKind,
  objectId: string,
  tagIds: readonly string[],
): Promise<void> {
  if (tagIds.length === 0) return;
  await db
    .insertInto('tag_links')
    .values(tagIds.map((tagId) => ({ account_id: accountId, tag_id: tagId, resource: kind, object_id: objectId })))
    .execute();
}

export async function deleteLinks(
  db: Executor,
  accountId: string,
  objectId: string,
  tagIds: readonly string[],
): Promise<void> {
  if (tagIds.length === 0) return;
  await db
    .deleteFrom('tag_links')
    .where('account_id', '=', accountId)
    .where('object_id', '=', objectId)
    .where('tag_id', 'in', [...tagIds])
    .execute();
}

/** Every tag of an object, taken with it (its delete): answers the tags it held. */
export async function deleteObjectLinks(db: Executor, accountId: string, objectId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('tag_links')
    .where('account_id', '=', accountId)
    .where('object_id', '=', objectId)
    .returning('tag_id')
    .execute();
  return rows.map((row) => row.tag_id);
}

/** The objects holding a tag, of every kind (tag_links_tag_idx). */
export async function linksOfTag(
  db: Executor,
  accountId: string,
  tagId: string,
): Promise<Array<{ resource: string; object_id: string }>> {
  return db
    .selectFrom('tag_links')
    .select(['resource', 'object_id'])
    .where('account_id', '=', accountId)
    .where('tag_id', '=', tagId)
    .execute();
}

export async function deleteTagLinks(db: Executor, accountId: string, tagId: string): Promise<void> {
  await db.deleteFrom('tag_links').where('account_id', '=', accountId).where('tag_id', '=', tagId).execute();
}

/** Moves one object's link from one tag to another. */
export async function moveLink(
  db: Executor,
  accountId: string,
  objectId: string,
  from: string,
  to: string,
): Promise<void> {
  await db
    .updateTable('tag_links')
    .set({ tag_id: to })
    .where('account_id', '=', accountId)
    .where('object_id', '=', objectId)
    .where('tag_id', '=', from)
    .execute();
}

/** An object's `tags` JSON, its row locked until the transaction ends; undefined when there is none. */
export async function lockObjectTags(
  db: Executor,
  kind: TaggedKind,
  accountId: string,
  id: string,
): Promise<string | undefined> {
  const table = TAGGED_TABLES[kind];
  const query = db
    .selectFrom(table)
    .select(sql<string>`tags`.as('tags'))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  const row = await lockedIf(db, query, true).executeTakeFirst();
  return row?.tags;
}

/** Sets an object's `tags` JSON, and its updated_at when given (a rename of a tag leaves it). */
export async function setObjectTags(
  db: Executor,
  kind: TaggedKind,
  accountId: string,
  id: string,
  json: string,
  updatedAt?: string,
): Promise<void> {
  const table = TAGGED_TABLES[kind];
  const stamp = updatedAt === undefined ? sql`` : sql`, updated_at = ${updatedAt}`;
  await sql`update ${sql.table(table)} set tags = ${json}${stamp} where account_id = ${accountId} and id = ${id}`.execute(
    db,
  );
}

/** The `tags` JSON of these objects of a kind. */
export async function objectsTags(
  db: Executor,
  kind: TaggedKind,
  accountId: string,
  ids: readonly string[],
): Promise<Array<{ id: string; tags: string }>> {
  if (ids.length === 0) return [];
  const table = TAGGED_TABLES[kind];
  const rows = await sql<{ id: string; tags: string }>`select id, tags from ${sql.table(table)}
    where account_id = ${accountId} and id in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(db);
  return rows.rows;
}

export async function listTags(
  db: Executor,
  accountId: string,
  filters: TimeBounds & { q?: string | undefined },
  page: PageRequest<TagRow>,
): Promise<Listed<TagRow>> {
  return runList(listTagsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listTagsPlan(
  db: Executor,
  accountId: string,
  filters: TimeBounds & { q?: string | undefined },
  page: PageRequest<TagRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.q !== undefined) {
    const prefix = filters.q.toLowerCase();
    conditions.push({
      column: 'name_key',
      expression: sql`name_key >= ${prefix} and name_key < ${`${prefix}\u{10ffff}`}`,
    });
  }
  return listPlan(
    db,
    { table: 'tags', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({}), conditions },
    page,
  );
}
