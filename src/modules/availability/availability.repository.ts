// The commitments availability reads (docs/api-contract.md §28), each from a member's index: visits through
// `visit_assignees` (which carries their instants and status), active holds through `availability_hold_members`;
// and the holds themselves, every query scoped by account (and a hold's by its key where it is the key's).
import { sql, type SqlBool } from 'kysely';
import { type Executor, readValues } from '../../db/index.js';
import type { AvailabilityHoldRow } from '../../db/types.js';
import { lookbackFrom } from '../visits/index.js';

/** A hold lasts at most 1,440 minutes. */
const HOLD_LOOKBACK_MS = 86_400_000;

const before = (at: string, ms: number) => new Date(new Date(at).getTime() - ms).toISOString();

/** A visit of a member as `visitsOfMembers` reads it: the values of its columns, in this order. */
export type VisitValues = [
  team_member_id: string,
  start_at: string,
  end_at: string,
  visit_id: string | null,
  property_id: string | null,
];

/**
 * The members' visits that are not canceled and overlap [from, to) (completed ones too), as arrays of values (no
 * object per visit: a month of 50 members' visits is thousands); with `places`, each with its property (travel
 * needs it), else with property_id null and no read of the visit's row; with `ids`, each with its id (a 409 names
 * it), else null. `longest`: the account's longest visit in minutes (how far before `from` one may start), else
 * the longest any visit lasts.
 */
export async function visitsOfMembers(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  window: { from: string; to: string; longest?: number | undefined },
  read: { places: boolean; ids: boolean },
): Promise<VisitValues[]> {
  if (memberIds.length === 0) return [];
  return (await readValues(db, visitsOfMembersQuery(db, accountId, memberIds, window, read))) as VisitValues[];
}

/** One read: a range of the members' index (account, member, start_at) per member, which holds every column. */
export function visitsOfMembersQuery(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  window: { from: string; to: string; longest?: number | undefined },
  read: { places: boolean; ids: boolean },
) {
  // The place only with travel: else the visit's row is not read at all.
  const property = read.places
    ? sql<string | null>`(select visits.property_id from visits where visits.id = visit_assignees.visit_id)`
    : sql<string | null>`null`;
  return db
    .selectFrom('visit_assignees')
    .select([
      'visit_assignees.team_member_id as team_member_id',
      'visit_assignees.start_at as start_at',
      'visit_assignees.end_at as end_at',
      (read.ids ? sql<string | null>`visit_assignees.visit_id` : sql<string | null>`null`).as('visit_id'),
      property.as('property_id'),
    ])
    .where('visit_assignees.account_id', '=', accountId)
    .where('visit_assignees.team_member_id', 'in', [...memberIds])
    .where('visit_assignees.start_at', '>=', lookbackFrom(window.from, window.longest))
    .where('visit_assignees.start_at', '<', window.to)
    .where(sql<SqlBool>`(visit_assignees.end_at > ${window.from}) is true`)
    .where(sql<SqlBool>`(visit_assignees.status <> 'canceled') is true`);
}

export interface HoldCommitment {
  team_member_id: string;
  hold_id: string;
  start_at: string;
  end_at: string;
  property_id: string | null;
}

/** The members' active holds (not booked, not released, not expired at `now`) overlapping [from, to). */
export async function holdsOfMembers(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  from: string,
  to: string,
  now: string,
): Promise<HoldCommitment[]> {
  if (memberIds.length === 0) return [];
  return (await db
    .selectFrom('availability_hold_members')
    .select(['team_member_id', 'hold_id', 'start_at', 'end_at', 'property_id'])
    .where('account_id', '=', accountId)
    .where('team_member_id', 'in', [...memberIds])
    .where('start_at', '>=', before(from, HOLD_LOOKBACK_MS))
    .where('start_at', '<', to)
    .where(sql<SqlBool>`(end_at > ${from}) is true`)
    .where(sql<SqlBool>`(expires_at > ${now}) is true`)
    .execute()) as HoldCommitment[];
}

export const HOLD_COLUMNS = [
  'id',
  'account_id',
  'api_key_id',
  'start_at',
  'end_at',
  'timezone',
  'duration_minutes',
  'property_id',
  'team_member_ids',
  'expires_at',
  'visit_id',
  'released_at',
  'metadata',
  'created_at',
  'updated_at',
] as const;

export async function insertHold(db: Executor, row: AvailabilityHoldRow, memberIds: readonly string[]): Promise<void> {
  await db.insertInto('availability_holds').values(row).execute();
  await db
    .insertInto('availability_hold_members')
    .values(
      memberIds.map((memberId) => ({
        account_id: row.account_id,
        hold_id: row.id,
        team_member_id: memberId,
        start_at: row.start_at,
        end_at: row.end_at,
        expires_at: row.expires_at,
        property_id: row.property_id,
      })),
    )
    .execute();
}

/** The key's hold `id`, or undefined (another key's hold is not found: a hold is bound to its key). */
export async function findHold(
  db: Executor,
  accountId: string,
  keyId: string,
  id: string,
): Promise<AvailabilityHoldRow | undefined> {
  return db
    .selectFrom('availability_holds')
    .select(HOLD_COLUMNS)
    .where('account_id', '=', accountId)
    .where('api_key_id', '=', keyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The key's active holds (not spent, not released, not expired), soonest to expire first. */
export async function activeHoldsOfKey(
  db: Executor,
  accountId: string,
  keyId: string,
  now: string,
  limit = 100,
): Promise<AvailabilityHoldRow[]> {
  return db
    .selectFrom('availability_holds')
    .select(HOLD_COLUMNS)
    .where('account_id', '=', accountId)
    .where('api_key_id', '=', keyId)
    .where('expires_at', '>', now)
    .where('visit_id', 'is', null)
    .where('released_at', 'is', null)
    .orderBy('expires_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Ends a hold (released or booked): it stops being a commitment of its members. */
export async function endHold(
  db: Executor,
  accountId: string,
  id: string,
  patch: { visit_id?: string; released_at?: string; updated_at: string },
): Promise<AvailabilityHoldRow | undefined> {
  await db
    .deleteFrom('availability_hold_members')
    .where('account_id', '=', accountId)
    .where('hold_id', '=', id)
    .execute();
  return db
    .updateTable('availability_holds')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(HOLD_COLUMNS)
    .executeTakeFirst();
}

/** The calling key's hold, for the MCP server's book_slot (a repeated booking answers the same visit). */
export const findHoldOfKey = findHold;
