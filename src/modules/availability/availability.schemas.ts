// Availability and holds (docs/api-contract.md §28): the query of GET /v1/availability, the slots it answers,
// and holds: a crew's time kept for one key while a person confirms it.
import { Type, type Static } from '@sinclair/typebox';
import {
  IdSchema,
  MetadataSchema,
  Nullable,
  pageQueryProperties,
  TimeZoneInputSchema,
  TimeZoneSchema,
  TimestampSchema,
} from '../../kernel/fields.js';
import { DateSchema, ReferenceSchema } from '../documents/index.js';

export const MAX_WINDOW_DAYS = 31;
export const MAX_UNNAMED_MEMBERS = 50;
export const MAX_NAMED_MEMBERS = 20;
export const MAX_CREW = 10;
export const MAX_ACTIVE_HOLDS = 10;

const localDateTime = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$', description, example: '2030-03-11T09:00' });
const duration = Type.Integer({
  minimum: 5,
  maximum: 1440,
  description: 'How long the work takes, in minutes (5–1,440); or give product_id.',
  example: 60,
});
const productId = ReferenceSchema('A product whose duration_minutes is the length (422 when it has none).');
const propertyId = ReferenceSchema('Where the work is: travel is reckoned from and to it; its zone is the default.');

export const AvailabilityQuery = Type.Object(
  {
    ...pageQueryProperties,
    duration_minutes: Type.Optional(duration),
    product_id: Type.Optional(productId),
    from: Type.Optional({ ...TimestampSchema, description: 'The window’s first instant (with to; at most 31 days).' }),
    to: Type.Optional({ ...TimestampSchema, description: 'The window’s end instant: starts before it.' }),
    from_date: Type.Optional({ ...DateSchema, description: 'The first local day of the window, in timezone.' }),
    to_date: Type.Optional({ ...DateSchema, description: 'The last local day, inclusive (at most 31 days).' }),
    property_id: Type.Optional(propertyId),
    timezone: Type.Optional({
      ...TimeZoneInputSchema,
      description: `The clock the starts are on; default the property’s, then the account’s. ${TimeZoneInputSchema.description}`,
    }),
    crew_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_CREW,
        description: 'Members needed together (1–10, default 1).',
        example: 1,
      }),
    ),
    team_member_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_NAMED_MEMBERS * 37,
        description: `Comma-separated member ids (at most ${MAX_NAMED_MEMBERS}): only these, preferred in this order.`,
        example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
      }),
    ),
    step_minutes: Type.Optional(
      Type.Integer({
        minimum: 5,
        maximum: 240,
        description: 'Minutes between starts; default the account’s.',
        example: 30,
      }),
    ),
  },
  { additionalProperties: false },
);

/** The key's active holds: at most 10, so one page (limit and cursor as on every list). */
export const ListHoldsQuery = Type.Object({ ...pageQueryProperties }, { additionalProperties: false });

export const SlotSchema = Type.Object(
  {
    object: Type.Literal('slot', { description: 'Always "slot".' }),
    start_at: TimestampSchema,
    end_at: { ...TimestampSchema, description: 'start_at plus the duration, in real time.' },
    local_start: localDateTime('start_at on the local clock of timezone.'),
    local_end: localDateTime('end_at on the local clock of timezone.'),
    timezone: TimeZoneSchema,
    team_member_ids: Type.Array(IdSchema, { description: 'The crew offered (crew_size members).' }),
    available_team_member_ids: Type.Array(IdSchema, { description: 'Every member free for the slot.' }),
  },
  { $id: 'Slot', description: 'A bookable time for a crew.' },
);

export const CreateHoldBody = Type.Object(
  {
    start_at: { ...TimestampSchema, description: 'The start, as a slot answered it (any offset).' },
    duration_minutes: Type.Optional(duration),
    product_id: Type.Optional(productId),
    team_member_ids: Type.Array(IdSchema, {
      minItems: 1,
      maxItems: MAX_CREW,
      description: 'The crew to hold (1–10 members), as a slot answered it.',
    }),
    property_id: Type.Optional(Nullable(propertyId)),
    timezone: Type.Optional({
      ...TimeZoneInputSchema,
      description: `The zone of the local mirrors and of the booked visit; default the property’s, then the account’s. ${TimeZoneInputSchema.description}`,
    }),
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 900,
        description: 'How long it holds (60–900, default 600).',
        example: 600,
      }),
    ),
    metadata: Type.Optional(MetadataSchema),
  },
  { additionalProperties: false },
);

export const HoldSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('availability_hold', { description: 'Always "availability_hold".' }),
    start_at: TimestampSchema,
    end_at: TimestampSchema,
    local_start: localDateTime('start_at on the local clock of timezone.'),
    local_end: localDateTime('end_at on the local clock of timezone.'),
    timezone: TimeZoneSchema,
    duration_minutes: Type.Integer({ example: 60 }),
    property_id: Nullable(IdSchema),
    team_member_ids: Type.Array(IdSchema),
    expires_at: TimestampSchema,
    active: Type.Boolean({
      description: 'From the clock: not booked, not released and not expired.',
      example: true,
    }),
    visit_id: Nullable({ ...IdSchema, description: 'The visit booked from it.' }),
    released_at: Nullable(TimestampSchema),
    metadata: MetadataSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'AvailabilityHold', description: 'A crew’s time kept for the key that made it, until it expires.' },
);

export type AvailabilityInput = Static<typeof AvailabilityQuery>;
export type Slot = Static<typeof SlotSchema>;
export type CreateHoldInput = Static<typeof CreateHoldBody>;
export type Hold = Static<typeof HoldSchema>;
