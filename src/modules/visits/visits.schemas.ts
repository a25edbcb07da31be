// Visit shapes (docs/api-contract.md §17, §21): one scheduled occurrence of a job, with its time written in one
// of three forms, its people, its status and stamps. The single source of validation, serialization, types and
// OpenAPI.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { tagFilterProperties, TagsInputSchema, TagsSchema } from '../tags/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { LOCAL_DATE_TIME_PATTERN } from '../../core/time.js';
import {
  CustomFieldValuesInputSchema,
  CustomFieldValuesSchema,
  externalIdFilter,
  ExternalIdSchema,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
  TimeZoneInputSchema,
  TimeZoneSchema,
} from '../../kernel/fields.js';
import { DateSchema, idFilter, nullableTimestamp, ReferenceSchema, statusFilter } from '../documents/index.js';
import { VISIT_MOVES, VISIT_STATUSES, type VisitStatus } from './visits.lifecycle.js';

/** At most 31 days (docs/api-contract.md §17), in minutes. */
export const MAX_VISIT_MINUTES = 31 * 24 * 60;
export const MAX_ASSIGNEES = 20;

const title = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'What the visit is; the job’s title unless given.',
  example: 'Install day 1: framing',
});
const instructions = Nullable(
  Type.String({ maxLength: 5000, description: 'What the crew must know for this visit.', example: 'Gate code 4411.' }),
);
const localDateTime = (description: string) =>
  Type.String({ pattern: LOCAL_DATE_TIME_PATTERN, description, example: '2026-03-09T09:00' });
const durationMinutes = Type.Integer({
  minimum: 1,
  maximum: MAX_VISIT_MINUTES,
  description: 'Real elapsed minutes from start to end (01:00–03:00 on a fall-back day is 180). At most 31 days.',
  example: 120,
});
const arrivalWindow = Nullable(
  Type.Integer({
    minimum: 0,
    maximum: 1440,
    description: 'How many minutes after the start the crew may arrive (0–1,440).',
    example: 60,
  }),
);
const assigneeIds = Type.Array(IdSchema, {
  maxItems: MAX_ASSIGNEES,
  description: `The team members on the visit: 0–${MAX_ASSIGNEES} distinct members; a newly assigned one must be active.`,
});
const statusSchema = Type.Unsafe<VisitStatus>({
  type: 'string',
  enum: [...VISIT_STATUSES],
  description:
    'unscheduled until it has a time; scheduled → en_route → in_progress → completed; scheduled → in_progress | completed; completed → in_progress (reopen); any open status → canceled; canceled → scheduled (reopen, needs a time).',
  example: 'scheduled',
});

export const VisitConflictSchema = Type.Object(
  {
    team_member_id: IdSchema,
    visit_id: IdSchema,
    start_at: TimestampSchema,
    end_at: TimestampSchema,
  },
  { description: 'Another visit (not canceled) of the same member whose time overlaps this one, half-open.' },
);

export const VisitSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('visit', { description: 'Always "visit".' }),
    job_id: ReferenceSchema('The job the visit belongs to.'),
    client_id: ReferenceSchema('The job’s client.'),
    property_id: Nullable(ReferenceSchema('The job’s property.')),
    title: Type.String({ description: 'What the visit is.', example: 'Install day 1: framing' }),
    instructions,
    status: statusSchema,
    all_day: Type.Boolean({ description: 'Whether the visit takes whole local days.', example: false }),
    timezone: { ...TimeZoneSchema, description: 'The zone of the local mirrors and of an all-day visit’s dates.' },
    start_at: nullableTimestamp('When the visit starts; null while unscheduled.'),
    end_at: nullableTimestamp('When it ends (exclusive); null while unscheduled.'),
    local_start: Nullable(localDateTime('start_at in the visit’s time zone (always recomputed from it).')),
    local_end: Nullable(localDateTime('end_at in the visit’s time zone.')),
    start_date: Nullable({ ...DateSchema, description: 'An all-day visit’s first day; null otherwise.' }),
    end_date: Nullable({ ...DateSchema, description: 'An all-day visit’s last day (inclusive); null otherwise.' }),
    duration_minutes: Nullable(Type.Integer({ description: 'Real elapsed minutes from start to end.', example: 120 })),
    arrival_window_minutes: arrivalWindow,
    assignee_ids: Type.Array(IdSchema, { description: 'The team members on the visit, in the order given.' }),
    conflicts: Nullable(
      Type.Array(VisitConflictSchema, {
        description:
          'Per assignee, the other visits (not canceled) that overlap this one. Computed on single reads and writes; in lists only with include=conflicts (null otherwise).',
      }),
    ),
    is_late: Type.Boolean({ description: 'scheduled or en_route, and its end has passed.', example: false }),
    en_route_at: nullableTimestamp('When the crew set out.'),
    started_at: nullableTimestamp('When the work started.'),
    completed_at: nullableTimestamp('When the visit was completed.'),
    canceled_at: nullableTimestamp('When the visit was canceled.'),
    cancel_reason: Nullable(Type.String({ description: 'Why it was canceled.', example: 'Client not home' })),
    completion_notes: Nullable(Type.String({ description: 'What was done.', example: 'Framing finished.' })),
    schedule_id: Nullable(ReferenceSchema('The visit schedule that made it (repeating visits).')),
    occurrence_key: Nullable(
      Type.String({ description: 'Its occurrence of the schedule (local date-time).', example: '2026-11-03T09:00' }),
    ),
    is_exception: Type.Boolean({ description: 'Changed apart from its schedule.', example: false }),
    hold_id: Nullable(ReferenceSchema('The availability hold it was booked from (docs/api-contract.md §28).')),
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    tags: TagsSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'Visit', description: 'One scheduled occurrence of a job, with its own time and people.' },
);

/**
 * An item of the calendar: a visit, or with `include_projected=true` a not yet materialised occurrence of a
 * visit schedule (docs/api-contract.md §17, §18), marked `projected: true` with `id: null`.
 */
export const VisitListItemSchema = Type.Object(
  {
    ...VisitSchema.properties,
    id: Nullable({ ...IdSchema, description: 'The visit’s id; null for a projected occurrence.' }),
    projected: Type.Optional(
      Type.Boolean({ description: 'true: an occurrence of a visit schedule not yet made as a visit (id null).' }),
    ),
  },
  { $id: 'VisitListItem', description: 'A visit, or a projected occurrence of a visit schedule.' },
);

export type ProjectedVisit = Omit<Static<typeof VisitSchema>, 'id'> & { id: null; projected: true };

/** The time fields: exactly one form per request (start_at; local_start; all_day + start_date). */
const timeFields = {
  all_day: Type.Optional(
    Type.Boolean({ description: 'true with start_date [+ end_date]: whole local days in the visit’s zone.' }),
  ),
  timezone: Type.Optional({
    ...TimeZoneInputSchema,
    description: `The zone of the local form, of the mirrors and of all-day dates; default the property’s, then the account’s. Alone in a PUT it keeps the instants. ${TimeZoneInputSchema.description}`,
  }),
  start_at: Type.Optional(
    Nullable({
      ...TimestampSchema,
      description: 'Form 1: an instant with any offset, with end_at or duration_minutes.',
    }),
  ),
  end_at: Type.Optional(Nullable({ ...TimestampSchema, description: 'Form 1: the end instant (after start_at).' })),
  local_start: Type.Optional(
    Nullable(localDateTime('Form 2: a local date-time in timezone, with local_end or duration_minutes.')),
  ),
  local_end: Type.Optional(Nullable(localDateTime('Form 2: the local end, in the same zone.'))),
  duration_minutes: Type.Optional(Nullable(durationMinutes)),
  start_date: Type.Optional(Nullable({ ...DateSchema, description: 'Form 3 (all_day: true): the first day.' })),
  end_date: Type.Optional(
    Nullable({ ...DateSchema, description: 'Form 3: the last day, inclusive; default start_date. At most 31 days.' }),
  ),
};

const writable = {
  title: Type.Optional(title),
  instructions: Type.Optional(instructions),
  ...timeFields,
  arrival_window_minutes: Type.Optional(arrivalWindow),
  assignee_ids: Type.Optional(assigneeIds),
  completion_notes: Type.Optional(
    Nullable(Type.String({ maxLength: 5000, description: 'What was done.', example: 'Framing finished.' })),
  ),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
  tags: Type.Optional(TagsInputSchema),
};

const holdId = Type.Optional(
  ReferenceSchema(
    'Book from an availability hold of this key: the visit takes its instants, zone and crew (no time field, timezone or assignee_ids beside it).',
  ),
);

/** A visit as `POST /v1/jobs` takes it in `visits`: the job is the one being made. */
export const JobVisitInput = Type.Object(
  { ...writable, hold_id: holdId },
  {
    additionalProperties: false,
    description: 'A visit of the job being created.',
  },
);

export const CreateVisitBody = Type.Object(
  {
    job_id: ReferenceSchema('The job; it must not be completed or canceled. Cannot change.'),
    ...writable,
    hold_id: holdId,
  },
  { additionalProperties: false },
);

const stamp = (description: string) =>
  Type.Optional(Nullable({ ...TimestampSchema, description: `${description} Default now; never in the future.` }));

export const UpdateVisitBody = Type.Object(
  {
    ...writable,
    status: Type.Optional({
      ...statusSchema,
      description: `A move: ${Object.entries(VISIT_MOVES)
        .filter(([, to]) => to.length > 0)
        .map(([from, to]) => `${from} -> ${to.join(' | ')}`)
        .join('; ')}. unscheduled ⇄ scheduled happens by setting or clearing the time.`,
    }),
    en_route_at: stamp('When the crew set out (with the move to en_route, or to correct it).'),
    started_at: stamp('When the work started (with the move to in_progress, or to correct it).'),
    completed_at: stamp('When it was completed (with the move to completed, or to correct it).'),
    canceled_at: stamp('When it was canceled (with the move to canceled, or to correct it).'),
    cancel_reason: Type.Optional(
      Nullable(Type.String({ maxLength: 500, description: 'Why it was canceled (canceled visits only).' })),
    ),
  },
  { additionalProperties: false },
);

export const OnConflictQuery = Type.Object(
  {
    on_conflict: Type.Optional(
      Type.Unsafe<'allow' | 'reject'>({
        type: 'string',
        enum: ['allow', 'reject'],
        description: 'reject: a write that leaves the visit overlapping another of an assignee is a 409 CONFLICT.',
        example: 'reject',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AddAssigneeBody = Type.Object(
  { team_member_id: ReferenceSchema('An active team member to add to the visit.') },
  { additionalProperties: false },
);

export const AssigneeParams = Type.Object({
  id: Type.String({ description: 'The visit’s id.' }),
  team_member_id: Type.String({ description: 'The team member’s id.' }),
});

const commaIds = (description: string) =>
  Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 37 * 50,
      description,
      example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      'x-comma-list': { type: 'string', format: 'uuid', maxItems: 50 },
    }),
  );

export const ListVisitsQuery = Type.Object(
  {
    ...tagFilterProperties,
    ...listQueryProperties(['created_at', 'updated_at', 'start_at'] as const),
    // No default here: a window is always in start_at order, so a sort other than start_at is refused there.
    sort: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: ['created_at', '-created_at', 'updated_at', '-updated_at', 'start_at'],
        description:
          'Without a window: created_at or updated_at, - for descending (default -created_at). A window is always in start_at order (start_at, or no sort).',
        example: '-created_at',
      }),
    ),
    from: Type.Optional({
      ...TimestampSchema,
      description: 'Calendar window start (an instant): the visits that overlap [from, to). Needs to.',
    }),
    to: Type.Optional({ ...TimestampSchema, description: 'Calendar window end (an instant, exclusive).' }),
    from_date: Type.Optional({ ...DateSchema, description: 'Calendar window of whole local days: the first day.' }),
    to_date: Type.Optional({ ...DateSchema, description: 'The last day, inclusive.' }),
    timezone: Type.Optional({
      ...TimeZoneInputSchema,
      description: 'The zone of from_date and to_date; default the account’s.',
    }),
    assignee_id: commaIds('Comma-separated team member ids (at most 50): visits assigned to any of them.'),
    unassigned: Type.Optional(Type.Boolean({ description: 'true: only visits with no assignee.' })),
    job_id: idFilter('Only visits of this job.'),
    client_id: idFilter('Only visits of this client.'),
    property_id: idFilter('Only visits at this property.'),
    schedule_id: idFilter('Only visits of this visit schedule.'),
    status: statusFilter(VISIT_STATUSES),
    late: Type.Optional(Type.Boolean({ description: 'true: only late visits (scheduled or en_route, end passed).' })),
    external_id: externalIdFilter,
    include: Type.Optional(
      Type.Unsafe<'conflicts'>({
        type: 'string',
        enum: ['conflicts'],
        description: 'conflicts: compute each visit’s conflicts (null otherwise in a list).',
      }),
    ),
    include_projected: Type.Optional(
      Type.Boolean({
        description:
          'true: also the not yet materialised occurrences of visit schedules (section 18); there are none until schedules exist.',
      }),
    ),
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type Visit = Static<typeof VisitSchema>;
export type VisitConflict = Static<typeof VisitConflictSchema>;
export type VisitInput = Static<typeof JobVisitInput>;
export type CreateVisitInput = Static<typeof CreateVisitBody>;
export type UpdateVisitInput = Static<typeof UpdateVisitBody>;
export type ListVisitsInput = Static<typeof ListVisitsQuery>;
