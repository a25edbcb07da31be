// State machines as tables: for each status, the statuses a client may move a document to with PUT.
// Automatic moves (to `converted`) are not in the tables: they happen only through the workflow links.
import { invalidState } from '../../core/errors.js';

export type TransitionTable<S extends string> = Readonly<Record<S, readonly S[]>>;

/** Throws 409 INVALID_STATE naming the current status and the attempted change. */
export function assertTransition<S extends string>(kind: string, table: TransitionTable<S>, from: S, to: S): void {
  if (from === to || table[from].includes(to)) return;
  const allowed = table[from];
  const hint = allowed.length > 0 ? `From '${from}' it can move to: ${allowed.join(', ')}.` : `'${from}' is final.`;
  throw invalidState(`This ${kind} is '${from}' and cannot change to '${to}'. ${hint}`);
}

/** The table as the schemas describe it: `draft -> sent; sent -> paid | void`. */
export function describeTransitions<S extends string>(table: TransitionTable<S>): string {
  return (Object.entries(table) as Array<[S, readonly S[]]>)
    .filter(([, targets]) => targets.length > 0)
    .map(([from, targets]) => `${from} -> ${targets.join(' | ')}`)
    .join('; ');
}
