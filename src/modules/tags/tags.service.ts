// Tags (docs/api-contract.md §27): the one writer of an object's tags (writeTags: a create's or a PUT's list, and
// the add and remove endpoints), the list filters (tagConditions), and the account's tags (`/v1/tags`): made by
// their first use, renamed (or merged) and deleted everywhere at once. Case-insensitive: a name's lower case is its
// key, and the first spelling stays. An object's tags are rows of `tag_links` (tag, kind, object, position), by the
// tag's id: an object's row is read with its tags' names (tagNamesColumn), the filters and counts read the links,
// and a rename changes the tag's row alone.
import { type Expression, sql, type SqlBool } from 'kysely';
import { isUuid, newId } from '../../core/deps.js';
import { conflict, fieldError, notFound, type Precondition } from '../../core/errors.js';
import {
  type Condition,
  conditionsOf,
  type Executor,
  fenced,
  fromJson,
  type Page,
  pageRequest,
  type ShapedCondition,
  toPage,
  WALK_LIMIT,
} from '../../db/index.js';
import type { TagRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { noteFeedChange, recordChange, recordEvent } from '../events/index.js';
import { requireRow } from '../shared/index.js';
import * as repository from './tags.repository.js';
import { type ListTagsInput, MAX_FILTER_TAGS, MAX_TAGS, type Tag, type TaggedKind } from './tags.schemas.js';

/** The most tags an account holds (docs/api-contract.md §32). */
export const MAX_ACCOUNT_TAGS = 5000;

const keyOf = (name: string) => name.toLowerCase();

export function presentTag(row: TagRow): Tag {
  return {
    id: row.id,
    object: 'tag',
    name: row.name,
    counts: {
      client: Number(row.client_count),
      property: Number(row.property_count),
      quote: Number(row.quote_count),
      job: Number(row.job_count),
      invoice: Number(row.invoice_count),
      visit: Number(row.visit_count),
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An object's stored tags (its row's JSON text). */
export function storedTags(json: string | null | undefined): string[] {
  return json === null || json === undefined || json === '[]' ? [] : fromJson<string[]>(json);
}

/** The names once each, case-insensitively, in their order (the first spelling of each). */
function distinct(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const key = keyOf(name);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The account's tags of these names, made when missing (a concurrent writer's tag is taken as it is). */
async function tagsNamed(tx: Context, names: readonly string[], field: string): Promise<Map<string, TagRow>> {
  const keys = names.map(keyOf);
  const found = new Map((await repository.findTagsByKeys(tx.db, tx.accountId, keys)).map((row) => [row.name_key, row]));
  const missing = names.filter((name) => !found.has(keyOf(name)));
  if (missing.length === 0) return found;
  if ((await repository.countTags(tx.db, tx.accountId)) + missing.length > MAX_ACCOUNT_TAGS)
    throw fieldError(field, `would make the account hold more than ${MAX_ACCOUNT_TAGS} tags; delete some first`);
  const now = tx.clock.now().toISOString();
  await repository.insertTags(
    tx.db,
    missing.map((name) => ({
      id: newId(),
      account_id: tx.accountId,
      name,
      name_key: keyOf(name),
      client_count: 0,
      property_count: 0,
      quote_count: 0,
      job_count: 0,
      invoice_count: 0,
      visit_count: 0,
      created_at: now,
      updated_at: now,
    })),
  );
  for (const row of await repository.findTagsByKeys(tx.db, tx.accountId, missing.map(keyOf))) {
    found.set(row.name_key, row);
    // A tag made by its first use has no event (§27 names tag.renamed and tag.deleted): the feed hears of it here.
    await noteFeedChange(tx.db, tx.accountId, 'tag', row.id, false, now);
  }
  return found;
}

/**
 * Writes an object's tags in the caller's transaction: `next` replaces `stored` (the names its row was read with;
 * undefined: the body names no tags, nothing changes). A changed list is written anew, in its order, and the
 * counts of the tags gained or lost move. Answers the names' JSON (the row's `tags` as read after the write), or
 * undefined when nothing changed.
 */
export async function writeTags(
  tx: Context,
  kind: TaggedKind,
  object: { id: string; created_at: string },
  next: readonly string[] | undefined,
  stored: string | null | undefined,
  field = 'tags',
): Promise<string | undefined> {
  if (next === undefined) return undefined;
  const wanted = distinct(next);
  if (wanted.length > MAX_TAGS) throw fieldError(field, `must hold at most ${MAX_TAGS} tags`);
  const current = storedTags(stored);
  const tags = await tagsNamed(tx, wanted, field);
  const names = wanted.map((name) => tags.get(keyOf(name))!.name);
  if (JSON.stringify(names) === JSON.stringify(current)) return undefined;
  // The links as they stand (a new object has none), not as `stored` says: they decide which counts move.
  const held = new Set(stored === undefined ? [] : await repository.deleteObjectLinks(tx.db, tx.accountId, object.id));
  const ids = names.map((name) => tags.get(keyOf(name))!.id);
  const kept = new Set(ids);
  await repository.moveCounts(
    tx.db,
    tx.accountId,
    [...held].filter((id) => !kept.has(id)),
    kind,
    -1,
  );
  await repository.insertLinks(
    tx.db,
    tx.accountId,
    kind,
    object,
    ids.map((tagId, position) => ({ tagId, position })),
  );
  await repository.moveCounts(
    tx.db,
    tx.accountId,
    ids.filter((id) => !held.has(id)),
    kind,
    1,
  );
  return JSON.stringify(names);
}

/** Takes an object's tags with it (its delete, in the caller's transaction): their counts move. */
export async function deleteObjectTags(tx: Pick<Context, 'db' | 'accountId'>, kind: TaggedKind, objectId: string) {
  const tagIds = await repository.deleteObjectLinks(tx.db, tx.accountId, objectId);
  await repository.moveCounts(tx.db, tx.accountId, tagIds, kind, -1);
}

/** What the add and remove endpoints do to an object's tags. */
export type TagChange = { add: readonly string[] } | { remove: string };

/**
 * `POST /v1/<kind>/:id/tags` and `DELETE /v1/<kind>/:id/tags/:tag`: the object's row locked, its tags read and
 * changed, so that two writers adding at once both keep theirs. Answers the object (`get`) after the change; a
 * change records its `<kind>.updated` (previous_attributes.tags) and moves its updated_at.
 */
export async function changeObjectTags<Item extends { id: string }>(
  ctx: Context,
  kind: TaggedKind,
  id: string,
  change: TagChange,
  get: (tx: Context, id: string) => Promise<Item>,
): Promise<Item> {
  return inTransaction(ctx, async (tx) => {
    const locked = isUuid(id) ? await repository.lockObjectTags(tx.db, kind, tx.accountId, id) : undefined;
    if (locked === undefined) throw notFound(kind.replace('_', ' '), id);
    const stored = locked.tags;
    const current = storedTags(stored);
    const next =
      'add' in change ? [...current, ...change.add] : current.filter((name) => keyOf(name) !== keyOf(change.remove));
    if ('add' in change && distinct(next).length > MAX_TAGS)
      throw fieldError('tags', `would make the object hold more than ${MAX_TAGS} tags`);
    const before = await get(tx, id);
    const json = await writeTags(tx, kind, { id, created_at: locked.created_at }, next, stored);
    if (json === undefined) return before;
    await repository.touchObject(tx.db, kind, tx.accountId, id, tx.clock.now().toISOString());
    const after = await get(tx, id);
    await recordChange(tx, { resource: kind, before, after });
    return after;
  });
}

/** The list conditions of `tags_any` and `tags_all` on `table`'s rows (a 422 on a filter naming too many). */
export async function tagConditions(
  db: Executor,
  accountId: string,
  kind: TaggedKind,
  table: string,
  query: { tags_any?: string | undefined; tags_all?: string | undefined },
): Promise<Condition[]> {
  return conditionsOf(db, await tagShapes(db, accountId, kind, table, query));
}

/**
 * `tags_any` and `tags_all` as conditions made from their values (db/list-shapes.ts compiles a list's queries
 * once per shape with them); a 422 on a filter naming too many.
 */
export async function tagShapes(
  db: Executor,
  accountId: string,
  kind: TaggedKind,
  table: string,
  query: { tags_any?: string | undefined; tags_all?: string | undefined },
): Promise<ShapedCondition[]> {
  const shaped: ShapedCondition[] = [];
  for (const name of ['tags_any', 'tags_all'] as const) {
    const text = query[name];
    if (text === undefined) continue;
    const names = distinct(text.split(',').filter((one) => one !== ''));
    if (names.length === 0 || names.length > MAX_FILTER_TAGS)
      throw fieldError(name, `must name 1 to ${MAX_FILTER_TAGS} tags, comma-separated`);
    const ids = (await repository.findTagsByKeys(db, accountId, names.map(keyOf))).map((row) => row.id);
    if (name === 'tags_any') shaped.push(tagShape(accountId, kind, table, 'any', ids));
    else if (ids.length < names.length) shaped.push(tagShape(accountId, kind, table, 'all', []));
    else for (const tagId of ids) shaped.push(tagShape(accountId, kind, table, 'all', [tagId]));
  }
  return shaped;
}

/**
 * Objects holding any of these tags (`all`: this one tag, one condition of several): the range of
 * tag_links_tag_idx (account, tag, kind, object); sorted by created_at, each tag's links in that order
 * (tag_links_sorted_idx); else, row by row, tag_links_tag_idx probed by the row's id. No tag: a condition no row
 * meets. Made from the account's id and the tags' ids.
 */
function tagShape(
  accountId: string,
  kind: TaggedKind,
  table: string,
  of: 'any' | 'all',
  tagIds: readonly string[],
): ShapedCondition {
  return {
    key: `tags ${kind} ${table} ${of} ${tagIds.length}`,
    values: [accountId, ...tagIds],
    make(db, [account, ...ids]): Condition {
      // Each condition's own column: a range read whole skips only the condition it is the range of.
      const column = of === 'any' ? 'tags' : `tags.${ids.length === 0 ? 'none' : String(ids[0])}`;
      if (ids.length === 0) return { column, expression: sql<SqlBool>`1 = 0`, check: () => sql<SqlBool>`1 = 0` };
      const matches = sql<SqlBool>`account_id = ${account} and tag_id in (${sql.join(ids)}) and resource = ${kind}`;
      const range = db
        .selectFrom('tag_links')
        .select(sql.ref<string>('object_id').as('range_id'))
        .where(matches)
        .orderBy('tag_id')
        .orderBy('resource')
        .orderBy('object_id')
        .limit(sql.lit(WALK_LIMIT + 1));
      const check = (id: Expression<string>) =>
        sql<SqlBool>`exists ${fenced(
          db,
          db.selectFrom('tag_links').select(sql.lit(1).as('one')).where(matches).where(sql<SqlBool>`object_id = ${id}`),
        )}`;
      // In the lists' default order: each tag's links by (account_id, tag_id, resource, object_created_at, object_id).
      const branches = ids.map((id) =>
        db
          .selectFrom('tag_links as entry')
          .where(sql<SqlBool>`account_id = ${account} and tag_id = ${id} and resource = ${kind}`),
      );
      return { column, expression: check(sql.ref(`${table}.id`)), check, range, sorted: { branches } };
    },
  };
}

// --- /v1/tags ---

function getRow(ctx: Context, id: string, lock = false): Promise<TagRow> {
  return requireRow('tag', id, (found) => repository.findTag(ctx.db, ctx.accountId, found, lock));
}

export async function listTags(ctx: Context, query: ListTagsInput): Promise<Page<TagRow>> {
  const page = pageRequest(query, repository.TAG_SORTS);
  const { rows, resumeAfter } = await repository.listTags(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}

export async function getTag(ctx: Context, id: string): Promise<Tag> {
  return presentTag(await getRow(ctx, id));
}

/**
 * Renames a tag everywhere. Onto another tag's name: 409 CONFLICT, unless `merge`, which moves this tag's objects
 * to that tag (an object holding both keeps one) and deletes this one. Objects keep their rows and updated_at: the
 * tag's row (and, merging, the links) change alone.
 */
export async function renameTag(
  ctx: Context,
  id: string,
  name: string,
  merge: boolean,
  precondition?: Precondition,
): Promise<Tag> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    precondition?.(presentTag(current));
    const now = tx.clock.now().toISOString();
    const key = keyOf(name);
    const [other] = (await repository.findTagsByKeys(tx.db, tx.accountId, [key])).filter((row) => row.id !== id);
    if (other === undefined) {
      if (name === current.name) return presentTag(current);
      const renamed = (await repository.updateTag(tx.db, tx.accountId, id, { name, name_key: key, updated_at: now }))!;
      const tag = presentTag(renamed);
      await recordEvent(tx, 'tag.renamed', tag, { previous_attributes: { name: current.name } });
      return tag;
    }
    if (!merge)
      throw conflict(
        `The account already has the tag '${other.name}' (${other.id}). Rename with ?merge=true to merge this tag into it.`,
      );
    await repository.mergeLinks(tx.db, tx.accountId, current.id, other.id);
    await repository.deleteTagRow(tx.db, tx.accountId, current.id);
    // The merged tag is gone: its event is the rename of the tag it joined, the feed shows it deleted.
    await noteFeedChange(tx.db, tx.accountId, 'tag', current.id, true, now);
    const merged = (await repository.updateTag(tx.db, tx.accountId, other.id, { updated_at: now }))!;
    const tag = presentTag(merged);
    await recordEvent(tx, 'tag.renamed', tag, {
      previous_attributes: { id: current.id, name: current.name },
    });
    return tag;
  });
}

/** Deletes a tag and its links: gone from every object that held it, whose rows and updated_at stay. */
export async function deleteTag(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    const tag = presentTag(current);
    precondition?.(tag);
    await repository.deleteTagLinks(tx.db, tx.accountId, current.id);
    await repository.deleteTagRow(tx.db, tx.accountId, current.id);
    await recordEvent(tx, 'tag.deleted', tag);
    return { id: current.id, deleted: true as const };
  });
}
