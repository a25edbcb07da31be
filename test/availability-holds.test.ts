// Holds and booking (contract §28, §32): a hold is bound to its key (another key sees it busy, cannot read it,
// and cannot book it: 422 on hold_id), the reasons of a 409, notice, ten active holds per key, release, booking
// a visit from a hold (its instants, zone and crew; hold_id on the visit; visit.created), and spent, released or
// expired holds refused with 409 INVALID_STATE. Races: of 20 concurrent holds, or 20 concurrent bookings of one
// hold, exactly one succeeds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
let context: TestContext;
let accountId: string;
let key: string;
let otherKey: string;
let clientId: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ accountId, key } = await context.account());
  ({ key: otherKey } = await context.key(accountId, ['availability:read', 'availability:write', 'visits:write']));
  const client = await api('POST', '/v1/clients', { name: 'Hold Co' });
  clientId = client.body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown, as = key) => context.request(method, url, { key: as, body });

const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const NINE_TO_FIVE = WEEKDAYS.map((day) => ({ day, start: '09:00', end: '17:00' }));

async function member(name = 'Crew member', body: Record<string, unknown> = {}): Promise<string> {
  const response = await api('POST', '/v1/team-members', {
    name,
    timezone: 'UTC',
    working_hours: NINE_TO_FIVE,
    bookable: false,
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

async function newJob(): Promise<string> {
  const job = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Repair' });
  assert.equal(job.status, 201, job.text);
  return job.body.data.id;
}

const hold = (memberIds: string[], startAt: string, as = key, extra: Record<string, unknown> = {}) =>
  api(
    'POST',
    '/v1/availability/holds',
    { start_at: startAt, duration_minutes: 60, team_member_ids: memberIds, ...extra },
    as,
  );

test('a hold: 201 with its instants, bound to its key: another key sees the time busy, cannot read it and cannot book it', async () => {
  const id = await member();
  const held = await hold([id], '2030-03-04T10:00:00-00:00', key, { timezone: 'America/Denver', metadata: { a: 'b' } });
  assert.equal(held.status, 201, held.text);
  const data = held.body.data;
  assert.equal(data.object, 'availability_hold');
  assert.equal(data.start_at, '2030-03-04T10:00:00.000Z');
  assert.equal(data.end_at, '2030-03-04T11:00:00.000Z');
  assert.equal(data.local_start, '2030-03-04T03:00');
  assert.equal(data.timezone, 'America/Denver');
  assert.equal(data.duration_minutes, 60);
  assert.deepEqual(data.team_member_ids, [id]);
  assert.equal(data.expires_at, '2030-03-01T12:10:00.000Z');
  assert.equal(data.active, true);
  assert.equal(data.visit_id, null);
  assert.equal(data.released_at, null);
  assert.equal(held.headers.location, `/v1/availability/holds/${data.id}`);
  // The key's own.
  assert.equal((await api('GET', `/v1/availability/holds/${data.id}`)).status, 200);
  assert.deepEqual(
    (await api('GET', '/v1/availability/holds')).body.data.map((one: any) => one.id),
    [data.id],
  );
  // Another key: 404, not listed, the time busy, and a 422 on hold_id when it books it.
  assert.equal((await api('GET', `/v1/availability/holds/${data.id}`, undefined, otherKey)).status, 404);
  assert.equal((await api('DELETE', `/v1/availability/holds/${data.id}`, undefined, otherKey)).status, 404);
  assert.deepEqual((await api('GET', '/v1/availability/holds', undefined, otherKey)).body.data, []);
  const seen = await api(
    'GET',
    `/v1/availability?duration_minutes=60&from=2030-03-04T09:00:00Z&to=2030-03-04T11:30:00Z&team_member_id=${id}`,
    undefined,
    otherKey,
  );
  assert.deepEqual(
    seen.body.data.map((slot: any) => slot.start_at),
    ['2030-03-04T09:00:00.000Z', '2030-03-04T11:00:00.000Z'],
  );
  const second = await hold([id], '2030-03-04T10:30:00Z', otherKey);
  assert.equal(second.status, 409, second.text);
  assert.equal(second.body.error.code, 'CONFLICT');
  assert.deepEqual(
    second.body.error.details.map((detail: any) => [detail.field, detail.team_member_id, detail.reason]),
    [['team_member_ids', id, 'hold']],
  );
  const stolen = await api('POST', '/v1/visits', { job_id: await newJob(), hold_id: data.id }, otherKey);
  assert.equal(stolen.status, 422, stolen.text);
  assert.equal(stolen.body.error.details[0].field, 'hold_id');
  assert.equal((await api('DELETE', `/v1/availability/holds/${data.id}`)).status, 200);
});

test('409 reasons: visit (with its id), time_off, outside_hours, inactive; a start sooner than the notice is 422 on start_at', async () => {
  const busy = await member('Busy');
  const visit = await api('POST', '/v1/visits', {
    job_id: await newJob(),
    start_at: '2030-03-05T10:00:00Z',
    end_at: '2030-03-05T11:00:00Z',
    assignee_ids: [busy],
  });
  assert.equal(visit.status, 201, visit.text);
  const resting = await member('Resting');
  await api('POST', '/v1/availability-exceptions', {
    team_member_id: resting,
    start_at: '2030-03-05T08:00:00Z',
    end_at: '2030-03-05T13:00:00Z',
  });
  const late = await member('Late', { working_hours: [{ day: 'TU', start: '12:00', end: '20:00' }] });
  const gone = await member('Gone');
  await api('PUT', `/v1/team-members/${gone}`, { active: false });
  const refused = await hold([busy, resting, late, gone], '2030-03-05T10:30:00Z');
  assert.equal(refused.status, 409, refused.text);
  assert.deepEqual(
    refused.body.error.details.map((detail: any) => [detail.team_member_id, detail.reason, detail.visit_id]),
    [
      [busy, 'visit', visit.body.data.id],
      [resting, 'time_off', undefined],
      [late, 'outside_hours', undefined],
      [gone, 'inactive', undefined],
    ],
  );
  const soon = await hold([busy], '2030-03-01T12:30:00Z');
  assert.equal(soon.status, 422);
  assert.equal(soon.body.error.details[0].field, 'start_at');
});

test('ten active holds per key: the 11th is 409 INVALID_STATE; a released one frees its place and its time', async () => {
  const id = await member('Ten');
  const ids: string[] = [];
  for (let day = 0; day < 10; day++) {
    const response = await hold([id], `2030-03-${String(11 + day).padStart(2, '0')}T09:00:00Z`);
    assert.equal(response.status, 201, response.text);
    ids.push(response.body.data.id);
  }
  const eleventh = await hold([id], '2030-03-25T09:00:00Z');
  assert.equal(eleventh.status, 409);
  assert.equal(eleventh.body.error.code, 'INVALID_STATE');
  const released = await api('DELETE', `/v1/availability/holds/${ids[0]}`);
  assert.equal(released.status, 200, released.text);
  assert.equal(released.body.data.active, false);
  assert.equal(released.body.data.released_at, '2030-03-01T12:00:00.000Z');
  const again = await hold([id], '2030-03-11T09:00:00Z');
  assert.equal(again.status, 201, again.text);
  for (const one of [...ids.slice(1), again.body.data.id]) await api('DELETE', `/v1/availability/holds/${one}`);
});

test('booking from a hold: the visit takes its instants, zone and crew, carries hold_id; spent, released and expired holds are 409 INVALID_STATE', async () => {
  const a = await member('Crew A');
  const b = await member('Crew B');
  const held = await hold([b, a], '2030-03-06T13:00:00Z', key, { timezone: 'America/Denver' });
  assert.equal(held.status, 201, held.text);
  const jobId = await newJob();
  const beside = await api('POST', '/v1/visits', {
    job_id: jobId,
    hold_id: held.body.data.id,
    start_at: '2030-03-06T13:00:00Z',
    duration_minutes: 60,
    assignee_ids: [a],
  });
  assert.equal(beside.status, 422);
  assert.deepEqual(beside.body.error.details.map((detail: any) => detail.field).sort(), [
    'assignee_ids',
    'duration_minutes',
    'start_at',
  ]);
  const booked = await api('POST', '/v1/visits', { job_id: jobId, hold_id: held.body.data.id, title: 'Booked' });
  assert.equal(booked.status, 201, booked.text);
  const visit = booked.body.data;
  assert.equal(visit.status, 'scheduled');
  assert.equal(visit.start_at, '2030-03-06T13:00:00.000Z');
  assert.equal(visit.end_at, '2030-03-06T14:00:00.000Z');
  assert.equal(visit.timezone, 'America/Denver');
  assert.equal(visit.local_start, '2030-03-06T06:00');
  assert.deepEqual(visit.assignee_ids, [b, a]);
  assert.equal(visit.hold_id, held.body.data.id);
  assert.equal(visit.title, 'Booked');
  const after = await api('GET', `/v1/availability/holds/${held.body.data.id}`);
  assert.equal(after.body.data.active, false);
  assert.equal(after.body.data.visit_id, visit.id);
  const events = await api('GET', '/v1/events?type=visit.created&limit=5');
  assert.equal(events.body.data[0].data.object.id, visit.id);
  assert.equal(events.body.data[0].data.object.hold_id, held.body.data.id);
  // Spent: booking again is 409 INVALID_STATE, releasing too.
  const twice = await api('POST', '/v1/visits', { job_id: jobId, hold_id: held.body.data.id });
  assert.equal(twice.status, 409);
  assert.equal(twice.body.error.code, 'INVALID_STATE');
  assert.equal((await api('DELETE', `/v1/availability/holds/${held.body.data.id}`)).body.error.code, 'INVALID_STATE');
  // Released.
  const released = await hold([a], '2030-03-07T09:00:00Z');
  await api('DELETE', `/v1/availability/holds/${released.body.data.id}`);
  const fromReleased = await api('POST', '/v1/visits', { job_id: jobId, hold_id: released.body.data.id });
  assert.equal(fromReleased.status, 409);
  assert.equal(fromReleased.body.error.code, 'INVALID_STATE');
  // Expired: ten minutes and a second later.
  const expiring = await hold([a], '2030-03-07T11:00:00Z', key, { expires_in_seconds: 600 });
  clock.advance(601_000);
  try {
    const expired = await api('POST', '/v1/visits', { job_id: jobId, hold_id: expiring.body.data.id });
    assert.equal(expired.status, 409, expired.text);
    assert.equal(expired.body.error.code, 'INVALID_STATE');
    assert.equal((await api('GET', `/v1/availability/holds/${expiring.body.data.id}`)).body.data.active, false);
  } finally {
    clock.set(new Date('2030-03-01T12:00:00.000Z'));
    await api('DELETE', `/v1/availability/holds/${expiring.body.data.id}`);
  }
  // A direct visit took the held time meanwhile: 409 CONFLICT naming the visit (direct writes ignore holds).
  const taken = await hold([a], '2030-03-08T09:00:00Z');
  const direct = await api('POST', '/v1/visits', {
    job_id: jobId,
    start_at: '2030-03-08T09:30:00Z',
    duration_minutes: 30,
    assignee_ids: [a],
  });
  assert.equal(direct.status, 201, direct.text);
  const lost = await api('POST', '/v1/visits', { job_id: jobId, hold_id: taken.body.data.id });
  assert.equal(lost.status, 409, lost.text);
  assert.equal(lost.body.error.code, 'CONFLICT');
  assert.equal(lost.body.error.details[0].visit_id, direct.body.data.id);
  await api('DELETE', `/v1/availability/holds/${taken.body.data.id}`);
});

test('POST /v1/jobs books its visits from holds too: visits[i].hold_id, with the fields the hold owns refused there', async () => {
  const id = await member('Job crew');
  const held = await hold([id], '2030-03-07T15:00:00Z');
  assert.equal(held.status, 201, held.text);
  const refused = await api('POST', '/v1/jobs', {
    client_id: clientId,
    title: 'Booked job',
    visits: [{ hold_id: held.body.data.id, assignee_ids: [id] }],
  });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.error.details[0].field, 'visits[0].assignee_ids');
  const made = await api('POST', '/v1/jobs', {
    client_id: clientId,
    title: 'Booked job',
    visits: [{ hold_id: held.body.data.id, title: 'First visit' }],
  });
  assert.equal(made.status, 201, made.text);
  const visits = await api('GET', `/v1/visits?job_id=${made.body.data.id}`);
  assert.deepEqual(
    visits.body.data.map((visit: any) => [visit.start_at, visit.assignee_ids, visit.hold_id]),
    [['2030-03-07T15:00:00.000Z', [id], held.body.data.id]],
  );
  assert.equal((await api('GET', `/v1/availability/holds/${held.body.data.id}`)).body.data.active, false);
});

test('a hold for another property than the job’s is 422 on hold_id', async () => {
  const id = await member('Placed');
  const property = await api('POST', '/v1/properties', {
    client_id: clientId,
    address: { line1: '1 Main Street', country: 'US' },
  });
  const held = await hold([id], '2030-03-09T09:00:00Z', key, { property_id: property.body.data.id });
  assert.equal(held.status, 201, held.text);
  const refused = await api('POST', '/v1/visits', { job_id: await newJob(), hold_id: held.body.data.id });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.error.details[0].field, 'hold_id');
  await api('DELETE', `/v1/availability/holds/${held.body.data.id}`);
});

test('the crew: unnamed, the least committed members that local day first, then by id; named, in the order named', async () => {
  await api('PUT', '/v1/account', { booking: { min_notice_minutes: 0 } });
  // Another account, so that only these members are bookable.
  const other = await context.account('Crew Co');
  const call = (method: string, url: string, body?: unknown) => context.request(method, url, { key: other.key, body });
  const make = async (name: string) =>
    (await call('POST', '/v1/team-members', { name, timezone: 'UTC', working_hours: NINE_TO_FIVE })).body.data
      .id as string;
  const ids = [await make('One'), await make('Two'), await make('Three')];
  const [low, mid, high] = [...ids].sort();
  const client = await call('POST', '/v1/clients', { name: 'C' });
  const job = await call('POST', '/v1/jobs', { client_id: client.body.data.id, title: 'J' });
  await call('POST', '/v1/visits', {
    job_id: job.body.data.id,
    start_at: '2030-03-12T15:00:00Z',
    end_at: '2030-03-12T16:00:00Z',
    assignee_ids: [low],
  });
  const unnamed = await call(
    'GET',
    '/v1/availability?duration_minutes=60&from=2030-03-12T09:00:00Z&to=2030-03-12T10:00:00Z&crew_size=2',
  );
  assert.equal(unnamed.status, 200, unnamed.text);
  assert.deepEqual(unnamed.body.data[0].team_member_ids, [mid, high]);
  assert.deepEqual(unnamed.body.data[0].available_team_member_ids, [mid, high, low]);
  const named = await call(
    'GET',
    `/v1/availability?duration_minutes=60&from=2030-03-12T09:00:00Z&to=2030-03-12T10:00:00Z&crew_size=2&team_member_id=${high},${low}`,
  );
  assert.deepEqual(named.body.data[0].team_member_ids, [high, low]);
  // A visit from the evening before counts its hours on the day it runs into: on 14 March, 8 hours for the
  // middle id (20:00 the 13th to 08:00), 1 hour for the lowest, none for the highest.
  for (const [start_at, end_at, member] of [
    ['2030-03-13T20:00:00Z', '2030-03-14T08:00:00Z', mid],
    ['2030-03-14T15:00:00Z', '2030-03-14T16:00:00Z', low],
  ] as const) {
    const made = await call('POST', '/v1/visits', {
      job_id: job.body.data.id,
      start_at,
      end_at,
      assignee_ids: [member],
    });
    assert.equal(made.status, 201, made.text);
  }
  const overnight = await call(
    'GET',
    '/v1/availability?duration_minutes=60&from=2030-03-14T09:00:00Z&to=2030-03-14T10:00:00Z&crew_size=2&timezone=UTC',
  );
  assert.equal(overnight.status, 200, overnight.text);
  assert.deepEqual(overnight.body.data[0].available_team_member_ids, [high, low, mid]);
  // Fewer free than the crew: no slot.
  const tooMany = await call(
    'GET',
    '/v1/availability?duration_minutes=60&from=2030-03-12T15:00:00Z&to=2030-03-12T16:00:00Z&crew_size=3',
  );
  assert.deepEqual(tooMany.body.data, []);
  await api('PUT', '/v1/account', { booking: { min_notice_minutes: 60 } });
});

test('20 concurrent holds of one member’s slot by 20 keys: exactly one is made, the others are 409', async () => {
  const id = await member('Raced');
  const keys = await Promise.all(
    Array.from({ length: 20 }, async () => (await context.key(accountId, ['availability:write'])).key),
  );
  const answers = await Promise.all(keys.map((one) => hold([id], '2030-03-14T10:00:00Z', one)));
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, ...Array.from({ length: 19 }, () => 409)]);
});

test('20 concurrent bookings of one hold: exactly one visit is made, the others are 409 INVALID_STATE', async () => {
  const id = await member('Booked once');
  const held = await hold([id], '2030-03-15T10:00:00Z');
  const jobId = await newJob();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => api('POST', '/v1/visits', { job_id: jobId, hold_id: held.body.data.id })),
  );
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, ...Array.from({ length: 19 }, () => 409)]);
  const visits = await api('GET', `/v1/visits?job_id=${jobId}`);
  assert.equal(visits.body.data.length, 1);
});
