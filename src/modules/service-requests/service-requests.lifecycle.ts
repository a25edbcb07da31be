// A service request's life (docs/api-contract.md §6): its statuses, the moves PUT may make, and conversion,
// which only making a quote or job does. Its fields may change in every status; it is never sent or deleted.
import { invalidState } from '../../core/errors.js';
import type { ServiceRequestRow } from '../../db/types.js';
import type { Lifecycle } from '../documents/index.js';

export const REQUEST_STATUSES = ['new', 'assessed', 'archived', 'converted'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const REQUEST_LIFECYCLE: Lifecycle<RequestStatus, ServiceRequestRow> = {
  kind: 'service request',
  statuses: REQUEST_STATUSES,
  // `converted` is reached only by making a quote or job, and is final.
  moves: {
    new: ['assessed', 'archived'],
    assessed: ['new', 'archived'],
    archived: ['new'],
    converted: [],
  },
  events: { converted: 'service_request.converted' },
  stamps: { converted: (now) => ({ converted_at: now }) },
  holds: {},
  editable: REQUEST_STATUSES,
  sendable: [],
  deletable: [],
  refusals: {
    edit: (status) => `This service request is '${status}' and cannot be edited.`,
    delete: () => 'Service requests are archived, not deleted.',
  },
};

/** Whether making a quote or job from the request converts it now (false: it already is); 409 when archived. */
export function convertsOnUse(status: RequestStatus): boolean {
  if (status === 'archived')
    throw invalidState(
      "This service request is 'archived'; move it back to 'new' before making a quote or job from it.",
    );
  return status !== 'converted';
}
