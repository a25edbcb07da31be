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
