// Custom field shapes (docs/api-contract.md §27): the definition, its bodies and list query, and the open
// `custom_fields` object every kind carries.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';

/** The nine kinds that carry custom fields, as `resource` names them. */
export const CUSTOM_FIELD_RESOURCES = [
  'client',
  'property',
  'service_request',
  'quote',
  'job',
  'invoice',
  'visit',
  'product',
  'team_member',
] as const;
export type CustomFieldResource = (typeof CUSTOM_FIELD_RESOURCES)[number];

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'money', 'date', 'boolean', 'select', 'multi_select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

const ResourceSchema = Type.Unsafe<CustomFieldResource>({
  type: 'string',
  enum: [...CUSTOM_FIELD_RESOURCES],
  description: 'The kind of object the field belongs to.',
  example: 'client',
});

const TypeSchema = Type.Unsafe<CustomFieldType>({
  type: 'string',
  enum: [...CUSTOM_FIELD_TYPES],
  description: 'What its values are: text, number, money (minor units), date, boolean, select or multi_select.',
  example: 'select',
});

const KeySchema = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[a-z][a-z0-9_]*$',
  description: 'The name of the value under `custom_fields`: lower case letters, digits and `_`, unique per resource.',
  example: 'gate_code',
});

const LabelSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'Shown to people.',
  example: 'Gate code',
});
const DescriptionSchema = Nullable(
  Type.String({ maxLength: 500, description: 'Help text.', example: 'The code of the side gate.' }),
);

export const OptionSchema = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^|]*$',
      description: 'What the object holds; fixed once made, without `|`.',
      example: 'gold',
    }),
    label: Type.String({ minLength: 1, maxLength: 100, description: 'Shown to people.', example: 'Gold' }),
    archived: Type.Optional(
      Type.Boolean({ description: 'Kept on objects that hold it, refused on writes.', example: false }),
    ),
  },
  { additionalProperties: false },
);

const OptionsSchema = Type.Array(OptionSchema, {
  minItems: 1,
  maxItems: 100,
  description: 'The choices of a select or multi_select field (1–100).',
});

const BoundsProperties = {
  max_length: Type.Integer({
    minimum: 1,
    maximum: 5000,
    description: 'text: the most characters (default 500).',
    example: 500,
  }),
  multiline: Type.Boolean({ description: 'text: whether line breaks are allowed.', example: false }),
  min: Nullable(Type.Number({ description: 'number: the least value.', example: 0 })),
  max: Nullable(Type.Number({ description: 'number: the greatest value.', example: 100 })),
  decimals: Nullable(
    Type.Integer({ minimum: 0, maximum: 6, description: 'number: the most decimal places.', example: 2 }),
  ),
  min_amount: Nullable(Type.Integer({ description: 'money: the least amount, in minor units.', example: 0 })),
  max_amount: Nullable(Type.Integer({ description: 'money: the greatest amount, in minor units.', example: 100000 })),
  min_date: Nullable(Type.String({ format: 'date', description: 'date: the earliest date.', example: '2026-01-01' })),
  max_date: Nullable(Type.String({ format: 'date', description: 'date: the latest date.', example: '2030-12-31' })),
  max_selected: Nullable(
    Type.Integer({ minimum: 1, maximum: 50, description: 'multi_select: the most options held.', example: 3 }),
  ),
};

const BoundsInput = Type.Partial(Type.Object(BoundsProperties), {
  additionalProperties: false,
  description: 'The type’s bounds; only the ones of the field’s type may be given.',
  example: { max_length: 200 },
});

export const CustomFieldSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('custom_field', { description: 'Always "custom_field".' }),
    resource: ResourceSchema,
    key: KeySchema,
    label: LabelSchema,
    description: DescriptionSchema,
    type: TypeSchema,
    required: Type.Boolean({
      description: 'Whether creates (and writes naming the key) must give a value.',
      example: false,
    }),
    options: Type.Array(
      Type.Object({
        value: Type.String({ example: 'gold' }),
        label: Type.String({ example: 'Gold' }),
        archived: Type.Boolean({ example: false }),
      }),
      { description: 'The choices (select and multi_select; empty for other types).' },
    ),
    bounds: Type.Unsafe<CustomFieldBounds>(
      Type.Partial(Type.Object(BoundsProperties), {
        description: 'The type’s bounds (only its type’s keys).',
        example: { max_length: 500, multiline: false },
      }),
    ),
    printable: Type.Boolean({
      description: 'Printed on PDFs, e-mails and the hub (quote and invoice fields).',
      example: false,
    }),
    position: Type.Integer({ description: 'Order among the resource’s fields.', example: 0 }),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'CustomField', description: 'A field of your own on one kind of object.' },
);

const writable = {
  label: LabelSchema,
  description: Type.Optional(DescriptionSchema),
  required: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  options: Type.Optional(OptionsSchema),
  bounds: Type.Optional(BoundsInput),
  printable: Type.Optional(Type.Boolean({ description: 'Only on quote and invoice fields. Default false.' })),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Default: after the others.' })),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateCustomFieldBody = Type.Object(
  { resource: ResourceSchema, key: KeySchema, type: TypeSchema, ...writable },
  { additionalProperties: false },
);

export const UpdateCustomFieldBody = Type.Partial(Type.Object(writable), { additionalProperties: false });

export const ListCustomFieldsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    resource: Type.Optional(ResourceSchema),
  },
  { additionalProperties: false },
);

export const CustomFieldsSchemaQuery = Type.Object({ resource: ResourceSchema }, { additionalProperties: false });

export const CustomFieldsSchemaSchema = Type.Object(
  {
    object: Type.Literal('custom_fields_schema', { description: 'Always "custom_fields_schema".' }),
    resource: ResourceSchema,
    schema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The JSON Schema 2020-12 of the object’s `custom_fields` value in this account.',
    }),
  },
  { $id: 'CustomFieldsSchema', description: 'The account’s custom fields of one kind as a JSON Schema.' },
);

export type CustomField = Static<typeof CustomFieldSchema>;
/** The bounds of a field: only its type's keys are set (null when unbounded). */
export interface CustomFieldBounds {
  max_length?: number;
  multiline?: boolean;
  min?: number | null;
  max?: number | null;
  decimals?: number | null;
  min_amount?: number | null;
  max_amount?: number | null;
  min_date?: string | null;
  max_date?: string | null;
  max_selected?: number | null;
}
export type CustomFieldOption = CustomField['options'][number];
export type CreateCustomFieldInput = Static<typeof CreateCustomFieldBody>;
export type UpdateCustomFieldInput = Static<typeof UpdateCustomFieldBody>;
export type ListCustomFieldsInput = Static<typeof ListCustomFieldsQuery>;
