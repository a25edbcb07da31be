// Time (contract section 14): zone names checked and canonicalised, local times turned into instants across
// both daylight-saving changes in two zones, and the account's zone deciding its local day: is_overdue, the
// overdue filter and an invoice's default issue_date change at the account's midnight, not UTC's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../src/core/errors.js';
import fc from 'fast-check';
import { Temporal } from '@js-temporal/polyfill';
import {
  canonicalTimeZone,
  dateOfDayNumber,
  dayNumber,
  elapsedMinutes,
  instantToLocal,
  localToInstant,
  normalizedInstant,
  storedInstantMs,
  withinYears,
} from '../src/core/time.js';
import { localToday } from '../src/modules/documents/index.js';
import { isQuoteExpired } from '../src/modules/quotes/quotes.lifecycle.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

/** The 422 `work` throws: its field and message. */
function refusal(work: () => unknown): { field: string; message: string } {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.status, 422);
    assert.equal(error.code, 'VALIDATION_ERROR');
    return error.details![0]!;
  }
  assert.fail('expected a 422');
}

describe('time-zone names (contract section 14 and its settled readings)', () => {
  test('IANA names are answered in their primary form, whatever the runtime prefers', () => {
    const CANONICAL: Array<[string, string]> = [
      ['America/Denver', 'America/Denver'],
      ['US/Mountain', 'America/Denver'],
      ['Asia/Calcutta', 'Asia/Kolkata'],
      ['Europe/Kiev', 'Europe/Kyiv'],
      ['america/denver', 'America/Denver'],
      ['Europe/Berlin', 'Europe/Berlin'],
      ['UTC', 'UTC'],
      ['Etc/UTC', 'UTC'],
    ];
    for (const [given, answered] of CANONICAL) assert.equal(canonicalTimeZone('timezone', given), answered, given);
  });

  test('offsets, abbreviations and fixed-offset names are a 422 on the field, saying why', () => {
    for (const given of ['+02:00', '-07:00', 'UTC+2', 'MST', 'EST', 'HST', 'CET', 'PST', 'CEST', 'Etc/GMT+7', 'GMT']) {
      const { field, message } = refusal(() => canonicalTimeZone('timezone', given));
      assert.equal(field, 'timezone');
      assert.match(message, /offset|abbreviation/, `${given}: ${message}`);
    }
    assert.match(refusal(() => canonicalTimeZone('timezone', 'Mars/Olympus')).message, /not a time zone/);
  });
});

describe('local date-times to instants, across both daylight-saving changes', () => {
  // [zone, spring-forward day, fall-back day, UTC offset in winter, in summer (hours)]
  const ZONES: Array<[string, string, string, number, number]> = [
    ['America/Denver', '2026-03-08', '2026-11-01', -7, -6],
    ['Europe/Berlin', '2026-03-29', '2026-10-25', 1, 2],
  ];
  for (const [zone, spring, fall, winter, summer] of ZONES) {
    test(`${zone}: 02:30 on ${spring} is in the gap, a 422 naming the gap`, () => {
      const { field, message } = refusal(() => localToInstant('local_start', `${spring}T02:30`, zone));
      assert.equal(field, 'local_start');
      assert.match(message, new RegExp(`${spring}T02:30 does not exist in ${zone.replace('/', '\\/')}`));
      assert.match(message, /clocks move forward from 02:00 to 03:00/);
      // Either side of the gap exists.
      assert.equal(
        localToInstant('local_start', `${spring}T01:59`, zone),
        new Date(Date.parse(`${spring}T01:59:00Z`) - winter * 3_600_000).toISOString(),
      );
      assert.equal(
        localToInstant('local_start', `${spring}T03:00`, zone),
        new Date(Date.parse(`${spring}T03:00:00Z`) - summer * 3_600_000).toISOString(),
      );
    });

    test(`${zone}: a time of the repeated hour on ${fall} is its first instant (RFC 5545)`, () => {
      const ambiguous = zone === 'America/Denver' ? '01:30' : '02:30';
      const instant = localToInstant('local_start', `${fall}T${ambiguous}`, zone);
      // The first 01:30 (02:30) is still on summer time.
      assert.equal(instant, new Date(Date.parse(`${fall}T${ambiguous}:00Z`) - summer * 3_600_000).toISOString());
      assert.equal(instantToLocal(instant, zone), `${fall}T${ambiguous}`);
      // The second one, an hour later, reads the same on the wall clock.
      assert.equal(instantToLocal(new Date(Date.parse(instant) + 3_600_000), zone), `${fall}T${ambiguous}`);
    });

    test(`${zone}: 01:00–03:00 local on ${fall} lasts 180 minutes; on ${spring}, 60`, () => {
      const minutes = (day: string) =>
        elapsedMinutes(localToInstant('start', `${day}T01:00`, zone), localToInstant('end', `${day}T03:00`, zone));
      assert.equal(minutes(fall), 180);
      assert.equal(minutes(spring), 60);
    });
  }

  test('a local date-time that is not a real one is a 422 on its field', () => {
    assert.equal(refusal(() => localToInstant('local_start', '2026-02-30T10:00', 'UTC')).field, 'local_start');
    assert.equal(refusal(() => localToInstant('local_end', '2026-03-01T10:00:00Z', 'UTC')).field, 'local_end');
  });
});

describe("an account's local day (localToday, asked once per row of a page)", () => {
  test('answers each instant and zone, asked in any order, and a Date changed in place', () => {
    // 2026-03-08T06:30Z: still the 7th in Denver (UTC-7), already the 8th in Auckland (UTC+13).
    const instant = new Date('2026-03-08T06:30:00.000Z');
    assert.equal(localToday(instant, 'America/Denver'), '2026-03-07');
    assert.equal(localToday(instant, 'America/Denver'), '2026-03-07');
    assert.equal(localToday(instant, 'Pacific/Auckland'), '2026-03-08');
    assert.equal(localToday(instant, 'America/Denver'), '2026-03-07');
    // One millisecond past Denver's midnight (07:00Z on the 8th, before its spring-forward at 09:00Z).
    instant.setTime(Date.parse('2026-03-08T07:00:00.000Z'));
    assert.equal(localToday(instant, 'America/Denver'), '2026-03-08');
    assert.equal(localToday(new Date('2026-03-08T06:59:59.999Z'), 'America/Denver'), '2026-03-07');
  });

  test('answers the last millisecond of a day and the first of the next, on days of 23 hours and after a gap at midnight', () => {
    // Denver's 8 March 2026 has 23 hours (spring forward at 02:00): it ends at 06:00Z on the 9th (UTC-6).
    for (const [instant, date] of [
      ['2026-03-08T07:00:00.000Z', '2026-03-08'],
      ['2026-03-08T12:00:00.000Z', '2026-03-08'],
      ['2026-03-09T05:59:59.999Z', '2026-03-08'],
      ['2026-03-09T06:00:00.000Z', '2026-03-09'],
      ['2026-03-08T06:59:59.999Z', '2026-03-07'],
      ['2026-03-08T09:30:00.000Z', '2026-03-08'],
    ] as const)
      assert.equal(localToday(new Date(instant), 'America/Denver'), date, instant);
    // Santiago skips 00:00-01:00 on 6 September 2026 (UTC-4 to UTC-3): that day begins at 01:00, 04:00Z.
    for (const [instant, date] of [
      ['2026-09-06T03:59:59.999Z', '2026-09-05'],
      ['2026-09-06T04:00:00.000Z', '2026-09-06'],
      ['2026-09-06T03:00:00.000Z', '2026-09-05'],
      ['2026-09-07T02:59:59.999Z', '2026-09-06'],
      ['2026-09-07T03:00:00.000Z', '2026-09-07'],
      ['2026-09-06T15:00:00.000Z', '2026-09-06'],
    ] as const)
      assert.equal(localToday(new Date(instant), 'America/Santiago'), date, instant);
    // Zones asked in turn keep their own days.
    assert.equal(localToday(new Date('2026-03-09T05:59:59.999Z'), 'Pacific/Auckland'), '2026-03-09');
    assert.equal(localToday(new Date('2026-03-09T05:59:59.999Z'), 'America/Denver'), '2026-03-08');
    assert.equal(localToday(new Date('2026-03-09T05:59:59.999Z'), 'UTC'), '2026-03-09');
  });
});

describe("the account's time zone over HTTP", () => {
  const clock = new ManualClock(new Date('2026-11-21T12:00:00.000Z'));
  let context: TestContext;
  let key: string;
  before(async () => {
    context = await createTestContext({ clock });
    ({ key } = await context.account());
  });
  after(() => context.close());
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

  test('a new account is UTC; PUT canonicalises the name and refuses offsets and abbreviations', async () => {
    assert.equal((await api('GET', '/v1/account')).body.data.timezone, 'UTC');
    const put = await api('PUT', '/v1/account', { timezone: 'US/Mountain' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.timezone, 'America/Denver');
    assert.equal((await api('GET', '/v1/account')).body.data.timezone, 'America/Denver');
    for (const timezone of ['+02:00', 'MST', 'Etc/GMT+7', '', 42]) {
      const refused = await api('PUT', '/v1/account', { timezone });
      assert.equal(refused.status, 422, `${timezone}: ${refused.text}`);
      assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        refused.body.error.details.map((detail: { field: string }) => detail.field),
        ['timezone'],
      );
    }
    assert.equal((await api('GET', '/v1/account')).body.data.timezone, 'America/Denver', 'nothing was changed');
  });

  test("is_overdue and overdue=true flip at the account's local midnight, not UTC's", async () => {
    const client = (await api('POST', '/v1/clients', { name: 'Late payer' })).body.data;
    const invoice = (
      await api('POST', '/v1/invoices', {
        client_id: client.id,
        line_items: [{ description: 'Work', quantity: 1, unit_amount: 5000 }],
        issue_date: '2026-11-01',
        due_date: '2026-11-21',
      })
    ).body.data;
    assert.equal((await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' })).status, 200);
    const seen = async () => {
      const one = (await api('GET', `/v1/invoices/${invoice.id}`)).body.data.is_overdue as boolean;
      const listed = (await api('GET', '/v1/invoices?overdue=true')).body.data.map((row: { id: string }) => row.id);
      const inList = (await api('GET', '/v1/invoices')).body.data.find((row: { id: string }) => row.id === invoice.id);
      assert.equal(inList.is_overdue, one, 'the list and GET agree');
      assert.equal(listed.includes(invoice.id), one, 'overdue=true agrees');
      return one;
    };
    await api('PUT', '/v1/account', { timezone: 'America/Denver' });
    // 06:59 UTC on the 22nd is 23:59 on the 21st in Denver (UTC-7): the due day is not over there.
    clock.set(new Date('2026-11-22T06:59:00.000Z'));
    assert.equal(await seen(), false);
    clock.set(new Date('2026-11-22T07:00:00.000Z'));
    assert.equal(await seen(), true, "Denver's midnight has passed");
    // In Berlin (UTC+1) the 22nd began at 23:00 UTC on the 21st.
    await api('PUT', '/v1/account', { timezone: 'Europe/Berlin' });
    clock.set(new Date('2026-11-21T22:59:00.000Z'));
    assert.equal(await seen(), false);
    clock.set(new Date('2026-11-21T23:00:00.000Z'));
    assert.equal(await seen(), true, "Berlin's midnight has passed while UTC's has not");
    await api('PUT', '/v1/account', { timezone: 'UTC' });
    assert.equal(await seen(), false, 'in UTC it is still the 21st');
  });

  test("an invoice marked sent without an issue date is issued on the account's local day", async () => {
    await api('PUT', '/v1/account', { timezone: 'Pacific/Auckland' });
    // 12:00 UTC on the 21st is 01:00 on the 22nd in Auckland (UTC+13 in November).
    clock.set(new Date('2026-11-21T12:00:00.000Z'));
    const client = (await api('POST', '/v1/clients', { name: 'Kiwi' })).body.data;
    const invoice = (
      await api('POST', '/v1/invoices', {
        client_id: client.id,
        line_items: [{ description: 'Work', quantity: 1, unit_amount: 5000 }],
      })
    ).body.data;
    const sent = (await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' })).body.data;
    assert.equal(sent.issue_date, '2026-11-22');
    await api('PUT', '/v1/account', { timezone: 'UTC' });
  });

  test("a quote's valid_until passes at the end of that day in the account's zone", () => {
    const quote = { status: 'sent', valid_until: '2026-11-21' };
    // 06:59 UTC on the 22nd: still the 21st in Denver, already the 22nd in UTC.
    const now = new Date('2026-11-22T06:59:00.000Z');
    assert.equal(isQuoteExpired(quote, now, 'America/Denver'), false);
    assert.equal(isQuoteExpired(quote, now, 'UTC'), true);
  });
});

// Instants written as the API answers them (UTC, milliseconds, Z) are read without the Temporal polyfill; every
// other RFC 3339 form is. Both readings must agree, and the years' edges hold in zones either side of UTC.
test('an instant as the API answers it reads as the same instant written with an offset', () => {
  const years = { min: Date.parse('0001-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') };
  const zones = ['UTC', 'America/Denver', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Tokyo'];
  fc.assert(
    fc.property(
      fc.integer(years),
      fc.integer({ min: 1, max: 44_640 * 60_000 }),
      fc.constantFrom(...zones),
      (millis, span, zone) => {
        const answered = new Date(millis).toISOString();
        const withOffset = answered.replace('Z', '+00:00');
        assert.equal(normalizedInstant(answered), answered);
        assert.equal(normalizedInstant(withOffset), answered);
        assert.equal(withinYears(answered, zone), withinYears(withOffset, zone));
        const end = new Date(Math.min(millis + span, years.max)).toISOString();
        assert.equal(elapsedMinutes(answered, end), elapsedMinutes(withOffset, end.replace('Z', '+00:00')));
      },
    ),
    { numRuns: 2_000 },
  );
  assert.equal(withinYears('0000-12-31T23:59:59.999Z', 'UTC'), false);
  assert.equal(withinYears('0001-01-01T00:00:00.000Z', 'UTC'), true);
  assert.equal(withinYears('0001-01-01T00:00:00.000Z', 'America/Denver'), false); // 0000-12-31T17:00 there
  assert.equal(withinYears('9999-12-31T12:00:00.000Z', 'UTC'), true);
  assert.equal(withinYears('9999-12-31T16:00:00.000Z', 'Asia/Tokyo'), false); // 10000-01-01T01:00 there
  assert.equal(elapsedMinutes('2026-11-01T07:00:00.000Z', '2026-11-01T10:00:00.000Z'), 180);
  assert.equal(normalizedInstant('2026-03-08T09:00:00-07:00'), '2026-03-08T16:00:00.000Z');
  assert.throws(() => normalizedInstant('2026-02-30T00:00:00.000Z'));
});

test('day numbers by integer arithmetic are the calendar days Temporal counts, years 1 to 9999', () => {
  assert.equal(dayNumber('1970-01-01'), 0);
  assert.equal(dayNumber('2026-11-29'), 20_786);
  assert.equal(dayNumber('2024-02-29') + 1, dayNumber('2024-03-01'));
  assert.equal(dayNumber('2100-02-28') + 1, dayNumber('2100-03-01'));
  assert.equal(dateOfDayNumber(dayNumber('0001-01-01')), '0001-01-01');
  assert.equal(dateOfDayNumber(dayNumber('9999-12-31')), '9999-12-31');
  const epoch = Temporal.PlainDate.from('1970-01-01');
  fc.assert(
    fc.property(fc.integer({ min: -719_162, max: 2_932_896 }), (day) => {
      const date = epoch.add({ days: day }).toString();
      assert.equal(dayNumber(date), day);
      assert.equal(dateOfDayNumber(day), date);
    }),
    { numRuns: 2_000 },
  );
});

test('a stored instant read by arithmetic is the instant Date.parse reads, years 1 to 9999, in a longer text too', () => {
  assert.equal(storedInstantMs('1970-01-01T00:00:00.000Z'), 0);
  assert.equal(storedInstantMs('2030-03-10T09:00:00.000Z'), 1_899_363_600_000);
  assert.equal(storedInstantMs('2024-02-29T23:59:59.999Z'), 1_709_251_199_999);
  assert.equal(storedInstantMs('0001-01-01T00:00:00.000Z'), -62_135_596_800_000);
  assert.equal(storedInstantMs('9999-12-31T23:59:59.999Z'), 253_402_300_799_999);
  // A field of a joined text (availability's visits), and PostgreSQL's epoch milliseconds as digits.
  assert.equal(storedInstantMs('x 2030-03-10T09:00:00.000Z y', 2, 26), 1_899_363_600_000);
  assert.equal(storedInstantMs('1899363600000'), 1_899_363_600_000);
  assert.equal(storedInstantMs('-62135596800000'), -62_135_596_800_000);
  // A short field followed by a negative one is read alone (the next field's sign is not its fifth character).
  assert.equal(storedInstantMs('-3600000 500 -1800000', 9, 12), 500);
  // Any other form: as Date.parse reads it.
  assert.equal(storedInstantMs('2030-03-10T09:00:00+01:00'), 1_899_360_000_000);
  fc.assert(
    fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
      assert.equal(storedInstantMs(new Date(ms).toISOString()), ms);
    }),
    { numRuns: 5_000 },
  );
});
