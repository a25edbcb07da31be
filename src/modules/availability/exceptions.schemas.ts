// Availability exceptions (docs/api-contract.md §28): a member's time off or extra hours, written in one of a
// visit's time forms (§17) in the member's zone by default, at most 366 days long.
import { Type, type Static } from '@sinclair/typebox';
import {
  ExternalIdSchema,
  externalIdFilter,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimeZoneInputSchema,
  TimeZoneSchema,
  TimestampSchema,
} from '../../kernel/fields.js';
import { DateSchema, ReferenceSchema } from '../documents/index.js';

export const EXCEPTION_KINDS = ['time_off', 'extra_hours'] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];
export const MAX_EXCEPTION_DAYS = 366;

const kind = Type.Unsafe<ExceptionKind>({
  type: 'string',
  enum: [...EXCEPTION_KINDS],
  description: 'time_off removes bookable time; extra_hours adds it beside the weekly hours. Default time_off.',
  example: 'time_off',
});
const reason = Nullable(
  Type.String({ maxLength: 200, description: 'Why (internal; never shown to customers).', example: 'Dentist' }),
);
const localDateTime = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$', description, example: '2030-03-10T09:00' });

export const AvailabilityExceptionSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('availability_exception', { description: 'Always "availability_exception".' }),
    team_member_id: ReferenceSchema('The member it concerns. Cannot change.'),
    kind,
    all_day: Type.Boolean({ description: 'Whole local days (start_date to end_date).', example: false }),
    timezone: TimeZoneSchema,
    start_at: TimestampSchema,
    end_at: TimestampSchema,
    local_start: localDateTime('start_at on the local clock of timezone.'),
    local_end: localDateTime('end_at on the local clock of timezone.'),
    start_date: Nullable({ ...DateSchema, description: 'All-day only: the first day.' }),
    end_date: Nullable({ ...DateSchema, description: 'All-day only: the last day, inclusive.' }),
    reason,
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'AvailabilityException', description: 'Time off or extra hours of one team member.' },
);

const timeFields = {
  all_day: Type.Optional(Type.Boolean({ description: 'true with start_date [+ end_date]: whole local days.' })),
  timezone: Type.Optional({
    ...TimeZoneInputSchema,
    description: `The zone of the local form and of the dates; default the member’s. ${TimeZoneInputSchema.description}`,
  }),
  start_at: Type.Optional({ ...TimestampSchema, description: 'Form 1: an instant, with end_at or duration_minutes.' }),
  end_at: Type.Optional({ ...TimestampSchema, description: 'Form 1: the end instant.' }),
  local_start: Type.Optional(
    localDateTime('Form 2: a local date-time in timezone, with local_end or duration_minutes.'),
  ),
  local_end: Type.Optional(localDateTime('Form 2: the local end.')),
  duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXCEPTION_DAYS * 1440, example: 240 })),
  start_date: Type.Optional({ ...DateSchema, description: 'Form 3 (all_day: true): the first day.' }),
  end_date: Type.Optional({ ...DateSchema, description: 'Form 3: the last day, inclusive; default start_date.' }),
};

const writable = {
  kind: Type.Optional(kind),
  ...timeFields,
  reason: Type.Optional(reason),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateAvailabilityExceptionBody = Type.Object(
  { team_member_id: ReferenceSchema('The member it concerns. Cannot change.'), ...writable },
  { additionalProperties: false },
);
export const UpdateAvailabilityExceptionBody = Type.Object(writable, { additionalProperties: false });

export const ListAvailabilityExceptionsQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    team_member_id: Type.Optional(ReferenceSchema('Only this member’s.')),
    kind: Type.Optional(kind),
    from: Type.Optional({ ...TimestampSchema, description: 'Only those ending after this instant.' }),
    to: Type.Optional({ ...TimestampSchema, description: 'Only those starting before this instant.' }),
    external_id: externalIdFilter,
  },
  { additionalProperties: false },
);

export type AvailabilityException = Static<typeof AvailabilityExceptionSchema>;
export type CreateAvailabilityExceptionInput = Static<typeof CreateAvailabilityExceptionBody>;
export type UpdateAvailabilityExceptionInput = Static<typeof UpdateAvailabilityExceptionBody>;
export type ListAvailabilityExceptionsInput = Static<typeof ListAvailabilityExceptionsQuery>;
