// Visit schedule shapes (docs/api-contract.md §18, §21): a job's visits on a rule. The single source of
// validation, serialization, types and OpenAPI; the rule's own checks are in recurrence.ts.
import { Type, type Static } from '@sinclair/typebox';
import { IdSchema, listQueryProperties, MetadataSchema, Nullable, TimestampSchema } from '../../kernel/fields.js';

export const SCHEDULE_STATUSES = ['active', 'paused', 'ended'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

const date = (description: string, example = '2026-03-10') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, example });
const occurrenceKey = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2})?$',
  description: 'An occurrence key: the nominal local date-time YYYY-MM-DDTHH:MM, or the date for an all-day schedule.',
  example: '2026-03-10T09:00',
});
const intList = (description: string, example: number[]) =>
  Nullable(Type.Array(Type.Integer(), { maxItems: 400, description, example }));

/** The rule as written: `rrule` or the structured fields (or both, agreeing), where it starts, its zone. */
const recurrenceFields = {
  rrule: Type.String({
    minLength: 1,
    maxLength: 1000,
    description:
      'An RFC 5545 RRULE value; only FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, COUNT, UNTIL and WKST (any other part is a 422 naming it). UNTIL is a date (the local date, inclusive) or a UTC date-time.',
    example: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU',
  }),
  frequency: Type.Unsafe<'daily' | 'weekly' | 'monthly' | 'yearly'>({
    type: 'string',
    enum: ['daily', 'weekly', 'monthly', 'yearly'],
    description: 'FREQ.',
    example: 'weekly',
  }),
  interval: Type.Integer({ minimum: 1, maximum: 99, description: 'INTERVAL, 1–99 (default 1).', example: 2 }),
  by_weekday: Nullable(
    Type.Array(Type.String({ maxLength: 4 }), {
      maxItems: 50,
      description: 'BYDAY: MO…SU, with an ordinal in monthly and yearly rules (2TU, -1FR).',
      example: ['TU'],
    }),
  ),
  by_month_day: intList('BYMONTHDAY: 1…31 or -1…-31.', [15]),
  by_month: intList('BYMONTH: 1…12.', [3]),
  by_set_position: intList('BYSETPOS: which of each period’s candidates (-1 is the last).', [-1]),
  count: Nullable(Type.Integer({ description: 'COUNT, 1–1,000 (or until).', example: 10 })),
  until: Nullable(date('The last local date, inclusive (or count).', '2026-12-31')),
  week_start: Type.String({
    maxLength: 2,
    description: 'WKST: the first day of the week, MO (default) … SU.',
    example: 'MO',
  }),
  start_date: date(
    'The first local date of the rule (required; may be in the past). A date the rule does not yield is not an occurrence.',
  ),
  time: Nullable(
    Type.String({
      pattern: '^\\d{2}:\\d{2}$',
      description: 'The local time HH:MM; null for an all-day schedule.',
      example: '09:00',
    }),
  ),
  timezone: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'IANA zone of the rule (default: the job’s property’s, else the account’s).',
    example: 'America/Denver',
  }),
  month_day_overflow: Type.Unsafe<'last_day' | 'skip'>({
    type: 'string',
    enum: ['last_day', 'skip'],
    description:
      'last_day (default): the 31st is the last day of shorter months (RFC 7529 SKIP=BACKWARD); skip: plain RFC 5545.',
    example: 'last_day',
  }),
  exdates: Type.Array(occurrenceKey, { maxItems: 1000, description: 'Occurrence keys left out (at most 1,000).' }),
};

export const RecurrenceInputSchema = Type.Object(
  {
    rrule: Type.Optional(recurrenceFields.rrule),
    frequency: Type.Optional(recurrenceFields.frequency),
    interval: Type.Optional(recurrenceFields.interval),
    by_weekday: Type.Optional(recurrenceFields.by_weekday),
    by_month_day: Type.Optional(recurrenceFields.by_month_day),
    by_month: Type.Optional(recurrenceFields.by_month),
    by_set_position: Type.Optional(recurrenceFields.by_set_position),
    count: Type.Optional(recurrenceFields.count),
    until: Type.Optional(recurrenceFields.until),
    week_start: Type.Optional(recurrenceFields.week_start),
    start_date: Type.Optional(Type.String({ maxLength: 40, description: recurrenceFields.start_date.description })),
    time: Type.Optional(
      Nullable(Type.String({ maxLength: 40, description: 'The local time HH:MM; null for all-day.' })),
    ),
    timezone: Type.Optional(recurrenceFields.timezone),
    month_day_overflow: Type.Optional(recurrenceFields.month_day_overflow),
    exdates: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), { maxItems: 1001, description: recurrenceFields.exdates.description }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The rule: rrule, or the structured fields, or both saying the same; with start_date, time and timezone.',
  },
);

export const RecurrenceSchema = Type.Object(
  {
    ...recurrenceFields,
    summary: Type.String({
      description: 'Read-only English description with the time and the zone.',
      example: 'Every 2 weeks on Tuesday at 09:00 (America/Denver), from 2026-03-10',
    }),
  },
  { description: 'The rule in both forms, and its summary.' },
);

const assigneeIds = Type.Array(IdSchema, {
  maxItems: 20,
  description: 'Team members (0–20, distinct, active) each visit is assigned.',
});
const TemplateSchema = Type.Object(
  {
    title: Nullable(
      Type.String({ maxLength: 200, description: 'The visits’ title (default the job’s).', example: 'Lawn mowing' }),
    ),
    instructions: Nullable(Type.String({ maxLength: 5000, description: 'Instructions for every visit.' })),
    assignee_ids: assigneeIds,
    arrival_window_minutes: Nullable(
      Type.Integer({ minimum: 0, maximum: 1440, description: 'Arrival window, 0–1,440.' }),
    ),
  },
  { additionalProperties: false, description: 'What every visit of the schedule gets.' },
);
const TemplateInputSchema = Type.Partial(TemplateSchema, { additionalProperties: false });

const durationMinutes = Type.Integer({
  minimum: 1,
  maximum: 1440,
  description: 'Length of a timed visit in minutes (1–1,440).',
  example: 60,
});
const durationDays = Type.Integer({
  minimum: 1,
  maximum: 31,
  description: 'Length of an all-day visit in days (1–31).',
  example: 1,
});
const horizonDays = Type.Integer({
  minimum: 7,
  maximum: 730,
  description: 'How far ahead visits are made as rows (7–730, default 120; at most 500 visits ahead).',
  example: 120,
});

export const VisitScheduleSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('visit_schedule', { description: 'Always "visit_schedule".' }),
    job_id: IdSchema,
    recurrence: RecurrenceSchema,
    duration_minutes: Nullable(durationMinutes),
    duration_days: Nullable(durationDays),
    template: TemplateSchema,
    horizon_days: horizonDays,
    status: Type.Unsafe<ScheduleStatus>({
      type: 'string',
      enum: [...SCHEDULE_STATUSES],
      description: 'active, paused or ended.',
    }),
    paused_from: Nullable(date('First local date of the pause (inclusive).')),
    paused_until: Nullable(date('Last local date of the pause (inclusive); null: until resumed.')),
    materialized_through: Nullable(date('The last local date up to which visits have been made as rows.')),
    next_occurrence_at: Nullable({
      ...TimestampSchema,
      description: 'When the next occurrence (not skipped or paused) starts.',
    }),
    next_occurrence_key: Nullable(occurrenceKey),
    previous_schedule_id: Nullable({ ...IdSchema, description: 'The schedule this one was split from.' }),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'VisitSchedule', description: 'A job’s visits on a rule ("every other Tuesday at 9:00").' },
);

export const CreateVisitScheduleBody = Type.Object(
  {
    job_id: IdSchema,
    recurrence: RecurrenceInputSchema,
    duration_minutes: Type.Optional(durationMinutes),
    duration_days: Type.Optional(durationDays),
    template: Type.Optional(TemplateInputSchema),
    horizon_days: Type.Optional(horizonDays),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

/** `recurrence` is accepted by the schema so that its 422 can say to use split (§21), not "unknown field". */
export const UpdateVisitScheduleBody = Type.Object(
  {
    recurrence: Type.Optional(Type.Unknown({ description: 'Not changeable: a 422 (use split).' })),
    duration_minutes: Type.Optional(durationMinutes),
    duration_days: Type.Optional(durationDays),
    template: Type.Optional(TemplateInputSchema),
    horizon_days: Type.Optional(horizonDays),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const ListVisitSchedulesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at'] as const),
    job_id: Type.Optional({ ...IdSchema, description: 'Only the schedules of this job.' }),
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Comma-separated statuses: active, paused, ended.',
        'x-comma-list': { type: 'string', enum: SCHEDULE_STATUSES },
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeleteScheduleQuery = Type.Object(
  {
    keep_visits: Type.Optional(
      Type.Boolean({ description: 'true: keep the future visits, detached (schedule_id null).' }),
    ),
  },
  { additionalProperties: false },
);

export const SkipBody = Type.Object({ occurrence_key: occurrenceKey }, { additionalProperties: false });
export const PauseBody = Type.Object(
  {
    from: date('First local date of the pause (inclusive).'),
    until: Type.Optional(Nullable(date('Last local date of the pause (inclusive); absent or null: until resumed.'))),
  },
  { additionalProperties: false },
);
export const EmptyBody = Type.Object({}, { additionalProperties: false });
export const SplitBody = Type.Object(
  {
    from_occurrence_key: occurrenceKey,
    recurrence: Type.Optional(RecurrenceInputSchema),
    duration_minutes: Type.Optional(durationMinutes),
    duration_days: Type.Optional(durationDays),
    template: Type.Optional(TemplateInputSchema),
    horizon_days: Type.Optional(horizonDays),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);
export const SplitResultSchema = Type.Object(
  { previous: VisitScheduleSchema, next: VisitScheduleSchema },
  { description: 'The schedule that now ends the day before, and the one that starts at the split occurrence.' },
);

export const OccurrencesQuery = Type.Object(
  {
    from: { ...TimestampSchema, description: 'Window start (instant, inclusive).' },
    to: { ...TimestampSchema, description: 'Window end (instant, exclusive); at most 366 days after from.' },
  },
  { additionalProperties: false },
);
export const OccurrenceSchema = Type.Object(
  {
    occurrence_key: occurrenceKey,
    start_at: TimestampSchema,
    end_at: TimestampSchema,
    local_start: Type.String({
      description: 'The start as local date-time in the schedule’s zone (03:30 for a 02:30 in the gap).',
    }),
    visit_id: Nullable({ ...IdSchema, description: 'The materialised visit, when there is one.' }),
    skipped: Type.Boolean({ description: 'true: in exdates (skipped).' }),
  },
  { description: 'One occurrence of a schedule.' },
);

export type VisitSchedule = Static<typeof VisitScheduleSchema>;
export type Template = Static<typeof TemplateSchema>;
export type TemplateInput = Static<typeof TemplateInputSchema>;
export type CreateVisitScheduleInput = Static<typeof CreateVisitScheduleBody>;
export type UpdateVisitScheduleInput = Static<typeof UpdateVisitScheduleBody>;
export type ListVisitSchedulesInput = Static<typeof ListVisitSchedulesQuery>;
export type SplitInput = Static<typeof SplitBody>;
export type Occurrence = Static<typeof OccurrenceSchema>;
