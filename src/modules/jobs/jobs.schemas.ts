// Job shapes: a work order, numbered at creation, scheduled, done, then invoiced.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { JOB_LIFECYCLE, JOB_STATUSES, type JobStatus } from './jobs.lifecycle.js';
import { describeTransitions, PropertyReferenceInput } from '../documents/index.js';
import {
  CustomFieldValuesInputSchema,
  externalIdFilter,
  ExternalIdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';
import {
  CurrencySchema,
  documentFields,
  nullableTimestamp,
  ReferenceSchema,
  totalsFields,
} from '../documents/index.js';
import { LineItemSchema, LineItemsInputSchema, pricingInputFields } from '../documents/index.js';
import { idFilter, statusFilter } from '../documents/index.js';
import { JobVisitInput } from '../visits/index.js';

const title = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'What the job is. Required unless the job is made from a quote (then the quote’s title).',
  example: 'Replace kitchen faucet',
});
const description = Nullable(
  Type.String({
    maxLength: 10_000,
    description: 'Instructions for the crew.',
    example: 'Shut-off valve is under the sink.',
  }),
);
const scheduledStart = nullableTimestamp(
  'When the work is planned to start. Once the job has a visit, a read-only mirror: the earliest start of its visits that are not canceled.',
);
const scheduledEnd = nullableTimestamp(
  'When the work is planned to end; not before scheduled_start. Once the job has a visit, the latest end of its visits that are not canceled.',
);

/** Read-only (docs/api-contract.md §17, §21). */
const VisitsSummarySchema = Type.Object(
  {
    total: Type.Integer({ description: 'Every visit of the job, canceled ones too.', example: 3 }),
    open: Type.Integer({ description: 'Visits unscheduled, scheduled, en_route or in_progress.', example: 2 }),
    completed: Type.Integer({ description: 'Completed visits.', example: 1 }),
    next_start_at: nullableTimestamp('The earliest start among its scheduled and en_route visits.'),
  },
  {
    description: 'The job’s visits, counted (read-only).',
    example: { total: 3, open: 2, completed: 1, next_start_at: '2026-03-10T16:00:00.000Z' },
  },
);

export const JobSchema = Type.Object(
  {
    ...documentFields('job', JOB_STATUSES),
    tags: TagsSchema,
    external_id: Nullable(ExternalIdSchema),
    number: Type.String({ description: 'J-000001 upward, assigned at creation. Never reused.', example: 'J-000007' }),
    quote_id: Nullable(ReferenceSchema('The quote the job was made from.')),
    request_id: Nullable(ReferenceSchema('The service request the job answers.')),
    title: Type.String({ description: 'What the job is.', example: 'Replace kitchen faucet' }),
    description,
    line_items: Type.Array(LineItemSchema),
    ...totalsFields,
    scheduled_start: scheduledStart,
    scheduled_end: scheduledEnd,
    completed_at: nullableTimestamp('When the job was completed; null unless completed.'),
    visits_summary: VisitsSummarySchema,
  },
  { $id: 'Job', description: 'A work order.' },
);

const writable = {
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  description: Type.Optional(description),
  line_items: Type.Optional(LineItemsInputSchema),
  ...pricingInputFields,
  currency: Type.Optional(CurrencySchema),
  scheduled_start: Type.Optional(scheduledStart),
  scheduled_end: Type.Optional(scheduledEnd),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  tags: Type.Optional(TagsInputSchema),
};

export const CreateJobBody = Type.Object(
  {
    client_id: Type.Optional(
      ReferenceSchema('The client; required unless quote_id is given (then the quote’s client).'),
    ),
    quote_id: Type.Optional(
      ReferenceSchema(
        'An approved quote of the same client; it becomes converted and its lines are copied when none are given.',
      ),
    ),
    request_id: Type.Optional(ReferenceSchema('A service request of the same client; it becomes converted.')),
    property_id: PropertyReferenceInput,
    title: Type.Optional(title),
    ...writable,
    visits: Type.Optional(
      Type.Array(JobVisitInput, {
        maxItems: 50,
        description:
          'Up to 50 visits made with the job, in the same transaction (needs visits:write). The job’s scheduled_start and scheduled_end then mirror them.',
      }),
    ),
  },
  { additionalProperties: false, 'x-required-one-of': ['client_id', 'quote_id'] },
);

export const UpdateJobBody = Type.Object(
  {
    client_id: Type.Optional(ReferenceSchema('The client.')),
    property_id: PropertyReferenceInput,
    title: Type.Optional(title),
    ...writable,
    status: Type.Optional(
      Type.Unsafe<JobStatus>({
        type: 'string',
        enum: [...JOB_STATUSES],
        description: `${describeTransitions(JOB_LIFECYCLE.moves)}.`,
        example: 'in_progress',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListJobsQuery = Type.Object(
  {
    ...tagFilterProperties,
    ...listQueryProperties(['created_at', 'updated_at', 'scheduled_start'] as const),
    external_id: externalIdFilter,
    client_id: idFilter('Only jobs of this client.'),
    status: statusFilter(JOB_STATUSES),
    request_id: idFilter('Only jobs made from this service request.'),
    quote_id: idFilter('Only jobs made from this quote.'),
    scheduled_from: Type.Optional({
      ...TimestampSchema,
      description: 'Only jobs scheduled to start at or after this instant.',
    }),
    scheduled_to: Type.Optional({
      ...TimestampSchema,
      description: 'Only jobs scheduled to start before this instant.',
    }),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Job = Static<typeof JobSchema>;
export type CreateJobInput = Static<typeof CreateJobBody>;
export type UpdateJobInput = Static<typeof UpdateJobBody>;
export type ListJobsInput = Static<typeof ListJobsQuery>;
