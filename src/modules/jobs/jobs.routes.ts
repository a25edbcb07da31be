// Job endpoints: the five standard operations (jobs have no send).
import { tagSeam } from '../tags/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { documentFieldChecks } from '../documents/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { CreateJobBody, JobSchema, ListJobsQuery, UpdateJobBody } from './jobs.schemas.js';
import * as service from './jobs.service.js';
import { LINE_REFERENCES, referenceChecks } from '../shared/index.js';
import type { HoldResolver } from '../visits/index.js';

/**
 * `holds`: how a visit of `visits` with hold_id is booked (docs/api-contract.md §28), the availability module's,
 * which stands above jobs; app.ts passes it in.
 */
export const jobRoutes = (holds?: HoldResolver) =>
  resourceRoutes({
    path: '/v1/jobs',
    names: ['job', 'jobs'],
    scopes: { read: 'jobs:read', write: 'jobs:write', delete: 'jobs:delete' },
    schemas: { item: JobSchema, create: CreateJobBody, update: UpdateJobBody, list: ListJobsQuery },
    // A job from a quote or a service request converts it.
    linkScopes: { quote_id: 'quotes:write', request_id: 'requests:write', visits: 'visits:write' },
    stateErrors: ['INVALID_STATE', 'CONFLICT'],
    // The lines' and discount's own checks join a 422 of the schema's.
    fieldChecks: documentFieldChecks,
    // Every unknown id of the body joins a 422 too (client, property, quote, request, each line's product and rates).
    referenceChecks: {
      create: referenceChecks(
        {
          client_id: { table: 'clients', kind: 'client' },
          property_id: { table: 'properties', kind: 'property' },
          quote_id: { table: 'quotes', kind: 'quote', scope: 'quotes:write' },
          request_id: { table: 'service_requests', kind: 'service request', scope: 'requests:write' },
        },
        LINE_REFERENCES,
      ),
      update: referenceChecks(
        { client_id: { table: 'clients', kind: 'client' }, property_id: { table: 'properties', kind: 'property' } },
        LINE_REFERENCES,
      ),
    },
    customFields: customFieldSeam('job'),
    tags: tagSeam('job'),
    service: {
      list: service.listJobs,
      present: service.presentJob,
      create: (ctx, body) => service.createJob(ctx, body, { holds }),
      get: service.getJob,
      update: service.updateJob,
      delete: service.deleteJob,
    },
  });
