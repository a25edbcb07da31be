// The account's JSON Schema 2020-12 of a kind's `custom_fields` value (docs/api-contract.md §27, §32): what
// GET /v1/custom-fields/schema answers and what the MCP write tools carry. Labels and descriptions go only into
// each property's `title` and `description`: they are the account's data.
import { DEFAULT_MAX_LENGTH } from './values.js';
import type { Definition, Definitions } from './definitions.js';

type JsonSchema = Record<string, unknown>;

function valueSchema(field: Definition): JsonSchema {
  const { bounds } = field;
  const live = field.options.filter((option) => !option.archived).map((option) => option.value);
  switch (field.type) {
    case 'text':
      return {
        type: 'string',
        maxLength: bounds.max_length ?? DEFAULT_MAX_LENGTH,
        ...(bounds.multiline ? {} : { pattern: '^[^\\r\\n]*$' }),
      };
    case 'number':
      return {
        type: 'number',
        ...(bounds.min != null ? { minimum: bounds.min } : {}),
        ...(bounds.max != null ? { maximum: bounds.max } : {}),
      };
    case 'money':
      return {
        type: 'integer',
        ...(bounds.min_amount != null ? { minimum: bounds.min_amount } : {}),
        ...(bounds.max_amount != null ? { maximum: bounds.max_amount } : {}),
      };
    case 'date':
      // Its date bounds are the API's check: JSON Schema has no standard keyword for them.
      return { type: 'string', format: 'date' };
    case 'boolean':
      return { type: 'boolean' };
    case 'select':
      return { type: 'string', enum: live };
    case 'multi_select':
      return {
        type: 'array',
        items: { type: 'string', enum: live },
        uniqueItems: true,
        ...(bounds.max_selected != null ? { maxItems: bounds.max_selected } : {}),
      };
  }
}

/** The schema of a `custom_fields` value to write on a create: required keys required, others nullable. */
export function customFieldsJsonSchema(definitions: Definitions): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of definitions.fields) {
    const value = valueSchema(field);
    properties[field.key] = {
      title: field.label,
      ...(field.description ? { description: field.description } : {}),
      ...(field.required ? value : { anyOf: [value, { type: 'null' }] }),
    };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties,
    required: definitions.fields.filter((field) => field.required).map((field) => field.key),
    additionalProperties: false,
  };
}
