// A visit's life (docs/api-contract.md §17, §21): statuses are stored, never derived from the clock. Time moves
// a visit between `unscheduled` and `scheduled`; `PUT {status}` makes the moves below; each status entered
// stamps its `*_at` (a PUT may back-date it, never into the future); each move has its event.
import type { EventType } from '../../kernel/event-types.js';

export const VISIT_STATUSES = ['unscheduled', 'scheduled', 'en_route', 'in_progress', 'completed', 'canceled'] as const;
export type VisitStatus = (typeof VISIT_STATUSES)[number];

/** The statuses in which a visit is still to be done: what `visits_summary.open` counts, and what may be canceled. */
export const OPEN_STATUSES: readonly VisitStatus[] = ['unscheduled', 'scheduled', 'en_route', 'in_progress'];

/** The statuses in which a visit whose end has passed is late. */
export const LATE_STATUSES: readonly VisitStatus[] = ['scheduled', 'en_route'];

/**
 * The moves `PUT {status}` may make. `unscheduled` ⇄ `scheduled` is made by setting or clearing the time,
 * so neither is here as a target of the other; `canceled` → `scheduled` (reopen) needs a time.
 */
export const VISIT_MOVES: Readonly<Record<VisitStatus, readonly VisitStatus[]>> = {
  unscheduled: ['canceled'],
  scheduled: ['en_route', 'in_progress', 'completed', 'canceled'],
  en_route: ['in_progress', 'canceled'],
  in_progress: ['completed', 'canceled'],
  completed: ['in_progress'],
  canceled: ['scheduled'],
};

/** The stamp entering a status sets. */
export const VISIT_STAMPS = {
  en_route: 'en_route_at',
  in_progress: 'started_at',
  completed: 'completed_at',
  canceled: 'canceled_at',
} as const satisfies Partial<Record<VisitStatus, string>>;
export type VisitStamp = (typeof VISIT_STAMPS)[keyof typeof VISIT_STAMPS];
export const STAMP_FIELDS: readonly VisitStamp[] = Object.values(VISIT_STAMPS);

/** The event of a move from `from` to `to`: both reopen moves are `visit.reopened`. */
export function moveEvent(from: VisitStatus, to: VisitStatus): EventType | undefined {
  if (from === 'completed' && to === 'in_progress') return 'visit.reopened';
  if (from === 'canceled' && to === 'scheduled') return 'visit.reopened';
  const events: Partial<Record<VisitStatus, EventType>> = {
    scheduled: 'visit.scheduled',
    en_route: 'visit.en_route',
    in_progress: 'visit.started',
    completed: 'visit.completed',
    canceled: 'visit.canceled',
  };
  return events[to];
}

export function isOpen(status: string): boolean {
  return (OPEN_STATUSES as readonly string[]).includes(status);
}
