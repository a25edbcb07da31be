// Availability exception rules (docs/api-contract.md §28): the member is fixed at creation and must be the
// account's; the time is one of a visit's forms (§17) in the member's zone by default, at most 366 days; every
// change records its event. Exceptions never move or refuse visits (§32).
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition } from '../../core/errors.js';
import { instantToLocal } from '../../core/time.js';
import { fromJson, type Page, pageRequest, timestampSorts, toPage } from '../../db/index.js';
import type { AvailabilityExceptionRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { recordChange, recordEvent } from '../events/index.js';
import { guardExternalId, requireReference, requireRow } from '../shared/index.js';
import { findBookingMembers } from '../team-members/index.js';
import { resolveTime, type VisitTime } from '../visits/index.js';
import * as repository from './exceptions.repository.js';
import {
  type AvailabilityException,
  type CreateAvailabilityExceptionInput,
  type ExceptionKind,
  type ListAvailabilityExceptionsInput,
  MAX_EXCEPTION_DAYS,
  type UpdateAvailabilityExceptionInput,
} from './exceptions.schemas.js';

const SPAN = { days: MAX_EXCEPTION_DAYS, noun: 'exception' };
const SORTS = timestampSorts<AvailabilityExceptionRow>();

export function presentException(row: AvailabilityExceptionRow): AvailabilityException {
  const allDay = Number(row.all_day) === 1;
  return {
    id: row.id,
    object: 'availability_exception',
    team_member_id: row.team_member_id,
    kind: row.kind as ExceptionKind,
    all_day: allDay,
    timezone: row.timezone,
    start_at: row.start_at,
    end_at: row.end_at,
    local_start: instantToLocal(row.start_at, row.timezone),
    local_end: instantToLocal(row.end_at, row.timezone),
    start_date: allDay ? row.start_date : null,
    end_date: allDay ? row.end_date : null,
    reason: row.reason,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The stored time of a body's form; a 422 on start_at when the body has none (an exception always has a time). */
function timeOf(input: UpdateAvailabilityExceptionInput, current: VisitTime | undefined, zone: string) {
  const time = resolveTime(input, current, zone, '', SPAN);
  if (time === undefined) return undefined;
  if (time.start_at === null || time.end_at === null)
    throw fieldError('start_at', 'is required: an exception always has a time (start_at, local_start or start_date)');
  return time as VisitTime & { start_at: string; end_at: string };
}

function getRow(ctx: Context, id: string, lock = false): Promise<AvailabilityExceptionRow> {
  return requireRow('availability exception', id, (found) =>
    repository.findException(ctx.db, ctx.accountId, found, lock),
  );
}

export async function createException(
  ctx: Context,
  input: CreateAvailabilityExceptionInput,
): Promise<AvailabilityException> {
  const member = await requireReference(
    'team_member_id',
    'team member',
    input.team_member_id,
    async (id) => (await findBookingMembers(ctx.db, ctx.accountId, [id], 1))[0],
  );
  const time = timeOf(input, undefined, member.timezone);
  if (time === undefined)
    throw fieldError('start_at', 'is required: give start_at, local_start or all_day with start_date');
  const now = ctx.clock.now().toISOString();
  const row: AvailabilityExceptionRow = {
    id: newId(),
    account_id: ctx.accountId,
    team_member_id: member.id,
    kind: input.kind ?? 'time_off',
    ...time,
    reason: input.reason ?? null,
    external_id: input.external_id ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  return guardExternalId(ctx, 'availability_exceptions', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      await repository.insertException(tx.db, row);
      const created = presentException(row);
      await recordEvent(tx, 'availability_exception.created', created);
      return created;
    }),
  );
}

export async function getException(ctx: Context, id: string): Promise<AvailabilityException> {
  return presentException(await getRow(ctx, id));
}

export async function updateException(
  ctx: Context,
  id: string,
  input: UpdateAvailabilityExceptionInput,
  precondition?: Precondition,
): Promise<AvailabilityException> {
  return guardExternalId(
    ctx,
    'availability_exceptions',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentException(current));
        const time = timeOf(input, { ...current, all_day: Number(current.all_day) === 1 ? 1 : 0 }, current.timezone);
        const patch: Partial<AvailabilityExceptionRow> = { ...(time ?? {}) };
        if (input.kind !== undefined) patch.kind = input.kind;
        if (input.reason !== undefined) patch.reason = input.reason;
        if (input.external_id !== undefined) patch.external_id = input.external_id;
        if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
        if (Object.keys(patch).length === 0) return presentException(current);
        patch.updated_at = tx.clock.now().toISOString();
        const updated = await repository.updateException(tx.db, tx.accountId, current.id, patch);
        const after = presentException(updated ?? current);
        await recordChange(tx, { resource: 'availability_exception', before: presentException(current), after });
        return after;
      }),
    id,
  );
}

export async function deleteException(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentException(row));
    await repository.deleteException(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'availability_exception.deleted', presentException(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listExceptions(
  ctx: Context,
  query: ListAvailabilityExceptionsInput,
): Promise<Page<AvailabilityExceptionRow>> {
  const page = pageRequest(query, SORTS);
  const instant = (field: 'from' | 'to') => {
    const value = query[field];
    if (value === undefined) return undefined;
    const parsed = new Date(value);
    if (Number.isNaN(parsed.getTime())) throw fieldError(field, 'must be an RFC 3339 instant');
    return parsed.toISOString();
  };
  const { rows, resumeAfter } = await repository.listExceptions(
    ctx.db,
    ctx.accountId,
    { ...query, from: instant('from'), to: instant('to') },
    page,
  );
  return toPage(rows, page, resumeAfter);
}
