// The face of the jobs module: what other modules, the workers and the composition may use. The rest is private.
export { JobSchema } from './jobs.schemas.js';
export { requireJobReference } from './jobs.service.js';
