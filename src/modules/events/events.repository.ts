// Event queries, every one scoped by account but the pruning of old events.
import { type Expression, type SqlBool, sql } from 'kysely';
import {
  type Condition,
  deferredWrite,
  type DeferredWriteCall,
  type Executor,
  jsonText,
  keysOf,
  type Listed,
  listPlan,
  type PageRequest,
  preparedInsert,
  preparedInsertRows,
  runList,
  type SortFields,
  timeBoundConditions,
} from '../../db/index.js';
import type { EventRow } from '../../db/types.js';
import { noteChange, noteChanges, SQLITE_CHANGES_QUEUED } from './changes.repository.js';
import { hasSubscribers } from './subscriber-cache.js';
import { queueToSubscribers, SQLITE_FAN_OUT_QUEUED } from './webhooks.repository.js';

const COLUMNS = [
  'id',
  'account_id',
  'type',
  'resource_id',
  'data',
  'actor_type',
  'actor_id',
  'actor_app_id',
  'origin_type',
  'origin_id',
  'created_at',
] as const;

export interface EventFilters {
  /** The types asked for, with `invoice.*` already spelled out. */
  types?: readonly string[] | undefined;
  resource_id?: string | undefined;
  actor_type?: string | undefined;
  actor_id?: string | undefined;
  actor_app_id?: string | undefined;
  origin_id?: string | undefined;
  created_after?: string | undefined;
  created_before?: string | undefined;
  /** For an app's token: which of `types` it reads whole, and which in part (events.service.ts, audienceOf). */
  audience?: Audience | undefined;
}

/** The types an app's install hears of whole, and those it hears of in part with the qualifier's values it hears. */
export interface Audience {
  whole: readonly string[];
  part: ReadonlyMap<string, readonly string[]>;
}

/**
 * What decides whether an install hears of an event of a type it hears of in part, read from the stored event as
 * events.service.ts's `qualifiedType` reads it from the object: an `app.*` event's install (its object's id, the
 * event's resource_id), a `delivery.*` event's document_type.
 */
function qualifierOf(db: Executor, type: string): Expression<unknown> {
  return type.startsWith('app.') ? sql.ref('resource_id') : jsonText(db, 'data', ['object', 'document_type']);
}

/** The events an app's install hears of, among the types it hears of (docs/api-contract.md §25). */
function audienceCondition(db: Executor, audience: Audience): Condition {
  const heard: Array<Expression<SqlBool>> = [];
  if (audience.whole.length > 0) heard.push(sql<SqlBool>`${sql.ref('type')} in (${sql.join(audience.whole)})`);
  for (const [type, values] of audience.part)
    heard.push(sql<SqlBool>`(${sql.ref('type')} = ${type} and ${qualifierOf(db, type)} in (${sql.join(values)}))`);
  return {
    column: 'type',
    expression: heard.length > 0 ? sql<SqlBool>`(${sql.join(heard, sql` or `)})` : sql<SqlBool>`1 = 0`,
  };
}

export const EVENT_SORTS: SortFields<EventRow> = { created_at: { kind: 'timestamp', value: (row) => row.created_at } };

/** Every column of a new event, compiled once (db/prepared-insert.ts). */
export const insertEvent: (db: Executor, row: EventRow) => Promise<void> = preparedInsert<'events', EventRow>(
  'events',
  COLUMNS,
);
/** Several new events (db/prepared-insert.ts). */
const insertEvents = preparedInsertRows<'events', EventRow>('events', COLUMNS);

/**
 * Writes a new event and its first webhook deliveries in the caller's transaction, as a deferred write
 * (db/deferred-write.ts): where the engine gathers commits (SQLite's group commit, db/sqlite/group-commit.ts),
 * the event is queued in the request's savepoint as one row of a TEMP table (in memory; a rollback to the
 * savepoint takes it back) and written to `events` with the batch's other events by one INSERT … SELECT just
 * before the batch commits, followed by their change feed marks (SQLITE_CHANGES_QUEUED) and webhook deliveries
 * (SQLITE_FAN_OUT_QUEUED). So the event commits
 * with its change, durable before anyone is answered, as before; but its seven b-trees (the table, its key and
 * five indexes) are written outside the requests' savepoints, whose sub-journal copied each page they touched,
 * and with no read of the account's endpoints per event (issue 36). Nobody reads a queued event: its id is
 * first shown in the answer of its request, which is sent after the commit. Elsewhere (PostgreSQL) the event
 * is inserted at once, with its change feed mark, and queued to the endpoints that subscribe to it (`queueToSubscribers`) when the
 * account has any (`hasSubscribers`). `family` is the type's `resource.*` pattern; `qualified`, for the few types an
 * app's install hears of only in part, the type with what decides it (events.service.ts, `qualifiedType`).
 */
export const writeEvent: DeferredWriteCall<[EventRow, string, string | null]> = deferredWrite<
  [EventRow, string, string | null]
>({
  gathered: {
    setup: [
      'create temp table if not exists event_queue (id text not null, account_id text not null, type text not null, resource_id text not null, data text not null, actor_type text, actor_id text, actor_app_id text, origin_type text, origin_id text, created_at text not null, family text not null, qualified text)',
    ],
    queue: {
      sql: 'insert into temp.event_queue (id, account_id, type, resource_id, data, actor_type, actor_id, actor_app_id, origin_type, origin_id, created_at, family, qualified) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      parameters: (row, family, qualified) => [
        row.id,
        row.account_id,
        row.type,
        row.resource_id,
        row.data,
        row.actor_type,
        row.actor_id,
        row.actor_app_id,
        row.origin_type,
        row.origin_id,
        row.created_at,
        family,
        qualified,
      ],
    },
    pending: 'select 1 from temp.event_queue limit 1',
    apply: [
      `insert into events (${COLUMNS.join(', ')}) select ${COLUMNS.join(', ')} from temp.event_queue order by rowid`,
      SQLITE_CHANGES_QUEUED,
      SQLITE_FAN_OUT_QUEUED,
    ],
    clear: 'delete from temp.event_queue',
  },
  now: async (db, row, family, qualified) => {
    const patterns = qualified === null ? ['*', family, row.type] : ['*', family, row.type, qualified];
    // Sent together: on PostgreSQL's pipelined connection, one round trip instead of three.
    const [, , subscribed] = await Promise.all([
      insertEvent(db, row),
      noteChange(db, row.account_id, row.type, row.resource_id, row.created_at),
      hasSubscribers(db, row.account_id, patterns),
    ]);
    if (subscribed) await queueToSubscribers(db, row, patterns, row.created_at);
  },
  // Many events (an import's chunk of creates): their rows and marks by statements of many rows each, the
  // account's subscribers read once per set of patterns, then each event queued to them as above.
  nowMany: async (db, calls) => {
    await insertEvents(
      db,
      calls.map(([row]) => row),
    );
    await noteChanges(
      db,
      calls.map(([row]) => row),
    );
    const subscribed = new Map<string, boolean>();
    for (const [row, family, qualified] of calls) {
      const patterns = qualified === null ? ['*', family, row.type] : ['*', family, row.type, qualified];
      const key = patterns.join('\n');
      let heard = subscribed.get(key);
      if (heard === undefined) {
        heard = await hasSubscribers(db, row.account_id, patterns);
        subscribed.set(key, heard);
      }
      if (heard) await queueToSubscribers(db, row, patterns, row.created_at);
    }
  },
});

export async function findEvent(db: Executor, accountId: string, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Events by id alone, for the delivery workers. */
export async function findEventsForDelivery(db: Executor, ids: readonly string[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('events').select(COLUMNS).where('id', 'in', ids).execute();
}

export async function listEvents(
  db: Executor,
  accountId: string,
  filters: EventFilters,
  page: PageRequest<EventRow>,
): Promise<Listed<EventRow>> {
  return runList(listEventsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listEventsPlan(db: Executor, accountId: string, filters: EventFilters, page: PageRequest<EventRow>) {
  const keys = keysOf({
    resource_id: filters.resource_id,
    actor_type: filters.actor_type,
    actor_id: filters.actor_id,
    actor_app_id: filters.actor_app_id,
    origin_id: filters.origin_id,
  });
  const among = filters.types && { column: 'type', values: filters.types };
  return listPlan(
    db,
    { table: 'events', columns: COLUMNS, scope: { account_id: accountId } },
    {
      keys,
      among,
      conditions: [
        ...timeBoundConditions(filters),
        ...(filters.audience?.part.size ? [audienceCondition(db, filters.audience)] : []),
      ],
    },
    page,
  );
}

/**
 * Deletes up to `limit` events created before `before` (and their delivery attempts), oldest first;
 * returns how many. Bounded, so one run never holds the database for long.
 */
export async function pruneEvents(db: Executor, before: string, limit: number): Promise<number> {
  // Event ids are UUIDv7, whose first 48 bits are the creation time in milliseconds: every id below the
  // smallest id of `before` is older, and the primary key finds them without an index on created_at.
  const hex = new Date(before).getTime().toString(16).padStart(12, '0');
  const boundary = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
  const old = await db
    .selectFrom('events')
    .select('id')
    .where('id', '<', boundary)
    .where('created_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (old.length === 0) return 0;
  const ids = old.map((row) => row.id);
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
  await db.deleteFrom('events').where('id', 'in', ids).execute();
  return ids.length;
}
