// The face of the properties module: what other modules, the workers and the composition may use. The rest is private.
export { CreatePropertyBody, ListPropertiesQuery, PropertySchema } from './properties.schemas.js';
export {
  getProperty,
  listProperties,
  presentProperty,
  deletePropertiesOfClient,
  propertyForNewDocument,
  propertyDefaultTaxRateIds,
  propertyOnUpdate,
  serviceAddressOf,
} from './properties.service.js';
export { findPropertyPlaces, findPropertyTimezone } from './properties.repository.js';
