// Visit schedules (contract section 18 and the settled readings of section 21) through the API: the issue's
// literal rules materialised as visits in local time, the occurrences window, idempotent materialisation,
// skip/unskip, pause/resume, split, template edits and exceptions, ending (job completed, DELETE with and
// without keep_visits), a deleted visit becoming an exdate, and the events.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ScheduleWorker } from '../src/workers/schedule-worker.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-02-20T12:00:00.000Z'));
let context: TestContext;
let key: string;
let clientId: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
  const client = await api('POST', '/v1/clients', { name: 'Lawn Co' });
  clientId = client.body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

async function newJob(): Promise<string> {
  const job = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Mowing' });
  assert.equal(job.status, 201, job.text);
  return job.body.data.id;
}

async function createSchedule(body: Record<string, unknown>) {
  const response = await api('POST', '/v1/visit-schedules', { job_id: await newJob(), ...body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

async function visitsOf(scheduleId: string) {
  const response = await api('GET', `/v1/visits?schedule_id=${scheduleId}&limit=100&sort=created_at`);
  assert.equal(response.status, 200, response.text);
  return (response.body.data as Array<Record<string, any>>).sort((a, b) =>
    a.occurrence_key.localeCompare(b.occurrence_key),
  );
}

const denver = { time: '09:00', timezone: 'America/Denver' };

test('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU at 09:00 America/Denver: visits at 09:00 local, an hour apart in UTC across the change', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', start_date: '2026-02-24', ...denver },
    duration_minutes: 60,
    horizon_days: 30,
  });
  assert.equal(schedule.object, 'visit_schedule');
  assert.equal(schedule.status, 'active');
  assert.equal(schedule.recurrence.rrule, 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU');
  assert.equal(schedule.recurrence.frequency, 'weekly');
  assert.equal(schedule.recurrence.interval, 2);
  assert.deepEqual(schedule.recurrence.by_weekday, ['TU']);
  assert.match(schedule.recurrence.summary, /^Every 2 weeks on Tuesday at 09:00 \(America\/Denver\)/);
  assert.equal(schedule.materialized_through, '2026-03-22'); // today (20 Feb in Denver) + 30 days
  assert.equal(schedule.next_occurrence_key, '2026-02-24T09:00');
  assert.equal(schedule.next_occurrence_at, '2026-02-24T16:00:00.000Z');
  const visits = await visitsOf(schedule.id);
  assert.deepEqual(
    visits.map((visit) => [visit.occurrence_key, visit.start_at, visit.local_start, visit.end_at, visit.is_exception]),
    [
      ['2026-02-24T09:00', '2026-02-24T16:00:00.000Z', '2026-02-24T09:00', '2026-02-24T17:00:00.000Z', false],
      ['2026-03-10T09:00', '2026-03-10T15:00:00.000Z', '2026-03-10T09:00', '2026-03-10T16:00:00.000Z', false],
    ],
  );
  const window = await api(
    'GET',
    `/v1/visit-schedules/${schedule.id}/occurrences?from=2026-10-01T00:00:00Z&to=2026-11-30T00:00:00Z`,
  );
  assert.equal(window.status, 200, window.text);
  assert.deepEqual(
    window.body.data.map((one: any) => [one.occurrence_key, one.start_at, one.local_start, one.visit_id, one.skipped]),
    [
      ['2026-10-06T09:00', '2026-10-06T15:00:00.000Z', '2026-10-06T09:00', null, false],
      ['2026-10-20T09:00', '2026-10-20T15:00:00.000Z', '2026-10-20T09:00', null, false],
      ['2026-11-03T09:00', '2026-11-03T16:00:00.000Z', '2026-11-03T09:00', null, false],
      ['2026-11-17T09:00', '2026-11-17T16:00:00.000Z', '2026-11-17T09:00', null, false],
    ],
  );
  const first = await api(
    'GET',
    `/v1/visit-schedules/${schedule.id}/occurrences?from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z`,
  );
  assert.equal(first.body.data[0].visit_id, visits[0]?.id);
  const tooLong = await api(
    'GET',
    `/v1/visit-schedules/${schedule.id}/occurrences?from=2026-01-01T00:00:00Z&to=2027-01-03T00:00:00Z`,
  );
  assert.equal(tooLong.status, 422);
  assert.equal(tooLong.body.error.details[0].field, 'to');
});

test('the literal month rules through the API: BYMONTHDAY=31 last_day and skip, YEARLY from 29 February, -1FR, the last weekday', async () => {
  const CASES: Array<[Record<string, unknown>, string, string, string[]]> = [
    [
      { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2027-01-01' },
      '2027-01-01',
      '2027-05-01',
      ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30'],
    ],
    [
      { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2027-01-01', month_day_overflow: 'skip' },
      '2027-01-01',
      '2027-06-01',
      ['2027-01-31', '2027-03-31', '2027-05-31'],
    ],
    [{ rrule: 'FREQ=YEARLY', start_date: '2028-02-29' }, '2029-01-01', '2029-12-31', ['2029-02-28']],
    [{ rrule: 'FREQ=YEARLY', start_date: '2028-02-29', month_day_overflow: 'skip' }, '2029-01-01', '2029-12-31', []],
    [
      { rrule: 'FREQ=MONTHLY;BYDAY=-1FR', start_date: '2026-01-01' },
      '2026-03-01',
      '2026-05-01',
      ['2026-03-27', '2026-04-24'],
    ],
    [
      { rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', start_date: '2026-01-01' },
      '2026-05-01',
      '2026-06-01',
      ['2026-05-29'],
    ],
  ];
  for (const [recurrence, from, to, dates] of CASES) {
    const schedule = await createSchedule({
      recurrence: { ...recurrence, ...denver },
      duration_minutes: 30,
      horizon_days: 7,
    });
    const window = await api(
      'GET',
      `/v1/visit-schedules/${schedule.id}/occurrences?from=${from}T12:00:00Z&to=${to}T12:00:00Z`,
    );
    assert.equal(window.status, 200, window.text);
    assert.deepEqual(
      window.body.data.map((one: any) => one.occurrence_key),
      dates.map((date) => `${date}T09:00`),
      JSON.stringify(recurrence),
    );
  }
});

test('COUNT with an exdate, and 02:30 daily on the spring-forward day (03:30, nominal key kept)', async () => {
  const counted = await createSchedule({
    recurrence: { rrule: 'FREQ=DAILY;COUNT=5', start_date: '2026-02-21', exdates: ['2026-02-23T09:00'], ...denver },
    duration_minutes: 30,
  });
  assert.deepEqual(
    (await visitsOf(counted.id)).map((visit) => visit.occurrence_key),
    ['2026-02-21T09:00', '2026-02-22T09:00', '2026-02-24T09:00', '2026-02-25T09:00'],
  );
  const gap = await createSchedule({
    recurrence: { frequency: 'daily', start_date: '2026-03-07', time: '02:30', timezone: 'America/Denver', count: 3 },
    duration_minutes: 30,
    horizon_days: 30,
  });
  assert.deepEqual(
    (await visitsOf(gap.id)).map((visit) => [visit.occurrence_key, visit.start_at, visit.local_start]),
    [
      ['2026-03-07T02:30', '2026-03-07T09:30:00.000Z', '2026-03-07T02:30'],
      ['2026-03-08T02:30', '2026-03-08T09:30:00.000Z', '2026-03-08T03:30'],
      ['2026-03-09T02:30', '2026-03-09T08:30:00.000Z', '2026-03-09T02:30'],
    ],
  );
});

test('refusals: BYHOUR named, both forms disagreeing, no occurrence, recurrence in a PUT, a completed job, status on create', async () => {
  const job = await newJob();
  const post = (body: Record<string, unknown>) =>
    api('POST', '/v1/visit-schedules', { job_id: job, duration_minutes: 30, ...body });
  const byHour = await post({ recurrence: { rrule: 'FREQ=DAILY;BYHOUR=9', start_date: '2026-03-01', ...denver } });
  assert.equal(byHour.status, 422);
  assert.equal(byHour.body.error.details[0].field, 'recurrence.rrule');
  assert.match(byHour.body.error.details[0].message, /BYHOUR is not supported/);
  const disagree = await post({
    recurrence: { rrule: 'FREQ=WEEKLY', frequency: 'daily', start_date: '2026-03-01', ...denver },
  });
  assert.equal(disagree.status, 422);
  assert.equal(disagree.body.error.details[0].field, 'recurrence.frequency');
  const none = await post({
    recurrence: {
      rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
      month_day_overflow: 'skip',
      start_date: '2026-03-01',
      ...denver,
    },
  });
  assert.equal(none.status, 422);
  assert.match(none.body.error.details[0].message, /no occurrence/);
  const status = await post({
    status: 'paused',
    recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-03-01', ...denver },
  });
  assert.equal(status.status, 422);
  const made = await post({ recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-03-01', ...denver } });
  assert.equal(made.status, 201, made.text);
  const put = await api('PUT', `/v1/visit-schedules/${made.body.data.id}`, { recurrence: { rrule: 'FREQ=WEEKLY' } });
  assert.equal(put.status, 422);
  assert.equal(put.body.error.details[0].field, 'recurrence');
  assert.match(put.body.error.details[0].message, /split/);
  const done = await newJob();
  assert.equal((await api('PUT', `/v1/jobs/${done}`, { status: 'completed' })).status, 200);
  const closed = await api('POST', '/v1/visit-schedules', {
    job_id: done,
    duration_minutes: 30,
    recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-03-01', ...denver },
  });
  assert.equal(closed.status, 409);
  assert.equal(closed.body.error.code, 'INVALID_STATE');
});

test('materialisation is idempotent: updates and repeated runs never make a second visit for a key', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-02-20', ...denver },
    duration_minutes: 30,
    horizon_days: 10,
  });
  assert.equal((await visitsOf(schedule.id)).length, 11);
  for (const horizon of [10, 12, 12])
    assert.equal((await api('PUT', `/v1/visit-schedules/${schedule.id}`, { horizon_days: horizon })).status, 200);
  const visits = await visitsOf(schedule.id);
  assert.equal(visits.length, 13);
  assert.equal(new Set(visits.map((visit) => visit.occurrence_key)).size, 13);
});

test('skip and unskip; a visit edited alone is an exception that template edits leave; a deleted visit becomes an exdate', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO', start_date: '2026-02-23', ...denver },
    duration_minutes: 60,
    horizon_days: 21,
    template: { title: 'Mow' },
  });
  const [first, second, third] = await visitsOf(schedule.id);
  const skipped = await api('POST', `/v1/visit-schedules/${schedule.id}/skip`, { occurrence_key: '2026-02-23T09:00' });
  assert.equal(skipped.status, 200, skipped.text);
  assert.deepEqual(skipped.body.data.recurrence.exdates, ['2026-02-23T09:00']);
  let visit = (await api('GET', `/v1/visits/${first?.id}`)).body.data;
  assert.deepEqual([visit.status, visit.cancel_reason], ['canceled', 'skipped']);
  const unskipped = await api('POST', `/v1/visit-schedules/${schedule.id}/unskip`, {
    occurrence_key: '2026-02-23T09:00',
  });
  assert.equal(unskipped.status, 200, unskipped.text);
  assert.deepEqual(unskipped.body.data.recurrence.exdates, []);
  visit = (await api('GET', `/v1/visits/${first?.id}`)).body.data;
  assert.equal(visit.status, 'scheduled');
  assert.equal((await visitsOf(schedule.id)).length, 3, 'no second row for the key');
  const notOne = await api('POST', `/v1/visit-schedules/${schedule.id}/skip`, { occurrence_key: '2026-02-24T09:00' });
  assert.equal(notOne.status, 422);

  // Moved alone: an exception, which a later template edit leaves alone.
  const moved = await api('PUT', `/v1/visits/${second?.id}`, {
    start_at: '2026-03-02T18:00:00Z',
    duration_minutes: 60,
  });
  assert.equal(moved.status, 200, moved.text);
  assert.equal(moved.body.data.is_exception, true);
  const edited = await api('PUT', `/v1/visit-schedules/${schedule.id}`, {
    template: { title: 'Mow and edge' },
    duration_minutes: 90,
  });
  assert.equal(edited.status, 200, edited.text);
  const after = await visitsOf(schedule.id);
  assert.deepEqual(
    after.map((one) => [one.occurrence_key, one.title, one.duration_minutes, one.is_exception]),
    [
      ['2026-02-23T09:00', 'Mow and edge', 90, false],
      ['2026-03-02T09:00', 'Mow', 60, true],
      ['2026-03-09T09:00', 'Mow and edge', 90, false],
    ],
  );

  assert.equal((await api('DELETE', `/v1/visits/${third?.id}`)).status, 200);
  const read = (await api('GET', `/v1/visit-schedules/${schedule.id}`)).body.data;
  assert.deepEqual(read.recurrence.exdates, ['2026-03-09T09:00']);
  await api('PUT', `/v1/visit-schedules/${schedule.id}`, { horizon_days: 22 });
  assert.equal((await visitsOf(schedule.id)).length, 2, 'the deleted occurrence is not made again');
});

test('pause cancels the range, resume reopens it; split ends the old rule the day before and starts a new one', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-02-21', ...denver },
    duration_minutes: 30,
    horizon_days: 7,
  });
  const paused = await api('POST', `/v1/visit-schedules/${schedule.id}/pause`, {
    from: '2026-02-23',
    until: '2026-02-24',
  });
  assert.equal(paused.status, 200, paused.text);
  assert.deepEqual(
    [paused.body.data.status, paused.body.data.paused_from, paused.body.data.paused_until],
    ['paused', '2026-02-23', '2026-02-24'],
  );
  let visits = await visitsOf(schedule.id);
  assert.deepEqual(
    visits.filter((visit) => visit.status === 'canceled').map((visit) => [visit.occurrence_key, visit.cancel_reason]),
    [
      ['2026-02-23T09:00', 'paused'],
      ['2026-02-24T09:00', 'paused'],
    ],
  );
  const resumed = await api('POST', `/v1/visit-schedules/${schedule.id}/resume`, {});
  assert.equal(resumed.status, 200, resumed.text);
  assert.deepEqual([resumed.body.data.status, resumed.body.data.paused_from], ['active', null]);
  visits = await visitsOf(schedule.id);
  assert.equal(visits.filter((visit) => visit.status === 'canceled').length, 0);
  assert.equal((await api('POST', `/v1/visit-schedules/${schedule.id}/resume`, {})).status, 409);

  const split = await api('POST', `/v1/visit-schedules/${schedule.id}/split`, {
    from_occurrence_key: '2026-02-25T09:00',
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=WE', time: '10:00', timezone: 'America/Denver' },
    duration_minutes: 45,
  });
  assert.equal(split.status, 201, split.text);
  const { previous, next } = split.body.data;
  assert.equal(previous.id, schedule.id);
  assert.equal(previous.status, 'active');
  assert.equal(previous.recurrence.until, '2026-02-24');
  assert.equal(next.previous_schedule_id, schedule.id);
  assert.equal(next.recurrence.start_date, '2026-02-25');
  const old = await visitsOf(schedule.id);
  assert.deepEqual(
    old.filter((visit) => visit.status === 'canceled').map((visit) => visit.cancel_reason),
    ['split', 'split', 'split'], // 25, 26 and 27 February: the horizon ends on the 27th
  );
  assert.deepEqual(
    (await visitsOf(next.id)).map((visit) => [visit.occurrence_key, visit.duration_minutes]),
    [['2026-02-25T10:00', 45]],
  );
});

test('ending: DELETE cancels future visits (keep_visits keeps them, detached); completing the job ends its schedules', async () => {
  const recurrence = { rrule: 'FREQ=DAILY', start_date: '2026-02-21', ...denver };
  const one = await createSchedule({ recurrence, duration_minutes: 30, horizon_days: 7 });
  const ended = await api('DELETE', `/v1/visit-schedules/${one.id}`);
  assert.equal(ended.status, 200, ended.text);
  assert.equal(ended.body.data.status, 'ended');
  assert.equal(ended.body.data.next_occurrence_at, null);
  assert.ok((await visitsOf(one.id)).every((visit) => visit.status === 'canceled'));
  assert.equal((await api('GET', `/v1/visit-schedules/${one.id}`)).body.data.status, 'ended');

  const two = await createSchedule({ recurrence, duration_minutes: 30, horizon_days: 7 });
  const ids = (await visitsOf(two.id)).map((visit) => visit.id);
  assert.equal((await api('DELETE', `/v1/visit-schedules/${two.id}?keep_visits=true`)).status, 200);
  assert.equal((await visitsOf(two.id)).length, 0);
  for (const id of ids) {
    const visit = (await api('GET', `/v1/visits/${id}`)).body.data;
    assert.deepEqual([visit.status, visit.schedule_id], ['scheduled', null]);
  }

  const three = await createSchedule({ recurrence, duration_minutes: 30, horizon_days: 7 });
  assert.equal((await api('PUT', `/v1/jobs/${three.job_id}`, { status: 'completed' })).status, 200);
  assert.equal((await api('GET', `/v1/visit-schedules/${three.id}`)).body.data.status, 'ended');
  assert.ok((await visitsOf(three.id)).every((visit) => visit.status === 'canceled'));
  const events = await api('GET', `/v1/events?resource_id=${three.id}&limit=100`);
  assert.deepEqual(events.body.data.map((event: any) => event.type).reverse(), [
    'visit_schedule.created',
    'visit_schedule.ended',
  ]);
});

test('the calendar with include_projected: the occurrences beyond the horizon, id null, in start_at order, each on one page', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU,FR', start_date: '2026-02-20', ...denver },
    duration_minutes: 60,
    horizon_days: 7,
    template: { title: 'Clean' },
  });
  await api('POST', `/v1/visit-schedules/${schedule.id}/skip`, { occurrence_key: '2026-03-06T09:00' });
  const window = `from=2026-02-20T00:00:00Z&to=2026-03-14T00:00:00Z&job_id=${schedule.job_id}`;
  const plain = await api('GET', `/v1/visits?${window}`);
  assert.equal(plain.status, 200, plain.text);
  assert.deepEqual(
    plain.body.data.map((item: any) => item.occurrence_key),
    ['2026-02-20T09:00', '2026-02-24T09:00', '2026-02-27T09:00'],
  );
  const projected = await api('GET', `/v1/visits?${window}&include_projected=true`);
  assert.equal(projected.status, 200, projected.text);
  assert.deepEqual(
    projected.body.data.map((item: any) => [
      item.occurrence_key,
      item.id === null,
      item.projected ?? false,
      item.start_at,
    ]),
    [
      ['2026-02-20T09:00', false, false, '2026-02-20T16:00:00.000Z'],
      ['2026-02-24T09:00', false, false, '2026-02-24T16:00:00.000Z'],
      ['2026-02-27T09:00', false, false, '2026-02-27T16:00:00.000Z'],
      ['2026-03-03T09:00', true, true, '2026-03-03T16:00:00.000Z'],
      // 6 March is skipped; 10 March is after the change to daylight time.
      ['2026-03-10T09:00', true, true, '2026-03-10T15:00:00.000Z'],
      ['2026-03-13T09:00', true, true, '2026-03-13T15:00:00.000Z'],
    ],
  );
  const item = projected.body.data[3];
  assert.deepEqual(
    [item.schedule_id, item.title, item.status, item.local_start, item.duration_minutes],
    [schedule.id, 'Clean', 'scheduled', '2026-03-03T09:00', 60],
  );
  // Paged one visit at a time, every item comes once and in order.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await api(
      'GET',
      `/v1/visits?${window}&include_projected=true&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, page.text);
    seen.push(...page.body.data.map((one: any) => one.occurrence_key));
    cursor = page.body.meta.pagination.next_cursor;
  } while (cursor);
  assert.deepEqual(
    seen,
    projected.body.data.map((one: any) => one.occurrence_key),
  );
  const canceledOnly = await api('GET', `/v1/visits?${window}&include_projected=true&status=canceled`);
  assert.deepEqual(canceledOnly.body.data, []);
});

test('projected occurrences across the autumn changes in Berlin and Denver, asked twice: each zone its own instants', async () => {
  // The same local times on the same days in two zones: a projection keeps occurrences' times by zone, day, time
  // and length, so the second ask (answered from what the first kept) must give the same instants, each zone
  // its own. Berlin leaves summer time on 25 October 2026 (UTC+2 → +1), Denver on 1 November (UTC−6 → −7).
  const berlin = await createSchedule({
    recurrence: {
      rrule: 'FREQ=WEEKLY;BYDAY=SA,MO',
      start_date: '2026-10-17',
      time: '09:00',
      timezone: 'Europe/Berlin',
    },
    duration_minutes: 90,
    horizon_days: 7,
  });
  const mountain = await createSchedule({
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=SA,MO', start_date: '2026-10-17', ...denver },
    duration_minutes: 90,
    horizon_days: 7,
  });
  const window = 'from=2026-10-24T00:00:00Z&to=2026-11-03T00:00:00Z&include_projected=true&limit=100';
  const expected = [
    [berlin.id, '2026-10-24T09:00', '2026-10-24T07:00:00.000Z', '2026-10-24T08:30:00.000Z'],
    [mountain.id, '2026-10-24T09:00', '2026-10-24T15:00:00.000Z', '2026-10-24T16:30:00.000Z'],
    [berlin.id, '2026-10-26T09:00', '2026-10-26T08:00:00.000Z', '2026-10-26T09:30:00.000Z'],
    [mountain.id, '2026-10-26T09:00', '2026-10-26T15:00:00.000Z', '2026-10-26T16:30:00.000Z'],
    [berlin.id, '2026-10-31T09:00', '2026-10-31T08:00:00.000Z', '2026-10-31T09:30:00.000Z'],
    [mountain.id, '2026-10-31T09:00', '2026-10-31T15:00:00.000Z', '2026-10-31T16:30:00.000Z'],
    [berlin.id, '2026-11-02T09:00', '2026-11-02T08:00:00.000Z', '2026-11-02T09:30:00.000Z'],
    [mountain.id, '2026-11-02T09:00', '2026-11-02T16:00:00.000Z', '2026-11-02T17:30:00.000Z'],
  ];
  for (const ask of [1, 2]) {
    const response = await api('GET', `/v1/visits?${window}`);
    assert.equal(response.status, 200, response.text);
    const mine = response.body.data.filter((item: any) => [berlin.id, mountain.id].includes(item.schedule_id));
    assert.deepEqual(
      mine.map((item: any) => [item.schedule_id, item.local_start, item.start_at, item.end_at]),
      expected,
      `ask ${ask}`,
    );
    assert.ok(mine.every((item: any) => item.projected === true && item.duration_minutes === 90));
  }
});

test('split of a COUNT rule without a new rule: the old keeps the occurrences before, the new the rest of the count', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6', start_date: '2026-02-23', ...denver },
    duration_minutes: 60,
    horizon_days: 60,
  });
  const split = await api('POST', `/v1/visit-schedules/${schedule.id}/split`, {
    from_occurrence_key: '2026-03-09T09:00',
    template: { title: 'Later' },
  });
  assert.equal(split.status, 201, split.text);
  const { previous, next } = split.body.data;
  assert.deepEqual([previous.recurrence.count, previous.recurrence.rrule], [2, 'FREQ=WEEKLY;BYDAY=MO;COUNT=2']);
  assert.deepEqual(
    [next.recurrence.count, next.recurrence.start_date, next.template.title],
    [4, '2026-03-09', 'Later'],
  );
  assert.deepEqual(
    (await visitsOf(next.id)).map((visit) => visit.occurrence_key),
    ['2026-03-09T09:00', '2026-03-16T09:00', '2026-03-23T09:00', '2026-03-30T09:00'],
  );
  // Both forms sent: an ordinal weekday agrees with the rrule's monthly FREQ.
  const both = await createSchedule({
    recurrence: { rrule: 'FREQ=MONTHLY;BYDAY=-1FR', by_weekday: ['-1FR'], start_date: '2026-02-20', ...denver },
    duration_minutes: 60,
  });
  assert.equal(both.recurrence.rrule, 'FREQ=MONTHLY;BYDAY=-1FR');
});

/** Runs `work` with a 1 ms ticker: the longest wait between its ticks is the longest the event loop was held. */
async function loopHeld<T>(work: () => Promise<T>) {
  let ticks = 0;
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const at = performance.now();
    longest = Math.max(longest, at - last);
    last = at;
    ticks++;
  }, 1);
  const started = performance.now();
  try {
    const result = await work();
    return { result, ticks, longest, took: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Done in one synchronous go, the work would hold the loop for nearly all of its time; a slice at a time, the
 * ticker runs throughout and no wait is more than a fraction of the whole.
 */
function assertSliced(name: string, held: { ticks: number; longest: number; took: number }) {
  assert.ok(held.ticks >= 10, `${name}: ${held.ticks} ticks in ${held.took.toFixed(0)} ms`);
  assert.ok(
    held.longest < held.took / 4,
    `${name}: the loop was held ${held.longest.toFixed(0)} ms of ${held.took.toFixed(0)} ms`,
  );
}

/** A schedule worker on the suite's database, hearing this process's changes; its loop is not started. */
function newWorker() {
  const quiet = { info() {}, warn() {}, error() {} };
  const worker = new ScheduleWorker(context.database, clock, { publicBaseUrl: 'http://localhost' }, quiet);
  return worker;
}

/** The visits of a schedule in the database: how many, and how many distinct occurrence keys. */
async function madeOf(scheduleId: string, status?: string) {
  let query = context.database.db
    .selectFrom('visits')
    .select((eb) => [eb.fn.countAll().as('count'), eb.fn.count('occurrence_key').distinct().as('keys')])
    .where('schedule_id', '=', scheduleId);
  if (status !== undefined) query = query.where('status', '=', status);
  const row = await query.executeTakeFirstOrThrow();
  return { count: Number(row.count), keys: Number(row.keys) };
}

const dailyFor730Days = (jobId: string) => ({
  job_id: jobId,
  recurrence: { rrule: 'FREQ=DAILY', start_date: '2026-02-20', ...denver },
  duration_minutes: 30,
  horizon_days: 730,
});

test('500 daily visits: the create makes 50, the worker the rest; they are edited and canceled a slice at a time, the event loop running throughout', async () => {
  const worker = newWorker();
  try {
    const jobId = await newJob();
    const created = await api('POST', '/v1/visit-schedules', dailyFor730Days(jobId));
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    // The first 50 days from 20 February 2026 (today in Denver): 20 February to 10 April.
    assert.equal(created.body.data.materialized_through, '2026-04-10');
    assert.equal((await madeOf(id, 'scheduled')).count, 50);
    await worker.runPending();
    // At most 500 ahead: the 500th day from 20 February 2026 is 4 July 2027.
    assert.equal((await api('GET', `/v1/visit-schedules/${id}`)).body.data.materialized_through, '2027-07-04');
    assert.equal((await madeOf(id, 'scheduled')).count, 500);

    const edited = await loopHeld(() =>
      api('PUT', `/v1/visit-schedules/${id}`, { template: { title: 'Daily round' } }),
    );
    assert.equal(edited.result.status, 200, edited.result.text);
    const titled = await context.database.db
      .selectFrom('visits')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('schedule_id', '=', id)
      .where('title', '=', 'Daily round')
      .executeTakeFirstOrThrow();
    // Every visit but today's, whose 09:00 (16:00Z) is still ahead at 12:00Z: all 500 have not started.
    assert.equal(Number(titled.count), 500);
    assertSliced('template edit', edited);

    const ended = await loopHeld(() => api('DELETE', `/v1/visit-schedules/${id}`));
    assert.equal(ended.result.status, 200, ended.result.text);
    assert.equal((await madeOf(id, 'canceled')).count, 500);
    assertSliced('end', ended);
  } finally {
    await worker.stop();
  }
});

test('a 730-day daily schedule is answered with at most 50 visits made; after the worker every occurrence to the horizon has exactly one, even with two workers racing', async () => {
  const first = newWorker();
  const second = newWorker();
  try {
    const created = await api('POST', '/v1/visit-schedules', dailyFor730Days(await newJob()));
    assert.equal(created.status, 201, created.text);
    const schedule = created.body.data;
    const answered = await madeOf(schedule.id);
    assert.ok(answered.count <= 50, `${answered.count} visits made by the create`);
    // materialized_through shows how far the visits are made: every occurrence up to it has its visit.
    const through = schedule.materialized_through as string;
    const upTo = await context.database.db
      .selectFrom('visits')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('schedule_id', '=', schedule.id)
      .where('occurrence_key', '<=', `${through}T99`)
      .executeTakeFirstOrThrow();
    assert.equal(Number(upTo.count), answered.count);
    const read = await api('GET', `/v1/visit-schedules/${schedule.id}`);
    assert.equal(read.body.data.materialized_through, through);

    // Two workers (two instances) at once, each a whole pass: the unique (schedule_id, occurrence_key) and the
    // schedule's row lock keep every occurrence to one visit.
    await Promise.all([first.runPass(), second.runPass()]);
    await Promise.all([first.runPass(), second.runPass()]);
    assert.deepEqual(await madeOf(schedule.id), { count: 500, keys: 500 });
    assert.equal((await api('GET', `/v1/visit-schedules/${schedule.id}`)).body.data.materialized_through, '2027-07-04');
    const keys = (
      await context.database.db
        .selectFrom('visits')
        .select('occurrence_key')
        .where('schedule_id', '=', schedule.id)
        .orderBy('occurrence_key')
        .execute()
    ).map((row) => row.occurrence_key);
    assert.equal(keys[0], '2026-02-20T09:00');
    assert.equal(keys.at(-1), '2027-07-04T09:00');
    // A third visit for a key is refused by the database itself.
    const [one] = await context.database.db
      .selectFrom('visits')
      .selectAll()
      .where('schedule_id', '=', schedule.id)
      .limit(1)
      .execute();
    await assert.rejects(
      context.database.db
        .insertInto('visits')
        .values({ ...(one as Record<string, unknown>), id: '01900000-0000-7000-8000-000000000001' } as never)
        .execute(),
    );
  } finally {
    await first.stop();
    await second.stop();
  }
});

test("another account's client create during a 730-day schedule create is answered before that schedule's visits are all made", async () => {
  const worker = newWorker();
  const other = await context.account('Another account');
  const jobId = await newJob();
  /** The visits of the job's schedule in the database when another account's client create is answered. */
  const visitsOfJob = async () =>
    Number(
      (
        await context.database.db
          .selectFrom('visits')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('job_id', '=', jobId)
          .executeTakeFirstOrThrow()
      ).count,
    );
  const createClient = async (name: string) => {
    const response = await context.request('POST', '/v1/clients', { key: other.key, body: { name } });
    assert.equal(response.status, 201, response.text);
    return visitsOfJob();
  };
  try {
    worker.start();
    // One client create sent together with the schedule's, one right after its answer (the worker then making
    // the rest): neither waits for the 500 visits.
    const [created, together] = await Promise.all([
      api('POST', '/v1/visit-schedules', dailyFor730Days(jobId)),
      createClient('Neighbour'),
    ]);
    assert.equal(created.status, 201, created.text);
    const after = await createClient('Neighbour two');
    assert.ok(together < 500, `the client create sent together was answered after all ${together} visits`);
    assert.ok(after < 500, `the client create sent after was answered after all ${after} visits`);
    // The worker, woken by the create, goes on to the horizon.
    for (let round = 0; round < 600 && (await visitsOfJob()) < 500; round++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await madeOf(created.body.data.id), { count: 500, keys: 500 });
  } finally {
    await worker.stop();
  }
});

test("another account's client create sent with three 730-day schedule creates waits for at most one of them", async () => {
  const other = await context.account('A third account');
  const jobs = [await newJob(), await newJob(), await newJob()];
  const visitsOfJobs = async () =>
    Number(
      (
        await context.database.db
          .selectFrom('visits')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('job_id', 'in', jobs)
          .executeTakeFirstOrThrow()
      ).count,
    );
  // The order the four answers arrive in, and the visits of the three schedules when the client's did.
  const answered: string[] = [];
  let visitsWhenAnswered = -1;
  await Promise.all([
    ...jobs.map(async (jobId, index) => {
      const created = await api('POST', '/v1/visit-schedules', dailyFor730Days(jobId));
      assert.equal(created.status, 201, created.text);
      answered.push(`schedule ${index + 1}`);
    }),
    (async () => {
      const response = await context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Next door' } });
      assert.equal(response.status, 201, response.text);
      answered.push('client');
      visitsWhenAnswered = await visitsOfJobs();
    })(),
  ]);
  // Each schedule create makes its first 50 visits in its transaction (§32); on SQLite's one writer the three
  // go one at a time, and a write that arrived meanwhile goes before the next of them.
  assert.ok(answered.indexOf('client') <= 1, `answers in the order ${answered.join(', ')}`);
  assert.ok(visitsWhenAnswered < 150, `the client create was answered after all ${visitsWhenAnswered} visits`);
});

test("the worker takes turns between accounts: a second account waits one batch at a time, not for the first account's schedules", async () => {
  const worker = newWorker();
  try {
    // The busy account's three schedules first, then one of a quiet account.
    const busy: string[] = [];
    for (let index = 0; index < 3; index++) {
      const created = await api('POST', '/v1/visit-schedules', dailyFor730Days(await newJob()));
      assert.equal(created.status, 201, created.text);
      busy.push(created.body.data.id);
    }
    const quiet = await context.account('Quiet account');
    const quietApi = (method: string, url: string, body?: unknown) =>
      context.request(method, url, { key: quiet.key, body });
    const client = await quietApi('POST', '/v1/clients', { name: 'Quiet client' });
    const job = await quietApi('POST', '/v1/jobs', { client_id: client.body.data.id, title: 'Quiet job' });
    const created = await quietApi('POST', '/v1/visit-schedules', dailyFor730Days(job.body.data.id));
    assert.equal(created.status, 201, created.text);
    const quietId = created.body.data.id;

    const turns: Array<{ accountId: string; scheduleId: string; made: number }> = [];
    worker.onTurn = (turn) => turns.push(turn);
    await worker.runPending();
    const quietTurns = turns.flatMap((turn, index) => (turn.scheduleId === quietId ? [index] : []));
    const lastQuiet = quietTurns.at(-1) as number;
    assert.ok(quietTurns.length > 1, 'the quiet schedule took several batches');
    // Until the quiet account's work was done, every other turn was its own.
    for (let index = 1; index <= lastQuiet; index++)
      assert.notEqual(turns[index]?.accountId, turns[index - 1]?.accountId, `turns ${index - 1} and ${index}`);
    assert.ok(lastQuiet < 2 * quietTurns.length, 'the quiet account finished among the first turns');
    // Each batch is at most 50 visits, and every schedule reached its horizon.
    assert.ok(turns.every((turn) => turn.made <= 50));
    for (const id of [...busy, quietId]) assert.deepEqual(await madeOf(id), { count: 500, keys: 500 });
  } finally {
    await worker.stop();
  }
});

test('FREQ=YEARLY;BYDAY=53MO makes visits only on the 53rd Monday of a year that has one (RFC 5545)', async () => {
  const schedule = await createSchedule({
    recurrence: { rrule: 'FREQ=YEARLY;BYDAY=53MO', start_date: '2026-01-01', ...denver },
    duration_minutes: 60,
    horizon_days: 730,
  });
  // 2026, 2027 and 2028 have 52 Mondays: no visit within the horizon (not 2027-01-04, not 2028-01-03).
  assert.deepEqual(await visitsOf(schedule.id), []);
  assert.equal(schedule.next_occurrence_key, null);
  const occurrences = async (from: string, to: string) => {
    const response = await api('GET', `/v1/visit-schedules/${schedule.id}/occurrences?from=${from}&to=${to}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((one: { occurrence_key: string }) => one.occurrence_key);
  };
  assert.deepEqual(await occurrences('2026-12-01T00:00:00Z', '2027-12-01T00:00:00Z'), []);
  assert.deepEqual(await occurrences('2027-12-01T00:00:00Z', '2028-12-01T00:00:00Z'), []);
  // 2029 starts on a Monday: its 53rd Monday is 31 December.
  assert.deepEqual(await occurrences('2029-06-01T00:00:00Z', '2030-06-01T00:00:00Z'), ['2029-12-31T09:00']);
  const mixed = await api('POST', '/v1/visit-schedules', {
    job_id: await newJob(),
    recurrence: { rrule: 'FREQ=YEARLY;BYDAY=MO,53FR', start_date: '2026-01-01', ...denver },
    duration_minutes: 60,
  });
  assert.equal(mixed.status, 422, mixed.text);
  assert.equal(mixed.body.error.details[0].field, 'recurrence.by_weekday');
});

test('a sparse COUNT rule is answered 422 on recurrence.count, whatever its start_date', async () => {
  for (const rrule of [
    'FREQ=DAILY;BYMONTHDAY=31;COUNT=1000',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000',
  ])
    for (const start_date of ['2026-03-01', '2026-03-02']) {
      const response = await api('POST', '/v1/visit-schedules', {
        job_id: await newJob(),
        recurrence: { rrule, start_date, ...denver },
        duration_minutes: 60,
      });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.error.code, 'VALIDATION_ERROR');
      assert.equal(response.body.error.details[0].field, 'recurrence.count', rrule);
    }
});

test('every time lies in the years 0001 to 9999: a schedule reaching beyond is a 422, an unbounded one stops at the end of 9999', async () => {
  const refused = async (recurrence: Record<string, unknown>, field: string) => {
    const response = await api('POST', '/v1/visit-schedules', {
      job_id: await newJob(),
      recurrence: { time: '23:30', timezone: 'UTC', ...recurrence },
      duration_minutes: 60,
    });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error.details[0].field, field, response.text);
  };
  await refused({ rrule: 'FREQ=DAILY;COUNT=10', start_date: '9999-12-25' }, 'recurrence.count');
  // Its last occurrence, 9999-12-31 at 23:30 for an hour, would end in the year 10000.
  await refused({ rrule: 'FREQ=DAILY;UNTIL=99991231', start_date: '9999-12-25' }, 'recurrence.until');
  await refused({ rrule: 'FREQ=DAILY', start_date: '0000-12-25' }, 'recurrence.start_date');
  await refused(
    { rrule: 'FREQ=DAILY', start_date: '0001-01-01', time: '05:00', timezone: 'Asia/Tokyo' },
    'recurrence.start_date',
  );

  const open = await createSchedule({
    recurrence: { rrule: 'FREQ=DAILY', start_date: '9999-12-25', time: '23:30', timezone: 'UTC' },
    duration_minutes: 60,
  });
  const response = await api(
    'GET',
    `/v1/visit-schedules/${open.id}/occurrences?from=9999-12-29T00:00:00Z&to=9999-12-31T23:59:59.999Z`,
  );
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(
    response.body.data.map((one: { occurrence_key: string; end_at: string }) => [one.occurrence_key, one.end_at]),
    [
      ['9999-12-29T23:30', '9999-12-30T00:30:00.000Z'],
      ['9999-12-30T23:30', '9999-12-31T00:30:00.000Z'],
    ],
  );
  const calendar = await api(
    'GET',
    `/v1/visits?schedule_id=${open.id}&job_id=${open.job_id}&from_date=9999-12-29&to_date=9999-12-31&timezone=UTC&include_projected=true`,
  );
  assert.equal(calendar.status, 200, calendar.text);
  assert.deepEqual(
    calendar.body.data.map((one: { occurrence_key: string }) => one.occurrence_key),
    ['9999-12-28T23:30', '9999-12-29T23:30', '9999-12-30T23:30'], // the first overlaps 29 December
  );
  const pause = await api('POST', `/v1/visit-schedules/${open.id}/pause`, { from: '0000-12-25' });
  assert.equal(pause.status, 422, pause.text);
  assert.equal(pause.body.error.details[0].field, 'from');
});
