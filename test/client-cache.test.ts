// Every read of a client that may be answered from a kept copy (a list's page, GET one, and their JSON and
// ETag) gives what an uncached read of the database gives, whatever wrote to it: random sequences of writes
// through the API (creates, partial updates, deletes, properties added and deleted), through a second
// connection (a shell, another process: updates, a property deleted, a client deleted) and through the `bms`
// command (another process's commit), custom fields defined, deleted and set (through the API and the second
// connection), tags added, removed, renamed (with and without a merge), deleted and renamed by the second
// connection, each followed by every read compared with a direct read of the rows.
// On SQLite the reads go through the kept copies (modules/clients/client-cache.ts); on PostgreSQL nothing is
// kept, and the same comparison checks the path the API reads by against the rows themselves.
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { after, before, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';
import { runBmsAsync } from './helpers/processes.js';

const clock = new ManualClock(new Date('2026-11-28T09:00:00.000Z'));
let context: TestContext;

/** A second connection to the same database, not BMS's: it writes and reads rows directly. */
interface Foreign {
  run(statement: string, parameters: unknown[]): Promise<void>;
  rows(statement: string, parameters: unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}
let foreign: Foreign;

async function openForeign(): Promise<Foreign> {
  if (onPostgres) {
    const client = new pg.Client({ connectionString: context.databaseUrl });
    await client.connect();
    const numbered = (statement: string) => {
      let index = 0;
      return statement.replace(/\?/g, () => `$${++index}`);
    };
    return {
      run: async (statement, parameters) => void (await client.query(numbered(statement), parameters)),
      rows: async (statement, parameters) => (await client.query(numbered(statement), parameters)).rows,
      close: () => client.end(),
    };
  }
  const connection = new SqliteDatabase(context.databaseUrl.replace(/^sqlite:/, ''));
  // Another process's connection: it waits for the app's write lock without stopping the app's event loop. (A
  // busy timeout here would wait in this thread, the app's, and the app could never release a lock it holds
  // across a turn: "database is locked".)
  connection.pragma('busy_timeout = 0');
  const run = async (statement: string, parameters: unknown[]): Promise<void> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        connection.prepare(statement).run(...parameters);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  return {
    run,
    rows: async (statement, parameters) => connection.prepare(statement).all(...parameters) as never,
    close: async () => void connection.close(),
  };
}

before(async () => {
  context = await createTestContext({ clock });
  foreign = await openForeign();
});
after(async () => {
  await foreign.close();
  await context.close();
});

const instant = (value: unknown) => new Date(value as string | Date).toISOString();
const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** The account's clients as the contract shows them, read straight from the rows (no BMS code involved). */
async function uncached(accountId: string) {
  const rows = await foreign.rows(
    'select id, name, email, phone, company_name, address, notes, einvoicing, external_id, metadata, custom_fields, created_at, updated_at from clients where account_id = ? order by created_at desc, id desc',
    [accountId],
  );
  // Contract section 27: every live field of clients, in order, null when the client holds no value.
  const fields = await foreign.rows(
    "select key from custom_fields where account_id = ? and resource = 'client' and deleted_at is null order by position, created_at, id",
    [accountId],
  );
  const properties = await foreign.rows(
    'select id, client_id from properties where account_id = ? order by created_at, id',
    [accountId],
  );
  const byName = await foreign.rows('select id from clients where account_id = ? order by sort_name, id', [accountId]);
  // Contract section 27: a client's tags, by the tags' ids, named by the tags' rows, in the client's order.
  const links = await foreign.rows(
    'select l.object_id, t.name from tag_links l join tags t on t.id = l.tag_id where l.account_id = ? order by l.object_id, l.position',
    [accountId],
  );
  const clients = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    // Contract section 31: the buyer's e-invoicing fields, each null when unset.
    const party = (parsed(row.einvoicing) ?? {}) as Record<string, unknown>;
    clients.set(row.id as string, {
      id: row.id,
      object: 'client',
      name: row.name,
      email: row.email,
      phone: row.phone,
      company_name: row.company_name,
      address: row.address === null ? null : parsed(row.address),
      notes: row.notes,
      vat_id: party.vat_id ?? null,
      registration_id: party.registration_id ?? null,
      registration_scheme: party.registration_scheme ?? null,
      electronic_address: party.electronic_address ?? null,
      buyer_reference: party.buyer_reference ?? null,
      einvoice_format: party.einvoice_format ?? null,
      property_ids: properties.filter((property) => property.client_id === row.id).map((property) => property.id),
      external_id: row.external_id,
      metadata: parsed(row.metadata),
      custom_fields: Object.fromEntries(
        fields.map((field) => [
          field.key,
          (parsed(row.custom_fields) as Record<string, unknown>)[field.key as string] ?? null,
        ]),
      ),
      tags: links.filter((link) => link.object_id === row.id).map((link) => link.name),
      created_at: instant(row.created_at),
      updated_at: instant(row.updated_at),
    });
  }
  return {
    clients,
    byCreation: rows.map((row) => row.id as string),
    byName: byName.map((row) => row.id as string),
    propertyIds: properties.map((property) => property.id as string),
    fieldKeys: fields.map((field) => field.key as string),
  };
}

/** The JSON of `data` exactly as the body carries it (the bytes its ETag must hash). */
function dataJsonOf(text: string): string {
  assert.ok(text.startsWith('{"data":'), text);
  return text.slice('{"data":'.length, text.lastIndexOf(',"meta":{"request_id":'));
}

/** Every cached read (GET of each client and of one deleted, lists by creation and by name) against the rows. */
async function compare(key: string, accountId: string, deleted: readonly string[], limit: number, step: string) {
  const truth = await uncached(accountId);
  for (const [id, expected] of truth.clients) {
    const got = await context.request('GET', `/v1/clients/${id}`, { key });
    assert.equal(got.status, 200, `${step}: GET ${id}`);
    const json = dataJsonOf(got.text);
    assert.deepEqual(JSON.parse(json), expected, `${step}: GET ${id}`);
    assert.equal(got.headers.etag, `"${hash('sha1', json, 'base64url')}"`, `${step}: the ETag of GET ${id}`);
  }
  for (const id of deleted) {
    assert.equal((await context.request('GET', `/v1/clients/${id}`, { key })).status, 404, `${step}: ${id} deleted`);
  }
  for (const [sort, order] of [
    ['-created_at', truth.byCreation],
    ['name', truth.byName],
  ] as const) {
    const seen: string[] = [];
    let url: string | undefined = `/v1/clients?sort=${sort}&limit=${limit}`;
    while (url !== undefined) {
      const page: ApiResponse = await context.request('GET', url, { key });
      assert.equal(page.status, 200, `${step}: ${url}`);
      const data = JSON.parse(dataJsonOf(page.text)) as Array<{ id: string }>;
      for (const client of data) assert.deepEqual(client, truth.clients.get(client.id), `${step}: ${url}`);
      seen.push(...data.map((client) => client.id));
      const cursor = page.body.meta.pagination.next_cursor as string | null;
      url = cursor === null ? undefined : `/v1/clients?sort=${sort}&limit=${limit}&cursor=${cursor}`;
    }
    assert.deepEqual(seen, order, `${step}: the list by ${sort}`);
  }
  return truth;
}

const word = fc.stringMatching(/^[A-Za-zÀ-ÿ][a-zé0-9]{0,7}$/);
const text = fc.oneof(fc.constant(null), fc.stringMatching(/^[a-z"\\ é\n]{1,12}$/));
const patch = fc.record(
  {
    name: word,
    email: fc.oneof(fc.constant(null), fc.stringMatching(/^[a-z]{1,6}@example\.com$/)),
    company_name: fc.oneof(fc.constant(null), word),
    notes: text,
    metadata: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.stringMatching(/^[a-z0-9"]{0,6}$/), {
      maxKeys: 3,
    }),
    address: fc.oneof(
      fc.constant(null),
      fc.record(
        { line1: word, city: word, country: fc.constantFrom('US', 'FR') },
        { requiredKeys: ['line1', 'country'] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const at = fc.nat(50);
const write = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('update' as const), at, patch, sameMillisecond: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), name: word }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add property' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete property' as const), at }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('update elsewhere' as const), at, name: word, notes: text }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete property elsewhere' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete elsewhere' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bms command' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('define field' as const), at: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete field' as const), at }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set field' as const),
      at,
      field: at,
      value: fc.oneof(fc.constant(null), word),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('set field elsewhere' as const), at, field: at, value: word }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tag' as const), at, tag: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('untag' as const), at, tag: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rename tag' as const),
      tag: fc.nat(3),
      name: fc.nat(3),
      merge: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete tag' as const), tag: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rename tag elsewhere' as const), tag: fc.nat(3), name: word }),
  },
);
/** Tag names the writes choose from: two differ only by case (contract §27: one tag, whatever its case). */
const TAG_NAMES = ['Gold', 'vip', 'North', 'GOLD'] as const;

type Write = typeof write extends fc.Arbitrary<infer W> ? W : never;

/** One of the account's tags, chosen by `at` among them in creation order (read straight from the rows). */
async function accountTag(accountId: string, at: number): Promise<string | undefined> {
  const tags = await foreign.rows('select id from tags where account_id = ? order by created_at, id', [accountId]);
  return tags[at % Math.max(tags.length, 1)]?.id as string | undefined;
}

async function apply(change: Write, key: string, accountId: string, truth: Awaited<ReturnType<typeof uncached>>) {
  const ids = truth.byCreation;
  const id = ids.length === 0 ? undefined : ids[('at' in change ? change.at : 0) % ids.length];
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await context.request(method, url, { key, body });
    assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.text}`);
  };
  switch (change.kind) {
    case 'create':
      clock.advance(1);
      return call('POST', '/v1/clients', { name: change.name });
    case 'update':
      if (id === undefined) return;
      if (!change.sameMillisecond) clock.advance(1);
      return call('PUT', `/v1/clients/${id}`, change.patch);
    case 'delete':
      return id === undefined ? undefined : call('DELETE', `/v1/clients/${id}`);
    case 'add property':
      if (id === undefined) return;
      clock.advance(1);
      return call('POST', '/v1/properties', { client_id: id, address: { line1: '1 Elm St', country: 'US' } });
    case 'delete property': {
      const property = truth.propertyIds[change.at % Math.max(truth.propertyIds.length, 1)];
      return property === undefined ? undefined : call('DELETE', `/v1/properties/${property}`);
    }
    case 'update elsewhere':
      if (id === undefined) return;
      return foreign.run('update clients set name = ?, sort_name = ?, notes = ? where id = ?', [
        change.name,
        change.name.toLowerCase(),
        change.notes,
        id,
      ]);
    case 'delete property elsewhere': {
      const property = truth.propertyIds[change.at % Math.max(truth.propertyIds.length, 1)];
      return property === undefined ? undefined : foreign.run('delete from properties where id = ?', [property]);
    }
    case 'delete elsewhere':
      if (id === undefined) return;
      await foreign.run('delete from properties where client_id = ?', [id]);
      return foreign.run('delete from clients where id = ?', [id]);
    case 'bms command': {
      // Another process's commit: no `bms` command changes a client, but every commit moves SQLite's data_version.
      const result = await runBmsAsync(
        ['keys', 'create', '--account', accountId, '--name', 'elsewhere', '--scopes', 'clients:read', '--json'],
        { DATABASE_URL: context.databaseUrl },
      );
      assert.equal(result.status, 0, result.stderr);
      return;
    }
    case 'define field': {
      clock.advance(1);
      const body = { resource: 'client', key: `field_${change.at}`, label: `Field ${change.at}`, type: 'text' };
      const response = await context.request('POST', '/v1/custom-fields', { key, body });
      // The key may be taken already (409): a write that changes nothing.
      assert.ok(response.status === 201 || response.status === 409, response.text);
      return;
    }
    case 'delete field': {
      const fields = await foreign.rows('select id from custom_fields where account_id = ? and deleted_at is null', [
        accountId,
      ]);
      const field = fields[change.at % Math.max(fields.length, 1)];
      return field === undefined ? undefined : call('DELETE', `/v1/custom-fields/${field.id}`);
    }
    case 'set field': {
      const field = truth.fieldKeys[change.field % Math.max(truth.fieldKeys.length, 1)];
      if (id === undefined || field === undefined) return;
      clock.advance(1);
      return call('PUT', `/v1/clients/${id}`, { custom_fields: { [field]: change.value } });
    }
    case 'set field elsewhere': {
      const field = truth.fieldKeys[change.field % Math.max(truth.fieldKeys.length, 1)];
      if (id === undefined || field === undefined) return;
      return foreign.run('update clients set custom_fields = ? where id = ?', [
        JSON.stringify({ [field]: change.value }),
        id,
      ]);
    }
    case 'tag':
      if (id === undefined) return;
      return call('POST', `/v1/clients/${id}/tags`, { tags: [TAG_NAMES[change.tag % TAG_NAMES.length]] });
    case 'untag': {
      if (id === undefined) return;
      const name = TAG_NAMES[change.tag % TAG_NAMES.length] as string;
      const response = await context.request('DELETE', `/v1/clients/${id}/tags/${name}`, { key });
      // A tag the client does not carry (or the account has not got): 404, a write that changes nothing.
      assert.ok(response.status === 200 || response.status === 404, response.text);
      return;
    }
    case 'rename tag': {
      const tag = await accountTag(accountId, change.tag);
      if (tag === undefined) return;
      clock.advance(1);
      const url = `/v1/tags/${tag}${change.merge ? '?merge=true' : ''}`;
      const body = { name: TAG_NAMES[change.name % TAG_NAMES.length] };
      const response = await context.request('PUT', url, { key, body });
      // Onto another tag's name without `merge`: 409, nothing changes.
      assert.ok(response.status === 200 || (response.status === 409 && !change.merge), response.text);
      return;
    }
    case 'delete tag': {
      const tag = await accountTag(accountId, change.tag);
      return tag === undefined ? undefined : call('DELETE', `/v1/tags/${tag}`);
    }
    case 'rename tag elsewhere': {
      const tag = await accountTag(accountId, change.tag);
      if (tag === undefined) return;
      const taken = await foreign.rows('select id from tags where account_id = ? and name_key = ?', [
        accountId,
        change.name.toLowerCase(),
      ]);
      if (taken.length > 0) return;
      return foreign.run('update tags set name = ?, name_key = ? where id = ?', [
        change.name,
        change.name.toLowerCase(),
        tag,
      ]);
    }
  }
}

test('after random writes through the API, another connection and the bms command, every cached read of a client equals an uncached one', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(write, { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 4 }),
      async (writes, limit) => {
        const { accountId, key } = await context.account();
        for (const name of ['Ada', 'bob', 'Cy']) {
          clock.advance(1);
          assert.equal((await context.request('POST', '/v1/clients', { key, body: { name } })).status, 201);
        }
        const deleted: string[] = [];
        let truth = await compare(key, accountId, deleted, limit, 'before any write');
        for (const [index, change] of writes.entries()) {
          await apply(change, key, accountId, truth);
          const known = truth.byCreation;
          truth = await compare(key, accountId, deleted, limit, `after write ${index + 1}, ${change.kind}`);
          deleted.push(...known.filter((id) => !truth.clients.has(id)));
        }
      },
    ),
    { numRuns: 20 },
  );
});
