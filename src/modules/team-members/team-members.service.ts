// Team member rules (docs/api-contract.md §15): the zone defaults to the account's at creation and is
// canonicalised; the e-mail is unique case-insensitively among active members and external_id per account
// (both 409 naming the holder, also when two requests race: the unique indexes decide); delete is refused
// while anything names the member (deactivate instead).
import { newId } from '../../core/deps.js';
import { AppError, conflict, type Precondition } from '../../core/errors.js';
import { canonicalTimeZone } from '../../core/time.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { TeamMemberPatch, TeamMemberRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { checkWorkingHours, externalIdConflict, guardUnique, requireRow, type WorkingHours } from '../shared/index.js';
import * as repository from './team-members.repository.js';
import {
  TEAM_ROLES,
  type CreateTeamMemberInput,
  type ListTeamMembersInput,
  type TeamMember,
  type TeamRole,
  type UpdateTeamMemberInput,
} from './team-members.schemas.js';
import { fieldError } from '../../core/errors.js';

export function presentTeamMember(row: TeamMemberRow): TeamMember {
  return {
    id: row.id,
    object: 'team_member',
    name: row.name,
    email: row.email,
    phone: row.phone,
    role: row.role as TeamRole,
    color: row.color,
    timezone: row.timezone,
    active: Number(row.active) === 1,
    working_hours: row.working_hours === null ? null : fromJson<WorkingHours>(row.working_hours),
    bookable: Number(row.bookable) === 1,
    hourly_cost_amount: row.hourly_cost_amount === null ? null : Number(row.hourly_cost_amount),
    hourly_rate_amount: row.hourly_rate_amount === null ? null : Number(row.hourly_rate_amount),
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<TeamMemberRow> {
  return requireRow('team member', id, (found) => repository.findTeamMember(ctx.db, ctx.accountId, found, lock));
}

/** What a member would hold that must be unique: an active e-mail, an external id. */
interface Claims {
  email: string | null;
  active: boolean;
  external_id: string | null;
}

/** The 409 of the first unique value another member of the account holds, if any. */
async function takenClaim(ctx: Context, claims: Claims, self?: string): Promise<AppError | undefined> {
  if (claims.email !== null && claims.active) {
    const holder = await repository.findActiveMemberByEmail(ctx.db, ctx.accountId, claims.email);
    if (holder !== undefined && holder !== self) {
      const message = `is already the e-mail of active team member ${holder}; deactivate that member or use another address`;
      return new AppError('CONFLICT', `email '${claims.email}' ${message}.`, [{ field: 'email', message }]);
    }
  }
  return claims.external_id === null ? undefined : externalIdConflict(ctx, 'team_members', claims.external_id, self);
}

const upperColor = (color: string | null | undefined) => (color ? color.toUpperCase() : (color ?? null));

export async function createTeamMember(ctx: Context, input: CreateTeamMemberInput): Promise<TeamMember> {
  const timezone =
    input.timezone !== undefined
      ? canonicalTimeZone('timezone', input.timezone)
      : await findAccountTimezone(ctx.db, ctx.accountId);
  if (input.working_hours) checkWorkingHours('working_hours', input.working_hours);
  const now = ctx.clock.now().toISOString();
  const role = input.role ?? 'field';
  const row: TeamMemberRow = {
    id: newId(),
    account_id: ctx.accountId,
    name: input.name,
    sort_name: input.name.toLowerCase(),
    email: input.email ?? null,
    phone: input.phone ?? null,
    role,
    color: upperColor(input.color),
    timezone,
    active: input.active === false ? 0 : 1,
    working_hours: input.working_hours ? JSON.stringify(input.working_hours) : null,
    bookable: (input.bookable ?? role === 'field') ? 1 : 0,
    hourly_cost_amount: input.hourly_cost_amount ?? null,
    hourly_rate_amount: input.hourly_rate_amount ?? null,
    external_id: input.external_id ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    custom_fields: '{}',
    created_at: now,
    updated_at: now,
  };
  const claims: Claims = { email: row.email, active: row.active === 1, external_id: row.external_id };
  return guardUnique(
    ctx,
    (tx) => takenClaim(tx, claims),
    () =>
      inTransaction(ctx, async (tx) => {
        row.custom_fields = await createdCustomFields(tx, 'team_member', row, input.custom_fields);
        await repository.insertTeamMember(tx.db, row);
        const member = presentTeamMember(row);
        await recordEvent(tx, 'team_member.created', member);
        return member;
      }),
  );
}

export async function getTeamMember(ctx: Context, id: string): Promise<TeamMember> {
  return presentTeamMember(await getRow(ctx, id));
}

export async function updateTeamMember(
  ctx: Context,
  id: string,
  input: UpdateTeamMemberInput,
  precondition?: Precondition,
): Promise<TeamMember> {
  const patch: TeamMemberPatch = {};
  if (input.name !== undefined) Object.assign(patch, { name: input.name, sort_name: input.name.toLowerCase() });
  if (input.email !== undefined) patch.email = input.email;
  if (input.phone !== undefined) patch.phone = input.phone;
  if (input.role !== undefined) patch.role = input.role;
  if (input.color !== undefined) patch.color = upperColor(input.color);
  if (input.timezone !== undefined) patch.timezone = canonicalTimeZone('timezone', input.timezone);
  if (input.active !== undefined) patch.active = input.active ? 1 : 0;
  if (input.working_hours !== undefined) {
    if (input.working_hours !== null) checkWorkingHours('working_hours', input.working_hours);
    patch.working_hours = input.working_hours === null ? null : JSON.stringify(input.working_hours);
  }
  if (input.bookable !== undefined) patch.bookable = input.bookable ? 1 : 0;
  if (input.hourly_cost_amount !== undefined) patch.hourly_cost_amount = input.hourly_cost_amount;
  if (input.hourly_rate_amount !== undefined) patch.hourly_rate_amount = input.hourly_rate_amount;
  if (input.external_id !== undefined) patch.external_id = input.external_id;
  if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
  // The claims the member would hold after the change: its stored values where the body is silent.
  const claims = async (tx: Context): Promise<Claims> => {
    const current = await repository.findTeamMember(tx.db, tx.accountId, id);
    return {
      email: patch.email !== undefined ? (patch.email ?? null) : (current?.email ?? null),
      active: patch.active !== undefined ? patch.active === 1 : Number(current?.active ?? 0) === 1,
      external_id: patch.external_id !== undefined ? (patch.external_id ?? null) : (current?.external_id ?? null),
    };
  };
  const write = () =>
    inTransaction(ctx, async (tx) => {
      const current = await getRow(tx, id, true);
      precondition?.(presentTeamMember(current));
      const values = await updatedCustomFields(tx, 'team_member', current, input.custom_fields, current.custom_fields);
      if (Object.keys(patch).length === 0 && values === undefined) return presentTeamMember(current);
      const updated = await repository.updateTeamMember(tx.db, tx.accountId, current.id, {
        ...patch,
        ...(values !== undefined ? { custom_fields: values } : {}),
        updated_at: tx.clock.now().toISOString(),
      });
      const member = presentTeamMember(updated ?? current);
      await recordChange(tx, { resource: 'team_member', before: presentTeamMember(current), after: member });
      return member;
    });
  // Nothing unique changes: no claim to check.
  if (patch.email === undefined && patch.active === undefined && patch.external_id === undefined) return write();
  return guardUnique(ctx, async (tx) => takenClaim(tx, await claims(tx), id), write);
}

/** Refused while a visit or visit schedule names the member (countTeamMemberReferences): deactivate it instead. */
export async function deleteTeamMember(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentTeamMember(row));
    const references = await repository.countTeamMemberReferences(tx.db, tx.accountId, row.id);
    if (references.length > 0) {
      const list = references
        .map(
          ({ label, count }) => `${count} ${count === 1 ? label : label.replace(/y$/, 'ie')}${count === 1 ? '' : 's'}`,
        )
        .join(', ');
      throw conflict(`This team member cannot be deleted while ${list} name them. Deactivate them instead.`);
    }
    await deleteCustomFieldValues(tx.db, tx.accountId, 'team_member', row.id);
    await repository.deleteTeamMember(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'team_member.deleted', presentTeamMember(row));
    return { id: row.id, deleted: true as const };
  });
}

function parseRoles(text: string | undefined): TeamRole[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((name) => name.trim());
  if (names.some((name) => !(TEAM_ROLES as readonly string[]).includes(name)))
    throw fieldError('role', `must be a comma-separated list of: ${TEAM_ROLES.join(', ')}`);
  return names as TeamRole[];
}

export async function listTeamMembers(ctx: Context, query: ListTeamMembersInput): Promise<Page<TeamMemberRow>> {
  const page = pageRequest(query, repository.TEAM_MEMBER_SORTS);
  const custom = await customFieldConditions(ctx.db, ctx.accountId, 'team_member', 'team_members', query);
  const { rows, resumeAfter } = await repository.listTeamMembers(
    ctx.db,
    ctx.accountId,
    { ...query, roles: parseRoles(query.role), custom },
    page,
  );
  return toPage(rows, page, resumeAfter);
}
