// Time entries (contract section 29): the figures stated literally, defaults, the 24 h limit, overlaps (409 with the
// other entry in details), one running entry per member (20 racing starts: one 201), timers, approval, locks, the
// references that keep a job, visit or member, and the filters.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const created = async (url: string, body: Record<string, unknown>) => {
  const response = await api('POST', url, body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};
const member = async (name = 'Maria Lopez') => created('/v1/team-members', { name });
const job = async (currency?: string) => {
  const client = await created('/v1/clients', { name: 'Ada Client' });
  return created('/v1/jobs', { client_id: client.id, title: 'Boiler service', ...(currency ? { currency } : {}) });
};

test('create: defaults, read-only fields and the figures, exactly', async () => {
  const maria = await member();
  const work = await job();
  const entry = await created('/v1/time-entries', {
    team_member_id: maria.id,
    job_id: work.id,
    started_at: '2026-11-20T08:00:00Z',
    ended_at: '2026-11-20T10:20:00.000Z',
    break_minutes: 5,
    hourly_cost_amount: 4500,
    hourly_rate_amount: 9000,
  });
  assert.deepEqual(
    { ...entry, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      object: 'time_entry',
      team_member_id: maria.id,
      job_id: work.id,
      visit_id: null,
      started_at: '2026-11-20T08:00:00.000Z',
      ended_at: '2026-11-20T10:20:00.000Z',
      break_minutes: 5,
      source: 'manual',
      billable: true,
      hourly_cost_amount: 4500,
      hourly_rate_amount: 9000,
      notes: null,
      running: false,
      duration_seconds: 8100,
      currency: 'USD',
      cost_amount: 10125,
      billed_hours: 2.25,
      billable_amount: 20250,
      approved_at: null,
      approved_by: null,
      locked: false,
      invoice_id: null,
      external_id: null,
      metadata: {},
      created_at: undefined,
      updated_at: undefined,
    },
  );
  // Without a job: not billable by default, so billable_amount 0; rates default to 0 (the member has none).
  const plain = await created('/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-11-19T08:00:00Z',
    ended_at: '2026-11-19T09:00:00Z',
  });
  assert.equal(plain.billable, false);
  assert.equal(plain.billable_amount, 0);
  assert.equal(plain.hourly_rate_amount, 0);
  assert.equal(plain.billed_hours, 1);
});

test('billed_hours round halves up to the account increment; cost rounds halves up', async () => {
  const maria = await member('Increment');
  const cases: Array<[number, string, number, number]> = [
    // [increment, ended_at after 08:00:00, billed_hours, billable_amount at 10000/h]
    [15, '08:07:30', 0.25, 2500],
    [15, '08:07:29', 0, 0],
    [60, '09:29:59', 1, 10000],
    [60, '09:30:00', 2, 20000],
    [3, '08:01:30', 0.05, 500],
    [6, '08:10:00', 0.2, 2000],
    [12, '08:30:00', 0.6, 6000],
    [30, '08:44:59', 0.5, 5000],
  ];
  let day = 1;
  for (const [increment, end, hours, amount] of cases) {
    const account = await api('PUT', '/v1/account', { time_billing_increment_minutes: increment });
    assert.equal(account.status, 200, account.text);
    assert.equal(account.body.data.time_billing_increment_minutes, increment);
    const date = `2026-10-${String(day++).padStart(2, '0')}`;
    const entry = await created('/v1/time-entries', {
      team_member_id: maria.id,
      started_at: `${date}T08:00:00Z`,
      ended_at: `${date}T${end}Z`,
      billable: true,
      hourly_cost_amount: 1,
      hourly_rate_amount: 10000,
    });
    assert.equal(entry.billed_hours, hours, `${increment} min, ${end}`);
    assert.equal(entry.billable_amount, amount, `${increment} min, ${end}`);
  }
  // 1,800 s at 1 minor unit an hour is half a unit: rounded up to 1.
  const half = await created('/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-10-20T08:00:00Z',
    ended_at: '2026-10-20T08:30:00Z',
    hourly_cost_amount: 1,
  });
  assert.equal(half.cost_amount, 1);
  assert.equal((await api('PUT', '/v1/account', { time_billing_increment_minutes: 7 })).status, 422);
  await api('PUT', '/v1/account', { time_billing_increment_minutes: 3 });
});

test('validation: 24 h at most, end after start, a break shorter than the entry, a visit matching its job', async () => {
  const maria = await member('Validation');
  const base = { team_member_id: maria.id, started_at: '2026-09-01T08:00:00Z' };
  const tooLong = await api('POST', '/v1/time-entries', { ...base, ended_at: '2026-09-02T08:00:01Z' });
  assert.equal(tooLong.status, 422);
  assert.equal(tooLong.body.error.details[0].field, 'ended_at');
  assert.equal((await api('POST', '/v1/time-entries', { ...base, ended_at: '2026-09-02T08:00:00Z' })).status, 201);
  const backwards = await api('POST', '/v1/time-entries', { ...base, ended_at: '2026-09-01T07:00:00Z' });
  assert.equal(backwards.status, 422);
  const longBreak = await api('POST', '/v1/time-entries', {
    ...base,
    started_at: '2026-09-03T08:00:00Z',
    ended_at: '2026-09-03T09:00:00Z',
    break_minutes: 60,
  });
  assert.equal(longBreak.status, 422);
  assert.equal(longBreak.body.error.details[0].field, 'break_minutes');
  const unknown = await api('POST', '/v1/time-entries', {
    ...base,
    team_member_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    job_id: 'not-an-id',
  });
  assert.equal(unknown.status, 422);
  assert.equal((await api('POST', '/v1/time-entries', { ...base, source: 'timer' })).status, 422);
  assert.equal((await api('POST', '/v1/time-entries', { ...base, running: true })).status, 422);

  // A visit sets the job; another job with it is 422 on visit_id.
  const work = await job();
  const other = await job();
  const visit = await created('/v1/visits', { job_id: work.id });
  const onVisit = await created('/v1/time-entries', {
    ...base,
    started_at: '2026-09-04T08:00:00Z',
    ended_at: '2026-09-04T09:00:00Z',
    visit_id: visit.id,
  });
  assert.equal(onVisit.job_id, work.id);
  const mismatch = await api('POST', '/v1/time-entries', {
    ...base,
    started_at: '2026-09-05T08:00:00Z',
    ended_at: '2026-09-05T09:00:00Z',
    visit_id: visit.id,
    job_id: other.id,
  });
  assert.equal(mismatch.status, 422);
  assert.equal(mismatch.body.error.details[0].field, 'visit_id');
});

test('a job in another currency: the rates are required, the currency is the job’s', async () => {
  const maria = await member('Currency');
  const euros = await job('EUR');
  const body = {
    team_member_id: maria.id,
    job_id: euros.id,
    started_at: '2026-08-01T08:00:00Z',
    ended_at: '2026-08-01T09:00:00Z',
  };
  const missing = await api('POST', '/v1/time-entries', body);
  assert.equal(missing.status, 422);
  assert.deepEqual(
    missing.body.error.details.map((detail: { field: string }) => detail.field),
    ['hourly_cost_amount', 'hourly_rate_amount'],
  );
  const entry = await created('/v1/time-entries', { ...body, hourly_cost_amount: 3000, hourly_rate_amount: 7000 });
  assert.equal(entry.currency, 'EUR');
  assert.equal(entry.billable_amount, 7000);
});

test('a member’s entries never overlap: 409 CONFLICT naming the other entry', async () => {
  const maria = await member('Overlap');
  const first = await created('/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-07-01T08:00:00Z',
    ended_at: '2026-07-01T10:00:00Z',
  });
  const clash = await api('POST', '/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-07-01T09:59:59Z',
    ended_at: '2026-07-01T11:00:00Z',
  });
  assert.equal(clash.status, 409);
  assert.equal(clash.body.error.code, 'CONFLICT');
  assert.deepEqual(
    { ...clash.body.error.details[0], message: undefined },
    {
      field: 'started_at',
      message: undefined,
      time_entry_id: first.id,
      started_at: '2026-07-01T08:00:00.000Z',
      ended_at: '2026-07-01T10:00:00.000Z',
    },
  );
  // [start, end): touching is no overlap; another member's time is theirs.
  await created('/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-07-01T10:00:00Z',
    ended_at: '2026-07-01T11:00:00Z',
  });
  const ben = await member('Ben');
  await created('/v1/time-entries', {
    team_member_id: ben.id,
    started_at: '2026-07-01T08:00:00Z',
    ended_at: '2026-07-01T10:00:00Z',
  });
  // A PUT that moves into another entry is refused too.
  const moved = await api('PUT', `/v1/time-entries/${first.id}`, { ended_at: '2026-07-01T10:30:00Z' });
  assert.equal(moved.status, 409);
  assert.equal(moved.body.error.code, 'CONFLICT');
});

test('timers: start, one running entry per member, stop_running, stop', async () => {
  clock.set(new Date('2026-11-21T10:00:00.000Z'));
  const maria = await member('Timer');
  const work = await job();
  const started = await api('POST', '/v1/time-entries/start', { team_member_id: maria.id, job_id: work.id });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.headers.location, `/v1/time-entries/${started.body.data.id}`);
  const running = started.body.data;
  assert.equal(running.source, 'timer');
  assert.equal(running.running, true);
  assert.equal(running.ended_at, null);
  assert.equal(running.started_at, '2026-11-21T10:00:00.000Z');
  assert.equal(running.billable, true);
  assert.equal(running.duration_seconds, null);

  const again = await api('POST', '/v1/time-entries/start', { team_member_id: maria.id });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'CONFLICT');
  assert.equal(again.body.error.details[0].time_entry_id, running.id);
  // A stopped entry after a running one's start overlaps it (a running entry runs to infinity).
  const after = await api('POST', '/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-11-21T09:00:00Z',
    ended_at: '2026-11-21T10:30:00Z',
  });
  assert.equal(after.status, 409);

  clock.set(new Date('2026-11-21T11:30:00.000Z'));
  const switched = await api('POST', '/v1/time-entries/start', { team_member_id: maria.id, stop_running: true });
  assert.equal(switched.status, 201, switched.text);
  const stoppedFirst = (await api('GET', `/v1/time-entries/${running.id}`)).body.data;
  assert.equal(stoppedFirst.ended_at, '2026-11-21T11:30:00.000Z');
  assert.equal(stoppedFirst.duration_seconds, 5400);

  clock.set(new Date('2026-11-21T12:00:00.000Z'));
  const stopped = await api('POST', `/v1/time-entries/${switched.body.data.id}/stop`, {});
  assert.equal(stopped.status, 200, stopped.text);
  assert.equal(stopped.body.data.ended_at, '2026-11-21T12:00:00.000Z');
  assert.equal(stopped.body.data.duration_seconds, 1800);
  const twice = await api('POST', `/v1/time-entries/${switched.body.data.id}/stop`, {});
  assert.equal(twice.status, 409);
  assert.equal(twice.body.error.code, 'INVALID_STATE');

  const tooEarly = await api('POST', '/v1/time-entries/start', {
    team_member_id: maria.id,
    started_at: '2026-11-20T11:59:59Z',
  });
  assert.equal(tooEarly.status, 422);
  const future = await api('POST', '/v1/time-entries/start', {
    team_member_id: maria.id,
    started_at: '2026-11-21T12:00:01Z',
  });
  assert.equal(future.status, 422);
  const inactive = await member('Inactive');
  await api('PUT', `/v1/team-members/${inactive.id}`, { active: false });
  const refused = await api('POST', '/v1/time-entries/start', { team_member_id: inactive.id });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.details[0].field, 'team_member_id');
});

test('20 racing starts for one member: exactly one 201, the others 409', async () => {
  clock.set(new Date('2026-11-22T10:00:00.000Z'));
  const racer = await member('Racer');
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => api('POST', '/v1/time-entries/start', { team_member_id: racer.id })),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [201, ...Array(19).fill(409)], answers.map((answer) => answer.text).join('\n'));
  const list = await api('GET', `/v1/time-entries?team_member_id=${racer.id}&running=true`);
  assert.equal(list.body.data.length, 1);
});

test('approval: stopped entries only; approved ones cannot change; bulk approval by local dates', async () => {
  const maria = await member('Approval');
  const entry = await created('/v1/time-entries', {
    team_member_id: maria.id,
    started_at: '2026-06-01T08:00:00Z',
    ended_at: '2026-06-01T09:00:00Z',
  });
  const approved = await api('POST', `/v1/time-entries/${entry.id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  assert.ok(approved.body.data.approved_at);
  assert.equal(approved.body.data.approved_by.type, 'api_key');
  for (const [method, url, body] of [
    ['PUT', `/v1/time-entries/${entry.id}`, { notes: 'x' }],
    ['DELETE', `/v1/time-entries/${entry.id}`, undefined],
  ] as const) {
    const refused = await api(method, url, body);
    assert.equal(refused.status, 409, `${method} ${url}`);
    assert.equal(refused.body.error.code, 'INVALID_STATE');
  }
  const unapproved = await api('POST', `/v1/time-entries/${entry.id}/unapprove`, {});
  assert.equal(unapproved.body.data.approved_at, null);
  assert.equal((await api('PUT', `/v1/time-entries/${entry.id}`, { notes: 'x' })).status, 200);

  clock.set(new Date('2026-11-23T10:00:00.000Z'));
  const running = await api('POST', '/v1/time-entries/start', { team_member_id: maria.id });
  const refused = await api('POST', `/v1/time-entries/${running.body.data.id}/approve`, {});
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'INVALID_STATE');

  for (const day of ['02', '03', '04'])
    await created('/v1/time-entries', {
      team_member_id: maria.id,
      started_at: `2026-06-${day}T08:00:00Z`,
      ended_at: `2026-06-${day}T09:00:00Z`,
    });
  const bulk = await api('POST', '/v1/time-entries/approve', {
    from_date: '2026-06-01',
    to_date: '2026-06-03',
    team_member_id: maria.id,
  });
  assert.equal(bulk.status, 200, bulk.text);
  assert.deepEqual(bulk.body.data, { approved: 3, remaining: 0 });
  const unapprovedLeft = await api('GET', `/v1/time-entries?team_member_id=${maria.id}&approved=false`);
  assert.equal(unapprovedLeft.body.data.length, 2); // 2026-06-04 and the running one
  const backwards = await api('POST', '/v1/time-entries/approve', { from_date: '2026-06-03', to_date: '2026-06-01' });
  assert.equal(backwards.status, 422);
});

test('locks: every entry through the date stopped and approved, then no write; unlock', async () => {
  const { key: own } = await context.account('Lock account');
  const call = (method: string, url: string, body?: unknown) => context.request(method, url, { key: own, body });
  const worker = (await call('POST', '/v1/team-members', { name: 'Lock' })).body.data;
  const entry = (
    await call('POST', '/v1/time-entries', {
      team_member_id: worker.id,
      started_at: '2026-05-10T08:00:00Z',
      ended_at: '2026-05-10T09:00:00Z',
    })
  ).body.data;
  const refused = await call('POST', '/v1/time-entries/lock', { through_date: '2026-05-15' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'INVALID_STATE');
  assert.equal(refused.body.error.details[0].time_entry_id, entry.id);
  await call('POST', `/v1/time-entries/${entry.id}/approve`, {});
  const locked = await call('POST', '/v1/time-entries/lock', { through_date: '2026-05-15' });
  assert.equal(locked.status, 200, locked.text);
  assert.equal(locked.body.data.object, 'time_lock');
  assert.equal(locked.body.data.locked_through, '2026-05-15');
  assert.equal((await call('GET', '/v1/account')).body.data.time_locked_through, '2026-05-15');
  assert.equal((await call('GET', `/v1/time-entries/${entry.id}`)).body.data.locked, true);
  for (const [method, url, body] of [
    ['POST', `/v1/time-entries/${entry.id}/unapprove`, {}],
    ['DELETE', `/v1/time-entries/${entry.id}`, undefined],
    [
      'POST',
      '/v1/time-entries',
      { team_member_id: worker.id, started_at: '2026-05-11T08:00:00Z', ended_at: '2026-05-11T09:00:00Z' },
    ],
  ] as const) {
    const answer = await call(method, url, body);
    assert.equal(answer.status, 409, `${method} ${url}`);
    assert.equal(answer.body.error.code, 'INVALID_STATE');
  }
  // After the period: writable.
  assert.equal(
    (
      await call('POST', '/v1/time-entries', {
        team_member_id: worker.id,
        started_at: '2026-05-16T08:00:00Z',
        ended_at: '2026-05-16T09:00:00Z',
      })
    ).status,
    201,
  );
  assert.equal((await call('POST', '/v1/time-entries/unlock', { through_date: '2026-05-20' })).status, 409);
  const unlocked = await call('POST', '/v1/time-entries/unlock', { through_date: null });
  assert.equal(unlocked.status, 200, unlocked.text);
  assert.equal(unlocked.body.data.locked_through, null);
  assert.equal((await call('POST', `/v1/time-entries/${entry.id}/unapprove`, {})).status, 200);
});

test('a job, visit or member named by an entry cannot be deleted (409 CONFLICT); the entry can', async () => {
  const maria = await member('Referenced');
  const work = await job();
  const visit = await created('/v1/visits', { job_id: work.id });
  const entry = await created('/v1/time-entries', {
    team_member_id: maria.id,
    visit_id: visit.id,
    started_at: '2026-04-01T08:00:00Z',
    ended_at: '2026-04-01T09:00:00Z',
  });
  for (const url of [`/v1/jobs/${work.id}`, `/v1/visits/${visit.id}`, `/v1/team-members/${maria.id}`]) {
    const refused = await api('DELETE', url);
    assert.equal(refused.status, 409, url);
    assert.equal(refused.body.error.code, 'CONFLICT', url);
  }
  assert.equal((await api('DELETE', `/v1/time-entries/${entry.id}`)).status, 200);
  assert.equal((await api('GET', `/v1/time-entries/${entry.id}`)).status, 404);
  assert.equal((await api('DELETE', `/v1/visits/${visit.id}`)).status, 200);
});

test('filters: job, running, billable, billed, started_from and started_to; sort by started_at', async () => {
  const maria = await member('Filters');
  const work = await job();
  const made = [];
  for (const day of ['10', '11', '12'])
    made.push(
      await created('/v1/time-entries', {
        team_member_id: maria.id,
        job_id: day === '11' ? work.id : null,
        started_at: `2026-03-${day}T08:00:00Z`,
        ended_at: `2026-03-${day}T09:00:00Z`,
      }),
    );
  const ids = async (query: string) =>
    (await api('GET', `/v1/time-entries?team_member_id=${maria.id}&${query}`)).body.data.map(
      (entry: { id: string }) => entry.id,
    );
  assert.deepEqual(await ids(`job_id=${work.id}`), [made[1].id]);
  assert.deepEqual(await ids('billable=true'), [made[1].id]);
  assert.deepEqual(
    await ids('billed=false&sort=started_at'),
    made.map((entry) => entry.id),
  );
  assert.deepEqual(await ids('billed=true'), []);
  assert.deepEqual(await ids('running=false&sort=-started_at'), made.map((entry) => entry.id).reverse());
  assert.deepEqual(await ids('started_from=2026-03-11T08:00:00Z&started_to=2026-03-12T08:00:00Z'), [made[1].id]);
  assert.equal((await api('GET', '/v1/time-entries?running=maybe')).status, 422);
  assert.equal((await api('GET', '/v1/time-entries?sort=notes')).status, 422);
});

test('impossible dates and years beyond storage are 422, never 500', async () => {
  const maria = await member('Edges');
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['/v1/time-entries/approve', { from_date: '2026-02-30', to_date: '2026-03-01' }, 'from_date'],
    ['/v1/time-entries/approve', { from_date: '0000-01-01', to_date: '2026-03-01' }, 'from_date'],
    ['/v1/time-entries/lock', { through_date: '0000-12-31' }, 'through_date'],
    ['/v1/time-entries/lock', { through_date: '2026-13-01' }, 'through_date'],
    [
      '/v1/time-entries',
      { team_member_id: maria.id, started_at: '0000-06-01T08:00:00Z', ended_at: '0000-06-01T09:00:00Z' },
      'started_at',
    ],
    ['/v1/time-entries', { team_member_id: maria.id, started_at: 'yesterday' }, 'started_at'],
  ];
  for (const [url, body, field] of cases) {
    const answer = await api('POST', url, body);
    assert.equal(answer.status, 422, `${url} ${JSON.stringify(body)}: ${answer.text}`);
    assert.equal(answer.body.error.details[0].field, field, `${url} ${JSON.stringify(body)}`);
  }
  // The last date storable locks (nothing unsettled here) and unlocks.
  const { key: own } = await context.account('Edge account');
  const last = await context.request('POST', '/v1/time-entries/lock', {
    key: own,
    body: { through_date: '9999-12-31' },
  });
  assert.equal(last.status, 200, last.text);
  const back = await context.request('POST', '/v1/time-entries/unlock', { key: own, body: { through_date: null } });
  assert.equal(back.status, 200, back.text);
  assert.equal((await api('GET', '/v1/time-entries/not-a-uuid')).status, 404);
  assert.equal((await api('POST', '/v1/time-entries/not-a-uuid/stop', {})).status, 404);
});
