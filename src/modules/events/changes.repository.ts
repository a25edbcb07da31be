// The change feed's rows (docs/api-contract.md §26; docs/decisions.md, "The change feed"): every recorded event
// marks its object changed, pending, in the change's transaction; `sequenceChanges` gives pending rows their
// positions only once they are committed, under the account's counter row, so positions are handed out in the
// order changes became visible and a reader never passes a position a later commit could still take.
import { sql } from 'kysely';
import { claimLock, type Executor } from '../../db/index.js';
import type { ChangesTable } from '../../db/types.js';

/** Event families that are no object of the feed: deliveries, pay-period locks and imports. */
const NOT_LISTED = new Set(['delivery', 'time_lock', 'import']);

/**
 * SQLite's group commit: the marks of a batch's queued events (`temp.event_queue`, events.repository.ts), made
 * by one statement just before the batch commits, in the order the events were recorded (the last mark of an
 * object wins): what `noteChange` would have written for each, in the same transaction.
 */
export const SQLITE_CHANGES_QUEUED = `insert into changes (account_id, kind, object_id, position, deleted, changed_at)
  select account_id, substr(type, 1, instr(type, '.') - 1), resource_id, null, type like '%.deleted', created_at
  from temp.event_queue
  where substr(type, 1, instr(type, '.') - 1) not in (${[...NOT_LISTED].map((kind) => `'${kind}'`).join(', ')})
  order by rowid
  on conflict (account_id, kind, object_id)
  do update set position = null, deleted = excluded.deleted, changed_at = excluded.changed_at`;

/**
 * Marks an object of the feed changed (or deleted) without an event of its own, in the change's transaction: a tag
 * made by its first use, or merged away into another (docs/decisions.md, "Custom fields and tags, second part").
 */
export function noteFeedChange(
  db: Executor,
  accountId: string,
  kind: string,
  objectId: string,
  deleted: boolean,
  at: string,
): Promise<void> {
  return noteChange(db, accountId, `${kind}.${deleted ? 'deleted' : 'changed'}`, objectId, at);
}

/** Marks the event's object changed (or deleted), pending a position; in the event's transaction. */
export async function noteChange(db: Executor, accountId: string, type: string, objectId: string, at: string) {
  const kind = type.slice(0, type.indexOf('.'));
  if (NOT_LISTED.has(kind)) return;
  const deleted = type.endsWith('.deleted') ? 1 : 0;
  await db
    .insertInto('changes')
    .values({ account_id: accountId, kind, object_id: objectId, position: null, deleted, changed_at: at })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'kind', 'object_id']).doUpdateSet({ position: null, deleted, changed_at: at }),
    )
    .execute();
}

/**
 * The marks `noteChange` makes for each of `events`, in their order (an object's last mark wins), by one statement
 * per MARKS_A_STATEMENT objects.
 */
export async function noteChanges(
  db: Executor,
  events: readonly { account_id: string; type: string; resource_id: string; created_at: string }[],
): Promise<void> {
  const marks = new Map<string, ChangesTable>();
  for (const event of events) {
    const kind = event.type.slice(0, event.type.indexOf('.'));
    if (NOT_LISTED.has(kind)) continue;
    const key = `${event.account_id}/${kind}/${event.resource_id}`;
    marks.delete(key);
    marks.set(key, {
      account_id: event.account_id,
      kind,
      object_id: event.resource_id,
      position: null,
      deleted: event.type.endsWith('.deleted') ? 1 : 0,
      changed_at: event.created_at,
    });
  }
  const rows = [...marks.values()];
  for (let from = 0; from < rows.length; from += MARKS_A_STATEMENT)
    await db
      .insertInto('changes')
      .values(rows.slice(from, from + MARKS_A_STATEMENT))
      .onConflict((conflict) =>
        conflict.columns(['account_id', 'kind', 'object_id']).doUpdateSet({
          position: null,
          deleted: sql`excluded.deleted`,
          changed_at: sql`excluded.changed_at`,
        }),
      )
      .execute();
}
const MARKS_A_STATEMENT = 500;

/**
 * Gives up to `limit` committed pending changes of the account their positions, in the order they were made, in
 * the caller's transaction (which must be its own: the counter row stays locked until it commits). A change a
 * writer holds uncommitted is passed over (`claimLock`) and positioned by a later call.
 */
export async function sequenceChanges(trx: Executor, accountId: string, limit: number): Promise<number> {
  await trx
    .insertInto('change_positions')
    .values({ account_id: accountId, last_position: 0 })
    .onConflict((conflict) => conflict.column('account_id').doNothing())
    .execute();
  // The counter row, locked until commit: sequencers of one account take turns.
  const counter = await trx
    .updateTable('change_positions')
    .set({ last_position: sql`last_position` })
    .where('account_id', '=', accountId)
    .returning('last_position')
    .executeTakeFirstOrThrow();
  const pending = await trx
    .selectFrom('changes')
    .select(['kind', 'object_id'])
    .where('account_id', '=', accountId)
    .where('position', 'is', null)
    .orderBy('changed_at')
    .orderBy('kind')
    .orderBy('object_id')
    .limit(limit)
    .modifyEnd(claimLock(trx))
    .execute();
  if (pending.length === 0) return 0;
  let position = Number(counter.last_position);
  for (const row of pending) {
    position += 1;
    await trx
      .updateTable('changes')
      .set({ position })
      .where('account_id', '=', accountId)
      .where('kind', '=', row.kind)
      .where('object_id', '=', row.object_id)
      .where('position', 'is', null)
      .execute();
  }
  await trx
    .updateTable('change_positions')
    .set({ last_position: position })
    .where('account_id', '=', accountId)
    .execute();
  return pending.length;
}

export type ChangeRow = Pick<ChangesTable, 'kind' | 'object_id' | 'position' | 'deleted' | 'changed_at'>;

/**
 * Positioned changes after `after`, of the given kinds, in position order: `limit` of them and one more. Each kind
 * is one range of `changes_kind_position` read for at most a page, and the ranges are merged: the page costs the
 * same at any position and whatever the planner's statistics say of the kinds (migration 20261130160000).
 */
export function listChangesQuery(
  db: Executor,
  accountId: string,
  after: number,
  kinds: readonly string[],
  limit: number,
) {
  const ranges = [...new Set(kinds)].map((kind) =>
    db
      .selectFrom('changes')
      .select(['kind', 'object_id', 'position', 'deleted', 'changed_at'])
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('position', '>', after)
      .orderBy('position')
      .limit(limit + 1),
  );
  if (ranges.length === 1) return ranges[0]!;
  const [first, ...rest] = ranges.map((range, index) => db.selectFrom(range.as(`kind${index}`)).selectAll());
  return db
    .selectFrom(rest.reduce((merged, range) => merged.unionAll(range), first!).as('merged'))
    .selectAll()
    .orderBy('position')
    .limit(limit + 1);
}

export async function listChanges(
  db: Executor,
  accountId: string,
  after: number,
  kinds: readonly string[],
  limit: number,
): Promise<ChangeRow[]> {
  if (kinds.length === 0) return [];
  return listChangesQuery(db, accountId, after, kinds, limit).execute();
}

/** Whether changes of the account still wait for a position (the next page may hold them). */
export async function hasPendingChanges(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('changes')
    .select('object_id')
    .where('account_id', '=', accountId)
    .where('position', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes up to `limit` of the feed's deletions made before `before` (the feed keeps them for its retention, §26);
 * returns how many. Bounded, so one run never holds the database for long (`changes_deleted`, a partial index).
 */
export async function pruneDeletedChanges(db: Executor, before: string, limit: number): Promise<number> {
  const old = await db
    .selectFrom('changes')
    .select(['account_id', 'kind', 'object_id'])
    .where('deleted', '=', 1)
    .where('changed_at', '<', before)
    .orderBy('changed_at')
    .limit(limit)
    .execute();
  const groups = new Map<string, { account_id: string; kind: string; ids: string[] }>();
  for (const row of old) {
    const key = `${row.account_id} ${row.kind}`;
    const group = groups.get(key) ?? { account_id: row.account_id, kind: row.kind, ids: [] };
    group.ids.push(row.object_id);
    groups.set(key, group);
  }
  for (const group of groups.values())
    await db
      .deleteFrom('changes')
      .where('account_id', '=', group.account_id)
      .where('kind', '=', group.kind)
      .where('object_id', 'in', group.ids)
      .where('deleted', '=', 1)
      .where('changed_at', '<', before)
      .execute();
  return old.length;
}

/** The feed's cursor text: the last position read and when the cursor was given (for its age, §26). */
export const encodeChangeCursor = (cursor: { p: number; t: number }): string =>
  Buffer.from(JSON.stringify(cursor)).toString('base64url');

/**
 * The feed's cursor at this moment (an export's `Bms-Change-Cursor`, §26): committed changes positioned first, so
 * that a change committed before it is at or below it and one after it comes after. A change committed between
 * this and a snapshot read later is in both the snapshot and the feed after the cursor: at least once, never missed.
 */
export async function currentChangeCursor(db: Executor, accountId: string, nowMs: number): Promise<string> {
  for (;;) {
    const positioned = await db.transaction().execute((trx) => sequenceChanges(trx, accountId, 1000));
    if (positioned < 1000) break;
  }
  const row = await db
    .selectFrom('change_positions')
    .select('last_position')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return encodeChangeCursor({ p: Number(row?.last_position ?? 0), t: nowMs });
}
