// Tags (docs/api-contract.md §27): on clients, properties, quotes, jobs, invoices and visits; case-insensitive with
// the first spelling kept; PUT replaces, POST …/tags adds and DELETE …/tags/:tag removes (two concurrent additions
// both survive); tags_any / tags_all; /v1/tags with counts, rename (409 onto another tag unless merge=true) and
// delete everywhere, leaving the objects' updated_at while their ETags move.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { filterEntriesAgainstObjects } from './helpers/filter-entries.js';

/** The six kinds §27 tags. */
const KINDS = ['client', 'property', 'quote', 'job', 'invoice', 'visit'] as const;
type Kind = (typeof KINDS)[number];
const PATHS: Record<Kind, string> = {
  client: '/v1/clients',
  property: '/v1/properties',
  quote: '/v1/quotes',
  job: '/v1/jobs',
  invoice: '/v1/invoices',
  visit: '/v1/visits',
};

const clock = new ManualClock(new Date('2026-11-29T10:00:00.000Z'));
let context: TestContext;

before(async () => {
  context = await createTestContext({ clock });
});
after(() => context.close());

async function setUp() {
  const { key } = await context.account();
  const api = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    clock.advance(1);
    return context.request(method, url, { key, body, ...(headers ? { headers } : {}) });
  };
  const client = await api('POST', '/v1/clients', { name: 'Jane Cooper' });
  const job = await api('POST', '/v1/jobs', { client_id: client.body.data.id, title: 'Gutters' });
  const clientId = client.body.data.id as string;
  const bodies: Record<Kind, Record<string, unknown>> = {
    client: { name: 'Ann Lee' },
    property: { client_id: clientId, address: { line1: '1 Main Street', country: 'US' } },
    quote: { client_id: clientId },
    job: { client_id: clientId, title: 'Roof' },
    invoice: { client_id: clientId },
    visit: { job_id: job.body.data.id },
  };
  const make = async (kind: Kind, tags?: string[]) => {
    const made = await api('POST', PATHS[kind], { ...bodies[kind], ...(tags ? { tags } : {}) });
    assert.equal(made.status, 201, made.text);
    return made.body.data;
  };
  return { api, make };
}

function detailsOf(response: { status: number; body: any; text: string }) {
  assert.equal(response.status, 422, response.text);
  return Object.fromEntries(response.body.error.details.map((detail: any) => [detail.field, detail.message]));
}

describe('tags on every tagged kind', () => {
  for (const kind of KINDS) {
    test(`${kind}: written, added, removed and filtered by tags_any and tags_all`, async () => {
      const { api, make } = await setUp();
      const path = PATHS[kind];
      const one = await make(kind, ['VIP', 'North', 'vip']);
      assert.deepEqual(one.tags, ['VIP', 'North']);
      const two = await make(kind, ['vip', 'South']);
      // The account's first spelling is kept.
      assert.deepEqual(two.tags, ['VIP', 'South']);
      const three = await make(kind);
      assert.deepEqual(three.tags, []);

      const added = await api('POST', `${path}/${three.id}/tags`, { tags: ['north', 'Gold'] });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(added.body.data.tags, ['North', 'Gold']);
      const removed = await api('DELETE', `${path}/${one.id}/tags/NORTH`);
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(removed.body.data.tags, ['VIP']);
      const replaced = await api('PUT', `${path}/${two.id}`, { tags: ['south', 'North'] });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual(replaced.body.data.tags, ['South', 'North']);

      const ids = async (query: string) => {
        const listed = await api('GET', `${path}?${query}&limit=100`);
        assert.equal(listed.status, 200, listed.text);
        return listed.body.data.map((object: any) => object.id).sort();
      };
      assert.deepEqual(await ids('tags_any=vip'), [one.id]);
      assert.deepEqual(await ids('tags_any=north,VIP'), [one.id, two.id, three.id].sort());
      assert.deepEqual(await ids('tags_all=north,gold'), [three.id]);
      assert.deepEqual(await ids('tags_all=north,nowhere'), []);
      assert.deepEqual(await ids('tags_any=nowhere'), []);
      const tooMany = await api('GET', `${path}?tags_any=a,b,c,d,e,f,g,h,i,j,k`);
      assert.deepEqual(Object.keys(detailsOf(tooMany)), ['tags_any']);

      const events = await api('GET', `/v1/events?type=${kind}.updated`);
      const change = events.body.data.find((event: any) => event.data.object.id === three.id);
      assert.deepEqual(change.data.previous_attributes.tags, []);
    });
  }
});

describe('the rules of tags', () => {
  test('a tag is 1–50 characters without comma, | or control character; an object holds at most 20', async () => {
    const { api } = await setUp();
    for (const tag of ['a,b', 'a|b', 'tab\there', '', 'x'.repeat(51)]) {
      const refused = await api('POST', '/v1/clients', { name: 'Ann', tags: [tag] });
      assert.equal(refused.status, 422, `${JSON.stringify(tag)}: ${refused.text}`);
      assert.match(refused.body.error.details[0].field, /^tags/);
    }
    const many = Array.from({ length: 21 }, (_, index) => `t${index}`);
    assert.deepEqual(Object.keys(detailsOf(await api('POST', '/v1/clients', { name: 'Ann', tags: many }))), ['tags']);
    const client = (await api('POST', '/v1/clients', { name: 'Ann', tags: many.slice(0, 20) })).body.data;
    const over = await api('POST', `/v1/clients/${client.id}/tags`, { tags: ['one more'] });
    assert.deepEqual(Object.keys(detailsOf(over)), ['tags']);
    const unknown = await api('POST', '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02/tags', { tags: ['x'] });
    assert.equal(unknown.status, 404, unknown.text);
  });

  test('two concurrent additions to one object both survive', async () => {
    const { api, make } = await setUp();
    const client = await make('client', ['Base']);
    const answers = await Promise.all(
      ['Alpha', 'Beta', 'Gamma', 'Delta'].map((tag) => api('POST', `/v1/clients/${client.id}/tags`, { tags: [tag] })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const read = await api('GET', `/v1/clients/${client.id}`);
    assert.deepEqual([...read.body.data.tags].sort(), ['Alpha', 'Base', 'Beta', 'Delta', 'Gamma']);
    const tags = await api('GET', '/v1/tags?q=ALP');
    assert.deepEqual(
      tags.body.data.map((tag: any) => [tag.name, tag.counts.client]),
      [['Alpha', 1]],
    );
  });

  test('/v1/tags: counts per kind; a rename reaches every object (updated_at kept, ETag moved); onto another tag 409 unless merge=true; delete everywhere', async () => {
    const { api, make } = await setUp();
    const client = await make('client', ['VIP']);
    const invoice = await make('invoice', ['vip', 'Priority']);
    const job = await make('job', ['Priority']);
    const listed = await api('GET', '/v1/tags');
    const byName = Object.fromEntries(listed.body.data.map((tag: any) => [tag.name, tag]));
    assert.deepEqual(byName.VIP.counts, { client: 1, property: 0, quote: 0, job: 0, invoice: 1, visit: 0 });
    assert.deepEqual(byName.Priority.counts, { client: 0, property: 0, quote: 0, job: 1, invoice: 1, visit: 0 });
    assert.equal(byName.VIP.object, 'tag');

    const before = await api('GET', `/v1/clients/${client.id}`);
    const renamed = await api('PUT', `/v1/tags/${byName.VIP.id}`, { name: 'Gold' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.data.name, 'Gold');
    const after = await api('GET', `/v1/clients/${client.id}`);
    assert.deepEqual(after.body.data.tags, ['Gold']);
    assert.equal(after.body.data.updated_at, before.body.data.updated_at);
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.deepEqual((await api('GET', `/v1/invoices/${invoice.id}`)).body.data.tags, ['Gold', 'Priority']);
    assert.deepEqual(
      (await api('GET', '/v1/invoices?tags_any=gold')).body.data.map((one: any) => one.id),
      [invoice.id],
    );

    const onto = await api('PUT', `/v1/tags/${byName.Priority.id}`, { name: 'GOLD' });
    assert.equal(onto.status, 409, onto.text);
    assert.equal(onto.body.error.code, 'CONFLICT');
    const merged = await api('PUT', `/v1/tags/${byName.Priority.id}?merge=true`, { name: 'GOLD' });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.body.data.id, byName.VIP.id);
    assert.deepEqual(merged.body.data.counts, { client: 1, property: 0, quote: 0, job: 1, invoice: 1, visit: 0 });
    assert.deepEqual((await api('GET', `/v1/invoices/${invoice.id}`)).body.data.tags, ['Gold']);
    assert.deepEqual((await api('GET', `/v1/jobs/${job.id}`)).body.data.tags, ['Gold']);
    assert.equal((await api('GET', `/v1/tags/${byName.Priority.id}`)).status, 404);

    const deleted = await api('DELETE', `/v1/tags/${byName.VIP.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body.data, { id: byName.VIP.id, deleted: true });
    for (const [path, id] of [
      ['/v1/clients', client.id],
      ['/v1/invoices', invoice.id],
      ['/v1/jobs', job.id],
    ])
      assert.deepEqual((await api('GET', `${path}/${id}`)).body.data.tags, []);
    const events = await api('GET', '/v1/events?type=tag.*');
    assert.deepEqual(
      events.body.data.map((event: any) => event.type),
      ['tag.deleted', 'tag.renamed', 'tag.renamed'],
    );
    assert.deepEqual(events.body.data[2].data.previous_attributes, { name: 'VIP' });
  });
});

describe('a tag is one row', () => {
  test('a rename, a merge and a delete change no tagged object’s row; each object keeps its own order', async () => {
    const { api, make } = await setUp();
    const first = await make('client', ['VIP', 'North']);
    const second = await make('client', ['North', 'VIP']);
    const visit = await make('visit', ['VIP']);
    const tags = Object.fromEntries((await api('GET', '/v1/tags')).body.data.map((tag: any) => [tag.name, tag]));
    const rows = async () =>
      context.database.db
        .selectFrom('clients')
        .select(['id', 'updated_at'])
        .where('id', 'in', [first.id, second.id])
        .orderBy('id')
        .execute();
    const before = await rows();
    assert.equal((await api('PUT', `/v1/tags/${tags.VIP.id}`, { name: 'Gold' })).status, 200);
    assert.deepEqual((await api('GET', `/v1/clients/${first.id}`)).body.data.tags, ['Gold', 'North']);
    assert.deepEqual((await api('GET', `/v1/clients/${second.id}`)).body.data.tags, ['North', 'Gold']);
    assert.deepEqual((await api('GET', `/v1/visits/${visit.id}`)).body.data.tags, ['Gold']);
    const listed = await api('GET', '/v1/clients?tags_all=gold,north&sort=created_at');
    assert.deepEqual(
      listed.body.data.map((one: any) => [one.id, one.tags]),
      [
        [first.id, ['Gold', 'North']],
        [second.id, ['North', 'Gold']],
      ],
    );
    // Merging North into Gold: an object holding both keeps Gold where it stood.
    assert.equal((await api('PUT', `/v1/tags/${tags.North.id}?merge=true`, { name: 'gold' })).status, 200);
    assert.deepEqual((await api('GET', `/v1/clients/${first.id}`)).body.data.tags, ['Gold']);
    assert.deepEqual((await api('GET', `/v1/clients/${second.id}`)).body.data.tags, ['Gold']);
    assert.equal((await api('DELETE', `/v1/tags/${tags.VIP.id}`)).status, 200);
    assert.deepEqual((await api('GET', `/v1/clients?sort=created_at&tags_any=gold`)).body.data, []);
    assert.deepEqual((await api('GET', `/v1/clients/${first.id}`)).body.data.tags, []);
    assert.deepEqual(await rows(), before);
    // The tag's name is free again, and the objects can take it anew.
    assert.deepEqual((await api('POST', `/v1/clients/${first.id}/tags`, { tags: ['Gold'] })).body.data.tags, ['Gold']);
  });

  test('the change feed carries a tag at its first use, its rename and its merge (the merged tag deleted), not its objects', async () => {
    const { api, make } = await setUp();
    const feed = async (since?: string) => {
      const answer = await api('GET', `/v1/changes?kinds=client,tag${since ? `&since=${since}` : ''}`);
      assert.equal(answer.status, 200, answer.text);
      // Sorted: the order of one transaction's changes among themselves is not the point here.
      return {
        entries: answer.body.data
          .map((entry: any) => [entry.kind, entry.id, entry.deleted, entry.data?.name ?? null])
          .sort((one: string[], other: string[]) => `${one[0]}${one[1]}`.localeCompare(`${other[0]}${other[1]}`)),
        cursor: answer.body.meta.pagination.next_cursor as string,
      };
    };
    const start = await feed();
    const client = await make('client', ['VIP', 'North']);
    const tags = Object.fromEntries((await api('GET', '/v1/tags')).body.data.map((tag: any) => [tag.name, tag]));
    const first = await feed(start.cursor);
    assert.deepEqual(first.entries, [
      ['client', client.id, false, 'Ann Lee'],
      ...[
        ['tag', tags.VIP.id, false, 'VIP'],
        ['tag', tags.North.id, false, 'North'],
      ].sort((one, other) => String(one[1]).localeCompare(String(other[1]))),
    ]);
    assert.equal((await api('PUT', `/v1/tags/${tags.VIP.id}`, { name: 'Gold' })).status, 200);
    const renamed = await feed(first.cursor);
    assert.deepEqual(renamed.entries, [['tag', tags.VIP.id, false, 'Gold']]);
    assert.equal((await api('PUT', `/v1/tags/${tags.North.id}?merge=true`, { name: 'GOLD' })).status, 200);
    const merged = await feed(renamed.cursor);
    assert.deepEqual(
      merged.entries,
      [
        ['tag', tags.North.id, true, null],
        ['tag', tags.VIP.id, false, 'Gold'],
      ].sort((one, other) => String(one[1]).localeCompare(String(other[1]))),
    );
    assert.equal((await api('DELETE', `/v1/tags/${tags.VIP.id}`)).status, 200);
    assert.deepEqual((await feed(merged.cursor)).entries, [['tag', tags.VIP.id, true, null]]);
  });
});

describe('the links’ copy of their object’s created_at', () => {
  test('after every write above, each link of every tagged kind carries exactly its own object’s created_at', async () => {
    // The clock here moves a second a request, so an object's created_at is never its id's instant.
    const found = await filterEntriesAgainstObjects(context.database.db);
    for (const kind of KINDS) {
      assert.ok(found[kind]!.links > 0, `${kind}: links compared`);
      assert.equal(found[kind]!.wrong, 0, `${kind}: ${JSON.stringify(found[kind])}`);
    }
  });
});
