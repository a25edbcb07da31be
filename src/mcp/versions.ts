// The versions of the objects an MCP call involves (docs/api-contract.md §32, "MCP calls"): each object read as
// its GET answers it and fingerprinted like its ETag (a hash of its JSON), so the server can tell whether
// anything a call read or wrote, or that a confirmation's summary described, has changed since.
import { isUuid } from '../core/deps.js';
import { AppError } from '../core/errors.js';
import { lockedIf } from '../db/index.js';
import { getHold } from '../modules/availability/index.js';
import { getProduct } from '../modules/catalog/index.js';
import { getClient } from '../modules/clients/index.js';
import { getCreditNote } from '../modules/credit-notes/index.js';
import { getInvoice, getPayment } from '../modules/invoices/index.js';
import { getJob } from '../modules/jobs/index.js';
import { getProperty } from '../modules/properties/index.js';
import { getQuote } from '../modules/quotes/index.js';
import { getServiceRequest } from '../modules/service-requests/index.js';
import { getTeamMember } from '../modules/team-members/index.js';
import { getVisit } from '../modules/visits/index.js';
import { getTimeEntry } from '../modules/time-entries/index.js';
import type { Context } from '../kernel/context.js';
import { etagOf } from '../http/etag.js';

/** Each kind of object a tool names, with its table (to lock it) and how it is read. */
const KINDS = {
  client: { table: 'clients', read: getClient },
  quote: { table: 'quotes', read: getQuote },
  invoice: { table: 'invoices', read: (ctx: Context, id: string) => getInvoice(ctx, id, ctx.clock.now()) },
  payment: { table: 'payments', read: getPayment },
  job: { table: 'jobs', read: getJob },
  visit: { table: 'visits', read: getVisit },
  team_member: { table: 'team_members', read: getTeamMember },
  property: { table: 'properties', read: getProperty },
  service_request: { table: 'service_requests', read: getServiceRequest },
  product: { table: 'products', read: getProduct },
  availability_hold: { table: 'availability_holds', read: getHold },
  credit_note: { table: 'credit_notes', read: getCreditNote },
  time_entry: { table: 'time_entries', read: getTimeEntry },
} as const;

export type ObjectKind = keyof typeof KINDS;

export interface ObjectRef {
  kind: ObjectKind;
  id: string;
}

/** An object as it was: `etag` null when it did not exist (deleted, or never made). */
export interface ObjectVersion extends ObjectRef {
  etag: string | null;
}

/** The object as its GET answers it, or null when there is none. */
export async function readObject(ctx: Context, ref: ObjectRef): Promise<unknown> {
  try {
    return await KINDS[ref.kind].read(ctx, ref.id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

function distinct(refs: ObjectRef[]): ObjectRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = `${ref.kind}:${ref.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export const versionOf = (ref: ObjectRef, object: unknown): ObjectVersion => ({
  kind: ref.kind,
  id: ref.id,
  etag: object === null ? null : etagOf(object),
});

/** The current version of each object, in the order given (each once). */
export async function versionsOf(ctx: Context, refs: ObjectRef[]): Promise<ObjectVersion[]> {
  const versions: ObjectVersion[] = [];
  for (const ref of distinct(refs)) versions.push(versionOf(ref, await readObject(ctx, ref)));
  return versions;
}

/** True when both name the same objects at the same versions (field by field: jsonb keeps no key order). */
export function sameVersions(a: ObjectVersion[], b: ObjectVersion[]): boolean {
  return (
    a.length === b.length &&
    a.every((one, index) => {
      const other = b[index]!;
      return one.kind === other.kind && one.id === other.id && one.etag === other.etag;
    })
  );
}

/**
 * Holds the objects' rows until the transaction ends, so none changes between the check of its version and
 * the action. PostgreSQL needs FOR UPDATE; SQLite's transactions (BEGIN IMMEDIATE) already hold the write lock.
 */
export async function lockObjects(tx: Context, refs: ObjectRef[]): Promise<void> {
  for (const ref of distinct(refs).filter((one) => isUuid(one.id)))
    await lockedIf(
      tx.db,
      tx.db
        .selectFrom(KINDS[ref.kind].table)
        .select('id')
        .where('id', '=', ref.id)
        .where('account_id', '=', tx.accountId),
      true,
    ).execute();
}
