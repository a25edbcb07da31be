// The face of the time-entries module: what the composition may use. The rest is private.
export { StartTimerBody, TimeEntrySchema, TimeLockSchema } from './time-entries.schemas.js';
export { getTimeEntry, startTimer, stopMemberTimer, stopTimer } from './time-entries.service.js';
export { JobCostingSchema, type JobCosting } from './billing.schemas.js';
export { jobCosting } from './costing.js';
