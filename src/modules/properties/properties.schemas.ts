// Property shapes (docs/api-contract.md §16): the single source of request validation, response serialization,
// types and OpenAPI.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import { Type, type Static } from '@sinclair/typebox';
import {
  CustomFieldValuesInputSchema,
  CustomFieldValuesSchema,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';
import { AddressResponseSchema } from '../shared/index.js';
import { TaxRateIdsSchema } from '../catalog/index.js';

const line = (maxLength: number, description: string, example: string) =>
  Type.String({ maxLength, format: 'single-line', description, example });

/** The client address shape, with the street line and the country required: a property is a place. */
const PropertyAddressSchema = Type.Object(
  {
    line1: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      format: 'single-line',
      description: 'Street address (required).',
      example: '4 Lakeshore Drive',
    }),
    line2: Type.Optional(Nullable(line(200, 'Apartment, suite or unit.', 'Cabin B'))),
    city: Type.Optional(Nullable(line(100, 'City or town.', 'Lake Geneva'))),
    region: Type.Optional(Nullable(line(100, 'State, province or region.', 'WI'))),
    postal_code: Type.Optional(Nullable(line(20, 'Postal or ZIP code.', '53147'))),
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      description: 'ISO 3166-1 alpha-2 country code (required).',
      example: 'US',
    }),
  },
  { additionalProperties: false, description: 'Postal address of the property. Replaced as a whole on update.' },
);

const LocationSchema = Type.Object(
  {
    lat: Type.Number({
      minimum: -90,
      maximum: 90,
      description: 'Latitude in decimal degrees, -90 to 90.',
      example: 42.5917,
    }),
    lng: Type.Number({
      minimum: -180,
      maximum: 180,
      description: 'Longitude in decimal degrees, -180 to 180.',
      example: -88.4334,
    }),
  },
  { additionalProperties: false, description: 'Where the property is, in decimal degrees (WGS 84).' },
);

const writable = {
  name: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      format: 'single-line',
      description: 'What the client calls the place.',
      example: 'Lake house',
    }),
  ),
  address: PropertyAddressSchema,
  timezone: Type.String({
    maxLength: 64,
    format: 'time-zone',
    description:
      'IANA time zone of the place, answered in its canonical spelling (US/Mountain → America/Denver). Default: the account’s time zone when the property is created.',
    example: 'America/Chicago',
  }),
  location: Nullable(LocationSchema),
  access_notes: Nullable(
    Type.String({
      maxLength: 5000,
      format: 'multi-line',
      description: 'Gate codes, pets, keys: for the crew only. Never printed on a PDF, e-mail or hub page.',
      example: 'Gate code 4512. The dog is friendly.',
    }),
  ),
  default_tax_rate_ids: TaxRateIdsSchema(
    'The taxes of this place’s document lines that name none of their own and whose product names none (docs/api-contract.md §19), before the account’s defaults; at most 5. Default [].',
  ),
  archived: Type.Boolean({
    description: 'An archived property takes no new documents; the ones it has keep it.',
    example: false,
  }),
  external_id: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 255,
      format: 'single-line',
      description: 'Your own id for the property: unique among the account’s properties.',
      example: 'crm-prop-1042',
    }),
  ),
  metadata: MetadataSchema,
};

export const PropertySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('property', { description: 'Always "property".' }),
    client_id: { ...IdSchema, description: 'The client the property belongs to. Cannot change.' },
    name: Nullable(Type.String({ description: 'What the client calls the place.', example: 'Lake house' })),
    address: AddressResponseSchema,
    timezone: Type.String({ description: 'IANA time zone of the place.', example: 'America/Chicago' }),
    location: Nullable(
      Type.Object({
        lat: Type.Number({ description: 'Latitude in decimal degrees.', example: 42.5917 }),
        lng: Type.Number({ description: 'Longitude in decimal degrees.', example: -88.4334 }),
      }),
    ),
    access_notes: Nullable(
      Type.String({ description: 'For the crew only; never printed.', example: 'Gate code 4512.' }),
    ),
    default_tax_rate_ids: Type.Array(IdSchema, {
      description: 'The tax rates of this place’s lines that have no rates of their own or of their product.',
    }),
    archived: Type.Boolean({ description: 'Whether the property is archived.', example: false }),
    external_id: Nullable(Type.String({ description: 'Your own id for the property.', example: 'crm-prop-1042' })),
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    tags: TagsSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Property', description: 'A place where a client has work done: its service address.' },
);

export const CreatePropertyBody = Type.Object(
  {
    client_id: { ...IdSchema, description: 'The client the property belongs to (required; cannot change later).' },
    name: Type.Optional(writable.name),
    address: writable.address,
    timezone: Type.Optional(writable.timezone),
    location: Type.Optional(writable.location),
    access_notes: Type.Optional(writable.access_notes),
    default_tax_rate_ids: Type.Optional(writable.default_tax_rate_ids),
    archived: Type.Optional(writable.archived),
    external_id: Type.Optional(writable.external_id),
    metadata: Type.Optional(writable.metadata),
    custom_fields: Type.Optional(CustomFieldValuesInputSchema),
    tags: Type.Optional(TagsInputSchema),
  },
  { additionalProperties: false },
);

/** Every field; client_id may only repeat the property's own client (it cannot change). */
export const UpdatePropertyBody = Type.Object(
  {
    client_id: Type.Optional({
      ...IdSchema,
      description: 'Cannot change: only the property’s own client is accepted.',
    }),
    name: Type.Optional(writable.name),
    address: Type.Optional(writable.address),
    timezone: Type.Optional(writable.timezone),
    location: Type.Optional(writable.location),
    access_notes: Type.Optional(writable.access_notes),
    default_tax_rate_ids: Type.Optional(writable.default_tax_rate_ids),
    archived: Type.Optional(writable.archived),
    external_id: Type.Optional(writable.external_id),
    metadata: Type.Optional(writable.metadata),
    custom_fields: Type.Optional(CustomFieldValuesInputSchema),
    tags: Type.Optional(TagsInputSchema),
  },
  { additionalProperties: false },
);

export const ListPropertiesQuery = Type.Object(
  {
    ...tagFilterProperties,
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    client_id: Type.Optional({ ...IdSchema, description: 'Only the properties of this client.' }),
    q: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        description:
          'Case-insensitive text anywhere in the name or address (street, unit, city, region, postal code, country); at least 3 characters.',
        example: 'lakeshore',
      }),
    ),
    postal_code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'Exact postal code, ignoring case, spaces and hyphens (sw1a1aa finds SW1A 1AA).',
        example: '53147',
      }),
    ),
    archived: Type.Optional(Type.Boolean({ description: 'Only archived (true) or only active (false) properties.' })),
    external_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'The property with this external id.' }),
    ),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Property = Static<typeof PropertySchema>;
export type CreatePropertyInput = Static<typeof CreatePropertyBody>;
export type UpdatePropertyInput = Static<typeof UpdatePropertyBody>;
export type ListPropertiesInput = Static<typeof ListPropertiesQuery>;
