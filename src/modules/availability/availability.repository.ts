// The commitments availability reads (docs/api-contract.md §28), each from a member's index: visits through
// `visit_assignees` (which carries their instants and status), active holds through `availability_hold_members`;
// and the holds themselves, every query scoped by account (and a hold's by its key where it is the key's).
import { sql, type SqlBool } from 'kysely';
import { storedInstantMs } from '../../core/time.js';
import { type Executor, joinableInstant, joinedText, readValues } from '../../db/index.js';
import type { AvailabilityHoldRow } from '../../db/types.js';
import { lookbackFrom } from '../visits/index.js';

/** A hold lasts at most 1,440 minutes. */
const HOLD_LOOKBACK_MS = 86_400_000;

const before = (at: string, ms: number) => new Date(new Date(at).getTime() - ms).toISOString();

/**
 * A member's visits as `visitsOfMembers` reads them: the member's id, and the fields of each of its visits
 * (start_at, end_at, then the id and the property where asked) joined by spaces, one text for all of them.
 */
export type MemberVisits = [team_member_id: string, visits: string];

/**
 * The members' visits that are not canceled and overlap [from, to) (completed ones too), as one text per member
 * (`eachVisit` reads it): a month of 50 members' visits is thousands, and a row (or an object) for each costs
 * about four times what SQLite spends finding them. With `places`, each with its property (travel needs it),
 * else with no read of the visit's row; with `ids`, each with its id (a 409 names it). `longest`: the account's
 * longest visit in minutes (how far before `from` one may start), else the longest any visit lasts.
 */
export async function visitsOfMembers(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  window: { from: string; to: string; longest?: number | undefined },
  read: { places: boolean; ids: boolean },
): Promise<MemberVisits[]> {
  if (memberIds.length === 0) return [];
  return (await readValues(db, visitsOfMembersQuery(db, accountId, memberIds, window, read))) as MemberVisits[];
}

/**
 * One read: a range of the members' index (account, member, start_at) per member, which holds every column but
 * the property; grouped by member, the groups in the index's order.
 */
export function visitsOfMembersQuery(
  db: Executor,
  accountId: string,
  memberIds: readonly string[],
  window: { from: string; to: string; longest?: number | undefined },
  read: { places: boolean; ids: boolean },
) {
  // Instants (as joinableInstant gives them) and ids (UUIDs) hold no space. A visit without a property: an empty field.
  let fields = sql<string>`${joinableInstant(db, sql.ref('visit_assignees.start_at'))} || ' ' || ${joinableInstant(db, sql.ref('visit_assignees.end_at'))}`;
  if (read.ids) fields = sql<string>`${fields} || ' ' || cast(visit_assignees.visit_id as text)`;
  // The place only with travel: else the visit's row is not read at all.
  if (read.places)
    fields = sql<string>`${fields} || ' ' || coalesce(cast((select visits.property_id from visits where visits.id = visit_assignees.visit_id) as text), '')`;
  return db
    .selectFrom('visit_assignees')
    .select(['visit_assignees.team_member_id as team_member_id', joinedText(db, fields, ' ').as('visits')])
    .where('visit_assignees.account_id', '=', accountId)
    .where('visit_assignees.team_member_id', 'in', [...memberIds])
    .where('visit_assignees.start_at', '>=', lookbackFrom(window.from, window.longest))
    .where('visit_assignees.start_at', '<', window.to)
    .where(sql<SqlBool>`(visit_assignees.end_at > ${window.from}) is true`)
    .where(sql<SqlBool>`(visit_assignees.status <> 'canceled') is true`)
    .groupBy('visit_assignees.team_member_id');
}

/** Where the field of `text` that starts at `at` ends: at the next space, or the text's end for its last. */
function fieldEnd(text: string, at: number): number {
  const space = text.indexOf(' ', at);
  return space === -1 ? text.length : space;
}

/** Each visit of what `visitsOfMembers` read with `read`: its member, instants (epoch ms), id and property. */
export function eachVisit(
  rows: readonly MemberVisits[],
  read: { places: boolean; ids: boolean },
  visit: (memberId: string, start: number, end: number, id: string | null, propertyId: string | null) => void,
): void {
  for (const [memberId, text] of rows) {
    for (let at = 0; at < text.length; ) {
      let to = fieldEnd(text, at);
      const start = storedInstantMs(text, at, to);
      at = to + 1;
      to = fieldEnd(text, at);
      const end = storedInstantMs(text, at, to);
      at = to + 1;
      let id: string | null = null;
      if (read.ids) {
        to = fieldEnd(text, at);
        id = text.slice(at, to);
        at = to + 1;
      }
      let propertyId: string | null = null;
      if (read.places) {
        to = fieldEnd(text, at);
        propertyId = to === at ? null : text.slice(at, to);
        at = to + 1;
      }
      visit(memberId, start, end, id, propertyId);
    }
  }
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
