// The face of the jobs module: what other modules, the workers and the composition may use. The rest is private.
export { CreateJobBody, JobSchema, ListJobsQuery } from './jobs.schemas.js';
export { createJob, getJob, listJobs, presentJob, requireJobReference, updateJob } from './jobs.service.js';
