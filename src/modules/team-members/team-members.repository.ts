// Team member queries, every one scoped by account.
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
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { TeamMemberPatch, TeamMemberRow } from '../../db/types.js';
import type { TeamRole } from './team-members.schemas.js';

const COLUMNS = [
  'id',
  'account_id',
  'name',
  'sort_name',
  'email',
  'phone',
  'role',
  'color',
  'timezone',
  'active',
  'working_hours',
  'bookable',
  'hourly_cost_amount',
  'hourly_rate_amount',
  'external_id',
  'metadata',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

export interface TeamMemberFilters extends TimeBounds {
  active?: boolean | undefined;
  roles?: TeamRole[] | undefined;
  q?: string | undefined;
  external_id?: string | undefined;
  /** Custom field filters (modules/custom-fields), each answered by the value rows' index. */
  custom?: Condition[] | undefined;
}

/** `sort=name` is case-insensitive: sort_name is the name as JavaScript lower-cases it, with its own index. */
export const TEAM_MEMBER_SORTS: SortFields<TeamMemberRow> = {
  ...timestampSorts<TeamMemberRow>(),
  name: { kind: 'text', expression: 'sort_name', value: (row) => row.sort_name },
};

/**
 * What refers to a member and so keeps it from being deleted (docs/api-contract.md §15: any visit or visit
 * schedule that names it), as [table, column, label]; visit schedules join it when they are built.
 */
const TEAM_MEMBER_REFERENCES: ReadonlyArray<{ table: string; column: string; label: string }> = [
  { table: 'visit_assignees', column: 'team_member_id', label: 'visit' },
  { table: 'visit_schedule_assignees', column: 'team_member_id', label: 'visit schedule' },
  { table: 'time_entries', column: 'team_member_id', label: 'time entry' },
];

export async function insertTeamMember(db: Executor, row: TeamMemberRow): Promise<void> {
  await db.insertInto('team_members').values(row).execute();
}

export async function findTeamMember(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<TeamMemberRow | undefined> {
  const query = db.selectFrom('team_members').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** The active member of the account whose e-mail is `email` (case-insensitively), if any. */
export async function findActiveMemberByEmail(
  db: Executor,
  accountId: string,
  email: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('team_members')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql<SqlBool>`lower(email) = ${email.toLowerCase()}`)
    .where('active', '=', 1)
    .executeTakeFirst();
  return row?.id;
}

export async function updateTeamMember(
  db: Executor,
  accountId: string,
  id: string,
  patch: TeamMemberPatch,
): Promise<TeamMemberRow | undefined> {
  return db
    .updateTable('team_members')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function deleteTeamMember(db: Executor, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('team_members').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Counts of what names the member (visits, schedules), only those above zero: the hook delete checks. */
export async function countTeamMemberReferences(
  db: Executor,
  accountId: string,
  memberId: string,
): Promise<Array<{ label: string; count: number }>> {
  const found: Array<{ label: string; count: number }> = [];
  for (const { table, column, label } of TEAM_MEMBER_REFERENCES) {
    const { rows } = await sql<{ count: number | string }>`
      select count(*) as count from ${sql.table(table)} where account_id = ${accountId} and ${sql.ref(column)} = ${memberId}`.execute(
      db,
    );
    const count = Number(rows[0]?.count ?? 0);
    if (count > 0) found.push({ label, count });
  }
  return found;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export async function listTeamMembers(
  db: Executor,
  accountId: string,
  filters: TeamMemberFilters,
  page: PageRequest<TeamMemberRow>,
): Promise<Listed<TeamMemberRow>> {
  return runList(listTeamMembersPlan(db, accountId, filters, page));
}

/**
 * The list's queries, unexecuted (the query-plan test explains each). `external_id` drives from its unique
 * index; `active`, `role` and `q` are checked on the rows of the sort's index, walked at most WALK_LIMIT
 * entries a page (a team is small: its whole list is usually one such read).
 */
export function listTeamMembersPlan(
  db: Executor,
  accountId: string,
  filters: TeamMemberFilters,
  page: PageRequest<TeamMemberRow>,
) {
  const conditions: Condition[] = [...timeBoundConditions(filters), ...(filters.custom ?? [])];
  if (filters.active !== undefined)
    conditions.push({ column: 'active', expression: sql<SqlBool>`active = ${filters.active ? 1 : 0}` });
  if (filters.roles !== undefined)
    conditions.push({ column: 'role', expression: sql<SqlBool>`role in (${sql.join(filters.roles)})` });
  if (filters.q !== undefined) {
    // sort_name and the query are both lower-cased by JavaScript, so both engines match alike.
    const pattern = `%${escapeLike(filters.q.toLowerCase())}%`;
    conditions.push({
      column: 'q',
      expression: sql<SqlBool>`(sort_name like ${pattern} escape '\\' or lower(coalesce(email, '')) like ${pattern} escape '\\')`,
    });
  }
  return listPlan(
    db,
    { table: 'team_members', columns: COLUMNS, scope: { account_id: accountId } },
    { keys: keysOf({ external_id: filters.external_id }), conditions },
    page,
  );
}

/** The account's members among `ids`, with whether each is active (the check of a visit's or a schedule's assignees). */
export async function findMembers(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('team_members')
    .select(['id', 'active'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, Number(row.active) === 1]));
}

/** A member as availability reads it: its zone, hours, and whether it is active and bookable. */
export interface BookingMember {
  id: string;
  timezone: string;
  working_hours: string | null;
  active: number;
  bookable: number;
}

/**
 * The members availability considers (docs/api-contract.md §28): those of `ids` (named; any order), else the
 * account's active bookable ones, at most `limit` of them in id order. `lock` locks their rows in id order, the
 * one order every hold and booking takes, so that two never wait on each other.
 */
export async function findBookingMembers(
  db: Executor,
  accountId: string,
  ids: readonly string[] | undefined,
  limit: number,
  lock = false,
): Promise<BookingMember[]> {
  let query = db
    .selectFrom('team_members')
    .select(['id', 'timezone', 'working_hours', 'active', 'bookable'])
    .where('account_id', '=', accountId);
  if (ids !== undefined) {
    if (ids.length === 0) return [];
    query = query.where('id', 'in', [...ids]);
  } else query = query.where('active', '=', 1).where('bookable', '=', 1);
  return lockedIf(db, query.orderBy('id').limit(limit), lock).execute();
}
