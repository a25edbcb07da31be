// The MCP server (contract section 20), driven by the official SDK's client over real HTTP: the tools a key
// sees, dry runs, the two-step confirmation of sends and money, retries that act once, the actor of its
// events, and authentication and rate limits exactly as on /v1. The tool names are stated here literally.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const ALL_TOOLS = [
  'create_client',
  'create_invoice',
  'create_quote',
  'find_clients',
  'get_account',
  'get_client',
  'list_overdue_invoices',
  'preview_invoice',
  'preview_quote',
  'record_payment',
  'refund_payment',
  'send_invoice',
  'send_quote',
  'schedule_visit',
  'reschedule_visit',
  'assign_visit',
  'complete_visit',
  'visit_calendar',
].sort();
const READ_ONLY_TOOLS = [
  'find_clients',
  'get_account',
  'get_client',
  'list_overdue_invoices',
  'preview_invoice',
  'preview_quote',
  'visit_calendar',
].sort();
const CONFIRMED_TOOLS = ['record_payment', 'refund_payment', 'send_invoice', 'send_quote'];
const READ_SCOPES = [
  'clients:read',
  'quotes:read',
  'invoices:read',
  'payments:read',
  'account:read',
  'visits:read',
] as const;

const clock = new ManualClock(new Date('2026-11-25T12:00:00.000Z'));
let context: TestContext;
let baseUrl: string;
let owner: { accountId: string; key: string };
let ownerKeyId: string;
let clientId: string;
const open: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'bms-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: Array<{ type: string; text?: string }>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const text = result.content[0]?.text;
  assert.ok(text, 'a text answer');
  assert.deepEqual(JSON.parse(text), result.structuredContent, 'the text and the structured content agree');
  return result;
}

const rest = (method: string, path: string, body?: unknown) =>
  context.request(method, path, { key: owner.key, body }).then((response) => {
    assert.ok(response.status < 300, response.text);
    return response.body.data;
  });

const count = async (table: 'clients' | 'quotes' | 'outbox_messages' | 'payments' | 'invoices') =>
  Number(
    (
      await context.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const eventsOf = async (type: string, resourceId: string) =>
  (await context.request('GET', `/v1/events?type=${type}&resource_id=${resourceId}`, { key: owner.key })).body.data;

const LINES = [{ description: 'Boiler service', quantity: 1, unit_amount: 12500 }];

before(async () => {
  context = await createTestContext({ clock });
  owner = await context.account('Smith Plumbing');
  ownerKeyId = (await rest('GET', '/v1/api-keys')).find(
    (key: { prefix: string }) => key.prefix === owner.key.slice(0, 12),
  ).id;
  clientId = (await rest('POST', '/v1/clients', { name: 'Jane Cooper', email: 'jane@example.com' })).id;
  baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  for (const client of open) await client.close();
  await context.close();
});

test('an all-scopes key lists every tool, each with a description, a JSON schema and annotations', async () => {
  const client = await connect(owner.key);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ALL_TOOLS);
  for (const tool of tools) {
    assert.ok((tool.description ?? '').length > 40, tool.name);
    assert.equal(tool.inputSchema.type, 'object');
    const properties = Object.keys(tool.inputSchema.properties ?? {});
    const readOnly = READ_ONLY_TOOLS.includes(tool.name);
    assert.equal(tool.annotations?.readOnlyHint, readOnly, tool.name);
    assert.equal(tool.annotations?.openWorldHint, false);
    assert.equal(tool.annotations?.destructiveHint, CONFIRMED_TOOLS.includes(tool.name), tool.name);
    assert.equal(typeof tool.annotations?.idempotentHint, 'boolean');
    assert.equal(properties.includes('dry_run'), !readOnly, `${tool.name}: dry_run on every write`);
    assert.equal(properties.includes('confirmation_token'), CONFIRMED_TOOLS.includes(tool.name), tool.name);
  }
});

test('a read-only key lists only read-only tools; calling a write tool anyway is refused', async () => {
  const { key } = await context.key(owner.accountId, READ_SCOPES);
  const client = await connect(key);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), READ_ONLY_TOOLS);
  assert.ok(tools.every((tool) => tool.annotations?.readOnlyHint === true));
  const before = await count('clients');
  await assert.rejects(call(client, 'create_client', { name: 'Sneaky' }), /Unknown tool: create_client/);
  assert.equal(await count('clients'), before, 'nothing made');
  const found = await call(client, 'find_clients', { query: 'cooper' });
  assert.deepEqual(
    found.structuredContent!.result.items.map((item: { id: string }) => item.id),
    [clientId],
  );
});

test('create a client: dry_run changes nothing; the call retried acts once; its event says mcp', async () => {
  const client = await connect(owner.key);
  const before = await count('clients');
  const dry = await call(client, 'create_client', { name: 'Bob Stone', email: 'bob@example.com', dry_run: true });
  assert.equal(dry.structuredContent!.dry_run, true);
  assert.equal(dry.structuredContent!.result.name, 'Bob Stone');
  assert.equal(await count('clients'), before, 'a dry run stores nothing');

  const made = await call(client, 'create_client', { name: 'Bob Stone', email: 'bob@example.com' });
  const retried = await call(client, 'create_client', { email: 'bob@example.com', name: 'Bob Stone' });
  assert.equal(retried.structuredContent!.result.id, made.structuredContent!.result.id);
  assert.equal(retried.structuredContent!.replayed, true);
  assert.equal(await count('clients'), before + 1, 'one client');
  const [event] = await eventsOf('client.created', made.structuredContent!.result.id);
  assert.deepEqual(event.actor, { type: 'mcp', id: ownerKeyId });
  const byMcp = await context.request('GET', `/v1/events?actor_type=mcp&actor_id=${ownerKeyId}`, { key: owner.key });
  assert.ok(byMcp.body.data.some((listed: { id: string }) => listed.id === event.id));

  const invalid = await call(client, 'create_client', { name: 'Bad', email: 'not-an-email' });
  assert.equal(invalid.isError, true);
  assert.deepEqual(invalid.structuredContent!.error.details, [
    { field: 'email', message: 'must be a valid e-mail address' },
  ]);
});

test('the day’s dispatch: schedule, assign, show the calendar, reschedule and complete a visit; its events say mcp', async () => {
  const client = await connect(owner.key);
  const job = await rest('POST', '/v1/jobs', { client_id: clientId, title: 'Boiler service' });
  const member = await rest('POST', '/v1/team-members', { name: 'Maria' });
  const made = await call(client, 'schedule_visit', {
    job_id: job.id,
    local_start: '2026-11-26T09:00',
    duration_minutes: 60,
    timezone: 'America/Denver',
  });
  const visit = made.structuredContent!.result;
  assert.equal(visit.start_at, '2026-11-26T16:00:00.000Z');
  const assigned = await call(client, 'assign_visit', { visit_id: visit.id, team_member_id: member.id });
  assert.deepEqual(assigned.structuredContent!.result.assignee_ids, [member.id]);
  const day = await call(client, 'visit_calendar', {
    from_date: '2026-11-26',
    to_date: '2026-11-26',
    timezone: 'America/Denver',
    assignee_id: member.id,
  });
  assert.deepEqual(
    day.structuredContent!.result.items.map((item: { id: string }) => item.id),
    [visit.id],
  );
  const moved = await call(client, 'reschedule_visit', {
    visit_id: visit.id,
    local_start: '2026-11-27T13:00',
    duration_minutes: 90,
  });
  assert.equal(moved.structuredContent!.result.local_start, '2026-11-27T13:00');
  const gap = await call(client, 'reschedule_visit', {
    visit_id: visit.id,
    local_start: '2026-03-08T02:30',
    duration_minutes: 30,
  });
  assert.equal(gap.isError, true);
  assert.equal(gap.structuredContent!.error.details[0].field, 'local_start');
  const done = await call(client, 'complete_visit', { visit_id: visit.id, completion_notes: 'Serviced.' });
  assert.equal(done.structuredContent!.result.status, 'completed');
  const [event] = await eventsOf('visit.completed', visit.id);
  assert.deepEqual(event.actor, { type: 'mcp', id: ownerKeyId });
  assert.equal((await eventsOf('visit.rescheduled', visit.id)).length, 1);
});

test('preview then create a quote: the preview stores nothing and computes what create stores', async () => {
  const client = await connect(owner.key);
  const before = await count('quotes');
  const preview = await call(client, 'preview_quote', { client_id: clientId, line_items: LINES });
  assert.equal(preview.structuredContent!.preview, true);
  assert.equal(preview.structuredContent!.result.total_amount, 12500);
  assert.equal(await count('quotes'), before);
  const created = await call(client, 'create_quote', { client_id: clientId, line_items: LINES });
  const quote = created.structuredContent!.result;
  assert.equal(quote.total_amount, preview.structuredContent!.result.total_amount);
  assert.equal((await rest('GET', `/v1/quotes/${quote.id}`)).status, 'draft');
  assert.equal(await count('quotes'), before + 1);
});

test('send_quote: a summary first (nothing sent), a token for other arguments refused, the right one sends once', async () => {
  const client = await connect(owner.key);
  const quote = await rest('POST', '/v1/quotes', { client_id: clientId, line_items: LINES });
  const outbox = await count('outbox_messages');

  const first = await call(client, 'send_quote', { quote_id: quote.id, message: 'Thanks!' });
  const asked = first.structuredContent!;
  assert.equal(asked.confirmation_required, true);
  assert.equal(asked.done, false);
  assert.match(asked.summary, /jane@example\.com/);
  assert.match(asked.summary, /\$125\.00/);
  assert.match(asked.confirmation_token, /^mcpc_/);
  assert.equal(await count('outbox_messages'), outbox, 'no e-mail queued');
  assert.deepEqual(await eventsOf('quote.sent', quote.id), [], 'no event');
  assert.equal((await rest('GET', `/v1/quotes/${quote.id}`)).status, 'draft');

  const other = await call(client, 'send_quote', {
    quote_id: quote.id,
    message: 'Something else',
    confirmation_token: asked.confirmation_token,
  });
  assert.equal(other.isError, true);
  assert.equal(other.structuredContent!.error.code, 'CONFIRMATION_REFUSED');
  assert.equal(await count('outbox_messages'), outbox, 'still nothing sent');

  const { key: otherKey } = await context.key(owner.accountId, ['quotes:send', 'clients:read']);
  const stolen = await call(await connect(otherKey), 'send_quote', {
    quote_id: quote.id,
    message: 'Thanks!',
    confirmation_token: asked.confirmation_token,
  });
  assert.equal(stolen.isError, true, 'a token is bound to the key it was given to');

  const args = { quote_id: quote.id, message: 'Thanks!', confirmation_token: asked.confirmation_token };
  const sent = await call(client, 'send_quote', args);
  assert.equal(sent.isError, undefined);
  assert.equal(sent.structuredContent!.done, true);
  assert.equal(sent.structuredContent!.result.status, 'sent');
  const retried = await call(client, 'send_quote', args);
  assert.equal(retried.structuredContent!.replayed, true);
  assert.equal(await count('outbox_messages'), outbox + 1, 'one e-mail');
  const events = await eventsOf('quote.sent', quote.id);
  assert.equal(events.length, 1, 'one quote.sent');
  assert.deepEqual(events[0].actor, { type: 'mcp', id: ownerKeyId });
});

test('record_payment likewise; refund_payment too; an expired token is refused', async () => {
  const client = await connect(owner.key);
  const invoice = await rest('POST', '/v1/invoices', { client_id: clientId, line_items: LINES });
  await rest('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
  const payments = await count('payments');
  const args = { invoice_id: invoice.id, amount: 5000, method: 'card' };

  const dry = await call(client, 'record_payment', { ...args, dry_run: true });
  assert.equal(dry.structuredContent!.result.amount, 5000);
  const first = await call(client, 'record_payment', args);
  assert.match(first.structuredContent!.summary, /\$50\.00.*\$125\.00 to \$75\.00/);
  assert.equal(await count('payments'), payments, 'nothing recorded yet');
  const token = first.structuredContent!.confirmation_token;
  const paid = await call(client, 'record_payment', { ...args, confirmation_token: token });
  assert.equal(paid.structuredContent!.done, true);
  await call(client, 'record_payment', { ...args, confirmation_token: token });
  assert.equal(await count('payments'), payments + 1, 'the retry recorded nothing more');
  assert.equal((await rest('GET', `/v1/invoices/${invoice.id}`)).amount_due, 7500);
  const [event] = await eventsOf('payment.created', paid.structuredContent!.result.id);
  assert.deepEqual(event.actor, { type: 'mcp', id: ownerKeyId });

  const refundArgs = { payment_id: paid.structuredContent!.result.id, amount: 1000 };
  const refundAsk = await call(client, 'refund_payment', refundArgs);
  assert.match(refundAsk.structuredContent!.summary, /Refund \$10\.00/);
  assert.equal((await rest('GET', `/v1/payments/${refundArgs.payment_id}`)).amount_refunded, 0);
  await call(client, 'refund_payment', {
    ...refundArgs,
    confirmation_token: refundAsk.structuredContent!.confirmation_token,
  });
  assert.equal((await rest('GET', `/v1/payments/${refundArgs.payment_id}`)).amount_refunded, 1000);

  const late = await call(client, 'record_payment', args);
  clock.advance(10 * 60 * 1000);
  const expired = await call(client, 'record_payment', {
    ...args,
    confirmation_token: late.structuredContent!.confirmation_token,
  });
  assert.equal(expired.isError, true);
  assert.match(expired.structuredContent!.error.message, /expired/);
  assert.equal(await count('payments'), payments + 1, 'nothing recorded');
  const refused = await call(client, 'send_invoice', { invoice_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent!.error.code, 'NOT_FOUND');
});

test('a missing or bad key is a 401 with WWW-Authenticate, exactly as on /v1', async () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const missing = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="bms"');
  assert.equal((await missing.json()).error.code, 'AUTHENTICATION_REQUIRED');
  const bad = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer bms_${'Z'.repeat(40)}` },
    body,
  });
  assert.equal(bad.status, 401);
  assert.equal(bad.headers.get('www-authenticate'), 'Bearer realm="bms", error="invalid_token"');
  assert.equal((await bad.json()).error.code, 'INVALID_API_KEY');
  await assert.rejects(connect(`bms_${'Z'.repeat(40)}`));
});

test('the MCP rate limit is the key’s: the same bucket as /v1', async () => {
  const { key } = await context.key(owner.accountId, READ_SCOPES, {
    rateLimits: { burst: 4, perMinute: 1, perDay: 1000 },
  });
  const client = await connect(key); // initialize and its notification: two requests
  await client.listTools(); // three
  assert.equal((await context.request('GET', '/v1/clients', { key })).status, 200); // four, on /v1
  await assert.rejects(client.listTools(), /429|Too many requests/);
  const limited = await context.request('GET', '/v1/clients', { key });
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers['retry-after']) >= 1);
});
