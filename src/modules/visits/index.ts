// The face of the visits module: what other modules, the workers and the composition may use. The rest is private.
export { VISIT_STATUSES, type VisitStatus, OPEN_STATUSES } from './visits.lifecycle.js';
export {
  CreateVisitBody,
  JobVisitInput,
  type ProjectedVisit,
  UpdateVisitBody,
  VisitListItemSchema,
  VisitSchema,
  type Visit,
  type VisitInput,
} from './visits.schemas.js';
export { resolveTime, type TimeSpanLimit, type VisitTime } from './visit-time.js';
export { lookbackFrom, longestVisitMinutes } from './visits.repository.js';
export { type CalendarProjector, type ProjectionFilters, listVisits } from './calendar.service.js';
export {
  addVisitAssignee,
  createVisit,
  createVisitsForJob,
  deleteVisit,
  deleteVisitsOfJob,
  getVisit,
  moveVisitsWithJob,
  type NewVisit,
  type OnConflict,
  presentVisits,
  removeVisitAssignee,
  updateVisit,
  type HoldResolver,
  type VisitWriteOptions,
} from './visits.service.js';
