// Property endpoints (docs/api-contract.md §16): the five standard operations, under the clients:* scopes
// (a property is client data).
import { tagSeam } from '../tags/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { CreatePropertyBody, ListPropertiesQuery, PropertySchema, UpdatePropertyBody } from './properties.schemas.js';
import * as service from './properties.service.js';

export const propertyRoutes = resourceRoutes({
  path: '/v1/properties',
  names: ['property', 'properties'],
  scopes: { read: 'clients:read', write: 'clients:write', delete: 'clients:delete' },
  schemas: { item: PropertySchema, create: CreatePropertyBody, update: UpdatePropertyBody, list: ListPropertiesQuery },
  stateErrors: ['CONFLICT'],
  customFields: customFieldSeam('property'),
  tags: tagSeam('property'),
  service: {
    list: service.listProperties,
    present: service.presentProperty,
    create: service.createProperty,
    get: service.getProperty,
    update: service.updateProperty,
    delete: service.deleteProperty,
  },
});
