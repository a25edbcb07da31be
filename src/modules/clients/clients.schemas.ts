// Client shapes: the single source of request validation, response serialization, types and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import {
  AddressResponseSchema,
  AddressSchema,
  EinvoiceFormatSchema,
  ElectronicAddressSchema,
  RegistrationSchemeSchema,
  registrationIdSchema,
  VatIdSchema,
} from '../shared/index.js';
import {
  CustomFieldValuesInputSchema,
  CustomFieldValuesSchema,
  ExternalIdSchema,
  externalIdFilter,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';

const text = (maxLength: number, description: string, example: string) =>
  Type.String({ maxLength, description, example });

const writableFields = {
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    description: 'Name of the person or business.',
    example: 'Jane Cooper',
  }),
  email: Nullable(
    Type.String({
      format: 'email',
      maxLength: 254,
      description: 'E-mail address; invoices and quotes are sent here.',
      example: 'jane@example.com',
    }),
  ),
  phone: Nullable(text(50, 'Telephone number, free text.', '+1 555 0100')),
  company_name: Nullable(text(200, 'Company the client belongs to.', 'Cooper Bakery')),
  address: Nullable(AddressSchema),
  notes: Nullable(text(5000, 'Internal notes, never shown to the client.', 'Gate code 4512')),
  vat_id: Nullable({ ...VatIdSchema, description: `BT-48, the buyer’s VAT identifier. ${VatIdSchema.description}` }),
  registration_id: Nullable(registrationIdSchema('BT-47, the buyer’s legal registration.')),
  registration_scheme: Nullable(RegistrationSchemeSchema),
  electronic_address: Nullable({ ...ElectronicAddressSchema, description: 'BT-49, the buyer’s electronic address.' }),
  buyer_reference: Nullable(
    text(200, 'BT-10, the reference the buyer wants on its invoices: copied to each new invoice.', 'PO-LEITWEG-991'),
  ),
  einvoice_format: Nullable({
    ...EinvoiceFormatSchema,
    enum: ['ubl', 'cii', 'facturx', null],
    description: `The e-invoice its invoices are sent with: ubl or cii attached beside the PDF, facturx instead of it; an invoice that cannot be one is then not sent (422). null (default): none. ${EinvoiceFormatSchema.description}`,
  }),
  external_id: Nullable(ExternalIdSchema),
  metadata: MetadataSchema,
  custom_fields: CustomFieldValuesInputSchema,
  tags: TagsInputSchema,
};

export const ClientSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('client', { description: 'Always "client".' }),
    name: writableFields.name,
    email: Nullable(Type.String({ description: 'E-mail address.', example: 'jane@example.com' })),
    phone: Nullable(Type.String({ description: 'Telephone number.', example: '+1 555 0100' })),
    company_name: Nullable(Type.String({ description: 'Company name.', example: 'Cooper Bakery' })),
    address: Nullable(AddressResponseSchema),
    notes: Nullable(Type.String({ description: 'Internal notes.', example: 'Gate code 4512' })),
    vat_id: Nullable(Type.String({ description: 'BT-48, the buyer’s VAT identifier.', example: 'FR12345678901' })),
    registration_id: Nullable(
      Type.String({ description: 'BT-47, the buyer’s legal registration.', example: '4000001123452' }),
    ),
    registration_scheme: Nullable(
      Type.String({ description: 'The ISO 6523 ICD of registration_id.', example: '0088' }),
    ),
    electronic_address: Nullable({ ...ElectronicAddressSchema, description: 'BT-49, the buyer’s electronic address.' }),
    buyer_reference: Nullable(
      Type.String({ description: 'BT-10, copied to new invoices.', example: 'PO-LEITWEG-991' }),
    ),
    einvoice_format: writableFields.einvoice_format,
    property_ids: Type.Array(IdSchema, {
      description: 'The client’s properties (GET /v1/properties?client_id=…), oldest first. Read-only.',
      example: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'],
    }),
    external_id: writableFields.external_id,
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    tags: TagsSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Client', description: 'A customer of the business.' },
);

export const CreateClientBody = Type.Object(
  {
    name: writableFields.name,
    email: Type.Optional(writableFields.email),
    phone: Type.Optional(writableFields.phone),
    company_name: Type.Optional(writableFields.company_name),
    address: Type.Optional(writableFields.address),
    notes: Type.Optional(writableFields.notes),
    vat_id: Type.Optional(writableFields.vat_id),
    registration_id: Type.Optional(writableFields.registration_id),
    registration_scheme: Type.Optional(writableFields.registration_scheme),
    electronic_address: Type.Optional(writableFields.electronic_address),
    buyer_reference: Type.Optional(writableFields.buyer_reference),
    einvoice_format: Type.Optional(writableFields.einvoice_format),
    external_id: Type.Optional(writableFields.external_id),
    metadata: Type.Optional(writableFields.metadata),
    custom_fields: Type.Optional(writableFields.custom_fields),
    tags: Type.Optional(writableFields.tags),
  },
  { additionalProperties: false },
);

export const UpdateClientBody = Type.Partial(CreateClientBody, { additionalProperties: false });

export const ListClientsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'name'] as const),
    external_id: externalIdFilter,
    ...tagFilterProperties,
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case-insensitive match on name, e-mail, phone or company name.',
        example: 'cooper',
      }),
    ),
    email: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 254,
        description: 'Exact e-mail address, case-insensitive.',
        example: 'jane@example.com',
      }),
    ),
  },
  {
    additionalProperties: false,
    // custom_fields.<key>=a,b and custom_fields.<key>.gte= / .lte= (modules/custom-fields/filters.ts).
    ...customFieldFilterOptions,
  },
);

export type Client = Static<typeof ClientSchema>;
export type CreateClientInput = Static<typeof CreateClientBody>;
export type UpdateClientInput = Static<typeof UpdateClientBody>;
export type ListClientsInput = Static<typeof ListClientsQuery>;
