// The account's payment-reminder schedule (docs/api-contract.md §23, §32): on or off, the local time the
// reminders go at, and up to three steps, each a number of days from the due date with an optional late fee.
// Stored as set (null: off, no steps); a PUT replaces the fields it names. The step moments are computed here,
// in the account's zone, for the invoices (next_reminder_at) and the reminder worker alike.
import { Temporal } from '@js-temporal/polyfill';
import { Type, type Static } from '@sinclair/typebox';
import { type ErrorDetail, validationError } from '../../core/errors.js';
import { fromJson } from '../../db/index.js';

export const MAX_REMINDER_STEPS = 3;
/** The largest amount fee, in minor units (§32). */
export const MAX_LATE_FEE_AMOUNT = 99_999_999_999_999;

const sendTime = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: 'The local time HH:MM, in the account’s zone, at which reminders go; default 09:00.',
  example: '09:00',
});

export const LateFeeSchema = Type.Object(
  {
    type: Type.Unsafe<'amount' | 'percent'>({
      type: 'string',
      enum: ['amount', 'percent'],
      description:
        'amount: `value` minor units (only on invoices in the account’s currency); percent: `value` % of the amount due before the fee, halves away from zero.',
      example: 'percent',
    }),
    value: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_LATE_FEE_AMOUNT,
      description:
        'Minor units (an integer ≤ 99,999,999,999,999) for amount; a percentage (0 < value ≤ 100, ≤ 4 decimals) for percent.',
      example: 1.5,
    }),
    tax_rate_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid', description: 'A tax rate id.' }), {
        maxItems: 5,
        uniqueItems: true,
        description: 'The fee line’s tax rates (at most 5); default [] (untaxed).',
        example: [],
      }),
    ),
  },
  { additionalProperties: false, description: 'A late fee, added as a line of its own when the step is sent.' },
);

export const ReminderStepSchema = Type.Object(
  {
    days: Type.Integer({
      minimum: -60,
      maximum: 365,
      description: 'Days from the due date: negative before it, 0 on it, positive after it.',
      example: 7,
    }),
    late_fee: Type.Union([Type.Null(), LateFeeSchema], {
      description: 'The step’s late fee, or null for none; only on steps with days ≥ 1.',
    }),
  },
  { additionalProperties: false },
);

const steps = Type.Array(ReminderStepSchema, {
  maxItems: MAX_REMINDER_STEPS,
  description: 'At most 3 steps, days ascending; numbered from 1 in this order.',
});

export const ReminderSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether payment reminders go out; default false.', example: true }),
    send_time: sendTime,
    steps: Type.Array(
      Type.Object({
        days: ReminderStepSchema.properties.days,
        late_fee: Type.Union([
          Type.Null(),
          Type.Object({
            type: LateFeeSchema.properties.type,
            value: LateFeeSchema.properties.value,
            tax_rate_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'The fee line’s tax rates.' }),
          }),
        ]),
      }),
      { description: steps.description },
    ),
  },
  { description: 'Payment reminders for sent invoices with money due (docs/api-contract.md §23).' },
);

export const ReminderSettingsInput = Type.Object(
  {
    enabled: Type.Optional(ReminderSettingsSchema.properties.enabled),
    send_time: Type.Optional(sendTime),
    steps: Type.Optional(steps),
  },
  {
    additionalProperties: false,
    description: 'Payment reminders; the fields named change, the others are kept (`steps` is replaced whole).',
  },
);

export type ReminderSettings = Static<typeof ReminderSettingsSchema>;
export type ReminderStep = ReminderSettings['steps'][number];
export type ReminderSettingsPatch = Static<typeof ReminderSettingsInput>;

export const DEFAULT_REMINDERS: ReminderSettings = { enabled: false, send_time: '09:00', steps: [] };

/** The settings of a stored value (null: the defaults). */
export function reminderSettings(stored: string | null): ReminderSettings {
  if (stored === null) return DEFAULT_REMINDERS;
  return { ...DEFAULT_REMINDERS, ...fromJson<Partial<ReminderSettings>>(stored) };
}

/** `current` with the fields `patch` names changed, after the checks the schema cannot make (422 on `reminders.*`). */
export function mergeReminders(current: ReminderSettings, patch: ReminderSettingsPatch): ReminderSettings {
  const next: ReminderSettings = {
    enabled: patch.enabled ?? current.enabled,
    send_time: patch.send_time ?? current.send_time,
    steps:
      patch.steps === undefined
        ? current.steps
        : patch.steps.map((step) => ({
            days: step.days,
            late_fee: step.late_fee ? { ...step.late_fee, tax_rate_ids: step.late_fee.tax_rate_ids ?? [] } : null,
          })),
  };
  const details: ErrorDetail[] = [];
  next.steps.forEach((step, index) => {
    const field = `reminders.steps[${index}]`;
    const previous = next.steps[index - 1];
    if (previous !== undefined && step.days <= previous.days)
      details.push({ field: `${field}.days`, message: 'must be greater than the step before it: days ascend' });
    const fee = step.late_fee;
    if (fee === null) return;
    if (step.days < 1)
      details.push({
        field: `${field}.late_fee`,
        message: 'a late fee needs days ≥ 1: no fee before the invoice is late',
      });
    if (fee.type === 'amount' && !Number.isInteger(fee.value))
      details.push({ field: `${field}.late_fee.value`, message: 'an amount fee is an integer number of minor units' });
    if (fee.type === 'percent' && (fee.value > 100 || !/^\d+(\.\d{1,4})?$/.test(String(fee.value))))
      details.push({
        field: `${field}.late_fee.value`,
        message: 'a percent fee is above 0, at most 100, with at most 4 decimals',
      });
  });
  if (details.length > 0) throw validationError(details, 'The reminder schedule is not valid.');
  return next;
}

/** Step n's moment (n from 1): the due date + days, at send_time in the zone (a time in a gap moves forward). */
export function reminderMoment(settings: ReminderSettings, step: number, dueDate: string, zone: string): string {
  const days = settings.steps[step - 1]!.days;
  const date = Temporal.PlainDate.from(dueDate).add({ days });
  const at = date.toZonedDateTime({ timeZone: zone, plainTime: Temporal.PlainTime.from(settings.send_time) });
  return at.toInstant().toString({ smallestUnit: 'millisecond' });
}

/** What the reminder schedule asks of an invoice now: the step due, and when the next could go. */
export interface ReminderReading {
  /** The step to send now (the highest whose moment has passed), if any. */
  due: number | undefined;
  /** When the next step would go (`due`'s moment when one is due now); null: none will. */
  next_at: string | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The steps an invoice is owed (docs/api-contract.md §23): the highest step whose moment has passed is sent if
 * it never was, its moment follows the invoice's latest send, and 24 hours have passed since that send. Steps at
 * or below the highest one sent are never sent later (downtime sends only the latest).
 */
export function readReminders(
  settings: ReminderSettings,
  invoice: { due_date: string | null; sent_at: string | null },
  sentSteps: readonly number[],
  zone: string,
  now: Date,
): ReminderReading {
  if (!settings.enabled || invoice.due_date === null || invoice.sent_at === null || settings.steps.length === 0)
    return { due: undefined, next_at: null };
  const sent = Date.parse(invoice.sent_at);
  const earliest = sent + DAY_MS;
  const highestSent = sentSteps.length === 0 ? 0 : Math.max(...sentSteps);
  const moments = settings.steps.map((_, index) =>
    Date.parse(reminderMoment(settings, index + 1, invoice.due_date!, zone)),
  );
  let passed = 0;
  moments.forEach((moment, index) => {
    if (moment <= now.getTime()) passed = index + 1;
  });
  if (passed > highestSent && moments[passed - 1]! > sent) {
    if (now.getTime() >= earliest) return { due: passed, next_at: new Date(moments[passed - 1]!).toISOString() };
    // It waits for the 24 hours after the send; then it, or a later step passed by then, goes.
    return { due: undefined, next_at: new Date(earliest).toISOString() };
  }
  for (let step = Math.max(highestSent, passed) + 1; step <= moments.length; step += 1) {
    const moment = moments[step - 1]!;
    if (moment > sent) return { due: undefined, next_at: new Date(Math.max(moment, earliest)).toISOString() };
  }
  return { due: undefined, next_at: null };
}
