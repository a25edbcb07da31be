// A job's life (docs/api-contract.md §6): its statuses, the moves PUT may make, and what completing stamps.
// A job's fields may change in every status; it is numbered at creation, never sent, and may be deleted in
// any status while no invoice refers to it (the service checks that reference).
import type { JobRow } from '../../db/types.js';
import type { Lifecycle } from '../documents/index.js';

export const JOB_STATUSES = ['scheduled', 'in_progress', 'completed', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Leaving `completed` clears completed_at. */
const notCompleted = () => ({ completed_at: null });

export const JOB_LIFECYCLE: Lifecycle<JobStatus, JobRow> = {
  kind: 'job',
  statuses: JOB_STATUSES,
  moves: {
    scheduled: ['in_progress', 'completed', 'canceled'],
    in_progress: ['scheduled', 'completed', 'canceled'],
    completed: ['in_progress'],
    canceled: ['scheduled'],
  },
  events: { completed: 'job.completed', canceled: 'job.canceled' },
  stamps: {
    scheduled: notCompleted,
    in_progress: notCompleted,
    completed: (now) => ({ completed_at: now }),
    canceled: notCompleted,
  },
  holds: {},
  editable: JOB_STATUSES,
  sendable: [],
  deletable: JOB_STATUSES,
  refusals: {
    edit: (status) => `This job is '${status}' and cannot be edited.`,
    delete: (status) => `This job is '${status}' and cannot be deleted.`,
  },
};
