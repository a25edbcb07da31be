// Availability's kept copy of projected occurrences (docs/architecture.md "Kept copies", contract §28, §18): the
// same day is asked again after every change that moves a projected occurrence — an edit, a skip, a pause, a
// split to another zone and time, the end, a visit made, moved and canceled, a write by hand — and across the
// daylight-saving changes; each answer is the one the change calls for, never the copy's. And the copy answers
// exactly what the calendar's projection answers, over windows cut anywhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../src/core/deps.js';
import { projectedCommitments, projectOccurrences } from '../src/modules/visit-schedules/index.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
let context: TestContext;
let key: string;
let accountId: string;
let clientId: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key, accountId } = await context.account());
  clientId = (await api('POST', '/v1/clients', { name: 'Kept Co' })).body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

const ALL_WEEK = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'].map((day) => ({ day, start: '00:00', end: '24:00' }));

async function member(timezone = 'America/Denver'): Promise<string> {
  const response = await api('POST', '/v1/team-members', { name: 'Crew member', timezone, working_hours: ALL_WEEK });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

async function job(): Promise<string> {
  const response = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Weekly service' });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

async function schedule(body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await api('POST', '/v1/visit-schedules', { horizon_days: 7, duration_minutes: 60, ...body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

/** A weekly schedule in Denver naming one member, 60 minutes unless `more` says otherwise. */
async function weekly(memberId: string, day: string, startDate: string, time: string, more = {}) {
  return schedule({
    job_id: await job(),
    recurrence: { rrule: `FREQ=WEEKLY;BYDAY=${day}`, start_date: startDate, time, timezone: 'America/Denver' },
    template: { assignee_ids: [memberId] },
    ...more,
  });
}

/** The local times of a day in `zone` at which the member is busy: the 30-minute starts not offered. */
async function busy(memberId: string, date: string, zone = 'America/Denver'): Promise<string[]> {
  const response = await api(
    'GET',
    `/v1/availability?duration_minutes=30&step_minutes=30&from_date=${date}&to_date=${date}&timezone=${zone}&team_member_id=${memberId}&limit=100`,
  );
  assert.equal(response.status, 200, response.text);
  const free = new Set((response.body.data as Array<{ local_start: string }>).map((slot) => slot.local_start));
  const all: string[] = [];
  for (let minutes = 0; minutes < 1440; minutes += 30) {
    const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    if (!free.has(`${date}T${time}`)) all.push(time);
  }
  return all;
}

async function ok(method: string, url: string, body?: unknown) {
  const response = await api(method, url, body);
  assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.text}`);
  return response.body?.data;
}

test('each change is seen at the next query of the same day: edit, skip, pause, by hand, split to another zone, end', async () => {
  const id = await member();
  const tuesdays = await weekly(id, 'TU', '2030-03-05', '14:00');
  // Tuesday 12 March is past the horizon (materialised through the 8th): only projected.
  assert.equal(tuesdays.materialized_through, '2030-03-08');
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30']);
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30']);

  await ok('PUT', `/v1/visit-schedules/${tuesdays.id}`, { duration_minutes: 120 });
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30', '15:00', '15:30']);

  await ok('POST', `/v1/visit-schedules/${tuesdays.id}/skip`, { occurrence_key: '2030-03-12T14:00' });
  assert.deepEqual(await busy(id, '2030-03-12'), []);
  await ok('POST', `/v1/visit-schedules/${tuesdays.id}/unskip`, { occurrence_key: '2030-03-12T14:00' });
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30', '15:00', '15:30']);

  await ok('POST', `/v1/visit-schedules/${tuesdays.id}/pause`, { from: '2030-03-10', until: '2030-03-16' });
  assert.deepEqual(await busy(id, '2030-03-12'), []);
  assert.deepEqual(await busy(id, '2030-03-19'), ['14:00', '14:30', '15:00', '15:30']);
  await ok('POST', `/v1/visit-schedules/${tuesdays.id}/resume`, {});
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30', '15:00', '15:30']);

  // A write by hand (or by another process): the copy follows the row as read, not BMS's own writes.
  await sql`update visit_schedules set paused_from = ${'2030-03-12'}, paused_until = ${'2030-03-12'} where id = ${tuesdays.id}`.execute(
    context.database.db,
  );
  assert.deepEqual(await busy(id, '2030-03-12'), []);
  await sql`update visit_schedules set paused_from = null, paused_until = null where id = ${tuesdays.id}`.execute(
    context.database.db,
  );
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30', '15:00', '15:30']);

  // Split at the 19th into another zone and time: 10:00 in New York is 08:00 in Denver.
  assert.deepEqual(await busy(id, '2030-03-19'), ['14:00', '14:30', '15:00', '15:30']);
  const { next } = await ok('POST', `/v1/visit-schedules/${tuesdays.id}/split`, {
    from_occurrence_key: '2030-03-19T14:00',
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU', time: '10:00', timezone: 'America/New_York' },
    duration_minutes: 60,
  });
  assert.deepEqual(await busy(id, '2030-03-19'), ['08:00', '08:30']);
  assert.deepEqual(await busy(id, '2030-03-12'), ['14:00', '14:30', '15:00', '15:30']);

  // The template's assignees: another member takes the new schedule's occurrences.
  const other = await member();
  await ok('PUT', `/v1/visit-schedules/${next.id}`, { template: { assignee_ids: [other] } });
  assert.deepEqual(await busy(id, '2030-03-19'), []);
  assert.deepEqual(await busy(other, '2030-03-19'), ['08:00', '08:30']);

  await ok('DELETE', `/v1/visit-schedules/${next.id}`);
  assert.deepEqual(await busy(other, '2030-03-19'), []);
  await ok('DELETE', `/v1/visit-schedules/${tuesdays.id}`);
  assert.deepEqual(await busy(id, '2030-03-12'), []);
});

test('an occurrence that becomes a visit counts as that visit: moved, then canceled', async () => {
  const id = await member();
  const wednesdays = await weekly(id, 'WE', '2030-03-06', '09:00');
  assert.deepEqual(await busy(id, '2030-03-13'), ['09:00', '09:30']);
  // A longer horizon makes the visits of the 13th and the 20th (the rule's fields, and so the copy, are unchanged).
  await ok('PUT', `/v1/visit-schedules/${wednesdays.id}`, { horizon_days: 21 });
  const visits = (await api('GET', `/v1/visits?schedule_id=${wednesdays.id}&limit=100`)).body.data as Array<
    Record<string, any>
  >;
  const visit = visits.find((one) => one.occurrence_key === '2030-03-13T09:00');
  assert.ok(visit, 'the visit of the 13th is made');
  assert.deepEqual(await busy(id, '2030-03-13'), ['09:00', '09:30']);
  await ok('PUT', `/v1/visits/${visit.id}`, { local_start: '2030-03-13T16:00', duration_minutes: 60 });
  assert.deepEqual(await busy(id, '2030-03-13'), ['16:00', '16:30']);
  await ok('PUT', `/v1/visits/${visit.id}`, { status: 'canceled' });
  assert.deepEqual(await busy(id, '2030-03-13'), []);
  // Deleting a made visit skips its occurrence (its key joins the exdates, without a change of the row).
  const of20th = (await api('GET', `/v1/visits?schedule_id=${wednesdays.id}&limit=100`)).body.data.find(
    (one: Record<string, any>) => one.occurrence_key === '2030-03-20T09:00',
  );
  assert.ok(of20th, 'the visit of the 20th is made');
  assert.deepEqual(await busy(id, '2030-03-20'), ['09:00', '09:30']);
  await ok('DELETE', `/v1/visits/${of20th.id}`);
  assert.deepEqual(await busy(id, '2030-03-20'), []);
  assert.deepEqual(await busy(id, '2030-03-27'), ['09:00', '09:30']);
});

test('across the daylight-saving changes: 09:00 and a time in the spring gap, each week asked twice', async () => {
  const id = await member();
  await weekly(id, 'SU', '2030-03-03', '09:00');
  await weekly(id, 'SU', '2030-03-03', '02:30', { duration_minutes: 30 });
  // 2030-03-10: 02:00 and 02:30 are no starts (the gap); the 02:30 occurrence moves forward by it, to 03:30 MDT.
  for (const [date, expected] of [
    ['2030-03-03', ['02:30', '09:00', '09:30']],
    ['2030-03-10', ['02:00', '02:30', '03:30', '09:00', '09:30']],
    ['2030-03-17', ['02:30', '09:00', '09:30']],
    ['2030-10-27', ['02:30', '09:00', '09:30']],
    ['2030-11-03', ['02:30', '09:00', '09:30']],
    ['2030-11-10', ['02:30', '09:00', '09:30']],
  ] as const)
    for (let asked = 0; asked < 2; asked++) assert.deepEqual(await busy(id, date), expected, `${date}, asked ${asked}`);
  // The same instants seen from another zone: 09:00 MDT is 17:00 in Berlin before 2030-10-27, 16:00 after it (CET),
  // and 17:00 again once Denver is on MST (2030-11-03).
  const berlin = (date: string) => busy(id, date, 'Europe/Berlin');
  assert.ok((await berlin('2030-10-20')).includes('17:00'));
  assert.ok((await berlin('2030-10-27')).includes('16:00'));
  assert.ok((await berlin('2030-11-03')).includes('17:00'));
});

test('the kept copy answers what the calendar projects, for windows cut anywhere, asked cold and warm', async () => {
  const a = await member('Europe/Berlin');
  const b = await member('Australia/Lord_Howe');
  const rules = [
    { rrule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', time: '08:15', timezone: 'Europe/Berlin' },
    { rrule: 'FREQ=DAILY;INTERVAL=2', time: '01:45', timezone: 'Australia/Lord_Howe' },
    { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', time: '23:30', timezone: 'America/Denver', month_day_overflow: 'last_day' },
    { rrule: 'FREQ=WEEKLY;BYDAY=SA', time: '02:30', timezone: 'America/Denver' },
  ];
  for (const [index, recurrence] of rules.entries())
    await schedule({
      job_id: await job(),
      recurrence: { start_date: '2030-03-02', ...recurrence },
      duration_minutes: 30 + index * 200,
      template: { assignee_ids: index % 2 === 0 ? [a] : [a, b] },
    });
  const allDay = await schedule({
    job_id: await job(),
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TH', start_date: '2030-03-07', time: null, timezone: 'Asia/Kathmandu' },
    duration_minutes: undefined,
    duration_days: 2,
    template: { assignee_ids: [b] },
  });
  await ok('POST', `/v1/visit-schedules/${allDay.id}/pause`, { from: '2030-04-01', until: '2030-04-20' });
  await ok('POST', `/v1/visit-schedules/${allDay.id}/skip`, { occurrence_key: '2030-05-02' });

  const ctx = context.systemContext(accountId);
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const start = Date.parse('2030-03-01T00:00:00.000Z');
  for (let round = 0; round < 40; round++) {
    const from = start + Math.floor(random() * 300 * 24 * 60) * 60_000;
    const to = from + Math.ceil(random() * 33 * 24 * 60) * 60_000;
    const members = round % 3 === 0 ? [a] : round % 3 === 1 ? [b] : [a, b];
    const projected = await projectOccurrences(
      ctx,
      { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      { assignee_ids: members },
      { limit: 20_000 },
    );
    const expected = projected.map((item) => [
      item.schedule_id,
      item.occurrence_key,
      item.start_at,
      item.end_at,
      item.assignee_ids.join(),
    ]);
    for (let asked = 0; asked < 2; asked++) {
      // Asked again without places (no travel): the same occurrences, none with a property.
      const found = await projectedCommitments(ctx, members, { from, to }, { limit: 20_000, places: asked === 0 });
      if (asked === 1)
        assert.deepEqual(
          found.filter((item) => item.property_id !== null),
          [],
        );
      const kept = found.map((item) => [
        item.schedule_id,
        item.occurrence_key,
        new Date(item.start).toISOString(),
        new Date(item.end).toISOString(),
        item.assignee_ids.join(),
      ]);
      assert.deepEqual(kept, expected, `window ${new Date(from).toISOString()}–${new Date(to).toISOString()}`);
    }
  }
});
