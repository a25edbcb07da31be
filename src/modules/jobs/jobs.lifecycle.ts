// A job's life in one place (contract section 6): its statuses and the moves PUT may make. A job's fields
// may change in every status; it is numbered at creation and never sent.
import type { TransitionTable } from '../documents/state-machine.js';
import type { EventType } from '../../kernel/event-types.js';

export const JOB_STATUSES = ['scheduled', 'in_progress', 'completed', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The event a move to each status records (others record job.updated). */
export const JOB_STATUS_EVENTS: Partial<Record<JobStatus, EventType>> = { completed: 'job.completed', canceled: 'job.canceled' };

export const JOB_TRANSITIONS: TransitionTable<JobStatus> = {
  scheduled: ['in_progress', 'completed', 'canceled'],
  in_progress: ['scheduled', 'completed', 'canceled'],
  completed: ['in_progress'],
  canceled: ['scheduled'],
};
