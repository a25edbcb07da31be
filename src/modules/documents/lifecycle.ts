// A kind's lifecycle as one piece of data (quotes, invoices, jobs, service requests each declare theirs in
// `<kind>.lifecycle.ts`): its statuses, the moves PUT may make, what entering a status stamps, what must
// stay true while in it, where its fields may change, what may be sent or deleted, and the event of each
// move. Services and the client hub apply it through the functions below; they never restate it.
import { fieldError, invalidState, type AppError } from '../../core/errors.js';
import type { EventType } from '../../kernel/event-types.js';

export type TransitionTable<S extends string> = Readonly<Record<S, readonly S[]>>;

export interface Lifecycle<S extends string, Row> {
  /** How messages name the kind: 'quote', 'service request'. */
  kind: string;
  statuses: readonly S[];
  /** The moves a client may make with PUT. Moves made by an operation (to `converted`) are not in it. */
  moves: TransitionTable<S>;
  /** The event entering each status records; any other change records `<resource>.updated`. */
  events: Partial<Record<S, EventType>>;
  /** The columns entering a status sets, from the status it leaves, at `now` (an ISO instant). */
  stamps: Partial<Record<S, (now: string, from: S) => Partial<Row>>>;
  /** What must stay true while in a status: given the columns a change writes, a 422 or nothing. */
  holds: Partial<Record<S, (change: Partial<Row>, from: S) => AppError | undefined>>;
  /** Statuses in which its fields (not only its status) may change. */
  editable: readonly S[];
  /** Statuses it may be sent (or re-sent) from; empty for kinds that are never sent. */
  sendable: readonly S[];
  /** Statuses in which it may be deleted; empty for kinds without a delete. */
  deletable: readonly S[];
  /** The 409 messages of a refused edit and a refused delete. */
  refusals: { edit(status: S): string; delete(status: S): string };
}

/** Throws 409 INVALID_STATE naming the current status and the attempted change. */
export function assertMove<S extends string>(lifecycle: Lifecycle<S, unknown>, from: S, to: S): void {
  if (from === to || lifecycle.moves[from].includes(to)) return;
  const allowed = lifecycle.moves[from];
  const hint = allowed.length > 0 ? `From '${from}' it can move to: ${allowed.join(', ')}.` : `'${from}' is final.`;
  throw invalidState(`This ${lifecycle.kind} is '${from}' and cannot change to '${to}'. ${hint}`);
}

export function assertEditable<S extends string>(lifecycle: Lifecycle<S, unknown>, status: S): void {
  if (!lifecycle.editable.includes(status)) throw invalidState(lifecycle.refusals.edit(status));
}

export function assertDeletable<S extends string>(lifecycle: Lifecycle<S, unknown>, status: S): void {
  if (!lifecycle.deletable.includes(status)) throw invalidState(lifecycle.refusals.delete(status));
}

/** The columns a move from `from` to `to` sets: the new status and its stamps (nothing when it stays). */
export function enter<S extends string, Row>(
  lifecycle: Lifecycle<S, Row>,
  from: S,
  to: S,
  now: string,
): Partial<Row> & { status?: S } {
  if (from === to) return {};
  return { status: to, ...lifecycle.stamps[to]?.(now, from) } as Partial<Row> & { status?: S };
}

/** Throws what `change` breaks of the rules of `status`, the status the row is in after it. */
export function assertHolds<S extends string, Row>(
  lifecycle: Lifecycle<S, Row>,
  status: S,
  change: Partial<Row>,
  from: S,
): void {
  const problem = lifecycle.holds[status]?.(change, from);
  if (problem) throw problem;
}

/** A 422 on `field`, for `holds`. */
export const breaks = fieldError;

/** The table as the schemas describe it: `draft -> sent; sent -> paid | void`. */
export function describeTransitions<S extends string>(table: TransitionTable<S>): string {
  return (Object.entries(table) as Array<[S, readonly S[]]>)
    .filter(([, targets]) => targets.length > 0)
    .map(([from, targets]) => `${from} -> ${targets.join(' | ')}`)
    .join('; ');
}
