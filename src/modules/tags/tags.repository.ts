// Tag queries: the tags, their links to objects (each object's list, in order), and the names an object's row
// is read with; every one scoped by account.
import { type Kysely, sql } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  lockRows,
  orderedJsonArray,
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

/** Links an object to these tags, at these positions in its list (its answer's order). */
export async function insertLinks(
  db: Executor,
  accountId: string,
  kind: TaggedKind,
  object: { id: string; created_at: string },
  links: ReadonlyArray<{ tagId: string; position: number }>,
): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('tag_links')
    .values(
      links.map(({ tagId, position }) => ({
        account_id: accountId,
        tag_id: tagId,
        resource: kind,
        object_id: object.id,
        position,
        object_created_at: object.created_at,
      })),
    )
    .execute();
}

/** Every tag of an object, taken (its delete, or its list written anew): answers the tags it held. */
export async function deleteObjectLinks(db: Executor, accountId: string, objectId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('tag_links')
    .where('account_id', '=', accountId)
    .where('object_id', '=', objectId)
    .returning('tag_id')
    .execute();
  return rows.map((row) => row.tag_id);
}

export async function deleteTagLinks(db: Executor, accountId: string, tagId: string): Promise<void> {
  await db.deleteFrom('tag_links').where('account_id', '=', accountId).where('tag_id', '=', tagId).execute();
}

/**
 * Merges tag `from` into tag `to` (its rename onto `to`'s name): an object holding both keeps its link to `to`,
 * the others' links move to `to` in place (their positions kept), and `to`'s counts gain the moved links.
 */
export async function mergeLinks(db: Executor, accountId: string, from: string, to: string): Promise<void> {
  await sql`delete from tag_links where account_id = ${accountId} and tag_id = ${from}
    and object_id in (select object_id from tag_links where account_id = ${accountId} and tag_id = ${to})`.execute(db);
  const moved = await db
    .selectFrom('tag_links')
    .select(['resource', (eb) => eb.fn.countAll<number>().as('count')])
    .where('account_id', '=', accountId)
    .where('tag_id', '=', from)
    .groupBy('resource')
    .execute();
  for (const { resource, count } of moved) await moveCounts(db, accountId, [to], resource as TaggedKind, Number(count));
  await db
    .updateTable('tag_links')
    .set({ tag_id: to })
    .where('account_id', '=', accountId)
    .where('tag_id', '=', from)
    .execute();
}

/**
 * An object's tag names in their order, as its `tags` column (JSON text), read with its row: a correlated
 * subquery on tag_links_object_idx (account, object, position), each name from its tag's row, so that a rename
 * changes one row. `from`: the row's table (or alias); `accountId`: the account as a value, for rows read
 * without their account column (a list's), else that column.
 */
export function tagNamesColumn(db: Executor, from: string, accountId?: string) {
  const account = accountId === undefined ? sql.ref(`${from}.account_id`) : sql`${accountId}`;
  return orderedJsonArray(
    db,
    sql`t.name`,
    sql`l.position`,
    sql`from tag_links l join tags t on t.id = l.tag_id
      where l.account_id = ${account} and l.object_id = ${sql.ref(`${from}.id`)}`,
  ).as('tags');
}

/**
 * An object's tag names (JSON text) and its created_at (what its links carry), its row locked until the
 * transaction ends; undefined when there is none.
 */
export async function lockObjectTags(
  db: Executor,
  kind: TaggedKind,
  accountId: string,
  id: string,
): Promise<{ tags: string; created_at: string } | undefined> {
  const table = TAGGED_TABLES[kind];
  // Locked first, read after: the names come from other tables (lockRows says why).
  await lockRows(db, table, { account_id: accountId, id });
  return (db as unknown as Kysely<Record<string, { id: string; account_id: string; created_at: string }>>)
    .selectFrom(table)
    .select(['created_at', tagNamesColumn(db, table)])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Moves an object's updated_at (its tags changed through the add and remove endpoints). */
export async function touchObject(
  db: Executor,
  kind: TaggedKind,
  accountId: string,
  id: string,
  updatedAt: string,
): Promise<void> {
  await sql`update ${sql.table(TAGGED_TABLES[kind])} set updated_at = ${updatedAt}
    where account_id = ${accountId} and id = ${id}`.execute(db);
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
