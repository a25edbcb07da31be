// Webhook endpoint and delivery queries. Endpoints are scoped by account; the delivery queue is claimed
// across accounts by the workers, one pending attempt per (event, endpoint) under a lease.
import { CompiledQuery, sql, type SqlBool } from 'kysely';
import {
  applyPage,
  type Executor,
  keysOf,
  listPlan,
  lockedIf,
  type PageRequest,
  prepared,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type {
  WebhookDeliveriesTable,
  WebhookDeliveryRow,
  WebhookEndpointPatch,
  WebhookEndpointRow,
} from '../../db/types.js';
import { DELIVERY_STATUSES } from './webhooks.schemas.js';

const ENDPOINT_COLUMNS = [
  'id',
  'account_id',
  'url',
  'description',
  'enabled_events',
  'status',
  'disabled_reason',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'failing_since',
  'metadata',
  'app_id',
  'app_install_id',
  'created_at',
  'updated_at',
] as const;
const DELIVERY_COLUMNS = [
  'id',
  'account_id',
  'endpoint_id',
  'event_id',
  'event_type',
  'attempt',
  'status',
  'next_attempt_at',
  'locked_by',
  'locked_until',
  'response_status',
  'error',
  'duration_ms',
  'response_body',
  'app_id',
  'created_at',
  'updated_at',
] as const;

export const ENDPOINT_SORTS: SortFields<WebhookEndpointRow> = timestampSorts<WebhookEndpointRow>();
export const DELIVERY_SORTS: SortFields<WebhookDeliveryRow> = {
  created_at: { kind: 'timestamp', value: (row) => row.created_at },
};

export async function insertEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(
  db: Executor,
  accountId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return (
    db
      .selectFrom('webhook_endpoints')
      .select(ENDPOINT_COLUMNS)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      // An app install's endpoint is the app's, never the business's to read or change (docs/api-contract.md §25).
      .where('app_install_id', 'is', null)
      .executeTakeFirst()
  );
}

/** Endpoints by id alone, for the delivery workers (which serve every account). */
export async function findEndpointsForDelivery(db: Executor, ids: readonly string[]): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', 'in', ids).execute();
}

export async function updateEndpoint(
  db: Executor,
  accountId: string,
  id: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirst();
}

/** Disables an endpoint that is still enabled; returns it, or undefined when it already was disabled. */
export async function disableEndpoint(
  db: Executor,
  id: string,
  reason: string,
  failingSince: string,
  now: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, failing_since: failingSince, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The account's own endpoints (its apps' installs' do not count toward its limit). */
export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('app_install_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listEndpoints(
  db: Executor,
  accountId: string,
  filters: TimeBounds,
  page: PageRequest<WebhookEndpointRow>,
): Promise<WebhookEndpointRow[]> {
  const query = db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('app_install_id', 'is', null)
    .where((eb) => eb.and(timeBoundConditions(filters).map((condition) => condition.expression)));
  return applyPage(query, page).execute();
}

/**
 * Queues the first attempt of an event to every enabled endpoint of the account that subscribes to one of
 * `patterns` (the type, its `resource.*` and `*`): one INSERT … SELECT with a fixed number of parameters, so
 * its cost is one row per delivery however many endpoints the account has (docs/api-contract.md §21; 2,048
 * endpoints overflowed SQLite's parameters when each row was a set of parameters). Each delivery's id is a
 * UUIDv7 with the event's time (the event id's first 15 characters: time and version) and fresh random bits.
 * The statement is built and compiled once per number of patterns, then bound (issue 36). The write made at
 * once of `writeEvent` (events.repository.ts), where commits are not gathered: its SQL is PostgreSQL's. Where
 * they are (SQLite), an event's deliveries are made with its batch (SQLITE_FAN_OUT_QUEUED).
 */
export async function queueToSubscribers(
  db: Executor,
  event: { id: string; account_id: string; type: string },
  patterns: readonly string[],
  now: string,
): Promise<void> {
  const parameters: unknown[] = [
    event.id.slice(0, 15),
    event.id,
    event.type,
    now,
    now,
    now,
    event.account_id,
    patterns,
  ];
  const key = patterns.length;
  let query = fanOutStatements.get(key);
  if (!query) {
    query = fanOutStatement(db, parameters).compile();
    if (
      query.parameters.length !== parameters.length ||
      query.parameters.some((value, index) => value !== parameters[index])
    )
      throw new Error('queueToSubscribers: the statement must take exactly its parameters, in order');
    fanOutStatements.set(key, query);
  }
  await db.executeQuery({ ...query, parameters });
}

const fanOutStatements = new Map<number, CompiledQuery>();

/**
 * SQLite: the first attempts of the events of a group-commit batch (queued in `temp.event_queue` by
 * events.repository.ts, which runs this just before the batch commits, after moving the events into
 * `events`), to every endpoint enabled then whose enabled_events hold the event's type, its `resource.*`
 * (the queue's `family`), `*`, or its `qualified` type (an app install's endpoint: events.service.ts). So the deliveries commit, durable, with their events, before any request
 * of the batch is answered, as they did in each request's own statement (which cost 20 µs more per create
 * with 3 endpoints: issue 36), and an event nobody listens to costs no read of the endpoints in its request.
 * The endpoints are those of the batch's end: a change of an endpoint committed in the same batch counts as
 * made before the event, a valid order since neither request was answered before the batch committed.
 * A delivery an event's resend made in the same batch is not doubled (webhook_deliveries_event_attempts_idx,
 * unique on (event_id, endpoint_id, 1 when pending): migration 20261127200000). CROSS JOIN: the batch's
 * few events drive, each finding its account's endpoints by index.
 */
export const SQLITE_FAN_OUT_QUEUED = `insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, attempt, status, next_attempt_at, app_id, created_at, updated_at)
    select substr(f.id, 1, 15) || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
      w.account_id, w.id, f.id, f.type, 1, 'pending', f.created_at, w.app_id, f.created_at, f.created_at
    from temp.event_queue f cross join webhook_endpoints w
    where w.account_id = f.account_id and w.status = 'enabled'
      and exists (select 1 from json_each(w.enabled_events) e where e.value in ('*', f.family, f.type, f.qualified))
    order by f.rowid, w.id
    on conflict (event_id, endpoint_id, (case when status = 'pending' then 1 end)) do nothing`;

/** The fan-out statement (PostgreSQL's SQL), its parameters in the order `queueToSubscribers` binds them. */
function fanOutStatement(db: Executor, parameters: unknown[]) {
  const [prefix, eventId, type, now, createdAt, updatedAt, accountId] = parameters as string[];
  const id = sql<string>`cast(${prefix} || substr(cast(gen_random_uuid() as text), 16) as uuid)`;
  const instant = (value: string | undefined) => sql<string>`cast(${value} as timestamptz)`;
  const subscribed = sql<SqlBool>`enabled_events ?| cast(${parameters[7]} as text[])`;
  return db
    .insertInto('webhook_deliveries')
    .columns([
      'id',
      'account_id',
      'endpoint_id',
      'event_id',
      'event_type',
      'attempt',
      'status',
      'next_attempt_at',
      'app_id',
      'created_at',
      'updated_at',
    ])
    .expression(
      db
        .selectFrom('webhook_endpoints')
        .select([
          id.as('id'),
          'account_id',
          'id as endpoint_id',
          sql<string>`cast(${eventId} as uuid)`.as('event_id'),
          sql<string>`${type}`.as('event_type'),
          sql<number>`1`.as('attempt'),
          sql<string>`'pending'`.as('status'),
          instant(now).as('next_attempt_at'),
          'app_id',
          instant(createdAt).as('created_at'),
          instant(updatedAt).as('updated_at'),
        ])
        .where('account_id', '=', accountId as string)
        .where('status', '=', sql.lit('enabled'))
        .where(subscribed),
    );
}

/** The version of the account's webhook endpoints, which the database raises on every change of them. */
export const findEndpointsVersion = prepared((db: Executor, accountId: string) =>
  db.selectFrom('accounts').select('webhook_endpoints_version as version').where('id', '=', accountId),
);

/** The `enabled_events` (JSON) of each of the account's enabled endpoints. */
export const listEnabledSubscriptions = prepared((db: Executor, accountId: string) =>
  db
    .selectFrom('webhook_endpoints')
    .select('enabled_events')
    .where('account_id', '=', accountId)
    .where('status', '=', sql.lit('enabled')),
);

export async function insertDeliveries(db: Executor, rows: WebhookDeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** Whether the (event, endpoint) pair already has an attempt waiting. */
export async function hasPendingDelivery(db: Executor, eventId: string, endpointId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('event_id', '=', eventId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` of the oldest due pending attempts, at most `perEndpoint` of any one endpoint and
 * `perAccount` of any one account, none of `busyEndpoints` or `busyAccounts` (those this worker already
 * serves to their share), in turns between accounts (each account's oldest, then each one's second, …: issue
 * 34.1, one account's flood of slow receivers must not delay another's), under a lease: one UPDATE, so
 * one commit for the whole batch. The outer conditions are checked again on each row as it is updated
 * (SQLite's single writer; PostgreSQL re-reads a row another worker changed meanwhile), so no attempt
 * is claimed twice. An attempt whose lease ran out (its worker died) is due again.
 */
export async function claimDeliveries(
  db: Executor,
  workerId: string,
  now: string,
  leaseUntil: string,
  busyEndpoints: readonly string[],
  limit: number,
  perEndpoint: number,
  busyAccounts: readonly string[] = [],
  perAccount = limit,
): Promise<WebhookDeliveryRow[]> {
  const claimable = sql<SqlBool>`status = 'pending' and next_attempt_at <= ${now} and (locked_until is null or locked_until <= ${now})`;
  const notBusyEndpoint =
    busyEndpoints.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`endpoint_id not in (${sql.join(busyEndpoints)})`;
  // Accounts at their share are left out of the window, so another account's work is seen behind a flood.
  const notBusy =
    busyAccounts.length === 0
      ? notBusyEndpoint
      : sql<SqlBool>`${notBusyEndpoint} and account_id not in (${sql.join(busyAccounts)})`;
  const result = await sql<WebhookDeliveryRow>`
    update webhook_deliveries set locked_by = ${workerId}, locked_until = ${leaseUntil}, updated_at = ${now}
    where ${claimable} and id in (
      select id from (
        select id, next_attempt_at,
          row_number() over (partition by endpoint_id order by next_attempt_at, id) as place,
          row_number() over (partition by account_id order by next_attempt_at, id) as turn
        from (select id, account_id, endpoint_id, next_attempt_at from webhook_deliveries where ${claimable} and ${notBusy} order by next_attempt_at, id limit ${limit * 4}) due
      ) ranked
      where place <= ${perEndpoint} and turn <= ${perAccount}
      order by turn, next_attempt_at, id
      limit ${limit}
    )
    returning *`.execute(db);
  return result.rows;
}

/** Gives claimed attempts back (a worker that claimed more of an endpoint than it may run at once). */
export async function releaseDeliveries(db: Executor, workerId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_by: null, locked_until: null })
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .execute();
}

/** Records the outcome of a claimed attempt, only while this worker still holds it. */
export async function completeDelivery(
  db: Executor,
  id: string,
  workerId: string,
  changes: Partial<WebhookDeliveriesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, locked_by: null, locked_until: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface DeliveryFilters {
  status?: string | undefined;
  event_id?: string | undefined;
}

export async function listDeliveries(
  db: Executor,
  accountId: string,
  endpointId: string,
  filters: DeliveryFilters,
  page: PageRequest<WebhookDeliveryRow>,
): Promise<WebhookDeliveryRow[]> {
  return listDeliveriesPlan(db, accountId, endpointId, filters, page).query.execute();
}

/** The attempt log's query, unexecuted: the query-plan test explains it. */
export function listDeliveriesPlan(
  db: Executor,
  accountId: string,
  endpointId: string,
  filters: DeliveryFilters,
  page: PageRequest<WebhookDeliveryRow>,
) {
  const keys = keysOf({ event_id: filters.event_id });
  // Every status when none is asked for: one range of webhook_deliveries_endpoint_status_idx per status, merged.
  const among = { column: 'status', values: filters.status === undefined ? DELIVERY_STATUSES : [filters.status] };
  const source = {
    table: 'webhook_deliveries',
    columns: DELIVERY_COLUMNS,
    scope: { account_id: accountId, endpoint_id: endpointId },
  };
  return listPlan<WebhookDeliveryRow>(db, source, { keys, among, conditions: [] }, page);
}

/** The last attempt of each (event, endpoint) that failed for good since `since` and has none waiting. */
export async function listFailedSince(
  db: Executor,
  accountId: string,
  endpointId: string,
  since: string,
): Promise<Array<Pick<WebhookDeliveryRow, 'event_id' | 'event_type'>>> {
  return db
    .selectFrom('webhook_deliveries as failed')
    .select(['failed.event_id', 'failed.event_type'])
    .distinct()
    .where('failed.account_id', '=', accountId)
    .where('failed.endpoint_id', '=', endpointId)
    .where('failed.status', '=', 'failed')
    .where('failed.created_at', '>=', since)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as later')
            .select('later.id')
            .whereRef('later.event_id', '=', 'failed.event_id')
            .whereRef('later.endpoint_id', '=', 'failed.endpoint_id')
            .where((eb) => eb.or([eb('later.status', '=', 'pending'), eb('later.status', '=', 'succeeded')])),
        ),
      ),
    )
    .execute();
}

/** The attempt number the next attempt of (event, endpoint) gets. */
export async function nextAttemptNumber(db: Executor, eventId: string, endpointId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.max('attempt').as('attempt'))
    .where('event_id', '=', eventId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return Number(row?.attempt ?? 0) + 1;
}

/**
 * The account's own cap on webhook endpoints (null: the default), its row locked until the transaction ends, so
 * two creates at once cannot both take the last place. The cap is the operator's (bms accounts set-limits).
 */
export async function lockEndpointLimit(db: Executor, accountId: string): Promise<number | null> {
  const query = db.selectFrom('accounts').select('max_webhook_endpoints').where('id', '=', accountId);
  const row = await lockedIf(db, query, true).executeTakeFirst();
  return row?.max_webhook_endpoints ?? null;
}
