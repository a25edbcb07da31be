// Contract section 26, "Export" ("streams every matching row from one read snapshot: a row changed or made
// meanwhile is as it was, or absent"), and section 32's limits ("Exports: 10 minutes, 2 at once per account (a
// third: 429)"). An export is held open by its reader: the test reads its first chunk and then stops reading, so
// that the export waits on back-pressure with its snapshot open (the stream's buffers hold some 150 clients of the
// 600, far fewer than the account has). The 10 minutes are the process's clock: the test clock is moved past them.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;

/** The account's clients, as made: `Client 001` … `Client 600`, each with its own e-mail. */
const CLIENT_COUNT = 600;
const nameOf = (index: number) => `Client ${String(index).padStart(3, '0')}`;

before(async () => {
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  ({ key } = await context.account('Exporting Co'));
  // 12 change sets of 50 creates each, in order: created_at ascending is the names' order.
  for (let start = 1; start <= CLIENT_COUNT; start += 50) {
    const operations = Array.from({ length: 50 }, (_, offset) => ({
      method: 'POST',
      path: '/v1/clients',
      body: { name: nameOf(start + offset), email: `client${start + offset}@example.com` },
    }));
    const made = await api('POST', '/v1/change-sets', { operations });
    assert.equal(made.status, 200, made.text);
  }
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown, apiKey = key): Promise<ApiResponse> {
  return context.request(method, url, { key: apiKey, ...(body !== undefined ? { body } : {}) });
}

/** An export held open: its status and headers, and its body read as far as the test asks. */
interface OpenExport {
  status: number;
  headers: Record<string, unknown>;
  /** Reads one more chunk of the body; undefined at its end. */
  next(): Promise<string | undefined>;
  /** Reads the rest of the body; rejects if the stream is cut. */
  rest(): Promise<string>;
  /** What was read so far. */
  text: string;
}

async function openExport(url: string, apiKey = key): Promise<OpenExport> {
  const response = await context.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${apiKey}` },
    payloadAsStream: true,
  });
  const stream = response.stream() as Readable;
  const chunks = stream[Symbol.asyncIterator]();
  const opened: OpenExport = {
    status: response.statusCode,
    headers: response.headers,
    text: '',
    async next() {
      const chunk = await chunks.next();
      if (chunk.done) return undefined;
      const text = Buffer.from(chunk.value as Buffer).toString('utf8');
      opened.text += text;
      return text;
    },
    async rest() {
      while ((await opened.next()) !== undefined);
      return opened.text;
    },
  };
  return opened;
}

/**
 * Opens an export and reads its first chunk: it then waits for its reader with its snapshot held. An export that
 * has just ended gives its slot back once its work has returned, a moment after its reader saw the end: a 429
 * then is retried (briefly).
 */
async function heldExport(apiKey = key): Promise<OpenExport> {
  const url = '/v1/exports/clients?format=ndjson&sort=created_at';
  let held = await openExport(url, apiKey);
  for (let attempt = 0; held.status === 429 && attempt < 50; attempt += 1) {
    await held.rest();
    await new Promise((resolve) => setTimeout(resolve, 20));
    held = await openExport(url, apiKey);
  }
  assert.equal(held.status, 200);
  assert.ok((await held.next()) !== undefined);
  return held;
}

/** The NDJSON lines of an export's whole body, parsed. */
function objectsOf(text: string): any[] {
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'the body ends with a line break');
  return lines.map((line) => JSON.parse(line));
}

/** Every client as the list answers it now, oldest first. */
async function listedClients(): Promise<any[]> {
  const clients: any[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse = await api(
      'GET',
      `/v1/clients?sort=created_at&limit=100${cursor === null ? '' : `&cursor=${cursor}`}`,
    );
    assert.equal(page.status, 200, page.text);
    clients.push(...page.body.data);
    cursor = page.body.meta.pagination.next_cursor;
  } while (cursor !== null);
  return clients;
}

test('snapshot: writes made while an export runs are not in it; it is the state at its start', async () => {
  const atStart = await listedClients();
  assert.deepEqual(
    atStart.map((client) => client.name),
    Array.from({ length: CLIENT_COUNT }, (_, index) => nameOf(index + 1)),
  );
  const held = await heldExport();
  const readBeforeWrites = held.text.length;

  // While it waits: the last clients (which it has not read yet) are changed and deleted, and new ones made.
  const changed = atStart[CLIENT_COUNT - 1];
  const deleted = atStart[CLIENT_COUNT - 2];
  const updated = await api('PUT', `/v1/clients/${changed.id}`, { email: 'changed@example.com', name: 'Renamed' });
  assert.equal(updated.status, 200, updated.text);
  assert.equal((await api('DELETE', `/v1/clients/${deleted.id}`)).status, 200);
  const added = await api('POST', '/v1/clients', { name: 'Made meanwhile' });
  assert.equal(added.status, 201, added.text);

  const objects = objectsOf(await held.rest());
  assert.ok(readBeforeWrites < held.text.length / 2, 'the writes happened early in the export');
  assert.deepEqual(objects.at(-1), { object: 'export_end', count: 600 });
  const exported = objects.slice(0, -1);
  assert.deepEqual(exported, atStart, 'every client exactly as it was when the export began');
  assert.equal(exported[599].name, 'Client 600');
  assert.equal(exported[599].email, 'client600@example.com');
  assert.equal(exported[598].name, 'Client 599');
  assert.ok(!exported.some((client) => client.name === 'Made meanwhile' || client.name === 'Renamed'));

  // The next export sees the writes.
  const later = objectsOf((await api('GET', '/v1/exports/clients?format=ndjson&sort=created_at')).text);
  assert.deepEqual(later.at(-1), { object: 'export_end', count: 600 });
  assert.deepEqual(
    later.slice(-3, -1).map((client) => [client.name, client.email]),
    [
      ['Renamed', 'changed@example.com'],
      ['Made meanwhile', null],
    ],
  );
});

test('2 exports at once per account: a third is 429 RATE_LIMITED with Retry-After; another account is not held', async () => {
  const first = await heldExport();
  const second = await heldExport();

  const third = await openExport('/v1/exports/clients?format=csv');
  assert.equal(third.status, 429);
  assert.equal(third.headers['retry-after'], '5');
  const refused = JSON.parse(await third.rest());
  assert.equal(refused.error.code, 'RATE_LIMITED');
  assert.match(refused.error.message, /already runs 2 exports/);
  assert.ok(typeof refused.meta.request_id === 'string');

  const other = await context.account('Another Co');
  const elsewhere = await openExport('/v1/exports/clients?format=ndjson', other.key);
  assert.equal(elsewhere.status, 200);
  assert.deepEqual(objectsOf(await elsewhere.rest()), [{ object: 'export_end', count: 0 }]);

  // The first ends: its slot is free again (given back once its stream has ended).
  assert.deepEqual(objectsOf(await first.rest()).at(-1), { object: 'export_end', count: 600 });
  const again = await heldExport();
  assert.deepEqual(objectsOf(await again.rest()).at(-1), { object: 'export_end', count: 600 });
  assert.deepEqual(objectsOf(await second.rest()).at(-1), { object: 'export_end', count: 600 });
});

test('10 minutes: an export still running when the clock passes them is cut without its end, and its slot freed', async () => {
  const held = await heldExport();
  const now = await context.request('GET', '/test/clock');
  const later = new Date(Date.parse(now.body.data.now) + 10 * 60_000 + 1_000).toISOString();
  const set = await context.request('PUT', '/test/clock', { body: { now: later } });
  assert.equal(set.status, 200, set.text);

  await assert.rejects(held.rest(), 'the stream is cut, not ended');
  assert.ok(!held.text.includes('export_end'));

  // Both slots are free: two exports run at once again.
  const first = await heldExport();
  const second = await heldExport();
  assert.deepEqual(objectsOf(await first.rest()).at(-1), { object: 'export_end', count: 600 });
  assert.deepEqual(objectsOf(await second.rest()).at(-1), { object: 'export_end', count: 600 });
});

test('an export over a socket lets the event loop turn between its pages: other work runs while its 6 pages stream', async () => {
  // SQLite reads synchronously and the route's answer settles without I/O: an export that never yielded wrote
  // every page in one turn of the loop, other requests and timers waiting for it and unsent bytes piling up.
  await context.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = context.app.server.address() as AddressInfo;
  let turns = 0;
  let going = true;
  const turn = () => {
    if (!going) return;
    turns += 1;
    setImmediate(turn);
  };
  const body = await new Promise<string>((resolve, reject) => {
    const request = http.get(
      `http://127.0.0.1:${port}/v1/exports/clients?format=ndjson&sort=created_at`,
      { headers: { authorization: `Bearer ${key}` } },
      (response) => {
        assert.equal(response.statusCode, 200);
        // Counted from the first byte: the export's pages are being written from here on.
        setImmediate(turn);
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(text)).on('error', reject);
      },
    );
    request.on('error', reject);
  });
  going = false;
  assert.equal(objectsOf(body).length, CLIENT_COUNT + 1);
  assert.ok(turns >= 5, `the loop turned ${turns} times while 600 clients streamed in pages of 100`);
});
