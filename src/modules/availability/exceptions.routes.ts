// Availability exception endpoints (docs/api-contract.md §28): the five standard operations, with team:* scopes.
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  AvailabilityExceptionSchema,
  CreateAvailabilityExceptionBody,
  ListAvailabilityExceptionsQuery,
  UpdateAvailabilityExceptionBody,
} from './exceptions.schemas.js';
import * as service from './exceptions.service.js';
import { referenceChecks } from '../shared/index.js';

export const availabilityExceptionRoutes = resourceRoutes({
  path: '/v1/availability-exceptions',
  names: ['availability exception', 'availability exceptions'],
  scopes: { read: 'team:read', write: 'team:write', delete: 'team:write' },
  schemas: {
    item: AvailabilityExceptionSchema,
    create: CreateAvailabilityExceptionBody,
    update: UpdateAvailabilityExceptionBody,
    list: ListAvailabilityExceptionsQuery,
  },
  referenceChecks: { create: referenceChecks({ team_member_id: { table: 'team_members', kind: 'team member' } }) },
  service: {
    list: service.listExceptions,
    present: service.presentException,
    create: service.createException,
    get: service.getException,
    update: service.updateException,
    delete: service.deleteException,
  },
});
