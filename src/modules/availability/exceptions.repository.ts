// Availability exception queries, every one scoped by account.
import { sql, type SqlBool } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  timeBoundConditions,
  type TimeBounds,
} from '../../db/index.js';
import type { AvailabilityExceptionRow } from '../../db/types.js';
import { MAX_EXCEPTION_DAYS } from './exceptions.schemas.js';

export const EXCEPTION_COLUMNS = [
  'id',
  'account_id',
  'team_member_id',
  'kind',
  'all_day',
  'timezone',
  'start_at',
  'end_at',
  'start_date',
  'end_date',
  'reason',
  'external_id',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export interface ExceptionFilters extends TimeBounds {
  team_member_id?: string | undefined;
  kind?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  external_id?: string | undefined;
}

export async function insertException(db: Executor, row: AvailabilityExceptionRow): Promise<void> {
  await db.insertInto('availability_exceptions').values(row).execute();
}

export async function findException(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<AvailabilityExceptionRow | undefined> {
  const query = db
    .selectFrom('availability_exceptions')
    .select(EXCEPTION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateException(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<AvailabilityExceptionRow>,
): Promise<AvailabilityExceptionRow | undefined> {
  return db
    .updateTable('availability_exceptions')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(EXCEPTION_COLUMNS)
    .executeTakeFirst();
}

export async function deleteException(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('availability_exceptions').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** How far before a window an exception overlapping it may start: an exception lasts at most 366 days. */
function lookback(from: string): string {
  return new Date(new Date(from).getTime() - (MAX_EXCEPTION_DAYS + 1) * 86_400_000).toISOString();
}

export function listExceptions(
  db: Executor,
  accountId: string,
  filters: ExceptionFilters,
  page: PageRequest<AvailabilityExceptionRow>,
): Promise<Listed<AvailabilityExceptionRow>> {
  return runList(listExceptionsPlan(db, accountId, filters, page));
}

/** The list's queries, unexecuted (the query-plan test explains each): team_member_id drives from its index. */
export function listExceptionsPlan(
  db: Executor,
  accountId: string,
  filters: ExceptionFilters,
  page: PageRequest<AvailabilityExceptionRow>,
) {
  const conditions: Condition[] = timeBoundConditions(filters);
  if (filters.kind !== undefined)
    conditions.push({ column: 'kind', expression: sql<SqlBool>`(kind = ${filters.kind}) is true` });
  if (filters.from !== undefined)
    conditions.push({ column: 'end_at', expression: sql<SqlBool>`(end_at > ${filters.from}) is true` });
  if (filters.to !== undefined)
    conditions.push({ column: 'start_at', expression: sql<SqlBool>`(start_at < ${filters.to}) is true` });
  return listPlan(
    db,
    { table: 'availability_exceptions', columns: EXCEPTION_COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ team_member_id: filters.team_member_id, external_id: filters.external_id }), conditions },
    page,
  );
}

/** The members' exceptions overlapping [from, to), from each member's index (a range of its start_at). */
export async function exceptionsOfMembers(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  from: string,
  to: string,
): Promise<Array<Pick<AvailabilityExceptionRow, 'team_member_id' | 'kind' | 'start_at' | 'end_at'>>> {
  if (memberIds.length === 0) return [];
  // One read: a range of the members' index (account, member, start_at) per member.
  return db
    .selectFrom('availability_exceptions')
    .select(['team_member_id', 'kind', 'start_at', 'end_at'])
    .where('account_id', '=', accountId)
    .where('team_member_id', 'in', [...memberIds])
    .where('start_at', '>=', lookback(from))
    .where('start_at', '<', to)
    .where(sql<SqlBool>`(end_at > ${from}) is true`)
    .execute();
}
