// Time entry queries, every one scoped by account. The account's time settings (its billing increment and lock
// date) are this module's columns in the account's row; a member's row is read whole for its rates, and locked
// for the member's entries' checks (overlap, one running entry), so that two writes for one member take turns.
import { sql, type SqlBool } from 'kysely';
import {
  type Condition,
  compare,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  normalizeInstant,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { TimeEntryPatch, TimeEntryRow } from '../../db/types.js';
import { durationSeconds } from './figures.js';

const COLUMNS = [
  'id',
  'account_id',
  'team_member_id',
  'job_id',
  'visit_id',
  'started_at',
  'ended_at',
  'break_minutes',
  'source',
  'billable',
  'hourly_cost_amount',
  'hourly_rate_amount',
  'currency',
  'notes',
  'approved_at',
  'approved_by',
  'invoice_id',
  'billed_hundredths',
  'external_id',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export const TIME_ENTRY_SORTS: SortFields<TimeEntryRow> = {
  ...timestampSorts<TimeEntryRow>(),
  started_at: { kind: 'timestamp', value: (row) => row.started_at },
};

export interface TimeEntryFilters extends TimeBounds {
  team_member_id?: string | undefined;
  job_id?: string | undefined;
  visit_id?: string | undefined;
  external_id?: string | undefined;
  running?: boolean | undefined;
  approved?: boolean | undefined;
  billable?: boolean | undefined;
  billed?: boolean | undefined;
  started_from?: string | undefined;
  started_to?: string | undefined;
}

const isNull = (column: string, yes: boolean): Condition => ({
  column,
  expression: yes ? sql<SqlBool>`${sql.ref(column)} is null` : sql<SqlBool>`${sql.ref(column)} is not null`,
});

export async function listTimeEntries(
  db: Executor,
  accountId: string,
  filters: TimeEntryFilters,
  page: PageRequest<TimeEntryRow>,
): Promise<Listed<TimeEntryRow>> {
  return runList(listTimeEntriesPlan(db, accountId, filters, page));
}

/**
 * The list's queries, unexecuted (the query-plan test explains each): `external_id` drives from its unique index;
 * the other filters are checked on the rows of the sort's index, walked at most WALK_LIMIT entries a page.
 */
export function listTimeEntriesPlan(
  db: Executor,
  accountId: string,
  filters: TimeEntryFilters,
  page: PageRequest<TimeEntryRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  for (const column of ['team_member_id', 'job_id', 'visit_id'] as const) {
    const value = filters[column];
    if (value !== undefined) conditions.push({ column, expression: sql<SqlBool>`${sql.ref(column)} = ${value}` });
  }
  if (filters.running !== undefined) conditions.push(isNull('ended_at', filters.running));
  if (filters.approved !== undefined) conditions.push(isNull('approved_at', !filters.approved));
  if (filters.billed !== undefined) conditions.push(isNull('invoice_id', !filters.billed));
  if (filters.billable !== undefined)
    conditions.push({ column: 'billable', expression: sql<SqlBool>`billable = ${filters.billable ? 1 : 0}` });
  if (filters.started_from !== undefined)
    conditions.push(compare('started_at', '>=', normalizeInstant(filters.started_from)));
  if (filters.started_to !== undefined)
    conditions.push(compare('started_at', '<', normalizeInstant(filters.started_to)));
  return listPlan(
    db,
    { table: 'time_entries', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ external_id: filters.external_id }), conditions },
    page,
  );
}

/**
 * The kept copy of an entry's worked seconds (`duration_seconds`, null while running): written here, with every
 * insert and every change of `started_at`, `ended_at` or `break_minutes`, and nowhere else; the costing sums it.
 */
function keptSeconds(row: Pick<TimeEntryRow, 'started_at' | 'ended_at' | 'break_minutes'>): number | null {
  return row.ended_at === null ? null : durationSeconds(row.started_at, row.ended_at, Number(row.break_minutes));
}

export async function insertTimeEntry(db: Executor, row: TimeEntryRow): Promise<void> {
  await db
    .insertInto('time_entries')
    .values({ ...row, duration_seconds: keptSeconds(row) })
    .execute();
}

export async function findTimeEntry(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<TimeEntryRow | undefined> {
  const query = db.selectFrom('time_entries').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** `current` is the row as read in this transaction: the kept seconds follow a change of its times. */
export async function updateTimeEntry(
  db: Executor,
  accountId: string,
  current: TimeEntryRow,
  patch: TimeEntryPatch,
): Promise<TimeEntryRow | undefined> {
  const times = 'started_at' in patch || 'ended_at' in patch || 'break_minutes' in patch;
  return db
    .updateTable('time_entries')
    .set(times ? { ...patch, duration_seconds: keptSeconds({ ...current, ...patch } as TimeEntryRow) } : patch)
    .where('account_id', '=', accountId)
    .where('id', '=', current.id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function deleteTimeEntry(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('time_entries').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The member's row, whole (its rates, where it has them), locked for the rest of the transaction. */
export async function lockMember(
  db: Executor,
  accountId: string,
  memberId: string,
): Promise<Record<string, unknown> | undefined> {
  const query = db
    .selectFrom('team_members')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', memberId);
  return (await lockedIf(db, query, true).executeTakeFirst()) as Record<string, unknown> | undefined;
}

/** The job a visit belongs to, if the visit is the account's. */
export async function findVisitJob(db: Executor, accountId: string, visitId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('visits')
    .select('job_id')
    .where('account_id', '=', accountId)
    .where('id', '=', visitId)
    .executeTakeFirst();
  return row?.job_id;
}

/** The member's running entry, if any. */
export async function findRunning(
  db: Executor,
  accountId: string,
  memberId: string,
): Promise<TimeEntryRow | undefined> {
  return db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('team_member_id', '=', memberId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
}

/** An entry of the member other than `except` whose [start, end) meets [start, end) (a null end: no end). */
export async function findOverlap(
  db: Executor,
  accountId: string,
  memberId: string,
  start: string,
  end: string | null,
  except?: string,
): Promise<TimeEntryRow | undefined> {
  let query = db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('team_member_id', '=', memberId)
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', start)]));
  if (end !== null) query = query.where('started_at', '<', end);
  if (except !== undefined) query = query.where('id', '!=', except);
  return query.orderBy('started_at').executeTakeFirst();
}

/** Stopped, unapproved entries starting in [from, to), the member's if named: oldest first, at most `limit`. */
export async function findApprovable(
  db: Executor,
  accountId: string,
  range: { from: string; to: string; memberId?: string | undefined },
  limit: number,
): Promise<TimeEntryRow[]> {
  let query = db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('started_at', '>=', range.from)
    .where('started_at', '<', range.to)
    .where('ended_at', 'is not', null)
    .where('approved_at', 'is', null);
  if (range.memberId !== undefined) query = query.where('team_member_id', '=', range.memberId);
  return query.orderBy('started_at').orderBy('id').limit(limit).execute();
}

/** Entries starting before `end` that are running or unapproved (what keeps a period from being locked): up to `limit`. */
export async function findUnsettled(
  db: Executor,
  accountId: string,
  end: string,
  limit: number,
): Promise<TimeEntryRow[]> {
  return db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('started_at', '<', end)
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('approved_at', 'is', null)]))
    .orderBy('started_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function countUnsettled(db: Executor, accountId: string, end: string): Promise<number> {
  const row = await db
    .selectFrom('time_entries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('started_at', '<', end)
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('approved_at', 'is', null)]))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The account's lock date, moved (its own column in the account's row). */
export async function setLockedThrough(
  db: Executor,
  accountId: string,
  lockedThrough: string | null,
  now: string,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ time_locked_through: lockedThrough, time_lock_updated_at: now })
    .where('id', '=', accountId)
    .execute();
}

/** The account's entries of `ids`, locked for the transaction when asked, in id order (locks taken in one order). */
export async function findTimeEntries(
  db: Executor,
  accountId: string,
  ids: readonly string[],
  lock = false,
): Promise<TimeEntryRow[]> {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .orderBy('id');
  return lockedIf(db, query, lock).execute();
}

/** A job's entries that may be billed on an invoice in `currency`: oldest first, at most `limit`, locked. */
export async function findBillableOfJob(
  db: Executor,
  accountId: string,
  jobId: string,
  options: { currency: string; includeUnapproved: boolean; startingFrom: string | null },
  limit: number,
): Promise<TimeEntryRow[]> {
  let query = db
    .selectFrom('time_entries')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .where('billable', '=', 1)
    .where('ended_at', 'is not', null)
    .where('invoice_id', 'is', null)
    .where('currency', '=', options.currency);
  if (!options.includeUnapproved) query = query.where('approved_at', 'is not', null);
  if (options.startingFrom !== null) query = query.where('started_at', '>=', options.startingFrom);
  return lockedIf(db, query.orderBy('started_at').orderBy('id').limit(limit), true).execute();
}

/** Bills an unbilled entry on an invoice with its billed hours frozen: false when it was billed meanwhile. */
export async function markBilled(
  db: Executor,
  accountId: string,
  id: string,
  billed: { invoice_id: string; billed_hundredths: number; updated_at: string },
): Promise<TimeEntryRow | undefined> {
  return db
    .updateTable('time_entries')
    .set(billed)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('invoice_id', 'is', null)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Releases the entries of `ids` that `invoiceId` bills: unbilled again, their billed hours live. */
export async function releaseBilled(
  db: Executor,
  accountId: string,
  invoiceId: string,
  ids: readonly string[],
  now: string,
): Promise<TimeEntryRow[]> {
  if (ids.length === 0) return [];
  return db
    .updateTable('time_entries')
    .set({ invoice_id: null, billed_hundredths: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('id', 'in', [...ids])
    .returning(COLUMNS)
    .execute();
}

/** The names of the account's members of `ids` (a time line's description). */
export async function findMemberNames(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('team_members')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/**
 * The labour of a job's entries, summed by the database over the job's index: each stopped entry's cost and
 * billable amount rounded on its own (contract §29: round(seconds × hourly cost ÷ 3600), and its billed hours
 * — frozen while billed, else its seconds in whole increments, halves up — × hourly rate, rounded), as
 * figures.ts rounds them: every figure is a whole number of at least 0, so floor((2ab + c) ÷ 2c) is a×b÷c
 * rounded halves away from zero, in integer arithmetic on both engines. `incrementMinutes` is a multiple of 3
 * (its hundredths of an hour are exact).
 */
export function labourQuery(db: Executor, accountId: string, jobId: string, incrementMinutes: number) {
  const increment = Math.trunc(incrementMinutes) * 60;
  // Literals, not parameters: SQLite binds a JavaScript number as REAL, and its division would not be integer.
  const hundredths = sql`coalesce(billed_hundredths, ((2 * duration_seconds + ${sql.lit(increment)}) / ${sql.lit(2 * increment)}) * ${sql.lit(incrementMinutes * 5)} / 3)`;
  const amount = sql`(2 * ${hundredths} * hourly_rate_amount + 100) / 200`;
  const stopped = sql`ended_at is not null`;
  return db
    .selectFrom('time_entries')
    .select([
      sql<number | string>`count(*)`.as('all_entries'),
      sql<number | string | null>`sum(case when ${stopped} then 0 else 1 end)`.as('running_entries'),
      sql<number | string | null>`sum(case when ${stopped} and approved_at is null then 1 else 0 end)`.as(
        'unapproved_entries',
      ),
      sql<number | string | null>`sum(duration_seconds)`.as('seconds'),
      sql<number | string | null>`sum((2 * duration_seconds * hourly_cost_amount + 3600) / 7200)`.as('cost_amount'),
      sql<number | string | null>`sum(case when ${stopped} and billable = 1 then ${amount} else 0 end)`.as(
        'billable_amount',
      ),
      sql<
        number | string | null
      >`sum(case when ${stopped} and billable = 1 and invoice_id is null then ${amount} else 0 end)`.as(
        'unbilled_billable_amount',
      ),
    ])
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId);
}

/** A job's labour (`labourQuery`), read from the index made for it (`time_entries_job_costing_idx`) alone. */
export async function sumLabour(db: Executor, accountId: string, jobId: string, incrementMinutes: number) {
  const row = await labourQuery(db, accountId, jobId, incrementMinutes).executeTakeFirstOrThrow();
  const running = Number(row.running_entries ?? 0);
  return {
    entries: Number(row.all_entries) - running,
    seconds: Number(row.seconds ?? 0),
    cost_amount: Number(row.cost_amount ?? 0),
    billable_amount: Number(row.billable_amount ?? 0),
    unbilled_billable_amount: Number(row.unbilled_billable_amount ?? 0),
    unapproved_entries: Number(row.unapproved_entries ?? 0),
    running_entries: running,
  };
}
