// Members' time through the MCP server (contract §29, §20) and stop_running under a race: start_timer and stop_timer
// for a member, get_job_costing (which needs time_entries:read as well); starts with stop_running racing for one
// member at one instant get one 201, the others 409 naming the winner, and exactly one entry runs after.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-24T09:00:00.000Z'));
let context: TestContext;
let baseUrl: string;
let accountId: string;
let key: string;
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
const api = (method: string, url: string, body?: unknown) => context.request(method, url, { key, body });
const created = async (url: string, body: Record<string, unknown>) => {
  const response = await api('POST', url, body);
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};

before(async () => {
  context = await createTestContext({ clock });
  ({ accountId, key } = await context.account('Timer Plumbing'));
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  for (const client of open) await client.close();
  await context.close();
});

test('start_timer, stop_timer for a member, get_job_costing', async () => {
  const client = await created('/v1/clients', { name: 'Jane Cooper' });
  const job = await created('/v1/jobs', { client_id: client.id, title: 'Boiler service' });
  const member = await created('/v1/team-members', { name: 'Sam Rivera' });
  await api('PUT', `/v1/team-members/${member.id}`, { hourly_cost_amount: 4000, hourly_rate_amount: 8000 });
  const mcp = await connect(key);
  const started = await call(mcp, 'start_timer', { team_member_id: member.id, job_id: job.id });
  assert.ok(!started.isError, JSON.stringify(started));
  assert.equal(started.structuredContent?.result?.running, true);
  assert.equal(started.structuredContent?.result?.source, 'timer');
  clock.set(new Date('2026-11-24T10:30:00.000Z'));
  const stopped = await call(mcp, 'stop_timer', { team_member_id: member.id });
  assert.ok(!stopped.isError, JSON.stringify(stopped));
  assert.equal(stopped.structuredContent?.result?.id, started.structuredContent?.result?.id);
  assert.equal(stopped.structuredContent?.result?.duration_seconds, 5400);
  // 1.5 h at 4,000 an hour cost and 8,000 billed.
  const costing = await call(mcp, 'get_job_costing', { job_id: job.id });
  assert.ok(!costing.isError, JSON.stringify(costing));
  assert.deepEqual(costing.structuredContent?.result?.labour, {
    entries: 1,
    seconds: 5400,
    cost_amount: 6000,
    billable_amount: 12000,
    unbilled_billable_amount: 12000,
    unapproved_entries: 1,
    running_entries: 0,
  });
  assert.equal(costing.structuredContent?.result?.profit_amount, -6000);
  // The same call again is answered from memory (§32: nothing it wrote has changed); a stopped entry named: refused.
  const again = await call(mcp, 'stop_timer', { team_member_id: member.id });
  assert.equal(again.structuredContent?.replayed, true, JSON.stringify(again));
  const refused = await call(mcp, 'stop_timer', { time_entry_id: started.structuredContent?.result?.id });
  assert.equal(refused.isError, true);
  // Without time_entries:read the costing tool is not listed.
  const jobsOnly = await connect((await context.key(accountId, ['jobs:read', 'time_entries:write'])).key);
  const names = (await jobsOnly.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('start_timer'));
  assert.ok(!names.includes('get_job_costing'));
});

test('starts with stop_running racing at one instant: one 201, the others 409 naming it; one entry runs', async () => {
  clock.set(new Date('2026-11-25T09:00:00.000Z'));
  const member = await created('/v1/team-members', { name: 'Racer' });
  const first = await created('/v1/time-entries/start', { team_member_id: member.id });
  clock.set(new Date('2026-11-25T10:00:00.000Z'));
  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api('POST', '/v1/time-entries/start', { team_member_id: member.id, stop_running: true }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status).sort(),
      [201, 409, 409, 409, 409, 409, 409, 409],
      answers.map((answer) => answer.text).join('\n'),
    );
    const winner = answers.find((answer) => answer.status === 201)?.body.data;
    for (const answer of answers.filter((one) => one.status === 409)) {
      assert.equal(answer.body.error.code, 'CONFLICT');
      assert.equal(answer.body.error.details[0].time_entry_id, winner.id);
    }
    const running = (await api('GET', `/v1/time-entries?team_member_id=${member.id}&running=true`)).body.data;
    assert.deepEqual(
      running.map((entry: { id: string }) => entry.id),
      [winner.id],
    );
    clock.set(new Date(Date.parse(winner.started_at) + 600_000));
  }
  const stopped = (await api('GET', `/v1/time-entries/${first.id}`)).body.data;
  assert.equal(stopped.ended_at, '2026-11-25T10:00:00.000Z');
  assert.equal(stopped.duration_seconds, 3600);
  // Every entry of the member: none overlaps the next.
  const all = (await api('GET', `/v1/time-entries?team_member_id=${member.id}&sort=started_at`)).body.data;
  assert.equal(all.length, 4);
  for (let index = 1; index < all.length; index += 1)
    assert.ok(all[index - 1].ended_at <= all[index].started_at, JSON.stringify(all));
});
