// Service request endpoints: list, create, get, update (no delete and no send, as the seed says).
import { customFieldSeam } from '../custom-fields/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  CreateServiceRequestBody,
  ListServiceRequestsQuery,
  ServiceRequestSchema,
  UpdateServiceRequestBody,
} from './service-requests.schemas.js';
import * as service from './service-requests.service.js';
import { referenceChecks } from '../shared/index.js';

export const serviceRequestRoutes = resourceRoutes({
  path: '/v1/service-requests',
  names: ['service request', 'service requests'],
  scopes: { read: 'requests:read', write: 'requests:write' },
  schemas: {
    item: ServiceRequestSchema,
    create: CreateServiceRequestBody,
    update: UpdateServiceRequestBody,
    list: ListServiceRequestsQuery,
  },
  stateErrors: ['INVALID_STATE'],
  // Every unknown id of the body joins a 422 (the client and the property).
  referenceChecks: referenceChecks({
    client_id: { table: 'clients', kind: 'client' },
    property_id: { table: 'properties', kind: 'property' },
  }),
  customFields: customFieldSeam('service_request'),
  service: {
    list: service.listServiceRequests,
    present: service.presentServiceRequest,
    create: service.createServiceRequest,
    get: service.getServiceRequest,
    update: service.updateServiceRequest,
  },
});
