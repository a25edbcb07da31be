// Recurrence (contract section 18 and the settled readings of section 21): the rule read from an RRULE value
// or from structured fields, expanded in the schedule's local time and placed in its zone. Every expectation
// is written out here as a literal date or instant, never computed from src/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Temporal } from '@js-temporal/polyfill';
import { AppError } from '../src/core/errors.js';
import {
  type RecurrenceInput,
  describeRecurrence,
  parseRecurrence,
} from '../src/modules/visit-schedules/recurrence.js';
import {
  occurrencesBetween,
  occurrencesOnDates,
  prepareDates,
  ruleDates,
} from '../src/modules/visit-schedules/recurrence-expansion.js';

const TIMED = { duration_minutes: 60, duration_days: null };

function rule(input: RecurrenceInput) {
  return parseRecurrence(input, { defaultTimeZone: 'UTC' });
}

/** The keys of the occurrences (not skipped) on the local dates [from, to]. */
function keys(input: RecurrenceInput, from: string, to: string): string[] {
  return occurrencesOnDates(rule(input), TIMED, Temporal.PlainDate.from(from), Temporal.PlainDate.from(to))
    .filter((one) => !one.skipped)
    .map((one) => one.occurrence_key);
}

/** Each occurrence as [key, start instant in UTC]. */
function instants(input: RecurrenceInput, from: string, to: string): Array<[string, string]> {
  return occurrencesOnDates(rule(input), TIMED, Temporal.PlainDate.from(from), Temporal.PlainDate.from(to))
    .filter((one) => !one.skipped)
    .map((one) => [one.occurrence_key, one.start.toInstant().toString({ smallestUnit: 'millisecond' })]);
}

/** The 422 that `work` throws: every detail. */
function refusal(work: () => unknown): Array<{ field: string; message: string }> {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.status, 422);
    assert.equal(error.code, 'VALIDATION_ERROR');
    return error.details ?? [];
  }
  assert.fail('expected a 422');
}

const denver = { time: '09:00', timezone: 'America/Denver' };

describe("the issue's literal cases", () => {
  test('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU at 09:00 America/Denver: 09:00 local across both changes, the instant moves an hour', () => {
    const input = { rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', start_date: '2026-02-24', ...denver };
    assert.deepEqual(instants(input, '2026-02-20', '2026-03-31'), [
      ['2026-02-24T09:00', '2026-02-24T16:00:00.000Z'], // MST, UTC-7
      ['2026-03-10T09:00', '2026-03-10T15:00:00.000Z'], // MDT, UTC-6 (clocks went forward on 8 March)
      ['2026-03-24T09:00', '2026-03-24T15:00:00.000Z'],
    ]);
    assert.deepEqual(instants(input, '2026-10-01', '2026-11-30'), [
      ['2026-10-06T09:00', '2026-10-06T15:00:00.000Z'],
      ['2026-10-20T09:00', '2026-10-20T15:00:00.000Z'], // MDT
      ['2026-11-03T09:00', '2026-11-03T16:00:00.000Z'], // MST (clocks went back on 1 November)
      ['2026-11-17T09:00', '2026-11-17T16:00:00.000Z'],
    ]);
    const all = occurrencesBetween(
      rule(input),
      TIMED,
      Temporal.Instant.from('2026-01-01T00:00:00Z'),
      Temporal.Instant.from('2026-12-31T00:00:00Z'),
    );
    assert.equal(all.length, 23); // 24 February + 14 days × 0…22
    for (const one of all) assert.equal(one.start.toPlainTime().toString({ smallestUnit: 'minute' }), '09:00');
  });

  test('BYMONTHDAY=31 with last_day: Jan 31, Feb 28 (29 in a leap year), Mar 31, Apr 30', () => {
    const input = { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2027-01-01', ...denver };
    assert.deepEqual(keys(input, '2027-01-01', '2027-06-30'), [
      '2027-01-31T09:00',
      '2027-02-28T09:00',
      '2027-03-31T09:00',
      '2027-04-30T09:00',
      '2027-05-31T09:00',
      '2027-06-30T09:00',
    ]);
    assert.deepEqual(keys(input, '2028-01-01', '2028-04-30'), [
      '2028-01-31T09:00',
      '2028-02-29T09:00',
      '2028-03-31T09:00',
      '2028-04-30T09:00',
    ]);
    assert.equal(rule(input).month_day_overflow, 'last_day', 'last_day is the default');
  });

  test('BYMONTHDAY=31 with skip: the months without a 31st have no occurrence (plain RFC 5545)', () => {
    const input = {
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=31',
      start_date: '2027-01-01',
      month_day_overflow: 'skip',
      ...denver,
    };
    assert.deepEqual(keys(input, '2027-01-01', '2027-08-31'), [
      '2027-01-31T09:00',
      '2027-03-31T09:00',
      '2027-05-31T09:00',
      '2027-07-31T09:00',
      '2027-08-31T09:00',
    ]);
  });

  test('FREQ=YEARLY from 29 February: the 28th in other years with last_day, leap years only with skip', () => {
    const lastDay = { rrule: 'FREQ=YEARLY', start_date: '2028-02-29', ...denver };
    assert.deepEqual(keys(lastDay, '2028-01-01', '2032-12-31'), [
      '2028-02-29T09:00',
      '2029-02-28T09:00',
      '2030-02-28T09:00',
      '2031-02-28T09:00',
      '2032-02-29T09:00',
    ]);
    assert.deepEqual(keys({ ...lastDay, month_day_overflow: 'skip' }, '2028-01-01', '2036-12-31'), [
      '2028-02-29T09:00',
      '2032-02-29T09:00',
      '2036-02-29T09:00',
    ]);
  });

  test('BYDAY=-1FR: the last Friday of each month', () => {
    const input = { rrule: 'FREQ=MONTHLY;BYDAY=-1FR', start_date: '2026-01-01', ...denver };
    assert.deepEqual(keys(input, '2026-01-01', '2026-06-30'), [
      '2026-01-30T09:00',
      '2026-02-27T09:00',
      '2026-03-27T09:00',
      '2026-04-24T09:00',
      '2026-05-29T09:00',
      '2026-06-26T09:00',
    ]);
  });

  test('BYSETPOS=-1 with BYDAY=MO,TU,WE,TH,FR: the last weekday of the month', () => {
    const input = { rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', start_date: '2026-01-01', ...denver };
    assert.deepEqual(keys(input, '2026-01-01', '2026-10-31'), [
      '2026-01-30T09:00', // Friday
      '2026-02-27T09:00', // Friday
      '2026-03-31T09:00', // Tuesday
      '2026-04-30T09:00', // Thursday
      '2026-05-29T09:00', // Friday (the 31st is a Sunday)
      '2026-06-30T09:00',
      '2026-07-31T09:00',
      '2026-08-31T09:00', // Monday
      '2026-09-30T09:00',
      '2026-10-30T09:00', // Friday (the 31st is a Saturday)
    ]);
  });

  test('COUNT with an exdate: the exdate removes its occurrence and the count is not extended', () => {
    const input = {
      rrule: 'FREQ=DAILY;COUNT=5',
      start_date: '2026-06-01',
      time: '08:00',
      timezone: 'Europe/Berlin',
      exdates: ['2026-06-03T08:00'],
    };
    assert.deepEqual(keys(input, '2026-05-01', '2026-07-31'), [
      '2026-06-01T08:00',
      '2026-06-02T08:00',
      '2026-06-04T08:00',
      '2026-06-05T08:00',
    ]);
    const listed = occurrencesOnDates(
      rule(input),
      TIMED,
      Temporal.PlainDate.from('2026-06-01'),
      Temporal.PlainDate.from('2026-06-30'),
    );
    assert.deepEqual(
      listed.map((one) => [one.occurrence_key, one.skipped]),
      [
        ['2026-06-01T08:00', false],
        ['2026-06-02T08:00', false],
        ['2026-06-03T08:00', true],
        ['2026-06-04T08:00', false],
        ['2026-06-05T08:00', false],
      ],
    );
  });

  test('02:30 daily: 03:30 on the spring-forward day with its nominal key; the first 01:30 on the fall-back day', () => {
    const input = { rrule: 'FREQ=DAILY', start_date: '2026-03-06', time: '02:30', timezone: 'America/Denver' };
    assert.deepEqual(instants(input, '2026-03-07', '2026-03-09'), [
      ['2026-03-07T02:30', '2026-03-07T09:30:00.000Z'], // 02:30 MST
      ['2026-03-08T02:30', '2026-03-08T09:30:00.000Z'], // 02:30 does not exist: 03:30 MDT
      ['2026-03-09T02:30', '2026-03-09T08:30:00.000Z'], // 02:30 MDT
    ]);
    const [moved] = occurrencesOnDates(
      rule(input),
      TIMED,
      Temporal.PlainDate.from('2026-03-08'),
      Temporal.PlainDate.from('2026-03-08'),
    );
    assert.equal(moved?.start.toPlainDateTime().toString({ smallestUnit: 'minute' }), '2026-03-08T03:30');
    const ambiguous = { rrule: 'FREQ=DAILY', start_date: '2026-10-30', time: '01:30', timezone: 'America/Denver' };
    assert.deepEqual(instants(ambiguous, '2026-10-31', '2026-11-02'), [
      ['2026-10-31T01:30', '2026-10-31T07:30:00.000Z'],
      ['2026-11-01T01:30', '2026-11-01T07:30:00.000Z'], // the first 01:30 (MDT), not 08:30Z
      ['2026-11-02T01:30', '2026-11-02T08:30:00.000Z'],
    ]);
  });

  test('an unsupported part (BYHOUR) is refused, naming it', () => {
    const details = refusal(() => rule({ rrule: 'FREQ=DAILY;BYHOUR=9', start_date: '2026-01-01', ...denver }));
    assert.equal(details.length, 1);
    assert.equal(details[0]?.field, 'recurrence.rrule');
    assert.match(details[0]?.message ?? '', /\bBYHOUR is not supported/);
    for (const part of [
      'BYMINUTE=5',
      'BYSECOND=1',
      'BYYEARDAY=100',
      'BYWEEKNO=20',
      'RSCALE=GREGORIAN',
      'SKIP=BACKWARD',
    ]) {
      const [detail] = refusal(() => rule({ rrule: `FREQ=YEARLY;${part}`, start_date: '2026-01-01', ...denver }));
      assert.match(detail?.message ?? '', new RegExp(`\\b${part.split('=')[0]} is not supported`), part);
    }
    const [unknown] = refusal(() => rule({ rrule: 'FREQ=DAILY;COLOR=RED', start_date: '2026-01-01', ...denver }));
    assert.match(unknown?.message ?? '', /'COLOR' is not an RRULE part/);
    const [hourly] = refusal(() => rule({ rrule: 'FREQ=HOURLY', start_date: '2026-01-01', ...denver }));
    assert.match(hourly?.message ?? '', /FREQ=HOURLY is not supported/);
  });

  test('the structured form and the RRULE form give the same occurrences', () => {
    const PAIRS: Array<[string, RecurrenceInput]> = [
      ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', { frequency: 'weekly', interval: 2, by_weekday: ['TU'] }],
      ['FREQ=MONTHLY;BYMONTHDAY=31', { frequency: 'monthly', by_month_day: [31] }],
      ['FREQ=MONTHLY;BYDAY=-1FR', { frequency: 'monthly', by_weekday: ['-1FR'] }],
      [
        'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
        { frequency: 'monthly', by_weekday: ['MO', 'TU', 'WE', 'TH', 'FR'], by_set_position: [-1] },
      ],
      ['FREQ=DAILY;COUNT=5', { frequency: 'daily', count: 5 }],
      ['FREQ=YEARLY;BYMONTH=3;BYDAY=TH', { frequency: 'yearly', by_month: [3], by_weekday: ['TH'] }],
      [
        'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU',
        { frequency: 'weekly', interval: 2, by_weekday: ['TU', 'SU'], week_start: 'SU' },
      ],
      ['FREQ=DAILY;UNTIL=20260411T055959Z', { frequency: 'daily', until: '2026-04-10' }],
    ];
    for (const [rrule, structured] of PAIRS) {
      const common = { start_date: '2026-02-24', ...denver };
      const fromRrule = keys({ rrule, ...common }, '2026-01-01', '2027-12-31');
      const fromFields = keys({ ...structured, ...common }, '2026-01-01', '2027-12-31');
      assert.ok(fromRrule.length > 0, rrule);
      assert.deepEqual(fromFields, fromRrule, rrule);
      // Each form answers the other: the RRULE read back, the structured fields filled in.
      assert.equal(describeRecurrence(rule({ ...structured, ...common })).rrule, rrule);
      const answered = describeRecurrence(rule({ rrule, ...common }));
      for (const [name, value] of Object.entries(structured))
        assert.deepEqual(answered[name as keyof typeof answered], value, `${rrule} ${name}`);
      // Both sent and agreeing is accepted.
      assert.deepEqual(keys({ rrule, ...structured, ...common }, '2026-01-01', '2027-12-31'), fromRrule);
    }
  });
});

describe('reading the rule', () => {
  test('both forms sent and disagreeing is a 422 on the structured field', () => {
    const details = refusal(() =>
      rule({
        rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU',
        frequency: 'weekly',
        interval: 3,
        start_date: '2026-01-01',
        ...denver,
      }),
    );
    assert.deepEqual(
      details.map((detail) => detail.field),
      ['recurrence.interval'],
    );
    assert.match(details[0]?.message ?? '', /does not agree with rrule/);
  });

  test('UNTIL as a date is the local date, inclusive; as a UTC date-time it keeps the occurrences at or before it', () => {
    const common = { start_date: '2026-12-28', ...denver };
    assert.equal(rule({ rrule: 'FREQ=DAILY;UNTIL=20261231', ...common }).until, '2026-12-31');
    // 2026-12-31T23:59:59 in Denver: the 31st's 09:00 is before it.
    assert.equal(rule({ rrule: 'FREQ=DAILY;UNTIL=20270101T065959Z', ...common }).until, '2026-12-31');
    // 2026-12-31T08:00 in Denver: the 31st's 09:00 is after it, so the 30th is the last.
    assert.equal(rule({ rrule: 'FREQ=DAILY;UNTIL=20261231T150000Z', ...common }).until, '2026-12-30');
    assert.deepEqual(keys({ rrule: 'FREQ=DAILY;UNTIL=20261231T160000Z', ...common }, '2026-12-01', '2027-01-31'), [
      '2026-12-28T09:00',
      '2026-12-29T09:00',
      '2026-12-30T09:00',
      '2026-12-31T09:00', // 16:00Z is exactly 09:00 MST: at the instant counts
    ]);
    // Answered: the UTC instant of the end of that local day for a timed rule, the date for an all-day one.
    assert.equal(
      describeRecurrence(rule({ frequency: 'daily', until: '2026-12-31', ...common })).rrule,
      'FREQ=DAILY;UNTIL=20270101T065959Z',
    );
    assert.equal(
      describeRecurrence(
        rule({
          frequency: 'daily',
          until: '2026-12-31',
          start_date: '2026-12-28',
          time: null,
          timezone: 'America/Denver',
        }),
      ).rrule,
      'FREQ=DAILY;UNTIL=20261231',
    );
    const [floating] = refusal(() => rule({ rrule: 'FREQ=DAILY;UNTIL=20261231T120000', ...common }));
    assert.match(floating?.message ?? '', /without Z/);
  });

  test('a rule with no occurrence, or spanning more than 10 years, is a 422', () => {
    const common = { start_date: '2026-01-01', ...denver };
    const [none] = refusal(() =>
      rule({ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', month_day_overflow: 'skip', ...common }),
    );
    assert.match(none?.message ?? '', /yields no occurrence/);
    // With last_day, the 30th of February is its last day: valid.
    assert.equal(
      keys({ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', ...common }, '2026-01-01', '2026-12-31')[0],
      '2026-02-28T09:00',
    );
    const [tooLong] = refusal(() => rule({ rrule: 'FREQ=YEARLY;COUNT=12', ...common }));
    assert.equal(tooLong?.field, 'recurrence.count');
    assert.match(tooLong?.message ?? '', /more than 10 years/);
    rule({ rrule: 'FREQ=YEARLY;COUNT=11', ...common }); // 2026 … 2036-01-01: exactly ten years
    const [untilTooLong] = refusal(() => rule({ rrule: 'FREQ=MONTHLY;UNTIL=20360301', ...common }));
    assert.equal(untilTooLong?.field, 'recurrence.until');
    rule({ rrule: 'FREQ=YEARLY;BYMONTH=6;UNTIL=20360301', ...common }); // its last occurrence is 2035-06-01
    rule({ rrule: 'FREQ=WEEKLY', ...common }); // unbounded: runs until ended or split
    rule({ rrule: 'FREQ=WEEKLY;COUNT=3', start_date: '2001-01-01', ...denver }); // all in the past: valid
    const [beforeStart] = refusal(() => rule({ frequency: 'daily', until: '2025-12-31', ...common }));
    assert.equal(beforeStart?.field, 'recurrence.until');
  });

  test('every wrong field is named in one answer', () => {
    const details = refusal(() =>
      rule({
        frequency: 'fortnightly',
        interval: 0,
        by_weekday: ['XX'],
        by_month_day: [0, 32],
        by_month: [13],
        count: 0,
        start_date: '2026-02-30',
        time: '25:00',
        timezone: 'MST',
        month_day_overflow: 'backward',
        exdates: ['tomorrow'],
      }),
    );
    assert.deepEqual(details.map((detail) => detail.field).sort(), [
      'recurrence.by_month[0]',
      'recurrence.by_month_day[0]',
      'recurrence.by_month_day[1]',
      'recurrence.by_weekday[0]',
      'recurrence.count',
      'recurrence.exdates[0]',
      'recurrence.frequency',
      'recurrence.interval',
      'recurrence.month_day_overflow',
      'recurrence.start_date',
      'recurrence.time',
      'recurrence.timezone',
    ]);
  });

  test('RFC 5545 constraints: ordinals only in monthly and yearly rules, no month days in a weekly one, BYSETPOS needs a set', () => {
    const common = { start_date: '2026-01-01', ...denver };
    assert.match(
      refusal(() => rule({ rrule: 'FREQ=WEEKLY;BYDAY=2TU', ...common }))[0]?.message ?? '',
      /ordinal weekday/,
    );
    assert.equal(
      refusal(() => rule({ frequency: 'weekly', by_month_day: [1], ...common }))[0]?.field,
      'recurrence.by_month_day',
    );
    assert.equal(
      refusal(() => rule({ rrule: 'FREQ=MONTHLY;BYSETPOS=1', ...common }))[0]?.field,
      'recurrence.by_set_position',
    );
    assert.equal(
      refusal(() => rule({ rrule: 'FREQ=DAILY;COUNT=3;UNTIL=20260301', ...common }))[0]?.field,
      'recurrence.until',
    );
    assert.match(
      refusal(() => rule({ rrule: 'FREQ=DAILY;FREQ=WEEKLY', ...common }))[0]?.message ?? '',
      /FREQ appears twice/,
    );
  });

  test("exdates: keys of the schedule's form, a bare date taking the schedule's time; at most 1,000", () => {
    const common = { frequency: 'daily', start_date: '2026-01-01', ...denver };
    assert.deepEqual(rule({ ...common, exdates: ['2026-01-03', '2026-01-02T09:00', '2026-01-03T09:00'] }).exdates, [
      '2026-01-02T09:00',
      '2026-01-03T09:00',
    ]);
    const allDay = { frequency: 'daily', start_date: '2026-01-01', time: null, timezone: 'America/Denver' };
    assert.deepEqual(rule({ ...allDay, exdates: ['2026-01-02'] }).exdates, ['2026-01-02']);
    assert.equal(refusal(() => rule({ ...allDay, exdates: ['2026-01-02T09:00'] }))[0]?.field, 'recurrence.exdates[0]');
    const many = Array.from({ length: 1001 }, (_, i) =>
      Temporal.PlainDate.from('2026-01-01').add({ days: i }).toString(),
    );
    assert.equal(refusal(() => rule({ ...common, exdates: many }))[0]?.field, 'recurrence.exdates');
  });

  test('all-day occurrences are keyed by their date and last whole local days', () => {
    const input = {
      frequency: 'weekly',
      by_weekday: ['SA'],
      start_date: '2026-10-31',
      time: null,
      timezone: 'America/Denver',
    };
    const [first, second] = occurrencesOnDates(
      rule(input),
      { duration_minutes: null, duration_days: 2 },
      Temporal.PlainDate.from('2026-10-31'),
      Temporal.PlainDate.from('2026-11-07'),
    );
    assert.equal(first?.occurrence_key, '2026-10-31');
    assert.equal(first?.start.toInstant().toString(), '2026-10-31T06:00:00Z');
    assert.equal(first?.end.toInstant().toString(), '2026-11-02T07:00:00Z'); // two local days, 49 hours
    assert.equal(second?.occurrence_key, '2026-11-07');
  });

  test('the summary is English with the time and the zone', () => {
    const summary = (input: RecurrenceInput) => describeRecurrence(rule(input)).summary;
    assert.equal(
      summary({ rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', start_date: '2026-02-24', ...denver }),
      'Every 2 weeks on Tuesday at 09:00 (America/Denver), from 2026-02-24',
    );
    assert.equal(
      summary({ rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12', start_date: '2026-01-01', ...denver }),
      'Monthly on the last weekday of the month at 09:00 (America/Denver), from 2026-01-01, 12 times',
    );
    assert.equal(
      summary({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2026-01-01', time: null, timezone: 'Europe/Berlin' }),
      'Monthly on the 31st (or the last day of a shorter month) all day (Europe/Berlin), from 2026-01-01',
    );
    assert.equal(
      summary({ rrule: 'FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20261231', start_date: '2026-01-01', ...denver }),
      'Monthly on the last Friday at 09:00 (America/Denver), from 2026-01-01, until 2026-12-31',
    );
  });
});

describe('RFC 5545 section 3.8.5.3 examples this engine relies on (DTSTART 09:00 America/New_York)', () => {
  const ny = { time: '09:00', timezone: 'America/New_York' };
  const EXAMPLES: Array<[string, string, string, string[]]> = [
    [
      'every other week on Tuesday and Thursday, for 8 occurrences',
      'FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH',
      '1997-09-02',
      ['1997-09-02', '1997-09-04', '1997-09-16', '1997-09-18', '1997-09-30', '1997-10-02', '1997-10-14', '1997-10-16'],
    ],
    [
      'monthly on the first Friday for 10 occurrences',
      'FREQ=MONTHLY;COUNT=10;BYDAY=1FR',
      '1997-09-05',
      [
        '1997-09-05',
        '1997-10-03',
        '1997-11-07',
        '1997-12-05',
        '1998-01-02',
        '1998-02-06',
        '1998-03-06',
        '1998-04-03',
        '1998-05-01',
        '1998-06-05',
      ],
    ],
    [
      'every other month on the first and last Sunday of the month for 10 occurrences',
      'FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU',
      '1997-09-07',
      [
        '1997-09-07',
        '1997-09-28',
        '1997-11-02',
        '1997-11-30',
        '1998-01-04',
        '1998-01-25',
        '1998-03-01',
        '1998-03-29',
        '1998-05-03',
        '1998-05-31',
      ],
    ],
    [
      'monthly on the second-to-last Monday of the month for 6 months',
      'FREQ=MONTHLY;COUNT=6;BYDAY=-2MO',
      '1997-09-22',
      ['1997-09-22', '1997-10-20', '1997-11-17', '1997-12-22', '1998-01-19', '1998-02-16'],
    ],
    [
      'monthly on the first and last day of the month for 10 occurrences',
      'FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1',
      '1997-09-30',
      [
        '1997-09-30',
        '1997-10-01',
        '1997-10-31',
        '1997-11-01',
        '1997-11-30',
        '1997-12-01',
        '1997-12-31',
        '1998-01-01',
        '1998-01-31',
        '1998-02-01',
      ],
    ],
    [
      'every other year on January, February, and March for 10 occurrences',
      'FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3',
      '1997-03-10',
      [
        '1997-03-10',
        '1999-01-10',
        '1999-02-10',
        '1999-03-10',
        '2001-01-10',
        '2001-02-10',
        '2001-03-10',
        '2003-01-10',
        '2003-02-10',
        '2003-03-10',
      ],
    ],
    [
      'the third instance of one of Tuesday, Wednesday or Thursday, for the next 3 months',
      'FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3',
      '1997-09-04',
      ['1997-09-04', '1997-10-07', '1997-11-06'],
    ],
    [
      'the second-to-last weekday of the month',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2',
      '1997-09-29',
      ['1997-09-29', '1997-10-30', '1997-11-27', '1997-12-30', '1998-01-29', '1998-02-26', '1998-03-30'],
    ],
    [
      'every Friday the 13th',
      'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
      '1997-09-02',
      ['1998-02-13', '1998-03-13', '1998-11-13', '1999-08-13', '2000-10-13'],
    ],
    [
      'WKST=MO: every other week on Tuesday and Sunday',
      'FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO',
      '1997-08-05',
      ['1997-08-05', '1997-08-10', '1997-08-19', '1997-08-24'],
    ],
    [
      'WKST=SU: the same rule, another week start',
      'FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU',
      '1997-08-05',
      ['1997-08-05', '1997-08-17', '1997-08-19', '1997-08-31'],
    ],
    [
      'an invalid date (February 30) is ignored (with month_day_overflow skip)',
      'FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5',
      '2007-01-15',
      ['2007-01-15', '2007-01-30', '2007-02-15', '2007-03-15', '2007-03-30'],
    ],
  ];
  for (const [name, rrule, start, dates] of EXAMPLES) {
    test(name, () => {
      const input = { rrule, start_date: start, month_day_overflow: 'skip', ...ny };
      const end = Temporal.PlainDate.from(dates.at(-1) as string).toString();
      assert.deepEqual(
        keys(input, start, end),
        dates.map((date) => `${date}T09:00`),
      );
    });
  }

  test('the first and last occurrences of the 1997 examples keep 09:00 across the change to EST', () => {
    assert.deepEqual(
      instants(
        { rrule: 'FREQ=MONTHLY;COUNT=6;BYDAY=-2MO', start_date: '1997-09-22', ...ny },
        '1997-10-01',
        '1997-11-30',
      ),
      [
        ['1997-10-20T09:00', '1997-10-20T13:00:00.000Z'], // EDT
        ['1997-11-17T09:00', '1997-11-17T14:00:00.000Z'], // EST
      ],
    );
  });
});

describe('expansion in cached blocks of 32 days', () => {
  // Each rule's dates over three years, then over windows that start and end at every offset of a block (cold
  // and warm cache alike, and after prepareDates): always the same dates, whatever the seams.
  const RULES = [
    'FREQ=DAILY;INTERVAL=3',
    'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SA',
    'FREQ=MONTHLY;BYMONTHDAY=31',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29',
    'FREQ=WEEKLY;BYDAY=FR;COUNT=40',
  ];
  for (const rrule of RULES)
    test(rrule, async () => {
      const parsed = rule({ rrule, start_date: '2027-01-29', time: '09:00', timezone: 'America/Denver' });
      const start = Temporal.PlainDate.from('2027-01-01');
      const end = Temporal.PlainDate.from('2029-12-31');
      const text = (dates: Temporal.PlainDate[]) => dates.map((date) => date.toString());
      const windows: string[] = [];
      for (let from = start; Temporal.PlainDate.compare(from, end) <= 0; ) {
        const to = from.add({ days: 17 + (windows.length % 29) });
        windows.push(...text(ruleDates(parsed, from, Temporal.PlainDate.compare(to, end) < 0 ? to : end)));
        from = to.add({ days: 1 });
      }
      const whole = text(ruleDates(parsed, start, end));
      assert.deepEqual(windows, whole);
      assert.ok(whole.length > 0);
      await prepareDates(parsed, start, end, async () => {});
      assert.deepEqual(text(ruleDates(parsed, start, end)), whole);
      if (rrule.endsWith('COUNT=40')) assert.equal(whole.length, 40);
      // last_day: the 29th is February's last day, 28 in a common year.
      if (rrule.startsWith('FREQ=YEARLY')) assert.deepEqual(whole, ['2027-02-28', '2028-02-29', '2029-02-28']);
    });
});

describe('checking a sparse rule costs a bounded amount of work (contract section 32)', () => {
  const at = (start_date: string) => ({ start_date, ...denver });

  test('a sparse COUNT rule that cannot reach its count in 10 years is refused on recurrence.count, from any start_date', () => {
    const RULES: Array<[string, string?]> = [
      ['FREQ=DAILY;BYMONTHDAY=31;COUNT=1000'],
      ['FREQ=DAILY;BYMONTHDAY=31;COUNT=1000', 'skip'],
      ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000'],
      ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000', 'skip'],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000'],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000', 'skip'],
      ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;COUNT=1000', 'skip'],
      ['FREQ=WEEKLY;BYMONTH=2;BYDAY=MO;COUNT=1000'],
      ['FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;COUNT=200'],
      ['FREQ=DAILY;BYMONTHDAY=31;COUNT=133'], // at most 12 a year: 132 in the 11 calendar years 10 years touch
    ];
    for (const [rrule, overflow] of RULES)
      for (const start of ['2026-01-01', '2027-03-05', '2031-02-28']) {
        const [detail, ...rest] = refusal(() =>
          rule({ rrule, ...at(start), ...(overflow ? { month_day_overflow: overflow } : {}) }),
        );
        assert.equal(rest.length, 0, rrule);
        assert.equal(detail?.field, 'recurrence.count', `${rrule} from ${start}`);
        assert.match(detail?.message ?? '', /more than 10 years/, rrule);
      }
  });

  test('sparse rules that fit are accepted with their dates', () => {
    // The 31st of each month that has one (skip): January, March, May, July, August.
    assert.deepEqual(
      keys(
        { rrule: 'FREQ=DAILY;BYMONTHDAY=31;COUNT=5', month_day_overflow: 'skip', ...at('2027-01-01') },
        '2027-01-01',
        '2027-12-31',
      ),
      ['2027-01-31T09:00', '2027-03-31T09:00', '2027-05-31T09:00', '2027-07-31T09:00', '2027-08-31T09:00'],
    );
    // With last_day, the last day of every month.
    assert.deepEqual(
      keys({ rrule: 'FREQ=DAILY;BYMONTHDAY=31;COUNT=100', ...at('2027-01-01') }, '2027-01-01', '2027-04-30'),
      ['2027-01-31T09:00', '2027-02-28T09:00', '2027-03-31T09:00', '2027-04-30T09:00'],
    );
    assert.deepEqual(
      keys(
        { rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=2', month_day_overflow: 'skip', ...at('2026-01-01') },
        '2026-01-01',
        '2035-12-31',
      ),
      ['2028-02-29T09:00', '2032-02-29T09:00'],
    );
    // 120 first days of the month: the last is 2035-12-01, within the 10 years.
    const monthly = keys(
      { rrule: 'FREQ=DAILY;BYMONTHDAY=1;COUNT=120', ...at('2026-01-01') },
      '2026-01-01',
      '2036-12-31',
    );
    assert.equal(monthly.length, 120);
    assert.equal(monthly.at(-1), '2035-12-01T09:00');
    rule({ rrule: 'FREQ=DAILY;COUNT=1000', ...at('2026-01-01') });
    rule({ rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=1000', ...at('2026-01-01') });
    rule({ rrule: 'FREQ=DAILY;BYDAY=MO,WE,FR;COUNT=1000', ...at('2026-01-01') });
    rule({ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=10', ...at('2026-01-01') }); // last_day: every year
    rule({ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=2', month_day_overflow: 'skip', ...at('2026-01-01') });
  });

  test('a rule whose check would need more than the budget of work is refused, naming the rule and why', () => {
    // Every other day that is a 31st: the library examines it day by day, and its 40th lies beyond the budget.
    const [detail, ...rest] = refusal(() =>
      rule({ rrule: 'FREQ=DAILY;INTERVAL=2;BYMONTHDAY=31;COUNT=40', month_day_overflow: 'skip', ...at('2026-01-01') }),
    );
    assert.equal(rest.length, 0);
    assert.equal(detail?.field, 'recurrence.rrule');
    assert.match(detail?.message ?? '', /too sparse to check/);
    // The structured form names the rule as a whole.
    const [structured] = refusal(() =>
      rule({
        frequency: 'daily',
        interval: 2,
        by_month_day: [31],
        count: 40,
        month_day_overflow: 'skip',
        ...at('2026-01-01'),
      }),
    );
    assert.equal(structured?.field, 'recurrence');
    assert.match(structured?.message ?? '', /too sparse to check/);
    // A rule that never occurs is a 422 whichever check ends first.
    refusal(() =>
      rule({ rrule: 'FREQ=DAILY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=30', month_day_overflow: 'skip', ...at('2026-01-01') }),
    );
    refusal(() =>
      rule({ rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=1', month_day_overflow: 'skip', ...at('2026-01-01') }),
    );
  });

  test('a daily rule with month days or months gives exactly the days that match every part (RFC 5545 DAILY limits)', () => {
    const WEEKDAY = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
    const RULES = [
      'FREQ=DAILY;BYMONTHDAY=31',
      'FREQ=DAILY;BYMONTHDAY=1,15,-1',
      'FREQ=DAILY;BYMONTHDAY=29,30;BYMONTH=1,2,3',
      'FREQ=DAILY;BYMONTHDAY=13;BYDAY=FR',
      'FREQ=DAILY;BYMONTH=2',
      'FREQ=DAILY;BYMONTH=2,11;BYDAY=SA,SU',
      'FREQ=DAILY;BYDAY=TU',
    ];
    for (const rrule of RULES)
      for (const overflow of ['skip', 'last_day']) {
        const parts = new Map(rrule.split(';').map((part) => part.split('=') as [string, string]));
        const list = (name: string) => parts.get(name)?.split(',');
        const start = Temporal.PlainDate.from('2027-01-29');
        const expected: string[] = [];
        for (let date = start; date.year < 2030; date = date.add({ days: 1 })) {
          const months = list('BYMONTH')?.map(Number);
          if (months && !months.includes(date.month)) continue;
          const days = list('BYMONTHDAY')?.map(Number);
          if (days) {
            const matches = days.some((day) =>
              day < 0
                ? date.day === date.daysInMonth + day + 1
                : date.day === day ||
                  (overflow === 'last_day' && day > date.daysInMonth && date.day === date.daysInMonth),
            );
            if (!matches) continue;
          }
          const weekdays = list('BYDAY');
          if (weekdays && !weekdays.includes(WEEKDAY[date.dayOfWeek - 1] as string)) continue;
          expected.push(`${date.toString()}T09:00`);
        }
        assert.deepEqual(
          keys({ rrule, month_day_overflow: overflow, ...at('2027-01-29') }, '2027-01-01', '2029-12-31'),
          expected,
          `${rrule} (${overflow})`,
        );
      }
  });
});

describe('ordinal weekdays (RFC 5545 section 3.3.10)', () => {
  const from2024 = { start_date: '2024-01-01', ...denver };

  test('FREQ=YEARLY;BYDAY=53MO: the 53rd Monday, only in years that have one', () => {
    // Years that start on a Monday (2029, 2035, 2046) or are leap years starting on a Monday or Sunday (2024, 2040).
    assert.deepEqual(keys({ rrule: 'FREQ=YEARLY;BYDAY=53MO', ...from2024 }, '2024-01-01', '2046-12-31'), [
      '2024-12-30T09:00',
      '2029-12-31T09:00',
      '2035-12-31T09:00',
      '2040-12-31T09:00',
      '2046-12-31T09:00',
    ]);
    // From 2026: not 2027-01-04 nor 2028-01-03 (the first Mondays of those years).
    assert.deepEqual(
      keys(
        { rrule: 'FREQ=YEARLY;BYDAY=53MO;COUNT=2', start_date: '2026-01-01', ...denver },
        '2026-01-01',
        '2036-12-31',
      ),
      ['2029-12-31T09:00', '2035-12-31T09:00'],
    );
  });

  test('FREQ=YEARLY;BYDAY=-53MO: the 53rd Monday from the end, the first Monday of those years', () => {
    assert.deepEqual(keys({ rrule: 'FREQ=YEARLY;BYDAY=-53MO', ...from2024 }, '2024-01-01', '2046-12-31'), [
      '2024-01-01T09:00',
      '2029-01-01T09:00',
      '2035-01-01T09:00',
      '2040-01-02T09:00',
      '2046-01-01T09:00',
    ]);
  });

  test('every date a yearly ordinal rule gives is that weekday with that ordinal in its own year, and no such date is missing', () => {
    const WEEKDAY = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
    for (const byday of ['53MO', '-53MO', '53SU', '-53FR', '53TH,-53TU', '1MO', '-1SU', '20WE', '52TH', '-52SA'])
      for (const interval of [1, 2, 3]) {
        const rrule = `FREQ=YEARLY;INTERVAL=${interval};BYDAY=${byday}`;
        const expected: string[] = [];
        for (let year = 2024; year <= 2060; year += interval) {
          for (let date = Temporal.PlainDate.from({ year, month: 1, day: 1 }); date.year === year; ) {
            const fromStart = Math.ceil(date.dayOfYear / 7);
            const fromEnd = -Math.ceil((date.daysInYear - date.dayOfYear + 1) / 7);
            const weekday = WEEKDAY[date.dayOfWeek - 1];
            if (byday.split(',').some((one) => one === `${fromStart}${weekday}` || one === `${fromEnd}${weekday}`))
              expected.push(`${date.toString()}T09:00`);
            date = date.add({ days: 1 });
          }
        }
        if ((expected[0] ?? '9999') > '2034-01-01') {
          // None in the first 10 years: refused as a rule without occurrence (section 18).
          assert.equal(refusal(() => rule({ rrule, ...from2024 }))[0]?.field, 'recurrence', rrule);
          continue;
        }
        assert.deepEqual(keys({ rrule, ...from2024 }, '2024-01-01', '2060-12-31'), expected, rrule);
      }
  });

  test('monthly ordinals stay within their month: 5FR only in months with five Fridays, -1SU the last Sunday', () => {
    const jan2026 = { start_date: '2026-01-01', ...denver };
    assert.deepEqual(keys({ rrule: 'FREQ=MONTHLY;BYDAY=5FR', ...jan2026 }, '2026-01-01', '2026-12-31'), [
      '2026-01-30T09:00',
      '2026-05-29T09:00',
      '2026-07-31T09:00',
      '2026-10-30T09:00',
    ]);
    assert.deepEqual(
      keys({ rrule: 'FREQ=MONTHLY;BYDAY=-1SU', ...jan2026 }, '2026-01-01', '2026-12-31'),
      ['01-25', '02-22', '03-29', '04-26', '05-31', '06-28', '07-26', '08-30', '09-27', '10-25', '11-29', '12-27'].map(
        (day) => `2026-${day}T09:00`,
      ),
    );
    // With BYMONTH a yearly rule's ordinal counts within the month: January has five Fridays in 2026 and 2027
    // (starting on a Friday), four in 2028 (starting on a Saturday).
    assert.deepEqual(keys({ rrule: 'FREQ=YEARLY;BYMONTH=1;BYDAY=5FR', ...jan2026 }, '2026-01-01', '2028-12-31'), [
      '2026-01-30T09:00',
      '2027-01-29T09:00',
    ]);
  });

  test('the combinations the library computes on the wrong set are refused, naming the field', () => {
    const [mixed] = refusal(() => rule({ rrule: 'FREQ=YEARLY;BYDAY=MO,53FR', ...from2024 }));
    assert.equal(mixed?.field, 'recurrence.by_weekday');
    const [monthDay] = refusal(() => rule({ rrule: 'FREQ=YEARLY;BYDAY=53MO;BYMONTHDAY=31', ...from2024 }));
    assert.equal(monthDay?.field, 'recurrence.by_month_day');
    const [setPosition] = refusal(() => rule({ rrule: 'FREQ=YEARLY;BYDAY=1MO,53MO;BYSETPOS=-1', ...from2024 }));
    assert.equal(setPosition?.field, 'recurrence.by_set_position');
    // Ordinals up to 52 exist in every year: BYSETPOS over them stays.
    assert.deepEqual(
      keys({ rrule: 'FREQ=YEARLY;BYDAY=1MO,-1MO;BYSETPOS=-1', ...from2024 }, '2024-01-01', '2025-12-31'),
      ['2024-12-30T09:00', '2025-12-29T09:00'],
    );
  });
});

describe('the years 0001 to 9999 (contract section 32)', () => {
  test('a start_date, until or exdate in the year 0000 is refused, naming the field', () => {
    const [start] = refusal(() => rule({ rrule: 'FREQ=DAILY', start_date: '0000-12-25', ...denver }));
    assert.equal(start?.field, 'recurrence.start_date');
    const [until] = refusal(() => rule({ rrule: 'FREQ=DAILY;UNTIL=00001231', start_date: '0001-01-01', ...denver }));
    assert.equal(until?.field, 'recurrence.rrule');
    const [exdate] = refusal(() =>
      rule({ rrule: 'FREQ=DAILY', start_date: '0001-01-01', exdates: ['0000-01-02T09:00'], ...denver }),
    );
    assert.equal(exdate?.field, 'recurrence.exdates[0]');
  });

  test('a COUNT rule running past 9999-12-31 is refused; an unbounded one stops there', () => {
    const [count] = refusal(() => rule({ rrule: 'FREQ=DAILY;COUNT=10', start_date: '9999-12-25', ...denver }));
    assert.equal(count?.field, 'recurrence.count');
    assert.match(count?.message ?? '', /9999-12-31/);
    const open = rule({ rrule: 'FREQ=DAILY', start_date: '9999-12-25', time: '09:00', timezone: 'UTC' });
    assert.deepEqual(
      occurrencesOnDates(open, TIMED, Temporal.PlainDate.from('9999-12-20'), Temporal.PlainDate.from('9999-12-31')).map(
        (one) => one.occurrence_key,
      ),
      ['25', '26', '27', '28', '29', '30', '31'].map((day) => `9999-12-${day}T09:00`),
    );
    // At 23:30 for an hour, the occurrence of 31 December would end in the year 10000: it is not produced.
    const late = rule({ rrule: 'FREQ=DAILY', start_date: '9999-12-29', time: '23:30', timezone: 'UTC' });
    assert.deepEqual(
      occurrencesOnDates(late, TIMED, Temporal.PlainDate.from('9999-12-20'), Temporal.PlainDate.from('9999-12-31')).map(
        (one) => one.occurrence_key,
      ),
      ['9999-12-29T23:30', '9999-12-30T23:30'],
    );
  });
});
