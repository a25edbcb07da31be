// Time entry shapes (docs/api-contract.md §29): a member's time on a job or visit, with its cost and billable
// figures; the single source of validation, serialization, types and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';
import {
  ExternalIdSchema,
  externalIdFilter,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
} from '../../kernel/fields.js';

export const TIME_ENTRY_SOURCES = ['manual', 'api', 'timer'] as const;
export type TimeEntrySource = (typeof TIME_ENTRY_SOURCES)[number];
/** An entry lasts at most this long (§29, §32). */
export const MAX_ENTRY_SECONDS = 24 * 3600;
/** Bulk approval approves at most this many entries a call (§32). */
export const MAX_APPROVED_PER_CALL = 1000;

const DateSchema = Type.String({
  format: 'date',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'A calendar date, YYYY-MM-DD.',
  example: '2026-11-15',
});
const amount = (description: string, example: number) =>
  Type.Integer({ minimum: 0, maximum: 100_000_000_000, description, example });
const instant = (description: string) => ({ ...TimestampSchema, description });

const teamMemberId = { ...IdSchema, description: 'The member whose time it is; fixed once made.' };
const jobId = Nullable({ ...IdSchema, description: 'The job the time was spent on.' });
const visitId = Nullable({
  ...IdSchema,
  description: 'The visit the time was spent on: sets job_id to its job (a job_id sent with it must match).',
});
const breakMinutes = Type.Integer({
  minimum: 0,
  maximum: 1440,
  description: 'Minutes of break within the span, not worked. Default 0.',
  example: 30,
});
const billable = Type.Boolean({
  description: 'Whether the time may be billed. Default: true with a job, else false.',
  example: true,
});
const hourlyCost = amount(
  'What an hour costs the business, in minor units of the entry’s currency. Default: the member’s hourly_cost_amount (0 if none); required when the currency is not the account’s.',
  4500,
);
const hourlyRate = amount(
  'What an hour is billed at, in minor units of the entry’s currency. Default: the member’s hourly_rate_amount (0 if none); required when the currency is not the account’s.',
  9000,
);
const notes = Nullable(Type.String({ maxLength: 5000, description: 'Internal notes.', example: 'Replaced valve' }));

export const ActorSchema = Type.Object(
  {
    type: Type.String({ description: 'api_key, mcp, hub or system.', example: 'api_key' }),
    id: Nullable(Type.String({ description: 'The key’s id; null for the system.', example: null })),
  },
  { description: 'Who did it.' },
);

export const TimeEntrySchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('time_entry', { description: 'Always "time_entry".' }),
    team_member_id: IdSchema,
    job_id: Nullable(IdSchema),
    visit_id: Nullable(IdSchema),
    started_at: instant('When the time began.'),
    ended_at: Nullable(instant('When it ended; null while running.')),
    break_minutes: breakMinutes,
    source: Type.Unsafe<TimeEntrySource>({
      type: 'string',
      enum: [...TIME_ENTRY_SOURCES],
      description: 'manual or api as given at creation (default manual); timer when made by start.',
      example: 'manual',
    }),
    billable,
    hourly_cost_amount: hourlyCost,
    hourly_rate_amount: hourlyRate,
    notes,
    running: Type.Boolean({ description: 'Read-only: true while ended_at is null.', example: false }),
    duration_seconds: Nullable(
      Type.Integer({
        description: 'Read-only: ended − started − breaks, in seconds; null while running.',
        example: 8100,
      }),
    ),
    currency: Type.String({ description: 'Read-only: the job’s currency, else the account’s.', example: 'USD' }),
    cost_amount: Nullable(
      Type.Integer({
        description: 'Read-only: round(duration_seconds × hourly_cost_amount ÷ 3600); null while running.',
        example: 10125,
      }),
    ),
    billed_hours: Nullable(
      Type.Number({
        description:
          'Read-only: the duration rounded (halves up) to the account’s time_billing_increment_minutes, in hours (at most 2 decimals); null while running.',
        example: 2.25,
      }),
    ),
    billable_amount: Nullable(
      Type.Integer({
        description: 'Read-only: round(billed_hours × hourly_rate_amount) if billable, else 0; null while running.',
        example: 20250,
      }),
    ),
    approved_at: Nullable(instant('Read-only: when it was approved; null until then.')),
    approved_by: Nullable(ActorSchema),
    locked: Type.Boolean({
      description:
        'Read-only: whether it starts on or before the account’s time_locked_through (no write may change it).',
      example: false,
    }),
    invoice_id: Nullable({ ...IdSchema, description: 'Read-only: the invoice it is billed on.' }),
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'TimeEntry', description: 'A member’s time on a job or visit, with what it costs and what it bills.' },
);

const writable = {
  job_id: Type.Optional(jobId),
  visit_id: Type.Optional(visitId),
  break_minutes: Type.Optional(breakMinutes),
  billable: Type.Optional(billable),
  hourly_cost_amount: Type.Optional(hourlyCost),
  hourly_rate_amount: Type.Optional(hourlyRate),
  notes: Type.Optional(notes),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
};

export const CreateTimeEntryBody = Type.Object(
  {
    team_member_id: teamMemberId,
    started_at: instant('When the time began.'),
    ended_at: Type.Optional(
      Nullable(instant('When it ended, after started_at and at most 24 h later; null or absent: running.')),
    ),
    source: Type.Optional(
      Type.Unsafe<'manual' | 'api'>({
        type: 'string',
        enum: ['manual', 'api'],
        description: 'manual (default) or api.',
        example: 'manual',
      }),
    ),
    ...writable,
  },
  { additionalProperties: false },
);

export const UpdateTimeEntryBody = Type.Object(
  {
    started_at: Type.Optional(instant('When the time began.')),
    ended_at: Type.Optional(instant('When it ended (a running entry is stopped with POST …/stop).')),
    ...writable,
  },
  { additionalProperties: false },
);

export const StartTimerBody = Type.Object(
  {
    team_member_id: { ...teamMemberId, description: 'An active member with no running entry (see stop_running).' },
    job_id: Type.Optional(jobId),
    visit_id: Type.Optional(visitId),
    billable: Type.Optional(billable),
    notes: Type.Optional(notes),
    started_at: Type.Optional(instant('When it began: default now; at most 24 h ago, not in the future.')),
    stop_running: Type.Optional(
      Type.Boolean({
        description: 'true: a running entry of the member is stopped at the new start, in the same transaction.',
        example: false,
      }),
    ),
  },
  { additionalProperties: false },
);

export const StopTimerBody = Type.Object(
  {
    ended_at: Type.Optional(instant('When it ended: default now.')),
    break_minutes: Type.Optional(breakMinutes),
  },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const BulkApproveBody = Type.Object(
  {
    from_date: { ...DateSchema, description: 'The first local date (account’s zone) of the entries’ starts.' },
    to_date: { ...DateSchema, description: 'The last local date, inclusive.' },
    team_member_id: Type.Optional({ ...IdSchema, description: 'Only this member’s entries.' }),
  },
  { additionalProperties: false },
);

export const BulkApprovedSchema = Type.Object(
  {
    approved: Type.Integer({ description: 'Entries approved by this call (at most 1,000).', example: 42 }),
    remaining: Type.Integer({
      description: 'Stopped unapproved entries of the range still left: call again.',
      example: 0,
    }),
  },
  { description: 'What a bulk approval did.' },
);

export const LockBody = Type.Object(
  { through_date: { ...DateSchema, description: 'The last local date of the pay period.' } },
  { additionalProperties: false },
);

export const UnlockBody = Type.Object(
  {
    through_date: Nullable({
      ...DateSchema,
      description: 'The new last locked date, before the current one; null: nothing locked.',
    }),
  },
  { additionalProperties: false },
);

export const TimeLockSchema = Type.Object(
  {
    id: { ...IdSchema, description: 'The account’s id (the lock is the account’s).' },
    object: Type.Literal('time_lock', { description: 'Always "time_lock".' }),
    locked_through: Nullable({ ...DateSchema, description: 'Entries starting on or before this date are locked.' }),
    updated_at: TimestampSchema,
  },
  { $id: 'TimeLock', description: 'The account’s locked pay periods: entries starting in them cannot change.' },
);

const boolFilter = (description: string) => Type.Optional(Type.Boolean({ description }));
const idFilter = (description: string) => Type.Optional({ ...IdSchema, description });

export const ListTimeEntriesQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'started_at'] as const),
    team_member_id: idFilter('Only this member’s entries.'),
    job_id: idFilter('Only entries on this job.'),
    visit_id: idFilter('Only entries on this visit.'),
    running: boolFilter('true: only running entries; false: only stopped ones.'),
    approved: boolFilter('true: only approved entries; false: only unapproved ones.'),
    billable: boolFilter('true: only billable entries; false: only the others.'),
    billed: boolFilter('true: only entries on an invoice; false: only the others.'),
    started_from: Type.Optional(instant('Only entries starting at or after this instant.')),
    started_to: Type.Optional(instant('Only entries starting before this instant.')),
    external_id: externalIdFilter,
  },
  { additionalProperties: false },
);

export type TimeEntry = Static<typeof TimeEntrySchema>;
export type TimeLock = Static<typeof TimeLockSchema>;
export type CreateTimeEntryInput = Static<typeof CreateTimeEntryBody>;
export type UpdateTimeEntryInput = Static<typeof UpdateTimeEntryBody>;
export type StartTimerInput = Static<typeof StartTimerBody>;
export type StopTimerInput = Static<typeof StopTimerBody>;
export type BulkApproveInput = Static<typeof BulkApproveBody>;
export type ListTimeEntriesInput = Static<typeof ListTimeEntriesQuery>;
