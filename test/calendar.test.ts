// The calendar (contract section 17): GET /v1/visits with a window answers the visits that overlap [from, to)
// in (start_at, id) order, a page at a time; local days follow daylight saving (23- and 25-hour days); an
// all-day visit occupies its dates in its own zone; every filter; the 62-day rule; unscheduled visits never.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-06-15T12:00:00.000Z'));
let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });

async function made(method: string, url: string, body: Record<string, unknown>) {
  const response = await api(method, url, body);
  assert.ok(response.status === 201 || response.status === 200, response.text);
  return response.body.data;
}
async function setUp(name: string) {
  const client = await made('POST', '/v1/clients', { name });
  const job = await made('POST', '/v1/jobs', { client_id: client.id, title: `${name} job` });
  return { client, job };
}
const visit = (jobId: string, body: Record<string, unknown>) => made('POST', '/v1/visits', { job_id: jobId, ...body });
async function window(query: string): Promise<string[]> {
  const response = await api('GET', `/v1/visits?${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.map((item: { id: string }) => item.id);
}

test('a window holds the visits that overlap [from, to): one that began before from and runs past it is in it', async () => {
  const { job } = await setUp('Overlap');
  const running = await visit(job.id, { start_at: '2026-07-01T06:00:00Z', end_at: '2026-07-01T10:00:00Z' });
  const inside = await visit(job.id, { start_at: '2026-07-01T09:00:00Z', duration_minutes: 30 });
  const endsAtFrom = await visit(job.id, { start_at: '2026-07-01T07:00:00Z', end_at: '2026-07-01T08:00:00Z' });
  const startsAtTo = await visit(job.id, { start_at: '2026-07-01T12:00:00Z', duration_minutes: 30 });
  const multiDay = await visit(job.id, { all_day: true, start_date: '2026-06-20', end_date: '2026-07-05' });
  await visit(job.id, {});
  const ids = await window(`job_id=${job.id}&from=2026-07-01T08:00:00Z&to=2026-07-01T12:00:00Z`);
  assert.deepEqual(
    ids,
    [multiDay.id, running.id, inside.id],
    'in start_at order; half-open at both ends; never unscheduled',
  );
  assert.ok(!ids.includes(endsAtFrom.id) && !ids.includes(startsAtTo.id));
  // Offsets are instants too.
  assert.deepEqual(await window(`job_id=${job.id}&from=2026-07-01T10:00:00%2B02:00&to=2026-07-01T14:00:00%2B02:00`), [
    multiDay.id,
    running.id,
    inside.id,
  ]);
});

test('a calendar of local days across a daylight-saving change has a 23-hour and a 25-hour day', async () => {
  const { job } = await setUp('Days');
  await api('PUT', '/v1/account', { timezone: 'America/Denver' });
  try {
    // Spring forward: 2026-03-08 runs from 07:00Z to 06:00Z the next day (23 hours).
    const lastMinute = await visit(job.id, {
      local_start: '2026-03-08T23:59',
      duration_minutes: 1,
      timezone: 'America/Denver',
    });
    const nextDay = await visit(job.id, {
      local_start: '2026-03-09T00:00',
      duration_minutes: 30,
      timezone: 'America/Denver',
    });
    const dayBefore = await visit(job.id, { start_at: '2026-03-08T06:30:00Z', duration_minutes: 30 });
    assert.equal(lastMinute.start_at, '2026-03-09T05:59:00.000Z');
    assert.deepEqual(await window(`job_id=${job.id}&from_date=2026-03-08&to_date=2026-03-08`), [lastMinute.id]);
    assert.ok(!(await window(`job_id=${job.id}&from_date=2026-03-08&to_date=2026-03-08`)).includes(dayBefore.id));
    assert.deepEqual(await window(`job_id=${job.id}&from_date=2026-03-09&to_date=2026-03-09`), [nextDay.id]);
    const spring = await visit(job.id, { all_day: true, start_date: '2026-03-08' });
    assert.equal(spring.timezone, 'America/Denver', "the account's zone");
    assert.equal(spring.duration_minutes, 23 * 60);

    // Fall back: 2026-11-01 runs from 06:00Z to 07:00Z the next day (25 hours); to_date is inclusive.
    const late = await visit(job.id, {
      local_start: '2026-11-01T23:30',
      duration_minutes: 15,
      timezone: 'America/Denver',
    });
    assert.equal(late.start_at, '2026-11-02T06:30:00.000Z');
    const early = await visit(job.id, { start_at: '2026-11-01T06:00:00Z', duration_minutes: 15 });
    assert.deepEqual(await window(`job_id=${job.id}&from_date=2026-11-01&to_date=2026-11-01`), [early.id, late.id]);
    const fall = await visit(job.id, { all_day: true, start_date: '2026-11-01' });
    assert.equal(fall.duration_minutes, 25 * 60);
    // The same day seen from UTC ends at 00:00Z: the late visit is on the 2nd there.
    assert.deepEqual(
      await window(`job_id=${job.id}&from_date=2026-11-01&to_date=2026-11-01&timezone=UTC&status=scheduled`),
      [early.id, fall.id],
      'the same start_at: by id',
    );
  } finally {
    await api('PUT', '/v1/account', { timezone: 'UTC' });
  }
});

test('an all-day visit occupies its dates in its own zone, seen through another zone’s window', async () => {
  const { job } = await setUp('AllDay');
  const berlin = await visit(job.id, { all_day: true, start_date: '2026-06-10', timezone: 'Europe/Berlin' });
  assert.equal(berlin.start_at, '2026-06-09T22:00:00.000Z');
  assert.equal(berlin.end_at, '2026-06-10T22:00:00.000Z');
  const denver = (date: string) => `job_id=${job.id}&from_date=${date}&to_date=${date}&timezone=America/Denver`;
  // Denver's 9 June is 06:00Z 9 June – 06:00Z 10 June: it overlaps Berlin's 10 June (from 22:00Z on the 9th).
  assert.deepEqual(await window(denver('2026-06-09')), [berlin.id]);
  assert.deepEqual(await window(denver('2026-06-10')), [berlin.id]);
  assert.deepEqual(await window(denver('2026-06-11')), []);
  assert.deepEqual(await window(`job_id=${job.id}&from_date=2026-06-09&to_date=2026-06-09&timezone=Asia/Tokyo`), []);
  const zone = await api('PUT', `/v1/visits/${berlin.id}`, { timezone: 'America/Denver' });
  assert.equal(zone.body.data.start_date, '2026-06-10', 'an all-day visit keeps its dates in a new zone');
  assert.equal(zone.body.data.start_at, '2026-06-10T06:00:00.000Z');
});

test('filters: assignee_id (any of a list), unassigned, client_id, property_id, status, late; pages by cursor in start_at order', async () => {
  const { client, job } = await setUp('Filters');
  const other = await setUp('Filters other');
  const property = await made('POST', '/v1/properties', {
    client_id: other.client.id,
    address: { line1: '1 Main St', country: 'US' },
  });
  const propertyJob = await made('POST', '/v1/jobs', {
    client_id: other.client.id,
    property_id: property.id,
    title: 'At the house',
  });
  const [ann, bob, cy] = await Promise.all(
    ['Ann', 'Bob', 'Cy'].map(async (name) => (await made('POST', '/v1/team-members', { name })).id as string),
  );
  const day = (hour: number) => `2026-08-03T${String(hour).padStart(2, '0')}:00:00Z`;
  const v1 = await visit(job.id, { start_at: day(8), duration_minutes: 60, assignee_ids: [ann] });
  const v2 = await visit(job.id, { start_at: day(9), duration_minutes: 60, assignee_ids: [ann, bob] });
  const v3 = await visit(job.id, { start_at: day(10), duration_minutes: 60, assignee_ids: [cy] });
  const v4 = await visit(job.id, { start_at: day(11), duration_minutes: 60 });
  const v5 = await visit(propertyJob.id, { start_at: day(12), duration_minutes: 60 });
  assert.equal(v5.property_id, property.id);
  const range = 'from=2026-08-03T00:00:00Z&to=2026-08-04T00:00:00Z';
  assert.deepEqual(await window(`${range}&assignee_id=${ann},${bob}`), [v1.id, v2.id], 'each visit once');
  assert.deepEqual(await window(`${range}&assignee_id=${cy}`), [v3.id]);
  assert.deepEqual(await window(`${range}&unassigned=true`), [v4.id, v5.id]);
  assert.deepEqual(await window(`${range}&client_id=${client.id}`), [v1.id, v2.id, v3.id, v4.id]);
  assert.deepEqual(await window(`${range}&property_id=${property.id}`), [v5.id]);
  assert.deepEqual(await window(`${range}&client_id=${client.id}&assignee_id=${ann}`), [v1.id, v2.id]);
  await api('PUT', `/v1/visits/${v2.id}`, { status: 'completed' });
  assert.deepEqual(await window(`${range}&status=completed`), [v2.id]);
  assert.deepEqual(await window(`${range}&status=scheduled,completed&assignee_id=${ann}`), [v1.id, v2.id]);

  // Paging: two at a time, in start_at order.
  const seen: string[] = [];
  let url = `/v1/visits?${range}&limit=2`;
  for (let pages = 0; pages < 5; pages++) {
    const page = await api('GET', url);
    assert.equal(page.status, 200, page.text);
    seen.push(...page.body.data.map((item: { id: string }) => item.id));
    if (!page.body.meta.pagination.has_more) break;
    url = `/v1/visits?${range}&limit=2&cursor=${page.body.meta.pagination.next_cursor}`;
  }
  assert.deepEqual(seen, [v1.id, v2.id, v3.id, v4.id, v5.id]);

  // late=true: scheduled or en_route, end passed (the clock is 2026-08-03T10:30Z).
  clock.set(new Date('2026-08-03T10:30:00Z'));
  try {
    assert.deepEqual(await window(`${range}&late=true`), [v1.id], 'v2 is completed, v3 is still running');
    const got = await api('GET', `/v1/visits?${range}&late=true&include=conflicts`);
    assert.equal(got.body.data[0].is_late, true);
    assert.deepEqual(got.body.data[0].conflicts, []);
    const plain = await api('GET', `/v1/visits?${range}&limit=1`);
    assert.equal(plain.body.data[0].conflicts, null, 'a list computes conflicts only with include=conflicts');
  } finally {
    clock.set(new Date('2026-06-15T12:00:00.000Z'));
  }
});

test('a window longer than 62 days needs assignee_id, job_id, client_id or property_id; bad windows are 422', async () => {
  const { job } = await setUp('Long');
  const long = await api('GET', '/v1/visits?from=2026-01-01T00:00:00Z&to=2026-03-05T00:00:00Z');
  assert.equal(long.status, 422);
  assert.equal(long.body.error.details[0].field, 'to');
  const days = await api('GET', '/v1/visits?from_date=2026-01-01&to_date=2026-03-04');
  assert.equal(days.status, 422);
  assert.equal(days.body.error.details[0].field, 'to_date');
  assert.equal((await api('GET', '/v1/visits?from_date=2026-01-01&to_date=2026-03-03')).status, 200, '62 days');
  assert.equal((await api('GET', `/v1/visits?from_date=2026-01-01&to_date=2026-12-31&job_id=${job.id}`)).status, 200);
  const refused: Array<[string, string]> = [
    ['from=2026-01-01T00:00:00Z', 'to'],
    ['to_date=2026-01-01', 'from_date'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'to'],
    ['from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&from_date=2026-01-01&to_date=2026-01-01', 'from_date'],
    ['from_date=2026-01-01&to_date=2026-01-01&timezone=EST', 'timezone'],
    ['from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&sort=-created_at', 'sort'],
    ['sort=start_at', 'sort'],
    ['assignee_id=nope', 'assignee_id'],
    ['status=late', 'status'],
  ];
  for (const [query, field] of refused) {
    const response = await api('GET', `/v1/visits?${query}`);
    assert.equal(response.status, 422, `${query}: ${response.text}`);
    assert.equal(response.body.error.details[0].field, field, query);
  }
});

test('without a window the list is an ordinary keyset list, newest first, unscheduled visits included', async () => {
  const { job } = await setUp('Plain');
  const first = await visit(job.id, {});
  clock.advance(1000);
  const second = await visit(job.id, {
    start_at: '2026-09-01T09:00:00Z',
    duration_minutes: 60,
    external_id: 'ext-visit-1',
  });
  assert.deepEqual(await window(`job_id=${job.id}`), [second.id, first.id]);
  assert.deepEqual(await window(`job_id=${job.id}&sort=created_at`), [first.id, second.id]);
  assert.deepEqual(await window(`job_id=${job.id}&status=unscheduled`), [first.id]);
  assert.deepEqual(await window('external_id=ext-visit-1'), [second.id]);
  const duplicate = await api('POST', '/v1/visits', { job_id: job.id, external_id: 'ext-visit-1' });
  assert.equal(duplicate.status, 409);
  assert.equal(duplicate.body.error.details[0].field, 'external_id');
  assert.equal((await api('GET', '/v1/visits?include_projected=true&limit=1')).status, 200);
});

/** Every page of a calendar query, following next_cursor: [items of each page]. */
async function walk(query: string): Promise<Array<Array<Record<string, any>>>> {
  const pages: Array<Array<Record<string, any>>> = [];
  let cursor: string | null = null;
  do {
    const response: any = await api(
      'GET',
      `/v1/visits?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(response.status, 200, response.text);
    pages.push(response.body.data);
    cursor = response.body.meta.pagination.next_cursor;
    assert.equal(response.body.meta.pagination.has_more, cursor !== null);
    assert.ok(pages.length <= 20, 'the walk ends');
  } while (cursor);
  return pages;
}

test('include_projected pages with the visits: a year of a daily schedule in pages of limit, each occurrence once, in order', async () => {
  const { job } = await setUp('Daily year');
  // Today is 15 June 2026 (UTC): a 7-day horizon makes the visits of 16-22 June; the rest of the year is projected.
  const schedule = await made('POST', '/v1/visit-schedules', {
    job_id: job.id,
    recurrence: { frequency: 'daily', start_date: '2026-06-16', time: '09:00', timezone: 'UTC' },
    duration_minutes: 60,
    horizon_days: 7,
  });
  // Two one-off visits: one at the same instant as a materialised occurrence, one among the projected ones.
  const sameStart = await visit(job.id, { start_at: '2026-06-20T09:00:00Z', duration_minutes: 30 });
  const amongProjected = await visit(job.id, { start_at: '2026-12-01T09:00:00Z', duration_minutes: 30 });
  // 366 days: 16 June 2026 to 16 June 2027 inclusive, 366 occurrences.
  const window = `from=2026-06-16T00:00:00Z&to=2027-06-17T00:00:00Z&job_id=${job.id}&include_projected=true`;
  const pages = await walk(`${window}&limit=100`);
  assert.deepEqual(
    pages.map((page) => page.length),
    [100, 100, 100, 68],
  );
  const items = pages.flat();
  const starts = items.map((item) => item.start_at as string);
  assert.deepEqual(starts, [...starts].sort(), 'in start_at order across pages');
  const keys = items.filter((item) => item.schedule_id === schedule.id).map((item) => item.occurrence_key);
  assert.equal(keys.length, 366);
  assert.equal(new Set(keys).size, 366, 'each occurrence once, materialised or projected');
  assert.equal(keys[0], '2026-06-16T09:00');
  assert.equal(keys.at(-1), '2027-06-16T09:00');
  assert.deepEqual(
    items.filter((item) => item.projected !== true).map((item) => item.occurrence_key ?? item.id),
    [
      '2026-06-16T09:00',
      '2026-06-17T09:00',
      '2026-06-18T09:00',
      '2026-06-19T09:00',
      ...(items.findIndex((item) => item.id === sameStart.id) <
      items.findIndex((item) => item.occurrence_key === '2026-06-20T09:00')
        ? [sameStart.id, '2026-06-20T09:00']
        : ['2026-06-20T09:00', sameStart.id]),
      '2026-06-21T09:00',
      '2026-06-22T09:00',
      amongProjected.id,
    ],
    'the visits: the 7 materialised occurrences and both one-off visits',
  );
  assert.ok(items.filter((item) => item.projected === true).every((item) => item.id === null));
  // Pages of one item meet the same items in the same order.
  const single = (
    await walk(`from=2026-06-19T00:00:00Z&to=2026-06-24T00:00:00Z&job_id=${job.id}&include_projected=true&limit=1`)
  ).flat();
  assert.deepEqual(
    single.map((item) => item.occurrence_key ?? item.id),
    items
      .filter((item) => item.start_at >= '2026-06-19T00:00:00.000Z' && item.start_at < '2026-06-24T00:00:00.000Z')
      .map((item) => item.occurrence_key ?? item.id),
  );
});

test('include_projected answers a window of at most 366 days: 367 is a 422 on to (or to_date)', async () => {
  const { job } = await setUp('Long window');
  const longest = await api(
    'GET',
    `/v1/visits?from=2026-06-16T00:00:00Z&to=2027-06-17T00:00:00Z&job_id=${job.id}&include_projected=true`,
  );
  assert.equal(longest.status, 200, longest.text);
  const refused = [
    [`from=2026-06-16T00:00:00Z&to=2027-06-18T00:00:00Z&job_id=${job.id}&include_projected=true`, 'to'],
    [`from=2026-06-16T00:00:00Z&to=2036-06-16T00:00:00Z&job_id=${job.id}&include_projected=true&limit=100`, 'to'],
    [`from_date=2026-06-16&to_date=2027-06-17&job_id=${job.id}&include_projected=true`, 'to_date'],
  ];
  for (const [query, field] of refused) {
    const response = await api('GET', `/v1/visits?${query}`);
    assert.equal(response.status, 422, `${query}: ${response.text}`);
    assert.equal(response.body.error.code, 'VALIDATION_ERROR');
    assert.equal(response.body.error.details[0].field, field, query);
    assert.match(response.body.error.details[0].message, /366 days/);
  }
  // Without include_projected a job's visits may still be asked for over a longer window.
  const visitsOnly = await api('GET', `/v1/visits?from=2026-06-16T00:00:00Z&to=2036-06-16T00:00:00Z&job_id=${job.id}`);
  assert.equal(visitsOnly.status, 200, visitsOnly.text);
});
