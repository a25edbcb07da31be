// A service request's life in one place (contract section 6): its statuses, the moves PUT may make, and
// conversion, which only making a quote or job does.
import { invalidState } from '../../core/errors.js';
import type { TransitionTable } from '../documents/state-machine.js';
import type { EventType } from '../../kernel/event-types.js';

export const REQUEST_STATUSES = ['new', 'assessed', 'archived', 'converted'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** The event a move to each status records (others record service_request.updated). */
export const REQUEST_STATUS_EVENTS: Partial<Record<RequestStatus, EventType>> = { converted: 'service_request.converted' };

/** Moves a client may make with PUT. `converted` is reached only by making a quote or job, and is final. */
export const REQUEST_TRANSITIONS: TransitionTable<RequestStatus> = {
  new: ['assessed', 'archived'],
  assessed: ['new', 'archived'],
  archived: ['new'],
  converted: [],
};

/** Whether making a quote or job from the request converts it now (false: it already is); 409 when archived. */
export function convertsOnUse(status: RequestStatus): boolean {
  if (status === 'archived') throw invalidState("This service request is 'archived'; move it back to 'new' before making a quote or job from it.");
  return status !== 'converted';
}
