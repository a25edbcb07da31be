// Team members (contract section 15): fields and their defaults, validation, the e-mail unique
// case-insensitively among active members (409 naming the holder, also under concurrency), the filters
// active, role, q and external_id, and the events team_member.created|updated|deleted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

/** Contract section 15, literally. */
const ROLES = ['owner', 'admin', 'dispatcher', 'field'];

let context: TestContext;
let key: string;
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const create = async (body: Record<string, unknown>) => {
  const response = await api('POST', '/v1/team-members', body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};

test("create, get, update, delete; defaults: role field, active, the account's zone at creation", async () => {
  await api('PUT', '/v1/account', { timezone: 'Europe/Berlin' });
  const created = await api('POST', '/v1/team-members', {
    name: 'Maria Lopez',
    email: 'maria@example.com',
    color: '#1e88e5',
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.location, `/v1/team-members/${created.body.data.id}`);
  const member = created.body.data;
  assert.deepEqual(
    { ...member, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      object: 'team_member',
      name: 'Maria Lopez',
      email: 'maria@example.com',
      phone: null,
      role: 'field',
      color: '#1E88E5',
      timezone: 'Europe/Berlin',
      active: true,
      working_hours: null,
      bookable: true,
      hourly_cost_amount: null,
      hourly_rate_amount: null,
      external_id: null,
      metadata: {},
      // Contract section 27: every custom field defined for team members (none yet).
      custom_fields: {},
      created_at: undefined,
      updated_at: undefined,
    },
  );
  // The zone was stored, not followed: the account's later change leaves the member where it works.
  await api('PUT', '/v1/account', { timezone: 'UTC' });
  assert.equal((await api('GET', `/v1/team-members/${member.id}`)).body.data.timezone, 'Europe/Berlin');

  const updated = await api('PUT', `/v1/team-members/${member.id}`, {
    role: 'dispatcher',
    timezone: 'US/Mountain',
    phone: '+1 555 0101',
  });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.body.data.role, 'dispatcher');
  assert.equal(updated.body.data.timezone, 'America/Denver');
  assert.equal(updated.body.data.phone, '+1 555 0101');
  assert.equal(updated.body.data.name, 'Maria Lopez', 'absent fields are kept');

  const deleted = await api('DELETE', `/v1/team-members/${member.id}`);
  assert.deepEqual(deleted.body.data, { id: member.id, deleted: true });
  assert.equal((await api('GET', `/v1/team-members/${member.id}`)).status, 404);
});

test('every role of the contract is accepted; anything else is a 422 naming each bad field', async () => {
  for (const role of ROLES) assert.equal((await create({ name: `Role ${role}`, role })).role, role);
  const bad = await api('POST', '/v1/team-members', {
    name: ' ',
    email: 'not-an-address',
    role: 'boss',
    color: 'blue',
    timezone: '+02:00',
    active: 'yes',
    password: 'x',
  });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  const fields = bad.body.error.details.map((detail: { field: string }) => detail.field).sort();
  assert.deepEqual(fields, ['active', 'color', 'email', 'name', 'password', 'role']);
  const zone = await api('POST', '/v1/team-members', { name: 'Zone', timezone: 'MST' });
  assert.equal(zone.status, 422);
  assert.deepEqual(zone.body.error.details[0].field, 'timezone');
  assert.equal((await api('POST', '/v1/team-members', { name: 'x'.repeat(201) })).status, 422);
  assert.equal((await api('PUT', `/v1/team-members/${(await create({ name: 'Ok' })).id}`, { id: 'x' })).status, 422);
});

test('the e-mail is unique case-insensitively among active members: 409 naming the holder', async () => {
  const first = await create({ name: 'First', email: 'Crew@Example.com' });
  const second = await api('POST', '/v1/team-members', { name: 'Second', email: 'crew@example.COM' });
  assert.equal(second.status, 409, second.text);
  assert.equal(second.body.error.code, 'CONFLICT');
  assert.match(second.body.error.message, new RegExp(first.id));
  // An inactive member gives up its address: a new member may have it, and the old one cannot come back.
  const other = await create({ name: 'Other', email: 'other@example.com' });
  const clash = await api('PUT', `/v1/team-members/${other.id}`, { email: 'CREW@example.com' });
  assert.equal(clash.status, 409);
  assert.equal((await api('PUT', `/v1/team-members/${first.id}`, { active: false })).body.data.active, false);
  const successor = await create({ name: 'Successor', email: 'crew@example.com' });
  const back = await api('PUT', `/v1/team-members/${first.id}`, { active: true });
  assert.equal(back.status, 409, back.text);
  assert.match(back.body.error.message, new RegExp(successor.id));
  // Inactive members may share an address; a member keeps its own address through an edit.
  assert.equal(
    (await api('POST', '/v1/team-members', { name: 'Old', email: 'crew@example.com', active: false })).status,
    201,
  );
  assert.equal((await api('PUT', `/v1/team-members/${successor.id}`, { email: 'Crew@example.com' })).status, 200);
});

test('two members created at once with one e-mail: one is made, the other is a 409', async () => {
  const body = (name: string) => ({ name, email: 'race@example.com' });
  const answers = await Promise.all([1, 2, 3, 4].map((n) => api('POST', '/v1/team-members', body(`Racer ${n}`))));
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409, 409]);
  const winner = answers.find((answer) => answer.status === 201)!.body.data.id;
  for (const loser of answers.filter((answer) => answer.status === 409))
    assert.match(loser.body.error.message, new RegExp(winner));
});

test('external_id: unique among members (409 naming the holder, also when concurrent); filter external_id=', async () => {
  const answers = await Promise.all(
    [1, 2, 3].map((n) => api('POST', '/v1/team-members', { name: `Synced ${n}`, external_id: 'hr-7' })),
  );
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409]);
  const holder = answers.find((answer) => answer.status === 201)!.body.data.id;
  for (const loser of answers.filter((answer) => answer.status === 409)) {
    assert.equal(loser.body.error.code, 'CONFLICT');
    assert.match(loser.body.error.message, new RegExp(holder));
  }
  const found = await api('GET', '/v1/team-members?external_id=hr-7');
  assert.deepEqual(
    found.body.data.map((row: { id: string }) => row.id),
    [holder],
  );
  assert.equal((await api('GET', '/v1/team-members?external_id=nobody')).body.data.length, 0);
});

test('filters: active, role (comma-separated), q on name and e-mail; sort=name is case-insensitive', async () => {
  const { key: own } = await context.account('Filters');
  const call = (url: string) => context.request('GET', url, { key: own });
  const make = (body: Record<string, unknown>) => context.request('POST', '/v1/team-members', { key: own, body });
  await make({ name: 'bob Builder', email: 'bob@build.example', role: 'field' });
  await make({ name: 'Alice Admin', email: 'alice@office.example', role: 'admin' });
  await make({ name: 'Dora Dispatch', email: 'dora@office.example', role: 'dispatcher', active: false });
  await make({ name: 'Émile Field', email: 'emile@build.example', role: 'field' });
  const names = async (query: string) =>
    (await call(`/v1/team-members?sort=name&${query}`)).body.data.map((row: { name: string }) => row.name);
  assert.deepEqual(await names(''), ['Alice Admin', 'bob Builder', 'Dora Dispatch', 'Émile Field']);
  assert.deepEqual(await names('active=true'), ['Alice Admin', 'bob Builder', 'Émile Field']);
  assert.deepEqual(await names('active=false'), ['Dora Dispatch']);
  assert.deepEqual(await names('role=field'), ['bob Builder', 'Émile Field']);
  assert.deepEqual(await names('role=admin,dispatcher'), ['Alice Admin', 'Dora Dispatch']);
  assert.deepEqual(await names('q=OFFICE'), ['Alice Admin', 'Dora Dispatch'], 'the e-mail, any case');
  assert.deepEqual(await names('q=build'), ['bob Builder', 'Émile Field']);
  assert.deepEqual(await names('q=ÉMILE'), ['Émile Field'], 'non-ASCII case folds alike on both engines');
  assert.deepEqual(await names('q=100%25'), []);
  assert.deepEqual(await names('role=field&active=true&q=bob'), ['bob Builder']);
  const page = await call('/v1/team-members?sort=-name&limit=2');
  assert.deepEqual(
    page.body.data.map((row: { name: string }) => row.name),
    ['Émile Field', 'Dora Dispatch'],
  );
  const next = await call(`/v1/team-members?sort=-name&limit=2&cursor=${page.body.meta.pagination.next_cursor}`);
  assert.deepEqual(
    next.body.data.map((row: { name: string }) => row.name),
    ['bob Builder', 'Alice Admin'],
  );
  for (const query of ['role=boss', 'active=maybe', 'q=', 'sort=email', 'colour=red'])
    assert.equal((await call(`/v1/team-members?${query}`)).status, 422, query);
});

test('each change records its event: team_member.created, .updated (with previous_attributes), .deleted', async () => {
  const member = await create({ name: 'Evented' });
  await api('PUT', `/v1/team-members/${member.id}`, { active: false });
  await api('PUT', `/v1/team-members/${member.id}`, { active: false });
  await api('DELETE', `/v1/team-members/${member.id}`);
  const events = (await api('GET', `/v1/events?resource_id=${member.id}`)).body.data.reverse();
  assert.deepEqual(
    events.map((event: { type: string }) => event.type),
    ['team_member.created', 'team_member.updated', 'team_member.deleted'],
  );
  assert.deepEqual(events[1].data.previous_attributes, { active: true });
});
