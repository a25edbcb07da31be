// The face of the custom-fields module: the definitions' face for the routes, and the one helper the nine kinds
// call for their `custom_fields` (values.ts). The rest is private.
export {
  CUSTOM_FIELD_RESOURCES,
  type CustomFieldResource,
  CustomFieldSchema,
  CustomFieldsSchemaSchema,
} from './custom-fields.schemas.js';
export { type Definitions, readDefinitions } from './definitions.js';
export {
  CUSTOM_FIELD_FILTER_PATTERN,
  customFieldConditions,
  customFieldFilterOptions,
  customFieldShapes,
} from './filters.js';
export { completeCustomFieldAnswers, type CustomFieldSeam, customFieldSeam } from './seam.js';
export { customFieldsJsonSchema } from './json-schema.js';
export { onCustomFieldDeleted, purgeAllDeletedCustomFields, purgeDeletedCustomFields } from './purge.js';
export {
  type CustomFieldValues,
  createdCustomFields,
  customFieldChecks,
  deleteCustomFieldValues,
  presentCustomFields,
  storedValues,
  updatedCustomFields,
  writeCustomFields,
} from './values.js';
