// The face of the visit-schedules module: what other modules, the workers and the composition may use.
export { VisitScheduleSchema, type VisitSchedule } from './visit-schedules.schemas.js';
export {
  deleteSchedulesOfJob,
  endSchedulesOfJob,
  materializeBatch,
  presentSchedule,
} from './visit-schedules.service.js';
export { onVisitsLeft } from './materialize.js';
export { openSchedulesAfter } from './visit-schedules.repository.js';
export { projectOccurrences } from './projection.js';
export { projectedCommitments, type ScheduleReads } from './kept-projection.js';
// The recurrence engine, which recurring invoices (docs/api-contract.md §23) share with the schedules.
export { parseRecurrence, describeRecurrence, type RecurrenceInput } from './recurrence.js';
export { ruleDates } from './recurrence-expansion.js';
export { occurrenceStart, type Recurrence } from './recurrence-parts.js';
export { summarize } from './recurrence-summary.js';
export { RecurrenceInputSchema, RecurrenceSchema } from './visit-schedules.schemas.js';
