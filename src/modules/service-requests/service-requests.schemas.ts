// Service request shapes: incoming requests for work, before any quote or job.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { REQUEST_LIFECYCLE, REQUEST_STATUSES, type RequestStatus } from './service-requests.lifecycle.js';
import { describeTransitions, PropertyReferenceInput } from '../documents/index.js';
import { CustomFieldValuesInputSchema, listQueryProperties, MetadataSchema, Nullable } from '../../kernel/fields.js';
import { DateSchema, documentFields, nullableDate, nullableTimestamp, ReferenceSchema } from '../documents/index.js';
import { idFilter, statusFilter } from '../documents/index.js';

export const REQUEST_SOURCES = ['phone', 'email', 'web', 'in_person', 'other'] as const;

const title = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'Short summary of what the client asks for.',
  example: 'Leaking kitchen sink',
});
const description = Nullable(
  Type.String({
    maxLength: 10_000,
    description: 'Details, in the client’s words.',
    example: 'Water under the sink since Monday.',
  }),
);
const source = Type.Unsafe<(typeof REQUEST_SOURCES)[number]>({
  type: 'string',
  enum: [...REQUEST_SOURCES],
  description: 'How the request came in.',
  example: 'phone',
});
const preferredDate = nullableDate('The day the client would like the work done.');

export const ServiceRequestSchema = Type.Object(
  {
    ...documentFields('service_request', REQUEST_STATUSES),
    title,
    description,
    source,
    preferred_date: Nullable(DateSchema),
    converted_at: nullableTimestamp('When a quote or job was made from this request.'),
  },
  { $id: 'ServiceRequest', description: 'A request for work from a client.' },
);

export const CreateServiceRequestBody = Type.Object(
  {
    client_id: ReferenceSchema('The client asking for the work.'),
    property_id: PropertyReferenceInput,
    title,
    description: Type.Optional(description),
    source: Type.Optional({ ...source, default: 'other' }),
    preferred_date: Type.Optional(preferredDate),
    metadata: Type.Optional(MetadataSchema),
    custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  },
  { additionalProperties: false },
);

export const UpdateServiceRequestBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client asking for the work.')),
    property_id: PropertyReferenceInput,
    title: Type.Optional(title),
    description: Type.Optional(description),
    source: Type.Optional(source),
    preferred_date: Type.Optional(preferredDate),
    status: Type.Optional(
      Type.Unsafe<RequestStatus>({
        type: 'string',
        enum: [...REQUEST_STATUSES],
        description: `${describeTransitions(REQUEST_LIFECYCLE.moves)}. converted is set automatically.`,
        example: 'assessed',
      }),
    ),
    metadata: Type.Optional(MetadataSchema),
    custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  },
  { additionalProperties: false },
);

export const ListServiceRequestsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    client_id: idFilter('Only requests of this client.'),
    status: statusFilter(REQUEST_STATUSES),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type ServiceRequest = Static<typeof ServiceRequestSchema>;
export type CreateServiceRequestInput = Static<typeof CreateServiceRequestBody>;
export type UpdateServiceRequestInput = Static<typeof UpdateServiceRequestBody>;
export type ListServiceRequestsInput = Static<typeof ListServiceRequestsQuery>;
