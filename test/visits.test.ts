// Visits (contract section 17 and the settled readings of section 21): the three ways to write a time, the
// status table and its stamps, is_late, assignees (replace, add, remove; inactive members; concurrent
// additions), conflicts and on_conflict=reject, the event each kind of change records, and what a visit does
// to its job (visits_summary, the scheduled_* mirrors, visits on job create, no visit on a closed job).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createVisitsForJob, updateVisit } from '../src/modules/visits/index.js';
import { createTestContext, type TestContext } from './helpers/context.js';

/** Contract §17 and §21, literally: the moves `PUT {status}` may make (time moves unscheduled ⇄ scheduled). */
const MOVES: Record<string, string[]> = {
  unscheduled: ['canceled'],
  scheduled: ['en_route', 'in_progress', 'completed', 'canceled'],
  en_route: ['in_progress', 'canceled'],
  in_progress: ['completed', 'canceled'],
  completed: ['in_progress'],
  canceled: ['scheduled'],
};
const STATUSES = ['unscheduled', 'scheduled', 'en_route', 'in_progress', 'completed', 'canceled'];
/** The event each move records (both reopen moves are visit.reopened). */
const MOVE_EVENTS: Record<string, string> = {
  'scheduled>en_route': 'visit.en_route',
  'scheduled>in_progress': 'visit.started',
  'scheduled>completed': 'visit.completed',
  'scheduled>canceled': 'visit.canceled',
  'unscheduled>canceled': 'visit.canceled',
  'en_route>in_progress': 'visit.started',
  'en_route>canceled': 'visit.canceled',
  'in_progress>completed': 'visit.completed',
  'in_progress>canceled': 'visit.canceled',
  'completed>in_progress': 'visit.reopened',
  'canceled>scheduled': 'visit.reopened',
};

const clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
let context: TestContext;
let key: string;
let accountId: string;
let clientId: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key, accountId } = await context.account());
  const client = await api('POST', '/v1/clients', { name: 'Ada Client' });
  clientId = client.body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

async function newJob(body: Record<string, unknown> = {}) {
  const response = await api('POST', '/v1/jobs', { client_id: clientId, title: 'Install', ...body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}
async function newVisit(body: Record<string, unknown>, status = 201) {
  const response = await api('POST', '/v1/visits', body);
  assert.equal(response.status, status, response.text);
  return response.body.data;
}
async function newMember(name: string, active = true) {
  const response = await api('POST', '/v1/team-members', { name, active });
  assert.equal(response.status, 201, response.text);
  return response.body.data.id as string;
}
async function eventsOf(id: string): Promise<Array<{ type: string; data: any }>> {
  const response = await api('GET', `/v1/events?resource_id=${id}&limit=100`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.reverse();
}

test('a visit written with local time: instants in UTC, mirrors in its zone, the job’s title, one visit.created', async () => {
  const job = await newJob();
  const visit = await newVisit({
    job_id: job.id,
    local_start: '2026-03-09T09:00',
    duration_minutes: 90,
    timezone: 'US/Mountain',
  });
  assert.equal(visit.object, 'visit');
  assert.equal(visit.status, 'scheduled');
  assert.equal(visit.timezone, 'America/Denver');
  assert.equal(visit.start_at, '2026-03-09T15:00:00.000Z');
  assert.equal(visit.end_at, '2026-03-09T16:30:00.000Z');
  assert.equal(visit.local_start, '2026-03-09T09:00');
  assert.equal(visit.local_end, '2026-03-09T10:30');
  assert.equal(visit.duration_minutes, 90);
  assert.equal(visit.title, 'Install');
  assert.equal(visit.client_id, clientId);
  assert.deepEqual(visit.assignee_ids, []);
  assert.deepEqual(visit.conflicts, []);
  assert.equal(visit.is_late, false);
  assert.deepEqual(
    (await eventsOf(visit.id)).map((event) => event.type),
    ['visit.created'],
  );
  const got = await api('GET', `/v1/visits/${visit.id}`);
  assert.deepEqual(got.body.data, visit);
});

test('the three forms: an instant with any offset; whole local days; exactly one form, else 422 naming the fields', async () => {
  const job = await newJob();
  const instant = await newVisit({
    job_id: job.id,
    start_at: '2026-03-10T09:00:00-07:00',
    end_at: '2026-03-10T17:00:00Z',
  });
  assert.equal(instant.start_at, '2026-03-10T16:00:00.000Z');
  assert.equal(instant.timezone, 'UTC', "the account's zone by default");
  assert.equal(instant.duration_minutes, 60);
  const days = await newVisit({
    job_id: job.id,
    all_day: true,
    start_date: '2026-03-10',
    end_date: '2026-03-12',
    timezone: 'Europe/Berlin',
  });
  assert.equal(days.start_at, '2026-03-09T23:00:00.000Z');
  assert.equal(days.end_at, '2026-03-12T23:00:00.000Z');
  assert.equal(days.start_date, '2026-03-10');
  assert.equal(days.end_date, '2026-03-12');
  assert.equal(days.all_day, true);
  assert.equal(days.local_start, '2026-03-10T00:00');
  const oneDay = await newVisit({ job_id: job.id, all_day: true, start_date: '2026-03-10' });
  assert.equal(oneDay.end_date, '2026-03-10', 'end_date defaults to the same day');

  const refused: Array<[Record<string, unknown>, string[]]> = [
    [
      { start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T10:00:00Z', duration_minutes: 60 },
      ['end_at', 'duration_minutes'],
    ],
    [{ start_at: '2026-03-10T09:00:00Z', local_start: '2026-03-10T09:00', duration_minutes: 60 }, ['local_start']],
    [{ start_at: '2026-03-10T09:00:00Z' }, ['end_at']],
    [{ local_end: '2026-03-10T09:00' }, ['local_end']],
    [{ all_day: true }, ['start_date']],
    [{ all_day: true, start_date: '2026-03-10', end_date: '2026-04-11' }, ['end_date']],
    [{ all_day: true, start_date: '2026-03-10', end_date: '2026-03-09' }, ['end_date']],
    [{ start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T09:00:00Z' }, ['end_at']],
    [{ start_at: '2026-03-10T09:00:00Z', end_at: '2026-04-11T09:00:01Z' }, ['end_at']],
    [{ local_start: '2026-03-10T09:00', duration_minutes: 60, timezone: 'MST' }, ['timezone']],
    [{ status: 'scheduled' }, ['status']],
    [{ start_at: '2026-03-10T09:00:00', duration_minutes: 60 }, ['start_at']],
    [{ local_start: '2026-02-30T09:00', duration_minutes: 60 }, ['local_start']],
  ];
  for (const [body, fields] of refused) {
    const response = await api('POST', '/v1/visits', { job_id: job.id, ...body });
    assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
    assert.deepEqual(
      response.body.error.details.map((detail: { field: string }) => detail.field).sort(),
      [...fields].sort(),
      JSON.stringify(body),
    );
  }
  const noJob = await api('POST', '/v1/visits', { job_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' });
  assert.equal(noJob.status, 422);
  assert.equal(noJob.body.error.details[0].field, 'job_id');
});

/** The local wall-clock times 09:00 every day from `first` for `days` days, in `zone`. */
async function dailyAtNine(jobId: string, zone: string, first: string, days: number) {
  const visits = [];
  for (let day = 0; day < days; day++) {
    const date = new Date(`${first}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + day);
    const local = `${date.toISOString().slice(0, 10)}T09:00`;
    visits.push(await newVisit({ job_id: jobId, local_start: local, duration_minutes: 60, timezone: zone }));
  }
  return visits;
}

test('09:00 local every day across both daylight-saving changes stays 09:00 (America/Denver)', async () => {
  const job = await newJob();
  const spring = await dailyAtNine(job.id, 'America/Denver', '2026-03-07', 3);
  assert.deepEqual(
    spring.map((visit) => [visit.local_start, visit.start_at]),
    [
      ['2026-03-07T09:00', '2026-03-07T16:00:00.000Z'],
      ['2026-03-08T09:00', '2026-03-08T15:00:00.000Z'],
      ['2026-03-09T09:00', '2026-03-09T15:00:00.000Z'],
    ],
  );
  const fall = await dailyAtNine(job.id, 'America/Denver', '2026-10-31', 3);
  assert.deepEqual(
    fall.map((visit) => [visit.local_start, visit.start_at]),
    [
      ['2026-10-31T09:00', '2026-10-31T15:00:00.000Z'],
      ['2026-11-01T09:00', '2026-11-01T16:00:00.000Z'],
      ['2026-11-02T09:00', '2026-11-02T16:00:00.000Z'],
    ],
  );
});

test('09:00 local every day across both daylight-saving changes stays 09:00 (Europe/Berlin)', async () => {
  const job = await newJob();
  const spring = await dailyAtNine(job.id, 'Europe/Berlin', '2026-03-28', 3);
  assert.deepEqual(
    spring.map((visit) => [visit.local_start, visit.start_at]),
    [
      ['2026-03-28T09:00', '2026-03-28T08:00:00.000Z'],
      ['2026-03-29T09:00', '2026-03-29T07:00:00.000Z'],
      ['2026-03-30T09:00', '2026-03-30T07:00:00.000Z'],
    ],
  );
  const fall = await dailyAtNine(job.id, 'Europe/Berlin', '2026-10-24', 3);
  assert.deepEqual(
    fall.map((visit) => [visit.local_start, visit.start_at]),
    [
      ['2026-10-24T09:00', '2026-10-24T07:00:00.000Z'],
      ['2026-10-25T09:00', '2026-10-25T08:00:00.000Z'],
      ['2026-10-26T09:00', '2026-10-26T08:00:00.000Z'],
    ],
  );
});

test('01:00–03:00 local on the fall-back day lasts 180 minutes', async () => {
  const job = await newJob();
  const visit = await newVisit({
    job_id: job.id,
    local_start: '2026-11-01T01:00',
    local_end: '2026-11-01T03:00',
    timezone: 'America/Denver',
  });
  assert.equal(visit.duration_minutes, 180);
  assert.equal(visit.start_at, '2026-11-01T07:00:00.000Z');
  assert.equal(visit.end_at, '2026-11-01T10:00:00.000Z');
});

test('02:30 on the spring-forward day is a 422 naming the gap', async () => {
  const job = await newJob();
  const response = await api('POST', '/v1/visits', {
    job_id: job.id,
    local_start: '2026-03-08T02:30',
    duration_minutes: 60,
    timezone: 'America/Denver',
  });
  assert.equal(response.status, 422, response.text);
  const [detail] = response.body.error.details;
  assert.equal(detail.field, 'local_start');
  assert.match(detail.message, /does not exist in America\/Denver/);
  assert.match(detail.message, /02:00 to 03:00/);
});

test('an ambiguous 01:30 on the fall-back day takes the first instant', async () => {
  const job = await newJob();
  const visit = await newVisit({
    job_id: job.id,
    local_start: '2026-11-01T01:30',
    duration_minutes: 30,
    timezone: 'America/Denver',
  });
  assert.equal(visit.start_at, '2026-11-01T07:30:00.000Z', 'MDT (-06:00), before the clocks go back');
  assert.equal(visit.local_start, '2026-11-01T01:30');
});

test('unscheduling sets every time field to null (visit.rescheduled); a partial null is a 422; the zone alone keeps the instants', async () => {
  const job = await newJob();
  const visit = await newVisit({ job_id: job.id, start_at: '2026-03-10T16:00:00Z', duration_minutes: 60 });
  const partial = await api('PUT', `/v1/visits/${visit.id}`, { start_at: null, end_at: null });
  assert.equal(partial.status, 422, partial.text);
  assert.deepEqual(
    partial.body.error.details.map((detail: { field: string }) => detail.field),
    ['local_start', 'local_end', 'duration_minutes', 'start_date', 'end_date'],
  );
  const zone = await api('PUT', `/v1/visits/${visit.id}`, { timezone: 'America/Denver' });
  assert.equal(zone.status, 200, zone.text);
  assert.equal(zone.body.data.start_at, visit.start_at);
  assert.equal(zone.body.data.local_start, '2026-03-10T10:00');
  const cleared = await api('PUT', `/v1/visits/${visit.id}`, {
    start_at: null,
    end_at: null,
    local_start: null,
    local_end: null,
    duration_minutes: null,
    start_date: null,
    end_date: null,
  });
  assert.equal(cleared.status, 200, cleared.text);
  assert.equal(cleared.body.data.status, 'unscheduled');
  assert.equal(cleared.body.data.start_at, null);
  assert.equal(cleared.body.data.local_start, null);
  const events = await eventsOf(visit.id);
  assert.deepEqual(
    events.map((event) => event.type),
    ['visit.created', 'visit.rescheduled', 'visit.rescheduled'],
  );
  assert.deepEqual(events[1]?.data.previous_attributes.timezone, 'UTC');
  assert.equal(events[2]?.data.previous_attributes.start_at, '2026-03-10T16:00:00.000Z');
  assert.equal(events[2]?.data.previous_attributes.status, 'scheduled');
  // Scheduling it again is a status move: visit.scheduled.
  const again = await api('PUT', `/v1/visits/${visit.id}`, { local_start: '2026-03-11T08:00', duration_minutes: 30 });
  assert.equal(again.body.data.status, 'scheduled');
  assert.equal(again.body.data.local_start, '2026-03-11T08:00');
  assert.equal((await eventsOf(visit.id)).at(-1)?.type, 'visit.scheduled');
});

/** A visit brought to `status` through the API. */
async function visitIn(jobId: string, status: string) {
  if (status === 'unscheduled') return newVisit({ job_id: jobId });
  const visit = await newVisit({ job_id: jobId, start_at: '2026-02-20T09:00:00Z', duration_minutes: 60 });
  if (status === 'scheduled') return visit;
  const path = status === 'in_progress' || status === 'en_route' ? [status] : [status];
  for (const step of path) {
    const moved = await api('PUT', `/v1/visits/${visit.id}`, { status: step });
    assert.equal(moved.status, 200, moved.text);
  }
  return (await api('GET', `/v1/visits/${visit.id}`)).body.data;
}

test('the transition table, literally: every pair of statuses, with the event of each move and its stamp', async () => {
  const job = await newJob();
  const stampOf: Record<string, string> = {
    en_route: 'en_route_at',
    in_progress: 'started_at',
    completed: 'completed_at',
    canceled: 'canceled_at',
  };
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      if (from === to) continue;
      const visit = await visitIn(job.id, from);
      assert.equal(visit.status, from);
      const response = await api('PUT', `/v1/visits/${visit.id}`, { status: to });
      const allowed = MOVES[from]?.includes(to) ?? false;
      assert.equal(response.status, allowed ? 200 : 409, `${from} -> ${to}: ${response.text}`);
      if (!allowed) {
        assert.equal(response.body.error.code, 'INVALID_STATE');
        continue;
      }
      assert.equal(response.body.data.status, to);
      const stamp = stampOf[to];
      if (stamp && !(from === 'completed' && to === 'in_progress'))
        assert.equal(response.body.data[stamp], clock.now().toISOString(), `${from} -> ${to} stamps ${stamp}`);
      const events = await eventsOf(visit.id);
      assert.equal(events.at(-1)?.type, MOVE_EVENTS[`${from}>${to}`], `${from} -> ${to}`);
    }
  }
});

test('stamps: a PUT may back-date one, never into the future; reopening keeps or clears them; reopening an untimed canceled visit is 409', async () => {
  const job = await newJob();
  const visit = await visitIn(job.id, 'scheduled');
  const future = await api('PUT', `/v1/visits/${visit.id}`, {
    status: 'completed',
    completed_at: '2026-03-02T00:00:00Z',
  });
  assert.equal(future.status, 422);
  assert.equal(future.body.error.details[0].field, 'completed_at');
  const early = await api('PUT', `/v1/visits/${visit.id}`, { started_at: '2026-02-20T09:00:00Z' });
  assert.equal(early.status, 422, 'a stamp comes with the move that sets it');
  const done = await api('PUT', `/v1/visits/${visit.id}`, {
    status: 'completed',
    completed_at: '2026-02-20T10:05:00-05:00',
    completion_notes: 'All done.\nSigned off.',
  });
  assert.equal(done.status, 200, done.text);
  assert.equal(done.body.data.completed_at, '2026-02-20T15:05:00.000Z');
  const reopened = await api('PUT', `/v1/visits/${visit.id}`, { status: 'in_progress' });
  assert.equal(reopened.body.data.completed_at, null);
  assert.notEqual(reopened.body.data.started_at, null);

  const untimed = await visitIn(job.id, 'unscheduled');
  const canceled = await api('PUT', `/v1/visits/${untimed.id}`, { status: 'canceled', cancel_reason: 'Client moved' });
  assert.equal(canceled.status, 200, canceled.text);
  assert.equal(canceled.body.data.cancel_reason, 'Client moved');
  const reopen = await api('PUT', `/v1/visits/${untimed.id}`, { status: 'scheduled' });
  assert.equal(reopen.status, 409);
  assert.equal(reopen.body.error.code, 'INVALID_STATE');
  const withTime = await api('PUT', `/v1/visits/${untimed.id}`, {
    status: 'scheduled',
    start_at: '2026-03-05T09:00:00Z',
    duration_minutes: 30,
  });
  assert.equal(withTime.status, 200, withTime.text);
  assert.equal(withTime.body.data.status, 'scheduled');
  assert.equal(withTime.body.data.canceled_at, null);
  assert.equal(withTime.body.data.cancel_reason, null);
  assert.equal((await eventsOf(untimed.id)).at(-1)?.type, 'visit.reopened');
  const reason = await api('PUT', `/v1/visits/${untimed.id}`, { cancel_reason: 'no' });
  assert.equal(reason.status, 422, 'only a canceled visit has a reason');
});

test('one event per change: a status move names its status, else a time change is rescheduled, else assignees reassigned, else updated', async () => {
  const job = await newJob();
  const member = await newMember('Event Eve');
  const visit = await visitIn(job.id, 'scheduled');
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ title: 'Renamed' }, 'visit.updated'],
    [{ assignee_ids: [member] }, 'visit.reassigned'],
    [{ start_at: '2026-02-21T09:00:00Z', duration_minutes: 60, assignee_ids: [] }, 'visit.rescheduled'],
    [{ status: 'en_route', start_at: '2026-02-22T09:00:00Z', duration_minutes: 60, title: 'Both' }, 'visit.en_route'],
    [{ metadata: { crm: '7' } }, 'visit.updated'],
  ];
  for (const [body, type] of cases) {
    const before = (await eventsOf(visit.id)).length;
    const response = await api('PUT', `/v1/visits/${visit.id}`, body);
    assert.equal(response.status, 200, response.text);
    const events = await eventsOf(visit.id);
    assert.equal(events.length, before + 1, `${JSON.stringify(body)} records one event`);
    assert.equal(events.at(-1)?.type, type, JSON.stringify(body));
  }
  const rescheduled = (await eventsOf(visit.id)).find((event) => event.type === 'visit.rescheduled');
  assert.equal(rescheduled?.data.previous_attributes.start_at, '2026-02-20T09:00:00.000Z');
  const quiet = await api('PUT', `/v1/visits/${visit.id}`, { metadata: { crm: '7' } });
  assert.equal(quiet.status, 200);
  const count = (await eventsOf(visit.id)).length;
  assert.equal(count, 6, 'an unchanged PUT records nothing');
  const deleted = await api('DELETE', `/v1/visits/${visit.id}`);
  assert.deepEqual(deleted.body.data, { id: visit.id, deleted: true });
  assert.equal((await eventsOf(visit.id)).at(-1)?.type, 'visit.deleted');
});

test('is_late: scheduled or en_route and its end has passed (no event: the status is stored)', async () => {
  const job = await newJob();
  const visit = await newVisit({ job_id: job.id, start_at: '2026-03-01T12:30:00Z', duration_minutes: 30 });
  assert.equal(visit.is_late, false);
  clock.advance(2 * 60 * 60 * 1000);
  try {
    const late = await api('GET', `/v1/visits/${visit.id}`);
    assert.equal(late.body.data.is_late, true);
    assert.equal(late.body.data.status, 'scheduled');
    const started = await api('PUT', `/v1/visits/${visit.id}`, { status: 'in_progress' });
    assert.equal(started.body.data.is_late, false);
  } finally {
    clock.advance(-2 * 60 * 60 * 1000);
  }
});

test('assignees: PUT replaces; add answers 201, then 200 with no event; remove answers 200, then 404; an inactive member is refused but kept', async () => {
  const job = await newJob();
  const [ann, bob, cy] = [await newMember('Ann'), await newMember('Bob'), await newMember('Cy')];
  const visit = await newVisit({
    job_id: job.id,
    start_at: '2026-03-12T09:00:00Z',
    duration_minutes: 60,
    assignee_ids: [ann, bob],
  });
  assert.deepEqual(visit.assignee_ids, [ann, bob]);
  const replaced = await api('PUT', `/v1/visits/${visit.id}`, { assignee_ids: [cy, ann] });
  assert.deepEqual(replaced.body.data.assignee_ids, [cy, ann]);
  const added = await api('POST', `/v1/visits/${visit.id}/assignees`, { team_member_id: bob });
  assert.equal(added.status, 201, added.text);
  assert.deepEqual(added.body.data.assignee_ids, [cy, ann, bob]);
  const events = (await eventsOf(visit.id)).length;
  const again = await api('POST', `/v1/visits/${visit.id}/assignees`, { team_member_id: bob });
  assert.equal(again.status, 200);
  assert.equal((await eventsOf(visit.id)).length, events, 'already there: no event');
  const removed = await api('DELETE', `/v1/visits/${visit.id}/assignees/${cy}`);
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.body.data.assignee_ids, [ann, bob]);
  assert.equal((await eventsOf(visit.id)).at(-1)?.type, 'visit.reassigned');
  const gone = await api('DELETE', `/v1/visits/${visit.id}/assignees/${cy}`);
  assert.equal(gone.status, 404);

  const idle = await newMember('Idle', false);
  const refused = await api('PUT', `/v1/visits/${visit.id}`, { assignee_ids: [ann, idle] });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.details[0].field, 'assignee_ids[1]');
  const twice = await api('POST', '/v1/visits', { job_id: job.id, assignee_ids: [ann, ann] });
  assert.equal(twice.status, 422);
  assert.equal(twice.body.error.details[0].field, 'assignee_ids[1]');
  const addIdle = await api('POST', `/v1/visits/${visit.id}/assignees`, { team_member_id: idle });
  assert.equal(addIdle.status, 422);
  assert.equal(addIdle.body.error.details[0].field, 'team_member_id');
  // Deactivated while on the visit: it stays, and a PUT that keeps it is accepted.
  await api('PUT', `/v1/team-members/${bob}`, { active: false });
  const kept = await api('PUT', `/v1/visits/${visit.id}`, { assignee_ids: [bob] });
  assert.equal(kept.status, 200, kept.text);
  const deleteBob = await api('DELETE', `/v1/team-members/${bob}`);
  assert.equal(deleteBob.status, 409);
  assert.equal(deleteBob.body.error.code, 'CONFLICT');
});

test('two concurrent assignee additions both survive', async () => {
  const job = await newJob();
  const visit = await newVisit({ job_id: job.id });
  const members = await Promise.all(['P1', 'P2', 'P3', 'P4'].map((name) => newMember(name)));
  const answers = await Promise.all(
    members.map((member) => api('POST', `/v1/visits/${visit.id}/assignees`, { team_member_id: member })),
  );
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [201, 201, 201, 201],
  );
  const final = await api('GET', `/v1/visits/${visit.id}`);
  assert.deepEqual([...final.body.data.assignee_ids].sort(), [...members].sort());
});

test('conflicts: per assignee, half-open, not canceled; on_conflict=reject is a 409 with each overlap in details', async () => {
  const job = await newJob();
  const [dee, eli] = [await newMember('Dee'), await newMember('Eli')];
  const first = await newVisit({
    job_id: job.id,
    start_at: '2026-04-01T09:00:00Z',
    end_at: '2026-04-01T12:00:00Z',
    assignee_ids: [dee],
  });
  const adjacent = await newVisit({
    job_id: job.id,
    start_at: '2026-04-01T12:00:00Z',
    end_at: '2026-04-01T13:00:00Z',
    assignee_ids: [dee],
  });
  assert.deepEqual(adjacent.conflicts, [], 'ending at 12:00 and starting at 12:00 do not overlap');
  const overlapping = await newVisit({
    job_id: job.id,
    start_at: '2026-04-01T11:00:00Z',
    end_at: '2026-04-01T12:30:00Z',
    assignee_ids: [dee, eli],
  });
  assert.deepEqual(overlapping.conflicts, [
    { team_member_id: dee, visit_id: first.id, start_at: first.start_at, end_at: first.end_at },
    { team_member_id: dee, visit_id: adjacent.id, start_at: adjacent.start_at, end_at: adjacent.end_at },
  ]);
  const firstNow = await api('GET', `/v1/visits/${first.id}`);
  assert.equal(firstNow.body.data.conflicts.length, 1);

  const rejected = await api('POST', '/v1/visits?on_conflict=reject', {
    job_id: job.id,
    start_at: '2026-04-01T10:00:00Z',
    duration_minutes: 90,
    assignee_ids: [dee],
  });
  assert.equal(rejected.status, 409, rejected.text);
  assert.equal(rejected.body.error.code, 'CONFLICT');
  assert.deepEqual(rejected.body.error.details[0], {
    field: 'assignee_ids',
    message: rejected.body.error.details[0].message,
    team_member_id: dee,
    visit_id: first.id,
    start_at: first.start_at,
    end_at: first.end_at,
  });
  assert.equal(rejected.body.error.details.length, 2);
  const moveRejected = await api('PUT', `/v1/visits/${adjacent.id}?on_conflict=reject`, {
    start_at: '2026-04-01T08:00:00Z',
    duration_minutes: 90,
  });
  assert.equal(moveRejected.status, 409);
  assert.equal((await api('GET', `/v1/visits/${adjacent.id}`)).body.data.start_at, adjacent.start_at, 'rolled back');

  await api('PUT', `/v1/visits/${first.id}`, { status: 'canceled' });
  const after = await api('GET', `/v1/visits/${overlapping.id}`);
  assert.deepEqual(
    after.body.data.conflicts.map((found: { visit_id: string }) => found.visit_id),
    [adjacent.id],
    'a canceled visit conflicts with nothing',
  );
});

test('the job: visits_summary and scheduled_* mirrors; a PUT of them is 409; visits on job create; no visit on a closed job; delete takes its visits', async () => {
  const job = await newJob({ scheduled_start: '2026-05-01T08:00:00Z' });
  assert.deepEqual(job.visits_summary, { total: 0, open: 0, completed: 0, next_start_at: null });
  const a = await newVisit({ job_id: job.id, start_at: '2026-05-02T09:00:00Z', duration_minutes: 60 });
  const b = await newVisit({ job_id: job.id, start_at: '2026-05-04T09:00:00Z', end_at: '2026-05-04T15:00:00Z' });
  await newVisit({ job_id: job.id });
  await api('PUT', `/v1/visits/${a.id}`, { status: 'completed' });
  const read = (await api('GET', `/v1/jobs/${job.id}`)).body.data;
  assert.deepEqual(read.visits_summary, { total: 3, open: 2, completed: 1, next_start_at: b.start_at });
  assert.equal(read.scheduled_start, a.start_at);
  assert.equal(read.scheduled_end, b.end_at);
  await api('PUT', `/v1/visits/${b.id}`, { status: 'canceled' });
  const mirrored = (await api('GET', `/v1/jobs/${job.id}`)).body.data;
  assert.equal(mirrored.scheduled_end, a.end_at, 'canceled visits are not mirrored');
  assert.deepEqual(mirrored.visits_summary, { total: 3, open: 1, completed: 1, next_start_at: null });
  const put = await api('PUT', `/v1/jobs/${job.id}`, { scheduled_start: '2026-05-01T08:00:00Z' });
  assert.equal(put.status, 409);
  assert.equal(put.body.error.code, 'INVALID_STATE');

  const made = await api('POST', '/v1/jobs', {
    client_id: clientId,
    title: 'Three-day install',
    visits: [
      { all_day: true, start_date: '2026-05-11', end_date: '2026-05-13', timezone: 'America/Denver' },
      { local_start: '2026-05-14T09:00', duration_minutes: 120, timezone: 'America/Denver', title: 'Inspection' },
    ],
  });
  assert.equal(made.status, 201, made.text);
  assert.deepEqual(made.body.data.visits_summary, {
    total: 2,
    open: 2,
    completed: 0,
    next_start_at: '2026-05-11T06:00:00.000Z',
  });
  assert.equal(made.body.data.scheduled_end, '2026-05-14T17:00:00.000Z');
  const listed = await api('GET', `/v1/visits?job_id=${made.body.data.id}`);
  assert.deepEqual(listed.body.data.map((visit: { title: string }) => visit.title).sort(), [
    'Inspection',
    'Three-day install',
  ]);
  const bad = await api('POST', '/v1/jobs', {
    client_id: clientId,
    title: 'Bad',
    visits: [
      { start_at: '2026-05-11T09:00:00Z', duration_minutes: 60 },
      { local_start: '2026-03-08T02:30', duration_minutes: 60, timezone: 'America/Denver' },
    ],
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.details[0].field, 'visits[1].local_start');
  const tooMany = await api('POST', '/v1/jobs', {
    client_id: clientId,
    title: 'Many',
    visits: Array.from({ length: 51 }, () => ({})),
  });
  assert.equal(tooMany.status, 422);

  const closed = await newJob();
  await api('PUT', `/v1/jobs/${closed.id}`, { status: 'completed' });
  const refused = await api('POST', '/v1/visits', { job_id: closed.id });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'INVALID_STATE');

  const removed = await api('DELETE', `/v1/jobs/${job.id}`);
  assert.equal(removed.status, 200, removed.text);
  assert.equal((await api('GET', `/v1/visits/${a.id}`)).status, 404);
  assert.equal((await eventsOf(a.id)).at(-1)?.type, 'visit.deleted');
});

test('for visit schedules (section 18): an occurrence already made is skipped; the API’s change of time or assignees marks an exception, the schedule’s own does not', async () => {
  const job = await newJob();
  const ctx = context.systemContext(accountId);
  const scheduleId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
  const occurrence = {
    local_start: '2026-03-10T09:00',
    duration_minutes: 60,
    timezone: 'America/Denver',
    schedule_id: scheduleId,
    occurrence_key: '2026-03-10T09:00',
  };
  const [made] = await createVisitsForJob(ctx, job.id, [occurrence], { skipExistingOccurrences: true });
  assert.equal(made?.schedule_id, scheduleId);
  assert.equal(made?.occurrence_key, '2026-03-10T09:00');
  assert.equal(made?.is_exception, false);
  assert.deepEqual(await createVisitsForJob(ctx, job.id, [occurrence], { skipExistingOccurrences: true }), []);
  const byTemplate = await updateVisit(
    ctx,
    made!.id,
    { title: 'Template title', local_start: '2026-03-10T10:00', duration_minutes: 60 },
    undefined,
    { fromSchedule: true },
  );
  assert.equal(byTemplate.is_exception, false);
  const byHand = await api('PUT', `/v1/visits/${made!.id}`, { local_start: '2026-03-10T11:00', duration_minutes: 60 });
  assert.equal(byHand.body.data.is_exception, true);
  const listed = await api(
    'GET',
    `/v1/visits?schedule_id=${scheduleId}&from=2026-03-10T00:00:00Z&to=2026-03-11T00:00:00Z`,
  );
  assert.deepEqual(
    listed.body.data.map((visit: { id: string }) => visit.id),
    [made!.id],
  );
  const [event] = (await eventsOf(made!.id)).filter((found) => found.type === 'visit.created');
  assert.equal(event?.data.object.schedule_id, scheduleId);
});

test('every time lies in the years 0001 to 9999: a start or end beyond is a 422 naming the field, the calendar reaches 9999-12-31', async () => {
  const job = await newJob();
  const refused = async (body: Record<string, unknown>, field: string) => {
    const response = await api('POST', '/v1/visits', { job_id: job.id, ...body });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      response.body.error.details.map((detail: { field: string }) => detail.field),
      [field],
      response.text,
    );
  };
  await refused({ local_start: '0000-06-01T09:00', duration_minutes: 60, timezone: 'UTC' }, 'local_start');
  // Starting 9999-12-31T23:00 for 2 hours would end in the year 10000.
  await refused({ local_start: '9999-12-31T23:00', duration_minutes: 120, timezone: 'UTC' }, 'duration_minutes');
  await refused({ start_at: '9999-12-31T23:00:00Z', duration_minutes: 120 }, 'duration_minutes');
  // 20:00 on 31 December 9999 in Denver is 03:00 on 1 January 10000 in UTC.
  await refused({ local_start: '9999-12-31T20:00', duration_minutes: 60, timezone: 'America/Denver' }, 'local_start');
  // 05:00 on 1 January 0001 in Tokyo is still 31 December of the year 0 in UTC.
  await refused({ local_start: '0001-01-01T05:00', duration_minutes: 60, timezone: 'Asia/Tokyo' }, 'local_start');
  // An all-day visit on 9999-12-31 would end at 00:00 on 1 January 10000.
  await refused({ all_day: true, start_date: '9999-12-31', timezone: 'UTC' }, 'start_date');
  await refused({ all_day: true, start_date: '9999-12-30', end_date: '9999-12-31', timezone: 'UTC' }, 'end_date');

  const last = await newVisit({
    job_id: job.id,
    local_start: '9999-12-31T21:00',
    duration_minutes: 60,
    timezone: 'UTC',
  });
  assert.equal(last.start_at, '9999-12-31T21:00:00.000Z');
  assert.equal(last.end_at, '9999-12-31T22:00:00.000Z');
  const allDay = await newVisit({ job_id: job.id, all_day: true, start_date: '9999-12-30', timezone: 'UTC' });
  assert.equal(allDay.end_at, '9999-12-31T00:00:00.000Z');
  const first = await newVisit({
    job_id: job.id,
    local_start: '0001-01-01T00:00',
    duration_minutes: 30,
    timezone: 'UTC',
  });
  assert.equal(first.start_at, '0001-01-01T00:00:00.000Z');
  // Moving the mirrors of the first visit to Denver would put them in the year 0.
  const moved = await api('PUT', `/v1/visits/${first.id}`, { timezone: 'America/Denver' });
  assert.equal(moved.status, 422, moved.text);
  assert.equal(moved.body.error.details[0].field, 'timezone');

  // The calendar's whole days reach 31 December 9999 (its end is not a five-digit year).
  const window = await api('GET', `/v1/visits?job_id=${job.id}&from_date=9999-12-01&to_date=9999-12-31&timezone=UTC`);
  assert.equal(window.status, 200, window.text);
  assert.deepEqual(
    window.body.data.map((visit: { id: string }) => visit.id),
    [allDay.id, last.id],
  );
  for (const query of ['to=10000-01-01T00:00:00Z', 'to=%2B010000-01-01T00:00:00Z', 'to_date=10000-01-01']) {
    const from = query.startsWith('to_date') ? 'from_date=9999-12-01' : 'from=9999-12-01T00:00:00Z';
    const response = await api('GET', `/v1/visits?job_id=${job.id}&${from}&${query}`);
    assert.equal(response.status, 422, `${query}: ${response.text}`);
    assert.equal(response.body.error.details[0].field, query.split('=')[0]);
  }
  const early = await api('GET', `/v1/visits?job_id=${job.id}&from=0000-12-31T00:00:00Z&to=0001-02-01T00:00:00Z`);
  assert.equal(early.status, 422, early.text);
  assert.equal(early.body.error.details[0].field, 'from');
});

test('one 422 names every wrong field: an unknown job and assignees beside the body’s own mistakes', async () => {
  const unknown = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f99';
  const fields = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
    response.body.error.details.map((detail) => detail.field).sort();
  const member = await newMember('Known member');
  const schema = await api('POST', '/v1/visits', { job_id: unknown, assignee_ids: [member, unknown], title: 5 });
  assert.equal(schema.status, 422, schema.text);
  assert.deepEqual(fields(schema), ['assignee_ids[1]', 'job_id', 'title']);
  const service = await api('POST', '/v1/visits', { job_id: unknown, assignee_ids: [unknown, member] });
  assert.equal(service.status, 422, service.text);
  assert.deepEqual(fields(service), ['assignee_ids[0]', 'job_id']);
  const visit = await newVisit({ job_id: (await newJob()).id });
  const put = await api('PUT', `/v1/visits/${visit.id}`, { assignee_ids: [unknown], title: 5 });
  assert.equal(put.status, 422, put.text);
  assert.deepEqual(fields(put), ['assignee_ids[0]', 'title']);
});
