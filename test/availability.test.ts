// Availability and booking (contract §28): working hours and booking settings, exceptions, slots on the local
// clock across daylight-saving changes in two zones, buffer and straight-line travel between two properties,
// time off and a projected weekly occurrence removing slots, the crew, and the query's refusals.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
let context: TestContext;
let key: string;
let clientId: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
  const client = await api('POST', '/v1/clients', { name: 'Booking Co' });
  clientId = client.body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

/** Every day, all day: the member is bookable around the clock, so only the clock and commitments decide. */
const ALL_WEEK = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'].map((day) => ({ day, start: '00:00', end: '24:00' }));

async function member(body: Record<string, unknown>): Promise<string> {
  const response = await api('POST', '/v1/team-members', { name: 'Crew member', ...body });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

async function slots(query: string) {
  const response = await api('GET', `/v1/availability?${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data as Array<Record<string, any>>;
}

test('working hours: checked on members and the account; booking settings answered with their defaults', async () => {
  const account = await api('GET', '/v1/account');
  assert.deepEqual(account.body.data.working_hours, []);
  assert.deepEqual(account.body.data.booking, {
    slot_step_minutes: 30,
    min_notice_minutes: 60,
    buffer_minutes: 0,
    travel: { mode: 'none', speed_kmh: 30, unknown_location_minutes: 30 },
  });
  const changed = await api('PUT', '/v1/account', {
    working_hours: [{ day: 'MO', start: '08:00', end: '17:00' }],
    booking: { buffer_minutes: 15, travel: { mode: 'straight_line' } },
  });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(changed.body.data.booking, {
    slot_step_minutes: 30,
    min_notice_minutes: 60,
    buffer_minutes: 15,
    travel: { mode: 'straight_line', speed_kmh: 30, unknown_location_minutes: 30 },
  });
  // A PUT keeps the fields it does not name.
  const again = await api('PUT', '/v1/account', { booking: { slot_step_minutes: 15 } });
  assert.equal(again.body.data.booking.buffer_minutes, 15);
  assert.equal(again.body.data.booking.travel.mode, 'straight_line');
  await api('PUT', '/v1/account', {
    working_hours: [],
    booking: { slot_step_minutes: 30, buffer_minutes: 0, travel: { mode: 'none' } },
  });
  for (const [hours, field] of [
    [[{ day: 'MO', start: '10:00', end: '09:00' }], 'working_hours[0].end'],
    [
      [
        { day: 'TU', start: '08:00', end: '12:00' },
        { day: 'TU', start: '11:00', end: '13:00' },
      ],
      'working_hours[1]',
    ],
    [
      ['01', '03', '05', '07', '09'].map((hour) => ({ day: 'WE', start: `${hour}:00`, end: `${hour}:30` })),
      'working_hours[4]',
    ],
  ] as const) {
    const refused = await api('POST', '/v1/team-members', { name: 'Wrong hours', working_hours: hours });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.details[0].field, field);
  }
  const tooMany = await api('PUT', '/v1/account', {
    working_hours: Array.from({ length: 29 }, () => ({ day: 'MO', start: '08:00', end: '09:00' })),
  });
  assert.equal(tooMany.status, 422);
  // 24:00 ends a day; bookable defaults to true for role field, false for the others.
  const field = await api('POST', '/v1/team-members', {
    name: 'Late shift',
    working_hours: [{ day: 'FR', start: '18:00', end: '24:00' }],
  });
  assert.equal(field.status, 201, field.text);
  assert.equal(field.body.data.bookable, true);
  assert.deepEqual(field.body.data.working_hours, [{ day: 'FR', start: '18:00', end: '24:00' }]);
  const office = await api('POST', '/v1/team-members', { name: 'Office', role: 'dispatcher' });
  assert.equal(office.body.data.bookable, false);
});

test('availability exceptions: create in the member’s zone, get, PUT, list filters, delete, each with its event', async () => {
  const id = await member({ timezone: 'America/Denver', bookable: false });
  const created = await api('POST', '/v1/availability-exceptions', {
    team_member_id: id,
    local_start: '2030-03-12T09:00',
    local_end: '2030-03-12T12:00',
    reason: 'Dentist',
  });
  assert.equal(created.status, 201, created.text);
  const exception = created.body.data;
  assert.equal(exception.object, 'availability_exception');
  assert.equal(exception.kind, 'time_off');
  assert.equal(exception.timezone, 'America/Denver');
  assert.equal(exception.start_at, '2030-03-12T15:00:00.000Z');
  assert.equal(exception.end_at, '2030-03-12T18:00:00.000Z');
  const changed = await api('PUT', `/v1/availability-exceptions/${exception.id}`, { kind: 'extra_hours' });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.data.kind, 'extra_hours');
  const listed = await api(
    'GET',
    `/v1/availability-exceptions?team_member_id=${id}&kind=extra_hours&from=2030-03-12T00:00:00Z&to=2030-03-13T00:00:00Z`,
  );
  assert.deepEqual(
    listed.body.data.map((one: any) => one.id),
    [exception.id],
  );
  const outside = await api(
    'GET',
    `/v1/availability-exceptions?team_member_id=${id}&from=2030-03-13T00:00:00Z&to=2030-03-14T00:00:00Z`,
  );
  assert.deepEqual(outside.body.data, []);
  // At most 366 days; the member is fixed; an unknown member is 422.
  const long = await api('POST', '/v1/availability-exceptions', {
    team_member_id: id,
    all_day: true,
    start_date: '2030-01-01',
    end_date: '2031-01-02',
  });
  assert.equal(long.status, 422, long.text);
  const moved = await api('PUT', `/v1/availability-exceptions/${exception.id}`, { team_member_id: id });
  assert.equal(moved.status, 422);
  const unknown = await api('POST', '/v1/availability-exceptions', {
    team_member_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    start_at: '2030-03-12T09:00:00Z',
    duration_minutes: 60,
  });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.error.details[0].field, 'team_member_id');
  const deleted = await api('DELETE', `/v1/availability-exceptions/${exception.id}`);
  assert.deepEqual(deleted.body.data, { id: exception.id, deleted: true });
  // A member that no work names may be deleted with their exceptions (and holds).
  const leaving = await member({ timezone: 'UTC', bookable: false });
  const theirs = await api('POST', '/v1/availability-exceptions', {
    team_member_id: leaving,
    start_at: '2030-03-12T09:00:00Z',
    duration_minutes: 60,
  });
  assert.equal((await api('DELETE', `/v1/team-members/${leaving}`)).status, 200);
  assert.equal((await api('GET', `/v1/availability-exceptions/${theirs.body.data.id}`)).status, 404);
  const events = await api('GET', '/v1/events?limit=100');
  const types = events.body.data
    .filter((event: any) => event.data.object.id === exception.id)
    .map((event: any) => event.type)
    .reverse();
  assert.deepEqual(types, [
    'availability_exception.created',
    'availability_exception.updated',
    'availability_exception.deleted',
  ]);
});

test('America/Denver, 2030-03-10: no start from 02:00 to 02:30 (the gap); 2030-11-03: 01:00 and 01:30 once, their first instants', async () => {
  const id = await member({ timezone: 'America/Denver', working_hours: ALL_WEEK, bookable: false });
  const spring = await slots(
    `duration_minutes=30&from_date=2030-03-10&to_date=2030-03-10&timezone=America/Denver&team_member_id=${id}&limit=100`,
  );
  const springStarts = spring.map((slot) => slot.local_start.slice(11));
  assert.deepEqual(springStarts.slice(0, 6), ['00:00', '00:30', '01:00', '01:30', '03:00', '03:30']);
  assert.ok(!springStarts.includes('02:00') && !springStarts.includes('02:30'));
  assert.equal(spring.length, 46); // a 23-hour day
  assert.equal(spring[3]?.start_at, '2030-03-10T08:30:00.000Z'); // 01:30 MST
  assert.equal(spring[3]?.end_at, '2030-03-10T09:00:00.000Z'); // 30 real minutes later
  assert.equal(spring[3]?.local_end, '2030-03-10T03:00');
  assert.equal(spring[4]?.start_at, '2030-03-10T09:00:00.000Z'); // 03:00 MDT
  assert.deepEqual(spring[0]?.team_member_ids, [id]);
  assert.equal(spring[0]?.timezone, 'America/Denver');
  assert.equal(spring[0]?.object, 'slot');

  const autumn = await slots(
    `duration_minutes=30&from_date=2030-11-03&to_date=2030-11-03&timezone=America/Denver&team_member_id=${id}&limit=100`,
  );
  const autumnStarts = autumn.map((slot) => slot.local_start.slice(11));
  assert.deepEqual(autumnStarts.slice(0, 6), ['00:00', '00:30', '01:00', '01:30', '02:00', '02:30']);
  assert.equal(autumnStarts.filter((time) => time === '01:00').length, 1);
  assert.equal(autumnStarts.filter((time) => time === '01:30').length, 1);
  assert.equal(autumn.length, 48);
  assert.equal(autumn[2]?.start_at, '2030-11-03T07:00:00.000Z'); // 01:00 MDT, the first
  assert.equal(autumn[3]?.start_at, '2030-11-03T07:30:00.000Z'); // 01:30 MDT
  assert.equal(autumn[4]?.start_at, '2030-11-03T09:00:00.000Z'); // 02:00 MST
});

test('Europe/Berlin, 2030-03-31 and 2030-10-27: no 02:00 or 02:30 start in spring; each once, the first instant, in autumn', async () => {
  const id = await member({ timezone: 'Europe/Berlin', working_hours: ALL_WEEK, bookable: false });
  const spring = await slots(
    `duration_minutes=60&from_date=2030-03-31&to_date=2030-03-31&timezone=Europe/Berlin&team_member_id=${id}&limit=100`,
  );
  const springStarts = spring.map((slot) => slot.local_start.slice(11));
  assert.deepEqual(springStarts.slice(0, 4), ['00:00', '00:30', '01:00', '01:30']);
  assert.equal(springStarts[4], '03:00');
  assert.equal(spring[4]?.start_at, '2030-03-31T01:00:00.000Z');
  const autumn = await slots(
    `duration_minutes=60&from_date=2030-10-27&to_date=2030-10-27&timezone=Europe/Berlin&team_member_id=${id}&limit=100`,
  );
  const autumnStarts = autumn.map((slot) => slot.local_start.slice(11));
  assert.equal(autumnStarts.filter((time) => time === '02:00').length, 1);
  assert.equal(autumnStarts.filter((time) => time === '02:30').length, 1);
  const two = autumn.find((slot) => slot.local_start.endsWith('02:00'));
  assert.equal(two?.start_at, '2030-10-27T00:00:00.000Z'); // 02:00 CEST, before the clocks go back
  // The 60-minute slot from 02:30 CEST ends at 02:30 CET: an hour of real time.
  const half = autumn.find((slot) => slot.local_start.endsWith('02:30'));
  assert.equal(half?.end_at, '2030-10-27T01:30:00.000Z');
  assert.equal(half?.local_end, '2030-10-27T02:30');
});

test('buffer and straight-line travel between two properties: 55.6 km at 30 km/h is 112 minutes, plus a 10-minute buffer', async () => {
  await api('PUT', '/v1/account', {
    booking: { buffer_minutes: 10, min_notice_minutes: 0, travel: { mode: 'straight_line', speed_kmh: 30 } },
  });
  try {
    const id = await member({
      timezone: 'UTC',
      working_hours: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'].map((day) => ({ day, start: '06:00', end: '18:00' })),
      bookable: false,
    });
    const property = async (lng: number) => {
      const response = await api('POST', '/v1/properties', {
        client_id: clientId,
        address: { line1: `${lng} Equator Road`, country: 'US' },
        timezone: 'UTC',
        location: { lat: 0, lng },
      });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    };
    // Half a degree of longitude on the equator: 2π × 6,371 km × 0.5 / 360 = 55.597 km; ÷ 30 km/h × 60 =
    // 111.19 minutes, rounded up to 112; with the buffer, 122 minutes kept free on each side.
    const first = await property(0);
    const second = await property(0.5);
    const job = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Boiler', property_id: first });
    assert.equal(job.status, 201, job.text);
    const visit = await api('POST', '/v1/visits', {
      job_id: job.body.data.id,
      start_at: '2030-03-13T10:00:00Z',
      end_at: '2030-03-13T11:00:00Z',
      assignee_ids: [id],
    });
    assert.equal(visit.status, 201, visit.text);
    const at = async (propertyId: string, date = '2030-03-13') =>
      (
        await slots(
          `duration_minutes=60&step_minutes=5&from_date=${date}&to_date=${date}&property_id=${propertyId}&team_member_id=${id}&limit=100`,
        )
      ).map((slot) => slot.local_start.slice(11));
    const away = await at(second);
    // Before: the slot must end 122 minutes before 10:00 (07:58), so 06:55 is the last 60-minute start.
    assert.ok(away.includes('06:55'));
    assert.ok(!away.includes('07:00'));
    // After: 11:00 + 122 minutes = 13:02, so 13:05 is the first start.
    assert.ok(!away.includes('13:00'));
    assert.equal(away[away.indexOf('06:55') + 1], '13:05');
    // At the same property travel is 0 and the buffer still applies: 08:50 last before, 11:10 first after.
    const same = await at(first);
    assert.ok(same.includes('08:50') && !same.includes('08:55'));
    assert.equal(same[same.indexOf('08:50') + 1], '11:10');
    // A projected occurrence (materialised only through 2030-03-08) at the job's property: the same gaps.
    const weekly = await api('POST', '/v1/visit-schedules', {
      job_id: job.body.data.id,
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TH', start_date: '2030-03-07', time: '10:00', timezone: 'UTC' },
      duration_minutes: 60,
      horizon_days: 7,
      template: { assignee_ids: [id] },
    });
    assert.equal(weekly.status, 201, weekly.text);
    const projectedAway = await at(second, '2030-03-14');
    assert.ok(projectedAway.includes('06:55') && !projectedAway.includes('07:00'));
    assert.equal(projectedAway[projectedAway.indexOf('06:55') + 1], '13:05');
    const projectedSame = await at(first, '2030-03-14');
    assert.ok(projectedSame.includes('08:50') && !projectedSame.includes('08:55'));
    assert.equal(projectedSame[projectedSame.indexOf('08:50') + 1], '11:10');
  } finally {
    await api('PUT', '/v1/account', {
      booking: { buffer_minutes: 0, min_notice_minutes: 60, travel: { mode: 'none', speed_kmh: 30 } },
    });
  }
});

test('time off and a projected weekly occurrence remove their slots; the crew is the least busy members, then by id', async () => {
  const id = await member({ timezone: 'America/Denver', working_hours: ALL_WEEK, bookable: false });
  const off = await api('POST', '/v1/availability-exceptions', {
    team_member_id: id,
    local_start: '2030-03-12T09:00',
    local_end: '2030-03-12T12:00',
  });
  assert.equal(off.status, 201, off.text);
  const job = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Weekly mowing' });
  const schedule = await api('POST', '/v1/visit-schedules', {
    job_id: job.body.data.id,
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU', start_date: '2030-03-05', time: '14:00', timezone: 'America/Denver' },
    duration_minutes: 60,
    horizon_days: 7,
    template: { assignee_ids: [id] },
  });
  assert.equal(schedule.status, 201, schedule.text);
  // Materialised through 2030-03-08: the occurrence of Tuesday 12 March is only projected.
  assert.equal(schedule.body.data.materialized_through, '2030-03-08');
  const starts = (
    await slots(
      `duration_minutes=30&from_date=2030-03-12&to_date=2030-03-12&timezone=America/Denver&team_member_id=${id}&limit=100`,
    )
  ).map((slot) => slot.local_start.slice(11));
  assert.ok(starts.includes('08:30'));
  for (const time of ['09:00', '10:30', '11:30', '14:00', '14:30']) assert.ok(!starts.includes(time), time);
  assert.ok(starts.includes('12:00'));
  assert.ok(starts.includes('13:30'));
  assert.ok(starts.includes('15:00'));
  assert.equal(starts.length, 48 - 6 - 2);
});

test('the query: one of duration_minutes or product_id, at most 31 days, sort refused, notice respected, unnamed members', async () => {
  const refusals: Array<[string, string]> = [
    ['from_date=2030-03-12&to_date=2030-03-12', 'duration_minutes'],
    ['duration_minutes=30&from_date=2030-03-01&to_date=2030-04-01', 'to_date'],
    ['duration_minutes=30&from=2030-03-01T00:00:00Z&to=2030-04-01T00:00:01Z', 'to'],
    ['duration_minutes=4&from_date=2030-03-12&to_date=2030-03-12', 'duration_minutes'],
    ['duration_minutes=30&from_date=2030-03-12&to_date=2030-03-12&sort=start_at', 'sort'],
    ['duration_minutes=30&from_date=2030-03-12&to_date=2030-03-12&crew_size=11', 'crew_size'],
    ['duration_minutes=30&from_date=2030-03-12&to_date=2030-03-12&timezone=MST', 'timezone'],
  ];
  for (const [query, field] of refusals) {
    const response = await api('GET', `/v1/availability?${query}`);
    assert.equal(response.status, 422, `${query}: ${response.text}`);
    assert.ok(
      response.body.error.details.some((detail: any) => detail.field === field),
      `${query}: ${JSON.stringify(response.body.error.details)}`,
    );
  }
  const product = await api('POST', '/v1/products', { type: 'service', name: 'No length', unit_amount: 1000 });
  assert.equal(product.status, 201, product.text);
  const noLength = await api(
    'GET',
    `/v1/availability?product_id=${product.body.data.id}&from_date=2030-03-12&to_date=2030-03-12`,
  );
  assert.equal(noLength.status, 422);
  assert.equal(noLength.body.error.details[0].field, 'product_id');
  // Notice: with the clock at 2030-03-01T12:00Z and 60 minutes' notice, the first start is 13:00 UTC.
  const id = await member({ timezone: 'UTC', working_hours: ALL_WEEK, bookable: false });
  const today = await slots(
    `duration_minutes=30&from_date=2030-03-01&to_date=2030-03-01&timezone=UTC&team_member_id=${id}`,
  );
  assert.equal(today[0]?.start_at, '2030-03-01T13:00:00.000Z');
  const past = await slots(
    `duration_minutes=30&from_date=2030-02-01&to_date=2030-02-01&timezone=UTC&team_member_id=${id}`,
  );
  assert.deepEqual(past, []);
  // Pages: by start_at, with a cursor.
  const page = await api(
    'GET',
    `/v1/availability?duration_minutes=30&from_date=2030-03-02&to_date=2030-03-02&timezone=UTC&team_member_id=${id}&limit=2`,
  );
  assert.equal(page.body.meta.pagination.has_more, true);
  const next = await api(
    'GET',
    `/v1/availability?duration_minutes=30&from_date=2030-03-02&to_date=2030-03-02&timezone=UTC&team_member_id=${id}&limit=2&cursor=${page.body.meta.pagination.next_cursor}`,
  );
  assert.deepEqual(
    [...page.body.data, ...next.body.data].map((slot: any) => slot.local_start),
    ['2030-03-02T00:00', '2030-03-02T00:30', '2030-03-02T01:00', '2030-03-02T01:30'],
  );
  // An inactive named member is 422.
  const gone = await member({ timezone: 'UTC', active: false });
  const inactive = await api(
    'GET',
    `/v1/availability?duration_minutes=30&from_date=2030-03-02&to_date=2030-03-02&team_member_id=${gone}`,
  );
  assert.equal(inactive.status, 422);
  assert.equal(inactive.body.error.details[0].field, 'team_member_id[0]');
});
