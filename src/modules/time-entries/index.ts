// The face of the time-entries module: what the composition may use. The rest is private.
export { TimeEntrySchema, TimeLockSchema } from './time-entries.schemas.js';
export { JobCostingSchema, type JobCosting } from './billing.schemas.js';
export { jobCosting } from './costing.js';
