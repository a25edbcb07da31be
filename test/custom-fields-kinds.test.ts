// Custom field values on every kind the contract names (docs/api-contract.md §27: client, property,
// service_request, quote, job, invoice, visit, product, team_member): answered with every defined key, checked in
// the same 422 as the native fields, merged by PUT, named in `*.updated`'s previous_attributes, filtered on the
// kind's list, and gone from every answer at once when the field is deleted. One run over the contract's list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { renderHtml, renderText, type MailSnapshot } from '../src/mail/document-mail.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { filterEntriesAgainstObjects } from './helpers/filter-entries.js';
import { pdfText } from './helpers/smtp.js';

/** The contract's nine kinds, as §27 lists them. */
const KINDS = [
  'client',
  'property',
  'service_request',
  'quote',
  'job',
  'invoice',
  'visit',
  'product',
  'team_member',
] as const;
type Kind = (typeof KINDS)[number];

const PATHS: Record<Kind, string> = {
  client: '/v1/clients',
  property: '/v1/properties',
  service_request: '/v1/service-requests',
  quote: '/v1/quotes',
  job: '/v1/jobs',
  invoice: '/v1/invoices',
  visit: '/v1/visits',
  product: '/v1/products',
  team_member: '/v1/team-members',
};

const clock = new ManualClock(new Date('2026-11-29T10:00:00.000Z'));
let context: TestContext;

before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());

/** An account of its own, and what each kind's object needs besides its own fields. */
async function setUp() {
  const { key } = await context.account();
  const api = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    clock.advance(1);
    return context.request(method, url, { key, body, ...(headers ? { headers } : {}) });
  };
  const client = await api('POST', '/v1/clients', { name: 'Jane Cooper' });
  assert.equal(client.status, 201, client.text);
  const job = await api('POST', '/v1/jobs', { client_id: client.body.data.id, title: 'Gutters' });
  assert.equal(job.status, 201, job.text);
  const clientId = client.body.data.id as string;
  const bodies: Record<Kind, Record<string, unknown>> = {
    client: { name: 'Ann Lee' },
    property: { client_id: clientId, address: { line1: '1 Main Street', country: 'US' } },
    service_request: { client_id: clientId, title: 'Leak' },
    quote: { client_id: clientId },
    job: { client_id: clientId, title: 'Roof' },
    invoice: { client_id: clientId },
    visit: { job_id: job.body.data.id },
    product: { type: 'service', name: 'Drain cleaning' },
    team_member: { name: 'Bo Diaz' },
  };
  const define = async (resource: Kind, body: Record<string, unknown>) => {
    const response = await api('POST', '/v1/custom-fields', { resource, ...body });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  return { key, api, bodies, define };
}

function detailsOf(response: { status: number; body: any; text: string }) {
  assert.equal(response.status, 422, response.text);
  assert.equal(response.body.error.code, 'VALIDATION_ERROR');
  return Object.fromEntries(response.body.error.details.map((detail: any) => [detail.field, detail.message]));
}

describe('custom field values on every kind of the contract', () => {
  for (const kind of KINDS) {
    test(`${kind}: every key answered, 422 beside native fields, a merging PUT, its event, filters, a deleted field gone`, async () => {
      const { api, bodies, define } = await setUp();
      const path = PATHS[kind];
      await define(kind, { key: 'note', label: 'Note', type: 'text', bounds: { max_length: 5 } });
      await define(kind, { key: 'level', label: 'Level', type: 'number', bounds: { min: 0, max: 10, decimals: 1 } });
      await define(kind, {
        key: 'tier',
        label: 'Tier',
        type: 'select',
        options: [
          { value: 'gold', label: 'Gold' },
          { value: 'silver', label: 'Silver' },
        ],
      });
      const budget = await define(kind, { key: 'budget', label: 'Budget', type: 'money' });

      // Made with two values: every defined key is answered, null when unset, in the definitions' order.
      const made = await api('POST', path, { ...bodies[kind], custom_fields: { note: 'abc', level: 2.5 } });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body.data.custom_fields, { note: 'abc', level: 2.5, tier: null, budget: null });
      const id = made.body.data.id as string;
      const read = await api('GET', `${path}/${id}`);
      assert.deepEqual(read.body.data.custom_fields, { note: 'abc', level: 2.5, tier: null, budget: null });
      assert.equal(read.headers.etag, made.headers.etag);

      // One 422 names each wrong custom field beside a wrong native field.
      const wrong = await api('POST', path, {
        ...bodies[kind],
        metadata: 'not an object',
        custom_fields: { note: 'too long', level: 11, tier: 'bronze', nope: 1 },
      });
      assert.deepEqual(Object.keys(detailsOf(wrong)).sort(), [
        'custom_fields.level',
        'custom_fields.nope',
        'custom_fields.note',
        'custom_fields.tier',
        'metadata',
      ]);

      // A PUT (with the ETag read) changes only the keys it names; null clears.
      const updated = await api(
        'PUT',
        `${path}/${id}`,
        { custom_fields: { level: 4, note: null, tier: 'gold' } },
        { 'if-match': read.headers.etag as string },
      );
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.body.data.custom_fields, { note: null, level: 4, tier: 'gold', budget: null });
      const stale = await api(
        'PUT',
        `${path}/${id}`,
        { custom_fields: { level: 5 } },
        {
          'if-match': read.headers.etag as string,
        },
      );
      assert.equal(stale.status, 412, stale.text);
      const events = await api('GET', `/v1/events?type=${kind}.*`);
      const change = events.body.data.find((event: any) => event.data.previous_attributes?.custom_fields);
      assert.ok(change, `${kind}: an event names the custom fields changed`);
      assert.deepEqual(change.data.previous_attributes.custom_fields, { note: 'abc', level: 2.5, tier: null });
      assert.deepEqual(change.data.object.custom_fields, { note: null, level: 4, tier: 'gold', budget: null });
      const createdEvent = events.body.data.find((event: any) => event.type === `${kind}.created`);
      assert.deepEqual(createdEvent.data.object.custom_fields, { note: 'abc', level: 2.5, tier: null, budget: null });

      // Naming a key with the value it holds changes nothing: updated_at kept.
      const same = await api('PUT', `${path}/${id}`, { custom_fields: { tier: 'gold' } });
      assert.equal(same.status, 200, same.text);
      assert.equal(same.body.data.updated_at, updated.body.data.updated_at);

      // The list's filters.
      const other = await api('POST', path, { ...bodies[kind], custom_fields: { level: 7, tier: 'silver' } });
      assert.equal(other.status, 201, other.text);
      const ids = async (query: string) => {
        const listed = await api('GET', `${path}?${query}&limit=100`);
        assert.equal(listed.status, 200, listed.text);
        return listed.body.data.map((one: any) => one.id).sort();
      };
      assert.deepEqual(await ids('custom_fields.tier=gold'), [id]);
      assert.deepEqual(await ids('custom_fields.tier=gold,silver'), [id, other.body.data.id].sort());
      assert.deepEqual(await ids('custom_fields.level.gte=5'), [other.body.data.id]);
      assert.deepEqual(await ids('custom_fields.level.lte=4&custom_fields.tier=gold'), [id]);
      const listed = await api('GET', `${path}?custom_fields.tier=gold`);
      assert.deepEqual(listed.body.data[0].custom_fields, { note: null, level: 4, tier: 'gold', budget: null });
      const badFilter = await api('GET', `${path}?custom_fields.nope=1&custom_fields.tier.gte=a`);
      assert.deepEqual(Object.keys(detailsOf(badFilter)).sort(), ['custom_fields.nope', 'custom_fields.tier.gte']);

      // A deleted field leaves every answer at once.
      assert.equal((await api('DELETE', `/v1/custom-fields/${budget.id}`)).status, 200);
      const after = await api('GET', `${path}/${id}`);
      assert.deepEqual(after.body.data.custom_fields, { note: null, level: 4, tier: 'gold' });
    });
  }
});

describe('rules the kinds share', () => {
  test('required binds a create of every kind but what BMS makes itself; a job’s visits are named by index', async () => {
    const { api, bodies, define } = await setUp();
    for (const kind of KINDS) {
      await define(kind, { key: 'po_number', label: 'PO number', type: 'text', required: true });
      const missing = await api('POST', PATHS[kind], bodies[kind]);
      assert.deepEqual(Object.keys(detailsOf(missing)), ['custom_fields.po_number'], kind);
    }
    const job = await api('POST', '/v1/jobs', {
      ...bodies.job,
      custom_fields: { po_number: 'PO-1' },
      visits: [{ custom_fields: { po_number: 'V-1' } }, { custom_fields: { po_number: 7 } }],
    });
    assert.deepEqual(Object.keys(detailsOf(job)), ['visits[1].custom_fields.po_number']);
  });

  test('an archived option is refused on write and kept on read (an invoice)', async () => {
    const { api, bodies, define } = await setUp();
    const field = await define('invoice', {
      key: 'channel',
      label: 'Channel',
      type: 'select',
      options: [
        { value: 'web', label: 'Web' },
        { value: 'phone', label: 'Phone' },
      ],
    });
    const invoice = await api('POST', '/v1/invoices', { ...bodies.invoice, custom_fields: { channel: 'phone' } });
    assert.equal(invoice.status, 201, invoice.text);
    const archived = await api('PUT', `/v1/custom-fields/${field.id}`, {
      options: [
        { value: 'web', label: 'Web' },
        { value: 'phone', label: 'Phone', archived: true },
      ],
    });
    assert.equal(archived.status, 200, archived.text);
    const read = await api('GET', `/v1/invoices/${invoice.body.data.id}`);
    assert.deepEqual(read.body.data.custom_fields, { channel: 'phone' });
    const written = await api('POST', '/v1/invoices', { ...bodies.invoice, custom_fields: { channel: 'phone' } });
    assert.deepEqual(Object.keys(detailsOf(written)), ['custom_fields.channel']);
  });

  test('an MCP tool’s result answers every defined key, in its text and its structured content; an update tool sets them', async () => {
    const { key, api, bodies, define } = await setUp();
    await define('quote', { key: 'source', label: 'Source', type: 'text' });
    const quote = await api('POST', '/v1/quotes', { ...bodies.quote, custom_fields: { source: 'fair' } });
    assert.equal(quote.status, 201, quote.text);
    const baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'bms-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      await define('quote', {
        key: 'rating',
        label: 'Rating',
        description: 'From 1 to 5.',
        type: 'number',
        required: true,
        bounds: { min: 1, max: 5 },
      });
      const { tools } = await client.listTools();
      const create = tools.find((tool) => tool.name === 'create_quote')!;
      const fields = (create.inputSchema.properties as any).custom_fields;
      assert.deepEqual(fields.properties, {
        source: {
          title: 'Source',
          anyOf: [{ type: 'string', maxLength: 500, pattern: '^[^\\r\\n]*$' }, { type: 'null' }],
        },
        rating: { title: 'Rating', description: 'From 1 to 5.', type: 'number', minimum: 1, maximum: 5 },
      });
      assert.deepEqual(fields.required, ['rating']);
      assert.ok(create.inputSchema.required?.includes('custom_fields'));
      assert.ok(!create.description?.includes('Rating'), 'labels are data, never the tool’s description');
      const result = (await client.callTool({ name: 'find_quotes', arguments: {} })) as any;
      const [found] = result.structuredContent.result.items;
      assert.deepEqual(found.custom_fields, { source: 'fair', rating: null });
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);

      // The update tool carries the same fields, none required (a write binds only the keys it names), merges as a
      // PUT does and refuses what the API refuses, naming custom_fields.<key>.
      const update = tools.find((tool) => tool.name === 'update_quote_custom_fields')!;
      assert.deepEqual(update.inputSchema.required, ['quote_id', 'custom_fields']);
      const updatable = (update.inputSchema.properties as any).custom_fields;
      assert.deepEqual(updatable.properties, fields.properties);
      assert.equal(updatable.required, undefined);
      const set = (await client.callTool({
        name: 'update_quote_custom_fields',
        arguments: { quote_id: quote.body.data.id, custom_fields: { rating: 4 } },
      })) as any;
      assert.notEqual(set.isError, true, JSON.stringify(set));
      assert.deepEqual(set.structuredContent.result.custom_fields, { source: 'fair', rating: 4 });
      const refused = (await client.callTool({
        name: 'update_quote_custom_fields',
        arguments: { quote_id: quote.body.data.id, custom_fields: { rating: 9, source: null } },
      })) as any;
      assert.equal(refused.isError, true);
      assert.deepEqual(
        refused.structuredContent.error.details.map((detail: any) => detail.field),
        ['custom_fields.rating'],
      );
      const read = await api('GET', `/v1/quotes/${quote.body.data.id}`);
      assert.deepEqual(read.body.data.custom_fields, { source: 'fair', rating: 4 });
    } finally {
      await client.close();
    }
  });

  test('printable fields print on the invoice’s PDF, e-mail and hub page under their labels, by position, unset ones omitted', async () => {
    const { api, define } = await setUp();
    const clientId = (await api('POST', '/v1/clients', { name: 'Lee Park', email: 'lee@example.com' })).body.data.id;
    await define('invoice', { key: 'po_number', label: 'PO number', type: 'text', printable: true });
    await define('invoice', { key: 'internal', label: 'Internal code', type: 'text' });
    await define('invoice', { key: 'budget', label: 'Approved budget', type: 'money', printable: true });
    await define('invoice', { key: 'site_date', label: 'Site visit', type: 'date', printable: true });
    await define('invoice', {
      key: 'channel',
      label: 'Ordered by',
      type: 'select',
      printable: true,
      options: [{ value: 'phone', label: 'Telephone' }],
    });
    await define('invoice', { key: 'unset', label: 'Never set', type: 'text', printable: true });
    const invoice = await api('POST', '/v1/invoices', {
      client_id: clientId,
      line_items: [{ description: 'Gutter cleaning', quantity: 1, unit_amount: 12_500 }],
      custom_fields: {
        po_number: 'PO-7781',
        internal: 'X-SECRET',
        budget: 250_000,
        site_date: '2026-12-03',
        channel: 'phone',
      },
    });
    assert.equal(invoice.status, 201, invoice.text);
    const pdf = await api('GET', `/v1/invoices/${invoice.body.data.id}/pdf`);
    assert.equal(pdf.status, 200, pdf.text);
    const text = await pdfText(pdf.raw);
    assert.match(
      text,
      /PO number: PO-7781\s*Approved budget: \$2,500\.00\s*Site visit: Dec(ember)? 3, 2026\s*Ordered by: Telephone/,
    );
    assert.doesNotMatch(text, /X-SECRET|Internal code|Never set/);
    if (process.env.BMS_CUSTOM_FIELDS_PDF)
      (await import('node:fs')).writeFileSync(process.env.BMS_CUSTOM_FIELDS_PDF, pdf.raw);

    const sent = await api('POST', `/v1/invoices/${invoice.body.data.id}/send`, {});
    assert.equal(sent.status, 200, sent.text);
    const queued = await context.database.db
      .selectFrom('outbox_messages')
      .select('snapshot')
      .where('document_id', '=', invoice.body.data.id)
      .executeTakeFirstOrThrow();
    const snapshot = JSON.parse(String(queued.snapshot)) as MailSnapshot;
    assert.deepEqual(snapshot.document.fields, [
      { label: 'PO number', text: 'PO-7781' },
      { label: 'Approved budget', amount: 250_000 },
      { label: 'Site visit', date: '2026-12-03' },
      { label: 'Ordered by', text: 'Telephone' },
    ]);
    assert.match(renderText(snapshot), /PO number: PO-7781\nApproved budget: \$2,500\.00\n/);
    assert.match(renderHtml(snapshot), /Ordered by: Telephone/);
    const hosted = new URL((await api('GET', `/v1/invoices/${invoice.body.data.id}`)).body.data.hosted_url);
    const hub = await context.request('GET', hosted.pathname);
    assert.equal(hub.status, 200, hub.text);
    assert.match(hub.text, /<dt>PO number<\/dt><dd>PO-7781<\/dd>/);
    assert.match(hub.text, /<dt>Approved budget<\/dt><dd>\$2,500\.00<\/dd>/);
    assert.doesNotMatch(hub.text, /X-SECRET/);
  });
});

describe('the value rows’ copy of their object’s created_at', () => {
  test('after every write above, each value row of every kind carries exactly its own object’s created_at', async () => {
    // The clock here moves a second a request, so an object's created_at is never its id's instant.
    const found = await filterEntriesAgainstObjects(context.database.db);
    for (const kind of KINDS) {
      assert.ok(found[kind]!.values > 0, `${kind}: value rows compared`);
      assert.equal(found[kind]!.wrong, 0, `${kind}: ${JSON.stringify(found[kind])}`);
    }
  });
});
