// The face of the service-requests module: what other modules, the workers and the composition may use. The rest is private.
export {
  CreateServiceRequestBody,
  ListServiceRequestsQuery,
  ServiceRequestSchema,
} from './service-requests.schemas.js';
export {
  convertServiceRequest,
  createServiceRequest,
  getServiceRequest,
  listServiceRequests,
  presentServiceRequest,
  updateServiceRequest,
} from './service-requests.service.js';
