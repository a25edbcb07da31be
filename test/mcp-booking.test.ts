// Booking through the MCP server (contract §28, §20), driven by the official SDK's client: find_slots offers a
// few times, hold_slot keeps one for the key, book_slot makes the visit (dry_run says whether it would book; a
// repeat with the spent hold answers the same visit); book_slot making its job needs jobs:write as well.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
let context: TestContext;
let baseUrl: string;
let accountId: string;
let key: string;
let clientId: string;
let memberId: string;
const open: Client[] = [];

async function connect(as: string): Promise<Client> {
  const client = new Client({ name: 'bms-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${as}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, any>;
}
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;

before(async () => {
  context = await createTestContext({ clock });
  ({ accountId, key } = await context.account('Booking Plumbing'));
  const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
  clientId = (await api('POST', '/v1/clients', { name: 'Jane Cooper' })).body.data.id;
  memberId = (
    await api('POST', '/v1/team-members', {
      name: 'Sam',
      timezone: 'America/Denver',
      working_hours: ['MO', 'TU', 'WE', 'TH', 'FR'].map((day) => ({ day, start: '08:00', end: '17:00' })),
    })
  ).body.data.id;
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  for (const client of open) await client.close();
  await context.close();
});

test('find_slots, hold_slot, book_slot: the visit takes the held time and crew; a repeat answers the same visit', async () => {
  const client = await connect(key);
  const { tools } = await client.listTools();
  for (const name of ['find_slots', 'hold_slot', 'book_slot']) {
    const tool = tools.find((one) => one.name === name);
    assert.ok(tool, name);
    assert.match(tool.description ?? '', /offer the person two or three of the times/);
  }
  assert.equal(tools.find((one) => one.name === 'find_slots')?.annotations?.readOnlyHint, true);
  assert.equal(tools.find((one) => one.name === 'book_slot')?.annotations?.idempotentHint, true);
  const found = await call(client, 'find_slots', {
    duration_minutes: 90,
    from_date: '2030-03-04',
    to_date: '2030-03-04',
    timezone: 'America/Denver',
  });
  assert.equal(found.isError, undefined, JSON.stringify(found.structuredContent));
  const slots = found.structuredContent!.result.items;
  assert.equal(slots.length, 5); // a few, by default
  assert.deepEqual(
    slots.map((slot: any) => slot.local_start),
    ['2030-03-04T08:00', '2030-03-04T08:30', '2030-03-04T09:00', '2030-03-04T09:30', '2030-03-04T10:00'],
  );
  const chosen = slots[2];
  const held = await call(client, 'hold_slot', {
    start_at: chosen.start_at,
    duration_minutes: 90,
    team_member_ids: chosen.team_member_ids,
    timezone: 'America/Denver',
  });
  assert.equal(held.isError, undefined, JSON.stringify(held.structuredContent));
  const hold = held.structuredContent!.result;
  assert.equal(hold.active, true);
  const job = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Leak' } })).body
    .data;
  const dry = await call(client, 'book_slot', { hold_id: hold.id, job_id: job.id, dry_run: true });
  assert.equal(dry.isError, undefined, JSON.stringify(dry.structuredContent));
  assert.equal(dry.structuredContent!.changed, false);
  assert.equal(dry.structuredContent!.result.start_at, chosen.start_at);
  const booked = await call(client, 'book_slot', { hold_id: hold.id, job_id: job.id });
  assert.equal(booked.isError, undefined, JSON.stringify(booked.structuredContent));
  const visit = booked.structuredContent!.result;
  assert.equal(visit.local_start, '2030-03-04T09:00');
  assert.equal(visit.local_end, '2030-03-04T10:30');
  assert.deepEqual(visit.assignee_ids, [memberId]);
  assert.equal(visit.hold_id, hold.id);
  // Idempotent by hold: again, even with other arguments, the same visit; one visit in all.
  const again = await call(client, 'book_slot', { hold_id: hold.id, job_id: job.id, instructions: 'Ring twice' });
  assert.equal(again.structuredContent!.result.id, visit.id);
  const visits = await context.request('GET', `/v1/visits?job_id=${job.id}`, { key });
  assert.equal(visits.body.data.length, 1);
  // The time is gone for the next caller.
  const after = await call(client, 'find_slots', {
    duration_minutes: 90,
    from_date: '2030-03-04',
    to_date: '2030-03-04',
    timezone: 'America/Denver',
    limit: 25,
  });
  const starts = after.structuredContent!.result.items.map((slot: any) => slot.local_start);
  assert.ok(!starts.includes('2030-03-04T09:00'));
  assert.ok(starts.includes('2030-03-04T10:30'));
});

test('book_slot with client_id makes the job too, which needs jobs:write; without it the call is refused', async () => {
  const narrow = await context.key(accountId, ['availability:read', 'availability:write', 'visits:write']);
  const client = await connect(narrow.key);
  const held = await call(client, 'hold_slot', {
    start_at: '2030-03-05T16:00:00Z',
    duration_minutes: 60,
    team_member_ids: [memberId],
  });
  assert.equal(held.isError, undefined, JSON.stringify(held.structuredContent));
  const refused = await call(client, 'book_slot', {
    hold_id: held.structuredContent!.result.id,
    client_id: clientId,
    title: 'New job',
  });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent!.error.code, 'INSUFFICIENT_SCOPE');
  const wide = await context.key(accountId, ['availability:read', 'availability:write', 'visits:write', 'jobs:write']);
  const other = await connect(wide.key);
  // The hold is bound to the narrow key: the wide key cannot book it.
  const foreign = await call(other, 'book_slot', {
    hold_id: held.structuredContent!.result.id,
    client_id: clientId,
    title: 'New job',
  });
  assert.equal(foreign.isError, true);
  assert.equal(foreign.structuredContent!.error.code, 'VALIDATION_ERROR');
  const mine = await call(other, 'hold_slot', {
    start_at: '2030-03-05T18:00:00Z',
    duration_minutes: 60,
    team_member_ids: [memberId],
  });
  const made = await call(other, 'book_slot', {
    hold_id: mine.structuredContent!.result.id,
    client_id: clientId,
    title: 'New job',
  });
  assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
  const job = await context.request('GET', `/v1/jobs/${made.structuredContent!.result.job_id}`, { key });
  assert.equal(job.body.data.title, 'New job');
});

test('hold_slot repeated with the same arguments answers the same hold while it is active, a new one once released', async () => {
  const client = await connect(key);
  const args = { start_at: '2030-03-06T16:00:00Z', duration_minutes: 60, team_member_ids: [memberId] };
  const first = await call(client, 'hold_slot', args);
  assert.equal(first.isError, undefined, JSON.stringify(first.structuredContent));
  const again = await call(client, 'hold_slot', args);
  assert.equal(again.structuredContent!.result.id, first.structuredContent!.result.id);
  assert.equal(again.structuredContent!.replayed, true);
  const released = await context.request('DELETE', `/v1/availability/holds/${first.structuredContent!.result.id}`, {
    key,
  });
  assert.equal(released.status, 200, released.text);
  const fresh = await call(client, 'hold_slot', args);
  assert.equal(fresh.isError, undefined, JSON.stringify(fresh.structuredContent));
  assert.notEqual(fresh.structuredContent!.result.id, first.structuredContent!.result.id);
  assert.equal(fresh.structuredContent!.result.active, true);
});
