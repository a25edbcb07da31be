// Custom fields (docs/api-contract.md §27): definitions, each type's bounds and the 422 naming
// `custom_fields.<key>`, archived options, required on creates only, the merge of a PUT, the purge of a deleted
// field, the JSON Schema endpoint (checked with Ajv), and events' previous_attributes.custom_fields.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { purgeAllDeletedCustomFields } from '../src/modules/custom-fields/index.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-29T10:00:00.000Z'));
let context: TestContext;
let key: string;

async function define(body: Record<string, unknown>) {
  clock.advance(1);
  const response = await context.request('POST', '/v1/custom-fields', { key, body: { resource: 'client', ...body } });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

async function createClient(body: Record<string, unknown>) {
  clock.advance(1);
  return context.request('POST', '/v1/clients', { key, body: { name: 'Jane Cooper', ...body } });
}

function detailsOf(response: { status: number; body: any; text: string }) {
  assert.equal(response.status, 422, response.text);
  assert.equal(response.body.error.code, 'VALIDATION_ERROR');
  return Object.fromEntries(response.body.error.details.map((detail: any) => [detail.field, detail.message]));
}

before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());
beforeEach(async () => {
  ({ key } = await context.account());
});

describe('definitions', () => {
  test('a definition answers every field; resource, key and type are fixed', async () => {
    const field = await define({
      key: 'tier',
      label: 'Tier',
      type: 'select',
      options: [
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
    });
    assert.deepEqual(field, {
      id: field.id,
      object: 'custom_field',
      resource: 'client',
      key: 'tier',
      label: 'Tier',
      description: null,
      type: 'select',
      required: false,
      options: [
        { value: 'gold', label: 'Gold', archived: false },
        { value: 'silver', label: 'Silver', archived: false },
      ],
      bounds: {},
      printable: false,
      position: 0,
      metadata: {},
      created_at: '2026-11-29T10:00:00.001Z',
      updated_at: '2026-11-29T10:00:00.001Z',
    });
    const text = await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    assert.deepEqual(text.bounds, { max_length: 500, multiline: false });
    assert.equal(text.position, 1);
    const fixed = await context.request('PUT', `/v1/custom-fields/${field.id}`, { key, body: { type: 'text' } });
    assert.equal(fixed.status, 422, fixed.text);
    const listed = await context.request('GET', '/v1/custom-fields?resource=client', { key });
    assert.deepEqual(
      listed.body.data.map((one: any) => one.key),
      ['gate_code', 'tier'],
    );
  });

  test('a key is unique per resource (409); bounds of another type, options of a text field: 422', async () => {
    await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    const twice = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: 'gate_code', label: 'Again', type: 'text' },
    });
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.error.code, 'CONFLICT');
    const elsewhere = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'job', key: 'gate_code', label: 'Gate code', type: 'text' },
    });
    assert.equal(elsewhere.status, 201, elsewhere.text);
    const wrong = await context.request('POST', '/v1/custom-fields', {
      key,
      body: {
        resource: 'client',
        key: 'size',
        label: 'Size',
        type: 'text',
        bounds: { min: 1 },
        options: [{ value: 'a', label: 'A' }],
      },
    });
    assert.deepEqual(Object.keys(detailsOf(wrong)).sort(), ['bounds.min', 'options']);
    const noOptions = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: 'tier', label: 'Tier', type: 'select' },
    });
    assert.deepEqual(Object.keys(detailsOf(noOptions)), ['options']);
    const badKey = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: 'Tier', label: 'Tier', type: 'text' },
    });
    assert.deepEqual(Object.keys(detailsOf(badKey)), ['key']);
    const printable = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: 'po', label: 'PO', type: 'text', printable: true },
    });
    assert.deepEqual(Object.keys(detailsOf(printable)), ['printable']);
  });
});

describe('values', () => {
  test('every defined key is answered, null when unset', async () => {
    await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    await define({ key: 'visits_per_year', label: 'Visits a year', type: 'number' });
    const created = await createClient({ custom_fields: { gate_code: '4512' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.custom_fields, { gate_code: '4512', visits_per_year: null });
    const read = await context.request('GET', `/v1/clients/${created.body.data.id}`, { key });
    assert.deepEqual(read.body.data.custom_fields, { gate_code: '4512', visits_per_year: null });
  });

  test('each type’s bounds: a 422 names custom_fields.<key>, beside a wrong native field', async () => {
    await define({ key: 'note', label: 'Note', type: 'text', bounds: { max_length: 5 } });
    await define({ key: 'ratio', label: 'Ratio', type: 'number', bounds: { min: 0, max: 10, decimals: 2 } });
    await define({ key: 'budget', label: 'Budget', type: 'money', bounds: { min_amount: 100, max_amount: 50000 } });
    await define({
      key: 'since',
      label: 'Since',
      type: 'date',
      bounds: { min_date: '2020-01-01', max_date: '2030-12-31' },
    });
    await define({ key: 'vip', label: 'VIP', type: 'boolean' });
    await define({
      key: 'tier',
      label: 'Tier',
      type: 'select',
      options: [
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
    });
    await define({
      key: 'services',
      label: 'Services',
      type: 'multi_select',
      options: [
        { value: 'lawn', label: 'Lawn' },
        { value: 'snow', label: 'Snow' },
        { value: 'pool', label: 'Pool' },
      ],
      bounds: { max_selected: 2 },
    });
    const good = await createClient({
      custom_fields: {
        note: 'abcde',
        ratio: 9.99,
        budget: 50000,
        since: '2020-01-01',
        vip: true,
        tier: 'gold',
        services: ['lawn', 'snow'],
      },
    });
    assert.equal(good.status, 201, good.text);
    assert.deepEqual(good.body.data.custom_fields, {
      note: 'abcde',
      ratio: 9.99,
      budget: 50000,
      since: '2020-01-01',
      vip: true,
      tier: 'gold',
      services: ['lawn', 'snow'],
    });
    const cases: Array<[string, unknown]> = [
      ['note', 'abcdef'],
      ['note', 'two\nlines'],
      ['ratio', 10.01],
      ['ratio', -1],
      ['ratio', 1.234],
      ['ratio', '5'],
      ['budget', 99],
      ['budget', 50001],
      ['budget', 100.5],
      ['since', '2019-12-31'],
      ['since', '2031-01-01'],
      ['since', '2026-02-30'],
      ['vip', 'yes'],
      ['tier', 'bronze'],
      ['services', ['lawn', 'snow', 'pool']],
      ['services', ['lawn', 'lawn']],
      ['services', ['moon']],
      ['unknown_key', 1],
    ];
    for (const [name, value] of cases) {
      const response = await createClient({ custom_fields: { [name]: value } });
      assert.deepEqual(
        Object.keys(detailsOf(response)),
        [`custom_fields.${name}`],
        `${name}: ${JSON.stringify(value)}`,
      );
    }
    // One 422 names a native field and a custom one together.
    const both = await createClient({ email: 'not an e-mail', custom_fields: { tier: 'bronze', vip: 1 } });
    assert.deepEqual(Object.keys(detailsOf(both)).sort(), ['custom_fields.tier', 'custom_fields.vip', 'email']);
  });

  test('a number keeps 15 significant digits exactly; 16 are refused', async () => {
    await define({ key: 'reading', label: 'Reading', type: 'number' });
    const kept = await createClient({ custom_fields: { reading: 123456789.012345 } });
    assert.equal(kept.status, 201, kept.text);
    const read = await context.request('GET', `/v1/clients/${kept.body.data.id}`, { key });
    assert.match(read.text, /"reading":123456789\.012345/);
    const over = await createClient({ custom_fields: { reading: 1234567890.123456 } });
    assert.deepEqual(Object.keys(detailsOf(over)), ['custom_fields.reading']);
  });

  test('an archived option is refused on write and kept on read; an option in use cannot be removed', async () => {
    const field = await define({
      key: 'tier',
      label: 'Tier',
      type: 'select',
      options: [
        { value: 'gold', label: 'Gold' },
        { value: 'silver', label: 'Silver' },
      ],
    });
    const client = (await createClient({ custom_fields: { tier: 'gold' } })).body.data;
    const removed = await context.request('PUT', `/v1/custom-fields/${field.id}`, {
      key,
      body: { options: [{ value: 'silver', label: 'Silver' }] },
    });
    assert.equal(removed.status, 409, removed.text);
    assert.equal(removed.body.error.code, 'CONFLICT');
    const archived = await context.request('PUT', `/v1/custom-fields/${field.id}`, {
      key,
      body: {
        options: [
          { value: 'gold', label: 'Gold', archived: true },
          { value: 'silver', label: 'Silver' },
        ],
      },
    });
    assert.equal(archived.status, 200, archived.text);
    const read = await context.request('GET', `/v1/clients/${client.id}`, { key });
    assert.equal(read.body.data.custom_fields.tier, 'gold');
    const again = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { custom_fields: { tier: 'gold' } },
    });
    assert.deepEqual(Object.keys(detailsOf(again)), ['custom_fields.tier']);
    const other = await createClient({ custom_fields: { tier: 'gold' } });
    assert.deepEqual(Object.keys(detailsOf(other)), ['custom_fields.tier']);
    // An option nobody holds goes.
    const unused = await context.request('PUT', `/v1/custom-fields/${field.id}`, {
      key,
      body: { options: [{ value: 'gold', label: 'Gold', archived: true }] },
    });
    assert.equal(unused.status, 200, unused.text);
  });

  test('required binds creates and writes naming the key, never an untouched object', async () => {
    const before = (await createClient({})).body.data;
    const field = await define({ key: 'region', label: 'Region', type: 'text', required: true });
    const missing = await createClient({});
    assert.deepEqual(detailsOf(missing), { 'custom_fields.region': 'custom_fields.region is required' });
    const untouched = await context.request('PUT', `/v1/clients/${before.id}`, { key, body: { name: 'Renamed' } });
    assert.equal(untouched.status, 200, untouched.text);
    assert.equal(untouched.body.data.custom_fields.region, null);
    const cleared = await context.request('PUT', `/v1/clients/${before.id}`, {
      key,
      body: { custom_fields: { region: null } },
    });
    assert.deepEqual(Object.keys(detailsOf(cleared)), ['custom_fields.region']);
    const made = await createClient({ custom_fields: { region: 'North' } });
    assert.equal(made.status, 201, made.text);
    // Made optional again: it binds nothing.
    await context.request('PUT', `/v1/custom-fields/${field.id}`, { key, body: { required: false } });
    assert.equal((await createClient({})).status, 201);
  });

  test("each account's definitions are its own: another's required field binds nothing, its key is unknown", async () => {
    await define({ key: 'region', label: 'Region', type: 'text', required: true });
    const first = key;
    ({ key } = await context.account());
    await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    const made = await createClient({ custom_fields: { gate_code: '1234' } });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.data.custom_fields, { gate_code: '1234' });
    assert.deepEqual(Object.keys(detailsOf(await createClient({ custom_fields: { region: 'North' } }))), [
      'custom_fields.region',
    ]);
    key = first;
    assert.deepEqual(detailsOf(await createClient({})), { 'custom_fields.region': 'custom_fields.region is required' });
    const theirs = await createClient({ custom_fields: { region: 'North', gate_code: '1234' } });
    assert.deepEqual(Object.keys(detailsOf(theirs)), ['custom_fields.gate_code']);
  });

  test('a PUT merges: the keys it names change, null clears, the others stay; the event names the old values', async () => {
    await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    await define({ key: 'tier', label: 'Tier', type: 'select', options: [{ value: 'gold', label: 'Gold' }] });
    await define({ key: 'budget', label: 'Budget', type: 'money' });
    const client = (await createClient({ custom_fields: { gate_code: '4512', tier: 'gold', budget: 1000 } })).body.data;
    clock.advance(1);
    const updated = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { custom_fields: { budget: 2500, gate_code: null } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body.data.custom_fields, { gate_code: null, tier: 'gold', budget: 2500 });
    const events = await context.request('GET', '/v1/events?type=client.updated', { key });
    assert.equal(events.body.data.length, 1);
    assert.deepEqual(events.body.data[0].data.previous_attributes, {
      custom_fields: { gate_code: '4512', budget: 1000 },
    });
    // Naming a key with the value it has changes nothing: no event, updated_at kept.
    const same = await context.request('PUT', `/v1/clients/${client.id}`, {
      key,
      body: { custom_fields: { tier: 'gold' } },
    });
    assert.equal(same.body.data.updated_at, updated.body.data.updated_at);
  });

  test('a deleted field leaves every answer at once, its key taken until its values are purged', async () => {
    const field = await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    const client = (await createClient({ custom_fields: { gate_code: '4512' } })).body.data;
    const deleted = await context.request('DELETE', `/v1/custom-fields/${field.id}`, { key });
    assert.equal(deleted.status, 200, deleted.text);
    const read = await context.request('GET', `/v1/clients/${client.id}`, { key });
    assert.deepEqual(read.body.data.custom_fields, {});
    assert.equal(read.body.data.updated_at, client.updated_at);
    const written = await createClient({ custom_fields: { gate_code: '1' } });
    assert.deepEqual(Object.keys(detailsOf(written)), ['custom_fields.gate_code']);
    const taken = await context.request('POST', '/v1/custom-fields', {
      key,
      body: { resource: 'client', key: 'gate_code', label: 'Gate code', type: 'text' },
    });
    assert.equal(taken.status, 409, taken.text);
    await purgeAllDeletedCustomFields(context.database.db);
    // Defined again after the purge: the old value does not come back.
    await define({ key: 'gate_code', label: 'Gate code', type: 'text' });
    const again = await context.request('GET', `/v1/clients/${client.id}`, { key });
    assert.deepEqual(again.body.data.custom_fields, { gate_code: null });
    const events = await context.request('GET', '/v1/events?type=custom_field.*', { key });
    assert.deepEqual(
      events.body.data.map((event: any) => event.type),
      ['custom_field.created', 'custom_field.deleted', 'custom_field.created'],
    );
  });
});

describe('the JSON Schema of a kind’s custom fields', () => {
  test('validates a real object with Ajv and refuses a wrong one; its ETag moves with a definition', async () => {
    await define({ key: 'gate_code', label: 'Gate code', type: 'text', description: 'The side gate.' });
    const tier = await define({
      key: 'tier',
      label: 'Tier',
      type: 'select',
      required: true,
      options: [
        { value: 'gold', label: 'Gold' },
        { value: 'old', label: 'Old', archived: true },
      ],
    });
    await define({ key: 'budget', label: 'Budget', type: 'money', bounds: { min_amount: 0 } });
    await define({
      key: 'services',
      label: 'Services',
      type: 'multi_select',
      options: [{ value: 'lawn', label: 'Lawn' }],
    });
    const response = await context.request('GET', '/v1/custom-fields/schema?resource=client', { key });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.object, 'custom_fields_schema');
    assert.equal(response.body.data.resource, 'client');
    const schema = response.body.data.schema;
    assert.equal(schema.properties.gate_code.title, 'Gate code');
    assert.equal(schema.properties.gate_code.description, 'The side gate.');
    const ajv = new Ajv2020.default({ strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const client = (await createClient({ custom_fields: { tier: 'gold', budget: 1200, services: ['lawn'] } })).body
      .data;
    assert.equal(validate(client.custom_fields), true, JSON.stringify(validate.errors));
    assert.equal(validate({ tier: 'old' }), false);
    assert.equal(validate({ tier: 'gold', budget: -1 }), false);
    assert.equal(validate({ tier: 'gold', nickname: 'x' }), false);
    assert.equal(validate({ gate_code: 'x' }), false);
    const etag = response.headers.etag;
    await context.request('PUT', `/v1/custom-fields/${tier.id}`, { key, body: { required: false } });
    const after = await context.request('GET', '/v1/custom-fields/schema?resource=client', { key });
    assert.notEqual(after.headers.etag, etag);
  });
});

describe('filters on the clients list', () => {
  async function ids(query: string) {
    const response = await context.request('GET', `/v1/clients?${query}&limit=100`, { key });
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((client: any) => client.name).sort();
  }

  test('=, any of, .gte/.lte and multi_select holding any; undefined keys and misplaced ranges are 422', async () => {
    await define({ key: 'region', label: 'Region', type: 'text' });
    await define({ key: 'visits', label: 'Visits', type: 'number' });
    await define({ key: 'budget', label: 'Budget', type: 'money' });
    await define({ key: 'since', label: 'Since', type: 'date' });
    await define({ key: 'vip', label: 'VIP', type: 'boolean' });
    await define({
      key: 'services',
      label: 'Services',
      type: 'multi_select',
      options: [
        { value: 'lawn', label: 'Lawn' },
        { value: 'snow', label: 'Snow' },
        { value: 'pool', label: 'Pool' },
      ],
    });
    const made: Array<[string, Record<string, unknown>]> = [
      [
        'Ann',
        { region: 'North', visits: 2.5, budget: 1000, since: '2024-01-31', vip: true, services: ['lawn', 'snow'] },
      ],
      ['Ben', { region: 'north', visits: 10, budget: 50000, since: '2025-06-01', vip: false, services: ['pool'] }],
      ['Cat', { region: 'South', visits: 0, budget: 0, since: '2026-11-29', services: ['snow'] }],
      ['Dan', {}],
    ];
    for (const [name, custom_fields] of made) assert.equal((await createClient({ name, custom_fields })).status, 201);
    assert.deepEqual(await ids('custom_fields.region=NORTH'), ['Ann', 'Ben']);
    assert.deepEqual(await ids('custom_fields.region=south,north'), ['Ann', 'Ben', 'Cat']);
    assert.deepEqual(await ids('custom_fields.visits.gte=2.5'), ['Ann', 'Ben']);
    assert.deepEqual(await ids('custom_fields.visits.gte=1&custom_fields.visits.lte=9'), ['Ann']);
    assert.deepEqual(await ids('custom_fields.budget.lte=1000'), ['Ann', 'Cat']);
    assert.deepEqual(await ids('custom_fields.since.gte=2025-06-01&custom_fields.since.lte=2026-11-29'), [
      'Ben',
      'Cat',
    ]);
    assert.deepEqual(await ids('custom_fields.vip=false'), ['Ben']);
    assert.deepEqual(await ids('custom_fields.services=snow,pool'), ['Ann', 'Ben', 'Cat']);
    assert.deepEqual(await ids('custom_fields.services=lawn&custom_fields.region=north&sort=name'), ['Ann']);
    const wrong = await context.request('GET', '/v1/clients?custom_fields.nope=1&custom_fields.region.gte=a', { key });
    assert.deepEqual(Object.keys(detailsOf(wrong)).sort(), ['custom_fields.nope', 'custom_fields.region.gte']);
    const many = await context.request(
      'GET',
      '/v1/clients?custom_fields.region=a&custom_fields.vip=true&custom_fields.budget=1&custom_fields.since=2020-01-01',
      { key },
    );
    assert.deepEqual(Object.keys(detailsOf(many)), ['custom_fields.since']);
    const badValue = await context.request('GET', '/v1/clients?custom_fields.budget.gte=1.5', { key });
    assert.deepEqual(Object.keys(detailsOf(badValue)), ['custom_fields.budget.gte']);
  });
});
