// The account's booking settings (docs/api-contract.md §28): slot step, notice, buffer and the straight-line
// travel model. Stored as set (null: every default); answered and used with each default filled in. A PUT
// changes the fields it names and keeps the others (`travel` likewise).
import { Type, type Static } from '@sinclair/typebox';
import { fromJson } from '../../db/index.js';

const integer = (minimum: number, maximum: number, fallback: number, description: string) =>
  Type.Integer({
    minimum,
    maximum,
    description: `${description} ${minimum}–${maximum}, default ${fallback}.`,
    example: fallback,
  });

const fields = {
  slot_step_minutes: integer(5, 240, 30, 'Minutes between offered starts (on the local clock, from midnight).'),
  min_notice_minutes: integer(0, 10_080, 60, 'How soon after now the first start may be.'),
  buffer_minutes: integer(0, 240, 0, 'Minutes kept free between two commitments of a member.'),
};
const travelFields = {
  mode: Type.Unsafe<'none' | 'straight_line'>({
    type: 'string',
    enum: ['none', 'straight_line'],
    description:
      'none: no travel time; straight_line: the great-circle distance between properties’ locations at speed_kmh (an estimate; no routing service is called). Default none.',
    example: 'straight_line',
  }),
  speed_kmh: integer(5, 150, 30, 'The assumed speed of travel, km/h.'),
  unknown_location_minutes: integer(0, 240, 30, 'Travel assumed when a place has no location.'),
};

export const BookingSettingsSchema = Type.Object(
  { ...fields, travel: Type.Object(travelFields, { description: 'Travel time between commitments.' }) },
  { description: 'How GET /v1/availability offers slots.' },
);

export const BookingSettingsInput = Type.Object(
  {
    slot_step_minutes: Type.Optional(fields.slot_step_minutes),
    min_notice_minutes: Type.Optional(fields.min_notice_minutes),
    buffer_minutes: Type.Optional(fields.buffer_minutes),
    travel: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(travelFields.mode),
          speed_kmh: Type.Optional(travelFields.speed_kmh),
          unknown_location_minutes: Type.Optional(travelFields.unknown_location_minutes),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'How GET /v1/availability offers slots; the fields named change, the others are kept.',
  },
);

export type BookingSettings = Static<typeof BookingSettingsSchema>;
export type BookingSettingsPatch = Static<typeof BookingSettingsInput>;

export const DEFAULT_BOOKING: BookingSettings = {
  slot_step_minutes: 30,
  min_notice_minutes: 60,
  buffer_minutes: 0,
  travel: { mode: 'none', speed_kmh: 30, unknown_location_minutes: 30 },
};

/** The settings of a stored value (null: the defaults), with each missing field's default. */
export function bookingSettings(stored: string | null): BookingSettings {
  const set = stored === null ? {} : fromJson<BookingSettingsPatch>(stored);
  return mergeBooking(DEFAULT_BOOKING, set);
}

/** `current` with the fields `patch` names changed. */
export function mergeBooking(current: BookingSettings, patch: BookingSettingsPatch): BookingSettings {
  return {
    slot_step_minutes: patch.slot_step_minutes ?? current.slot_step_minutes,
    min_notice_minutes: patch.min_notice_minutes ?? current.min_notice_minutes,
    buffer_minutes: patch.buffer_minutes ?? current.buffer_minutes,
    travel: { ...current.travel, ...(patch.travel ?? {}) },
  };
}
